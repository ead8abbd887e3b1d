package scenario

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// FormatFixtures are sample files of each non-canonical format, written
// from the projects' documented schemas. Each covers successes, retryable
// and terminal failures, and retries.
var FormatFixtures = map[string]func() string{
	"litellm-payload.jsonl":   liteLLMPayloads,
	"litellm-spendlogs.jsonl": liteLLMSpendLogs,
	"python-sdk-mixed.log":    pythonSDKMixed,
	"openai-python.log":       openAIPython,
	"node-sdk.log":            nodeSDK,
	"openai-batch.jsonl":      openAIBatch,
	"anthropic-batch.jsonl":   anthropicBatch,
	"pino-nested.jsonl":       pinoNested,
}

var fixtureStart = time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)

func jsonLine(b *strings.Builder, v any) {
	out, _ := json.Marshal(v)
	b.Write(out)
	b.WriteByte('\n')
}

// liteLLMPayloads: StandardLoggingPayload objects from LiteLLM's logging
// callbacks: 32 jobs, each call retried by the router on 429 (with
// Retry-After in the provider headers) and some failing with a 400.
func liteLLMPayloads() string {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(11, 11))
	at := fixtureStart
	for i := range 32 {
		job := fmt.Sprintf("digest-%03d", i)
		trace := fmt.Sprintf("trace-%03d", i)
		statuses := []string{"200"}
		switch i % 5 {
		case 1:
			statuses = []string{"429", "429", "200"}
		case 3:
			statuses = []string{"400"}
		case 4:
			statuses = []string{"500", "200"}
		}
		for k, st := range statuses {
			start := at.Add(time.Duration(k) * 3 * time.Second)
			end := start.Add(time.Duration(800+rng.IntN(1500)) * time.Millisecond)
			p := map[string]any{
				"id": fmt.Sprintf("chatcmpl-%03d-%d", i, k), "trace_id": trace, "call_type": "acompletion",
				"model": "gpt-4o-mini", "custom_llm_provider": "openai", "model_group": "gpt-4o-mini",
				"startTime": float64(start.UnixMicro()) / 1e6, "endTime": float64(end.UnixMicro()) / 1e6,
				"metadata": map[string]any{"user_api_key_hash": "88dc28", "user_api_key_team_id": "team-ops",
					"spend_logs_metadata": map[string]any{"job_id": job, "job_type": "digest"}},
			}
			if k%2 == 1 { // the other timestamp form LiteLLM writes: no zone, UTC
				p["startTime"] = start.Format("2006-01-02 15:04:05.000000")
				p["endTime"] = end.Format("2006-01-02 15:04:05.000000")
			}
			headers := map[string]any{"x_ratelimit_remaining_tokens": 150000 - i*1000, "x_ratelimit_remaining_requests": 499}
			if st == "200" {
				p["status"] = "success"
				p["prompt_tokens"], p["completion_tokens"] = 1200+i, 300
				p["response_cost"] = 0.00015*1.2 + 0.0006*0.3 + 0.00022500000000000002*float64(i%2)/1000
			} else {
				p["status"] = "failure"
				p["response_cost"] = 0.0
				p["error_information"] = map[string]any{"error_code": st, "error_class": map[string]string{"429": "RateLimitError", "400": "BadRequestError", "500": "InternalServerError"}[st]}
				if st == "429" {
					headers["retry_after"] = "2"
				}
			}
			p["hidden_params"] = map[string]any{"additional_headers": headers}
			jsonLine(&b, p)
		}
		at = at.Add(20 * time.Second)
	}
	return b.String()
}

// liteLLMSpendLogs: SpendLogs rows, metadata as a JSON string with the
// router's attempted_retries.
func liteLLMSpendLogs() string {
	var b strings.Builder
	for i := range 60 {
		start := fixtureStart.Add(time.Duration(i) * 30 * time.Second)
		retries := []int{0, 0, 2, 0, 1, 3}[i%6]
		meta, _ := json.Marshal(map[string]any{
			"usage_object":      map[string]any{"prompt_tokens": 2000, "completion_tokens": 400, "prompt_tokens_details": map[string]any{"cached_tokens": 1024}},
			"attempted_retries": retries, "max_retries": 3,
			"spend_logs_metadata": map[string]any{"job_type": "summarize"},
		})
		status := "success"
		if i%10 == 7 {
			status = "failure"
		}
		jsonLine(&b, map[string]any{
			"request_id": fmt.Sprintf("req-%04d", i), "session_id": fmt.Sprintf("sess-%02d", i/3), "call_type": "acompletion",
			"model": "claude-haiku-4-5", "custom_llm_provider": "anthropic", "spend": 0.0011200000000000001 + float64(i%3)*0.0001,
			"prompt_tokens": 2000, "completion_tokens": 400, "status": status,
			"startTime": start.Format("2006-01-02 15:04:05.000000"), "endTime": start.Add(2 * time.Second).Format("2006-01-02 15:04:05.000000"),
			"metadata": string(meta),
		})
	}
	return b.String()
}

