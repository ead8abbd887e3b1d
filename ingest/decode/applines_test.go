package decode

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// calls are the model calls among evs.
func calls(evs []ingest.Event) (out []ingest.Event) {
	for _, e := range evs {
		if e.Kind == ingest.KindLLMCall {
			out = append(out, e)
		}
	}
	return out
}

// TestAppAnnouncedCalls: issue 39's lab — an app that logs "calling model"
// before each call and "model call failed" / "model call ok" after it
// (pino, structlog) was read as one call per announcement (its failure
// line, with no model, read as nothing), and with the SDK's debug lines in
// the same stream as the announcement plus every HTTP attempt: 84 calls a
// job for 63 on the wire. The announcement is the call its answer's record
// is; one no record answers is still a call.
func TestAppAnnouncedCalls(t *testing.T) {
	evs, _ := decodeAll(t,
		`{"level":30,"time":1796642058118,"job_id":"r-1","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`,
		`{"level":40,"time":1796642058233,"job_id":"r-1","attempt":1,"status":529,"request_id":"req_011CLab1","err":"529 Overloaded","msg":"model call failed"}`,
		`{"level":30,"time":1796642058243,"job_id":"r-1","attempt":2,"model":"claude-sonnet-4-5","msg":"calling model"}`,
		`{"level":30,"time":1796642058300,"job_id":"r-1","attempt":2,"request_id":"req_011CLab2","status":200,"model":"claude-sonnet-4-5","input_tokens":10,"output_tokens":5,"msg":"model call ok"}`,
		// A call whose answer the app did not log (a timeout: no status, no
		// request ID), then the job's end.
		`{"level":30,"time":1796642058400,"job_id":"r-2","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`,
		`{"level":40,"time":1796642059900,"job_id":"r-2","attempt":1,"err":"Request timed out.","msg":"model call failed"}`,
		`{"level":50,"time":1796642059901,"job_id":"r-2","outcome":"failed","msg":"job failed"}`,
		// An announcement the input ends on.
		`{"level":30,"time":1796642059902,"job_id":"r-3","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`,
	)
	cs := calls(evs)
	if len(cs) != 4 {
		t.Fatalf("%d calls, want 4 (two answered, one unanswered before the job's end, one at the input's end): %+v", len(cs), cs)
	}
	if c := cs[0]; c.JobID != "r-1" || c.Status != 529 || c.Model != "claude-sonnet-4-5" || c.Attempt != 1 || c.AttemptBy != ingest.AttemptByLine {
		t.Errorf("the failure line is the announced call, with the announcement's model: %+v", c)
	}
	if c := cs[1]; c.Status != 200 || c.InputTokens != 10 {
		t.Errorf("the ok line is the call: %+v", c)
	}
	if c := cs[2]; c.JobID != "r-2" || c.Status != ingest.StatusUnknown {
		t.Errorf("an unanswered announcement is a call of unknown status: %+v", c)
	}
	if cs[3].JobID != "r-3" {
		t.Errorf("the input's last announcement: %+v", cs[3])
	}
	for i := range evs {
		if evs[i].Kind == ingest.KindJobFailed && i < 3 {
			t.Errorf("job r-2's end came before its unanswered call: %+v", evs)
		}
	}

	// In one stream with the SDK's debug lines (x-job-id in the request
	// block), the SDK's attempts are the calls: the announcement adds none,
	// and the app's failure line names the last attempt's request ID.
	evs, _ = decodeAll(t,
		`{"level":30,"time":1796642058118,"job_id":"r-1","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`,
		`[log_aaaaaa] sending request {`,
		`  method: 'POST',`,
		`  headers: {`,
		`    'x-job-id': 'r-1',`,
		`    'x-stainless-retry-count': '0',`,
		`  }`,
		`}`,
		`[log_aaaaaa, request-id: "req_011CLabA"] post http://127.0.0.1:1/v1/messages failed with status 529 in 5ms - retrying, 2 attempts remaining`,
		`[log_bbbbbb] sending request {`,
		`  method: 'POST',`,
		`  headers: {`,
		`    'x-job-id': 'r-1',`,
		`    'x-stainless-retry-count': '1',`,
		`  },`,
		`  retryOf: 'log_aaaaaa'`,
		`}`,
		`[log_bbbbbb, retryOf: log_aaaaaa, request-id: "req_011CLabB"] post http://127.0.0.1:1/v1/messages failed with status 529 in 3ms - error; no more retries left`,
		`{"level":40,"time":1796642058233,"job_id":"r-1","attempt":1,"status":529,"request_id":"req_011CLabB","err":"529 Overloaded","msg":"model call failed"}`,
	)
	cs = calls(evs)
	// The app's failure line is a record of the SDK's last attempt (one
	// request ID): correlate bills it once. The announcement is no call.
	if len(cs) != 3 || cs[0].AttemptBy != ingest.AttemptBySDK || cs[2].ResponseID != cs[1].ResponseID {
		t.Fatalf("want the SDK's two attempts and the app's record of the second: %+v", cs)
	}
}

