package decode

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

const pyBase = `[2026-12-07 21:18:45 - anthropic._base_client:`

// pyLines is the lab's recorded shape (seed 001, concurrency 4): job
// grade-000's third 529, given up on (no "Retrying" line after it), then
// grade-004's first attempt reset before any response — "Encountered
// Exception", its traceback, the retry announced — and the retry answered.
var pyLines = []string{
	pyBase + `515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': 'grade-000'}, 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024}}`,
	pyBase + `2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:44179/v1/messages`,
	`[2026-12-07 21:18:45 - httpx._client:1734 - DEBUG] HTTP Request: POST http://127.0.0.1:44179/v1/messages "HTTP/1.1 529 status code 529"`,
	pyBase + `2063 - DEBUG] HTTP Response: POST http://127.0.0.1:44179/v1/messages "529 status code 529" Headers({'request-id': 'req_011CLabbf719c82a2027830'})`,
	pyBase + `2071 - DEBUG] request_id: req_011CLabbf719c82a2027830`,
	pyBase + `515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': 'grade-004'}, 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024}}`,
	pyBase + `2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:44179/v1/messages`,
	pyBase + `2060 - DEBUG] Encountered Exception`,
	`Traceback (most recent call last):`,
	`  File "/usr/lib/python3.11/asyncio/selector_events.py", line 995, in _read_ready__data_received`,
	`ConnectionResetError: [Errno 104] Connection reset by peer`,
	`httpx.ReadError`,
	pyBase + `2082 - DEBUG] 2 retries left`,
	pyBase + `2085 - INFO] Retrying request to /v1/messages in 0.385305 seconds`,
	`[2026-12-07 21:18:46 - anthropic._base_client:515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': 'grade-004'}, 'json_data': {'model': 'claude-sonnet-4-5', 'max_tokens': 1024}}`,
	`[2026-12-07 21:18:46 - anthropic._base_client:2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:44179/v1/messages`,
	`[2026-12-07 21:18:46 - httpx._client:1734 - DEBUG] HTTP Request: POST http://127.0.0.1:44179/v1/messages "HTTP/1.1 200 OK"`,
	`[2026-12-07 21:18:46 - anthropic._base_client:2063 - DEBUG] HTTP Response: POST http://127.0.0.1:44179/v1/messages "200 OK" Headers({'request-id': 'req_011CLabe217cb82b5a2e4b5'})`,
	`[2026-12-07 21:18:46 - anthropic._base_client:2071 - DEBUG] request_id: req_011CLabe217cb82b5a2e4b5`,
}

// TestPythonResetRetriedAfterAGivenUpFailure: the lab's matrix — the
// Python SDK's lines counted 697 calls for 711 on the wire (seeds 0–7):
// an attempt reset before any response is counted at its "Retrying"
// line, but when a failed response another chain gave up on was still
// waiting, the line was read as that response's retry, and the reset
// attempt was lost. After "Encountered …" the attempt retried is the one
// that got no response.
func TestPythonResetRetriedAfterAGivenUpFailure(t *testing.T) {
	evs, _ := decodeAll(t, pyLines...)
	cs := calls(evs)
	var statuses []int16
	for _, c := range cs {
		statuses = append(statuses, c.Status)
	}
	if len(cs) != 3 || cs[1].Status != 0 || cs[1].ErrorType != "connection_error" {
		t.Fatalf("calls with statuses %v, want the 529, the reset (0, connection_error) and the 200: %+v", statuses, cs)
	}
}

// TestPythonLastAttemptTimedOut: the SDK's last attempt timed out — it
// logs "Encountered httpx.TimeoutException", then "Raising timeout error"
// and retries no more — was no call at all: nothing after it announced a
// retry. It is counted at the SDK's next line (or the input's end), a
// call of no status, a timeout.
func TestPythonLastAttemptTimedOut(t *testing.T) {
	timedOut := []string{
		pyBase + `515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': 'grade-007'}, 'json_data': {'model': 'claude-sonnet-4-5'}}`,
		pyBase + `2044 - DEBUG] Sending HTTP Request: POST http://127.0.0.1:44179/v1/messages`,
		pyBase + `2053 - DEBUG] Encountered httpx.TimeoutException`,
		`Traceback (most recent call last):`,
		`httpx.ReadTimeout`,
	}
	for name, tail := range map[string][]string{
		"raising":   {pyBase + `2091 - DEBUG] Raising timeout error`},
		"next call": {pyBase + `515 - DEBUG] Request options: {'method': 'post', 'url': '/v1/messages', 'headers': {'x-job-id': 'grade-008'}, 'json_data': {}}`},
		"the end":   nil,
	} {
		evs, _ := decodeAll(t, append(append([]string{}, timedOut...), tail...)...)
		cs := calls(evs)
		if len(cs) != 1 || cs[0].Status != 0 || cs[0].ErrorType != "timeout" || cs[0].JobID != "grade-007" {
			t.Errorf("%s: calls %+v, want grade-007's one attempt, timed out", name, cs)
		}
	}
}

// TestPythonEncounteredFloodIsOneAttemptEach: a hostile stream of
// "Encountered" lines holds one attempt at a time, never more.
func TestPythonEncounteredFloodIsOneAttemptEach(t *testing.T) {
	lines := []string{strings.Replace(pyLines[0], "grade-000", "flood", 1)}
	for range 10_000 {
		lines = append(lines, pyBase+`2060 - DEBUG] Encountered Exception`)
	}
	evs, _ := decodeAll(t, lines...)
	if n := len(calls(evs)); n != 10_000 {
		t.Errorf("%d calls for 10,000 attempts that each got no response", n)
	}
	for _, e := range evs {
		if e.Kind == ingest.KindLLMCall && e.JobID != "flood" {
			t.Fatalf("a call outside its job: %+v", e)
		}
	}
}