// pythonSDKMixed: an app's JSON lines interleaved with the Anthropic
// Python SDK's own log lines (standard logging prefix), as one file.
func pythonSDKMixed() string {
	var b strings.Builder
	at := fixtureStart
	ts := func() string { return at.Format("2006-01-02 15:04:05,000") }
	for i := range 12 {
		job := fmt.Sprintf("report:%02d", i)
		jsonLine(&b, map[string]any{"ts": at.Format(time.RFC3339Nano), "event": "job_started", "job_id": job, "job_type": "report", "model": "claude-sonnet-4-6", "provider": "anthropic"})
		at = at.Add(100 * time.Millisecond)
		var statuses []string
		switch i % 4 {
		case 0:
			statuses = []string{"200 OK"}
		case 1:
			statuses = []string{"529 ", "529 ", "200 OK"}
		case 2:
			statuses = []string{"429 Too Many Requests", "200 OK"}
		case 3:
			statuses = []string{"400 Bad Request"}
		}
		for k, st := range statuses {
			if k > 0 {
				fmt.Fprintf(&b, "[%s - anthropic._base_client:1046 - INFO] Retrying request to /v1/messages in 0.%06d seconds\n", ts(), 400000+k*100000)
				at = at.Add(time.Duration(400+k*100) * time.Millisecond)
			}
			at = at.Add(2 * time.Second)
			fmt.Fprintf(&b, "[%s - httpx:1025 - INFO] HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 %s\"\n", ts(), strings.TrimSpace(st))
		}
		outcome := "job_succeeded"
		if i%4 == 3 {
			outcome = "job_failed"
		}
		jsonLine(&b, map[string]any{"ts": at.Format(time.RFC3339Nano), "event": outcome, "job_id": job, "job_type": "report"})
		at = at.Add(5 * time.Second)
	}
	return b.String()
}

// openAIPython: an app using openai-python (logging.basicConfig with a
// time prefix), as in public bug reports: httpx logs every response with
// the full URL (POST https://api.openai.com/v1/chat/completions), while
// openai._base_client logs its retries with the path relative to the base
// URL (/chat/completions); a connection error or timeout gets a retry line
// and no response line; the app writes plain text between them and one
// JSON line per record with its job.
func openAIPython() string {
	var b strings.Builder
	at := fixtureStart
	ts := func() string { return at.Format("2006-01-02 15:04:05,000") }
	httpx := func(status string) {
		fmt.Fprintf(&b, "%s [INFO] httpx: HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 %s\"\n", ts(), status)
	}
	retry := func(wait float64) {
		at = at.Add(2 * time.Millisecond)
		fmt.Fprintf(&b, "%s [INFO] openai._base_client: Retrying request to /chat/completions in %f seconds\n", ts(), wait)
		at = at.Add(time.Duration(wait * float64(time.Second)))
	}
	for i := range 10 {
		job := fmt.Sprintf("enrich:%03d", i)
		// The app's own JSON line names the job; nothing in these logs
		// names the model, so the calls are priced as unknown.
		jsonLine(&b, map[string]any{"ts": at.Format(time.RFC3339Nano), "level": "info", "msg": "record started", "job_id": job, "job_type": "enrich"})
		fmt.Fprintf(&b, "%s [INFO] app: enriching record %d\n", ts(), i)
		at = at.Add(800 * time.Millisecond)
		switch i % 5 {
		case 0, 3: // one clean call
			httpx("200 OK")
		case 1: // 429, 429, then 200: one request, three attempts
			httpx("429 Too Many Requests")
			retry(0.885814)
			httpx("429 Too Many Requests")
			retry(1.730203)
			httpx("200 OK")
		case 2: // a timeout (no response line), then 200
			at = at.Add(10 * time.Second)
			retry(0.432761)
			httpx("200 OK")
		case 4: // retries exhausted (max_retries=2): three 429s, then the app gives up
			httpx("429 Too Many Requests")
			retry(0.459660)
			httpx("429 Too Many Requests")
			retry(0.951187)
			httpx("429 Too Many Requests")
			fmt.Fprintf(&b, "%s [ERROR] app: record %d failed: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o-mini', 'type': 'requests', 'code': 'rate_limit_exceeded'}}\n", ts(), i)
		}
		at = at.Add(3 * time.Second)
	}
	return b.String()
}