// TestStructlogEventMessage: issue 39's lab — structlog (Python) writes
// its message under "event"; the whole log read as unknown events, and
// report exited 2. A sentence there is the message; an event name is
// still an event name, and an unknown one is still skipped.
func TestStructlogEventMessage(t *testing.T) {
	evs, rs := decodeAll(t,
		`{"job_id": "doc-000", "attempt": 1, "status": 200, "request_id": "req_011CLab2", "model": "claude-sonnet-4-5", "input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 40, "event": "model call ok", "level": "info", "timestamp": "2026-12-07T11:14:18.418000Z"}`,
		`{"job_id": "doc-000", "outcome": "succeeded", "event": "job finished", "level": "info", "timestamp": "2026-12-07T11:14:18.518000Z"}`,
		`{"event": "cache_warmup", "model": "claude-sonnet-4-5"}`,
	)
	if len(evs) != 2 || evs[0].Kind != ingest.KindLLMCall || evs[1].Kind != ingest.KindJobSucceeded {
		t.Fatalf("%v: %+v", rs, evs)
	}
	if e := evs[0]; e.CacheReadTokens != 300 || e.CacheCreateTokens != 40 || e.InputTokens != 1000 {
		t.Errorf("Anthropic's usage names at the top level: %+v", e)
	}
	if rs[2] != ingest.SkipUnknownEvent {
		t.Errorf("an unknown event name: %v", rs[2])
	}
}

// TestCamelCaseTokens: issue 39's lab — an OpenAI app's pino lines
// (promptTokens, completionTokens, inputTokens, outputTokens,
// cachedTokens) read as $0: only promptTokens was read, and as input
// without the cache. OpenAI's prompt and Responses input tokens hold the
// cached ones.
func TestCamelCaseTokens(t *testing.T) {
	for _, c := range []struct {
		line               string
		in, out, cacheRead int64
	}{
		{`{"jobId":"d","requestId":"req_abc12345","model":"gpt-4o-mini","status":200,"promptTokens":1200,"completionTokens":300,"cachedTokens":1024}`, 176, 300, 1024},
		{`{"jobId":"d","model":"gpt-4o-mini","status":200,"inputTokens":400,"outputTokens":20,"cachedTokens":100}`, 300, 20, 100},
		{`{"jobId":"d","model":"gpt-4o-mini","usage":{"promptTokens":50,"completionTokens":7,"promptTokensDetails":{"cachedTokens":10}}}`, 40, 7, 10},
		{`{"jobId":"d","model":"gpt-4o-mini","usage":{"input_tokens":90,"output_tokens":9,"input_tokens_details":{"cached_tokens":30}}}`, 60, 9, 30},
		{`{"jobId":"d","model":"claude-sonnet-4-5","usage":{"input_tokens":90,"output_tokens":9,"cache_read_input_tokens":30}}`, 90, 9, 30},
	} {
		p := NewParser()
		var ev ingest.Event
		if r := p.ParseLine([]byte(c.line), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %v", c.line, r)
		}
		if ev.InputTokens != c.in || ev.OutputTokens != c.out || ev.CacheReadTokens != c.cacheRead {
			t.Errorf("%s: in %d out %d cache read %d, want %d %d %d", c.line, ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, c.in, c.out, c.cacheRead)
		}
	}
}

