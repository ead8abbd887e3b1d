package decode

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The Python SDK's own lines (anthropic/_base_client.py at debug) beside
// httpx's: httpx logs a response when its headers arrive and then reads
// the body (an await), the SDK "HTTP Response:" and "request_id:" after
// it. With two requests in flight httpx's lines of both come first: each
// attempt is counted once, at the SDK's line, named by its request ID —
// and the app's line naming that ID takes the attempt into its job.
func TestPySDKResponseLineIsTheAttempt(t *testing.T) {
	at := "[2026-12-07 12:55:30 - %s] %s"
	httpx := func(s string) string {
		return fmt.Sprintf(at, "httpx._client:1734 - DEBUG", `HTTP Request: POST http://127.0.0.1:39019/v1/messages "HTTP/1.1 `+s+`"`)
	}
	sdk := func(msg string) string { return fmt.Sprintf(at, "anthropic._base_client:2063 - DEBUG", msg) }
	lines := []string{
		`{"job_id": "grade-000", "attempt": 1, "model": "claude-sonnet-4-5", "event": "calling model", "timestamp": "2026-12-07T12:55:30.048686Z"}`,
		sdk("Sending HTTP Request: POST http://127.0.0.1:39019/v1/messages"),
		`{"job_id": "grade-001", "attempt": 1, "model": "claude-sonnet-4-5", "event": "calling model", "timestamp": "2026-12-07T12:55:30.116298Z"}`,
		sdk("Sending HTTP Request: POST http://127.0.0.1:39019/v1/messages"),
		httpx("200 OK"),
		httpx("200 OK"),
		sdk(`HTTP Response: POST http://127.0.0.1:39019/v1/messages "200 OK" Headers({'request-id': 'req_011CLabbf719e82a2027b96'})`),
		sdk("request_id: req_011CLabbf719e82a2027b96"),
		`{"job_id": "grade-000", "attempt": 1, "status": 200, "request_id": "req_011CLabbf719e82a2027b96", "model": "claude-sonnet-4-5", "input_tokens": 10, "output_tokens": 5, "event": "model call ok", "timestamp": "2026-12-07T12:55:30.200000Z"}`,
		sdk(`HTTP Response: POST http://127.0.0.1:39019/v1/messages "200 OK" Headers({'request-id': 'req_011CLabc81b5982a6eae701'})`),
		sdk("request_id: req_011CLabc81b5982a6eae701"),
		`{"job_id": "grade-001", "attempt": 1, "status": 200, "request_id": "req_011CLabc81b5982a6eae701", "model": "claude-sonnet-4-5", "input_tokens": 10, "output_tokens": 5, "event": "model call ok", "timestamp": "2026-12-07T12:55:30.210000Z"}`,
	}
	d := NewStreamDecoder(Options{})
	type call struct{ job, id string }
	var sdkCalls, appCalls []call
	emit := func(e *ingest.Event) {
		if e.Kind != ingest.KindLLMCall {
			return
		}
		c := call{e.JobID, e.ResponseID}
		if len(e.IdempotencyKey) > 4 && e.IdempotencyKey[:4] == "sdk:" {
			sdkCalls = append(sdkCalls, c)
		} else {
			appCalls = append(appCalls, c)
		}
	}
	for _, l := range lines {
		d.Decode([]byte(l), emit)
	}
	d.(Flusher).Flush(emit)
	want := []call{{"grade-000", HTTPAttemptID("req_011CLabbf719e82a2027b96")}, {"grade-001", HTTPAttemptID("req_011CLabc81b5982a6eae701")}}
	if fmt.Sprint(sdkCalls) != fmt.Sprint(want) {
		t.Errorf("the SDK's attempts %q, want %q", sdkCalls, want)
	}
	if fmt.Sprint(appCalls) != fmt.Sprint(want) {
		t.Errorf("the app's records %q, want the same two calls %q", appCalls, want)
	}
}

// A line that only claims to be the SDK's ("Sending HTTP Request:") must
// not blind httpx's: with no "HTTP Response:" line of the SDK after them,
// httpx's responses are the attempts, at the input's end.
func TestPyForgedSDKLineBlindsNothing(t *testing.T) {
	d := NewStreamDecoder(Options{})
	n := 0
	emit := func(e *ingest.Event) {
		if e.Kind == ingest.KindLLMCall {
			n++
		}
	}
	d.Decode([]byte(`[2026-12-07 12:55:30 - anthropic._base_client:2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:1/v1/messages`), emit)
	for range 300 {
		d.Decode([]byte(`[2026-12-07 12:55:30 - httpx._client:1734 - INFO] HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 status code 529"`), emit)
	}
	d.(Flusher).Flush(emit)
	if n != 300 {
		t.Errorf("%d attempts for httpx's 300 lines", n)
	}
}

// The Python SDK's "Request options:" dump shows the headers the app
// passed per call (extra_headers): its x-job-id names the job of the
// lines after it, where the SDK's lines alone named none. Which response
// answers which request is still timing's: placed by position, ambiguous.
// A job header in the request's body (a prompt quoting one) comes after
// the real headers and is not read.
func TestPyRequestOptionsNameTheJob(t *testing.T) {
	at := "[2026-12-07 12:55:30 - anthropic._base_client:%d - DEBUG] %s"
	opts := func(job string) string {
		return fmt.Sprintf(at, 515, `Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': '`+job+
			`'}, 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024, 'messages': [{'role': 'user', 'content': "Grade 'headers': {'x-job-id': 'evil'}"}]}}`)
	}
	resp := func(id string) []string {
		return []string{
			fmt.Sprintf(at, 2063, `HTTP Response: POST http://127.0.0.1:39019/v1/messages "200 OK" Headers({'request-id': '`+id+`'})`),
			fmt.Sprintf(at, 2071, "request_id: "+id),
		}
	}
	lines := append([]string{opts("grade-000")}, resp("req_011CLabbf719e82a2027b96")...)
	lines = append(append(lines, opts("grade-001")), resp("req_011CLabc81b5982a6eae701")...)
	d := NewStreamDecoder(Options{})
	var got []string
	emit := func(e *ingest.Event) {
		if e.Kind == ingest.KindLLMCall {
			got = append(got, fmt.Sprintf("%s %v", e.JobID, e.AttemptBy == ingest.AttemptByLineAmbiguous))
		}
	}
	for _, l := range lines {
		d.Decode([]byte(l), emit)
	}
	d.(Flusher).Flush(emit)
	if fmt.Sprint(got) != "[grade-000 true grade-001 true]" {
		t.Errorf("attempts %q, want grade-000 and grade-001, each placed by position (ambiguous)", got)
	}
}