// nodeSDK: the Node SDK's debug log. A chain of log IDs linked by retryOf
// is one operation.
func nodeSDK() string {
	var b strings.Builder
	at := fixtureStart
	id := 0x100000
	next := func() string { id += 0x1f3; return fmt.Sprintf("log_%06x", id) }
	for i := range 30 {
		var chain []int
		switch i % 4 {
		case 0:
			chain = []int{529, 429, 200}
		case 1:
			chain = []int{200}
		case 2:
			chain = []int{500, 200}
		case 3:
			chain = []int{401}
		}
		var root, prev string
		for k, st := range chain {
			cur := next()
			lat := 30 + 10*k
			at = at.Add(time.Duration(lat) * time.Millisecond)
			ref := fmt.Sprintf(`request-id: "req_%d_%d"`, i, k)
			if prev != "" {
				ref = fmt.Sprintf(`retryOf: %s, request-id: "req_%d_%d"`, root, i, k)
			}
			var tail string
			switch {
			case st == 200:
				tail = fmt.Sprintf("succeeded with status %d in %dms", st, lat)
			case st == 401 || k == len(chain)-1:
				tail = fmt.Sprintf("failed with status %d in %dms - error; no more retries left", st, lat)
			default:
				tail = fmt.Sprintf("failed with status %d in %dms - retrying, %d attempts remaining", st, lat, 2-k)
			}
			fmt.Fprintf(&b, "%s anthropic:debug [%s, %s] post https://api.anthropic.com/v1/messages %s\n", at.Format(time.RFC3339Nano), cur, ref, tail)
			if root == "" {
				root = cur
			}
			prev = cur
			at = at.Add(time.Duration(500*(k+1)) * time.Millisecond)
		}
		at = at.Add(10 * time.Second)
	}
	return b.String()
}

func openAIBatch() string {
	var b strings.Builder
	for i := range 60 {
		line := map[string]any{"id": fmt.Sprintf("batch_req_%04d", i), "custom_id": fmt.Sprintf("seo-ref-%04d", i)}
		switch {
		case i%15 == 7:
			line["response"] = map[string]any{"status_code": 400, "request_id": fmt.Sprintf("r%d", i),
				"body": map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "invalid_value", "message": "bad input"}}}
			line["error"] = nil
		case i%20 == 11:
			line["response"] = nil
			line["error"] = map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}
		default:
			line["response"] = map[string]any{"status_code": 200, "request_id": fmt.Sprintf("r%d", i), "body": map[string]any{
				"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": fixtureStart.Unix() + int64(i*7), "model": "gpt-4o-mini",
				"usage": map[string]any{"prompt_tokens": 1500, "completion_tokens": 500, "prompt_tokens_details": map[string]any{"cached_tokens": 0}}}}
			line["error"] = nil
		}
		jsonLine(&b, line)
	}
	return b.String()
}

func anthropicBatch() string {
	var b strings.Builder
	for i := range 60 {
		res := map[string]any{}
		switch {
		case i%12 == 5:
			res["type"] = "errored"
			res["error"] = map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "max_tokens: Field required"}}
		case i%12 == 9:
			res["type"] = "errored"
			res["error"] = map[string]any{"type": "overloaded_error", "message": "Overloaded"} // the flat form
		case i%30 == 17:
			res["type"] = "expired"
		case i%30 == 23:
			res["type"] = "canceled"
		default:
			res["type"] = "succeeded"
			res["message"] = map[string]any{"id": fmt.Sprintf("msg_%04d", i), "type": "message", "model": "claude-sonnet-4-6",
				"usage": map[string]any{"input_tokens": 1800, "output_tokens": 600, "cache_read_input_tokens": 4000, "cache_creation_input_tokens": 0}}
		}
		jsonLine(&b, map[string]any{"custom_id": fmt.Sprintf("integrity-check-%04d", i), "result": res})
	}
	return b.String()
}

// pinoNested: a pino logger's lines with the call nested under app keys
// nobody told burnrate about; read with --map.
func pinoNested() string {
	var b strings.Builder
	at := fixtureStart
	for i := range 60 {
		status := []int{200, 200, 429, 200, 503, 200}[i%6]
		attempt := 1
		if i%6 == 3 || i%6 == 5 {
			attempt = 2
		}
		jsonLine(&b, map[string]any{
			"level": 30, "time": at.UnixMilli(), "pid": 4242, "hostname": "worker-3", "msg": "llm call finished",
			"ctx": map[string]any{"job": map[string]any{"id": fmt.Sprintf("ticket-%03d", i/2), "kind": "triage"}, "try": attempt},
			"llm": map[string]any{"model": "claude-haiku-4-5", "vendor": "anthropic", "usage": map[string]any{"in": 900, "out": 120}},
			"res": map[string]any{"statusCode": status, "ms": 640},
		})
		at = at.Add(1500 * time.Millisecond)
	}
	return b.String()
}