// TestNodeDebugParsedUsage: issue 39's lab — the SDK's debug output alone
// counted every attempt of the Anthropic app and billed $0: the usage is in
// the "response parsed" block after the response line (util.inspect's bare
// numbers), and the model in the request block's one-line body. The block's
// usage is a usage growth of the attempt its log ID answered, priced as its
// model.
func TestNodeDebugParsedUsage(t *testing.T) {
	evs, _ := decodeAll(t,
		`[log_b2a93e] sending request {`,
		`  method: 'POST',`,
		`  url: 'http://127.0.0.1:1/v1/messages',`,
		`  options: {`,
		`    method: 'post',`,
		`    path: '/v1/messages',`,
		`    body: { model: 'claude-sonnet-4-5', max_tokens: 2048, messages: [Array] },`,
		`  },`,
		`  headers: {`,
		`    'x-job-id': 'report-4100',`,
		`    'x-stainless-retry-count': '0',`,
		`  }`,
		`}`,
		`[log_b2a93e, request-id: "req_011CLab5ec72d41dbbf09ca"] post http://127.0.0.1:1/v1/messages succeeded with status 200 in 100ms`,
		`[log_b2a93e] response parsed {`,
		`  url: 'http://127.0.0.1:1/v1/messages',`,
		`  status: 200,`,
		`  body: {`,
		`    id: 'msg_011CLab5ec72d41dbbf09ca',`,
		`    usage: {`,
		`      cache_creation: [Object],`,
		`      cache_creation_input_tokens: 1024,`,
		`      cache_read_input_tokens: 7,`,
		`      input_tokens: 545,`,
		`      output_tokens: 262,`,
		`    }`,
		`  },`,
		`  durationMs: 101`,
		`}`,
	)
	if len(evs) != 2 || evs[0].Kind != ingest.KindLLMCall || evs[1].Kind != ingest.KindUsageGrowth {
		t.Fatalf("want the attempt and its usage: %+v", evs)
	}
	call, u := evs[0], evs[1]
	if call.Model != "claude-sonnet-4-5" || call.JobID != "report-4100" || u.ResponseID != call.ResponseID || u.JobID != call.JobID || u.Model != call.Model {
		t.Errorf("the usage is the attempt's: call %+v, usage %+v", call, u)
	}
	if u.InputTokens != 545 || u.OutputTokens != 262 || u.CacheCreateTokens != 1024 || u.CacheReadTokens != 7 {
		t.Errorf("usage read: %+v", u)
	}
}

// TestAppAnnouncedPythonSDK: issue 39's lab — a Python asyncio app's
// structlog lines with the official SDK's debug lines in one stream (2>&1):
// the announcement, the SDK's three attempts, the app's failure line. The
// SDK's attempts are the calls; the app's line is the last of them as the
// app saw it, never a fourth.
func TestAppAnnouncedPythonSDK(t *testing.T) {
	evs, _ := decodeAll(t, strings.Split(strings.TrimSpace(pyStream), "\n")...)
	seen := map[string]bool{}
	n := 0
	for _, c := range calls(evs) {
		if c.ResponseID != "" && seen[c.ResponseID] {
			continue // the same HTTP attempt again: correlate bills it once
		}
		seen[c.ResponseID] = c.ResponseID != ""
		n++
		if c.JobID != "grade-000" {
			t.Errorf("a call outside the job: %+v", c)
		}
	}
	if n != 3 {
		t.Fatalf("%d calls, want the SDK's 3: %+v", n, evs)
	}
}

const pyStream = `
{"job_id": "grade-000", "attempt": 1, "model": "claude-sonnet-4-5", "event": "calling model", "level": "info", "timestamp": "2026-12-07T11:25:11.792772Z"}
[2026-12-07 11:25:11 - anthropic._base_client:515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024, 'messages': [{'role': 'user', 'content': 'Grade grade-000.'}]}}
[2026-12-07 11:25:11 - anthropic._base_client:2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:34205/v1/messages
[2026-12-07 11:25:11 - httpx._client:1734 - DEBUG] HTTP Request: POST http://127.0.0.1:34205/v1/messages "HTTP/1.1 529 status code 529"
[2026-12-07 11:25:11 - anthropic._base_client:2063 - DEBUG] HTTP Response: POST http://127.0.0.1:34205/v1/messages "529 status code 529" Headers({'anthropic-organization-id': '00000000-0000-4000-8000-00000000lab0', 'anthropic-ratelimit-input-tokens-limit': '2000000', 'anthropic-ratelimit-input-tokens-remaining': '1999000', 'anth
[2026-12-07 11:25:11 - anthropic._base_client:2071 - DEBUG] request_id: req_011CLabfd893a5c3e542149
[2026-12-07 11:25:11 - anthropic._base_client:871 - DEBUG] Retrying due to status code 529
[2026-12-07 11:25:11 - anthropic._base_client:2082 - DEBUG] 2 retries left
[2026-12-07 11:25:11 - anthropic._base_client:2085 - INFO] Retrying request to /v1/messages in 0.005000 seconds
[2026-12-07 11:25:11 - anthropic._base_client:515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024, 'messages': [{'role': 'user', 'content': 'Grade grade-000.'}]}}
[2026-12-07 11:25:11 - anthropic._base_client:2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:34205/v1/messages
[2026-12-07 11:25:11 - httpx._client:1734 - DEBUG] HTTP Request: POST http://127.0.0.1:34205/v1/messages "HTTP/1.1 529 status code 529"
[2026-12-07 11:25:11 - anthropic._base_client:2063 - DEBUG] HTTP Response: POST http://127.0.0.1:34205/v1/messages "529 status code 529" Headers({'anthropic-organization-id': '00000000-0000-4000-8000-00000000lab0', 'anthropic-ratelimit-input-tokens-limit': '2000000', 'anthropic-ratelimit-input-tokens-remaining': '1999000', 'anth
[2026-12-07 11:25:11 - anthropic._base_client:2071 - DEBUG] request_id: req_011CLabfd89395c3e541f96
[2026-12-07 11:25:11 - anthropic._base_client:871 - DEBUG] Retrying due to status code 529
[2026-12-07 11:25:11 - anthropic._base_client:2080 - DEBUG] 1 retry left
[2026-12-07 11:25:11 - anthropic._base_client:2085 - INFO] Retrying request to /v1/messages in 0.005000 seconds
[2026-12-07 11:25:11 - anthropic._base_client:515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024, 'messages': [{'role': 'user', 'content': 'Grade grade-000.'}]}}
[2026-12-07 11:25:11 - anthropic._base_client:2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:34205/v1/messages
[2026-12-07 11:25:11 - httpx._client:1734 - DEBUG] HTTP Request: POST http://127.0.0.1:34205/v1/messages "HTTP/1.1 529 status code 529"
[2026-12-07 11:25:11 - anthropic._base_client:2063 - DEBUG] HTTP Response: POST http://127.0.0.1:34205/v1/messages "529 status code 529" Headers({'anthropic-organization-id': '00000000-0000-4000-8000-00000000lab0', 'anthropic-ratelimit-input-tokens-limit': '2000000', 'anthropic-ratelimit-input-tokens-remaining': '1999000', 'anth
[2026-12-07 11:25:11 - anthropic._base_client:2071 - DEBUG] request_id: req_011CLabfd89385c3e541de3
{"job_id": "grade-000", "attempt": 1, "status": 529, "request_id": "req_011CLabfd89385c3e541de3", "event": "model call failed", "level": "warning", "timestamp": "2026-12-07T11:25:11.825759Z"}
`

// TestAppAnnouncedTimeoutThenAnswer: the lab's second run — a call whose
// first attempt timed out (the SDK's line names no request ID) and whose
// retry was answered: the app's "model call ok" line names the retry's
// request ID and stays the record of that attempt (correlate meets the two
// by it), never a usage without an ID billed on top of the SDK's parsed
// usage (spend twice the wire's).
func TestAppAnnouncedTimeoutThenAnswer(t *testing.T) {
	evs, _ := decodeAll(t,
		`{"level":30,"time":1796642058118,"job_id":"r-1","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`,
		`[log_aaaaaa] sending request {`,
		`  headers: {`,
		`    'x-job-id': 'r-1',`,
		`    'x-stainless-retry-count': '0',`,
		`  }`,
		`}`,
		`[log_aaaaaa] connection timed out - retrying, 2 attempts remaining`,
		`[log_bbbbbb] sending request {`,
		`  headers: {`,
		`    'x-job-id': 'r-1',`,
		`    'x-stainless-retry-count': '1',`,
		`  },`,
		`  retryOf: 'log_aaaaaa'`,
		`}`,
		`[log_bbbbbb, retryOf: log_aaaaaa, request-id: "req_011CLabB"] post http://127.0.0.1:1/v1/messages succeeded with status 200 in 3ms`,
		`{"level":30,"time":1796642059900,"job_id":"r-1","attempt":1,"request_id":"req_011CLabB","status":200,"model":"claude-sonnet-4-5","input_tokens":10,"output_tokens":5,"msg":"model call ok"}`,
	)
	cs := calls(evs)
	if len(cs) != 3 || cs[2].ResponseID == "" || cs[2].ResponseID != cs[1].ResponseID {
		t.Fatalf("want the SDK's two attempts and the app's record of the second, by its request ID: %+v", evs)
	}
	for _, e := range evs {
		if e.Kind == ingest.KindUsageGrowth && e.ResponseID == "" {
			t.Errorf("a usage with no request ID: billed beside the attempt's own: %+v", e)
		}
	}
}
