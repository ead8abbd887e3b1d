package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A Node debug block whose closing brace was lost (a truncated write)
// swallows no response line after it; a body that says "Retrying request"
// inside a block is the block's, never a call; a job header names the job
// whatever JSON line came last.
func TestNodeBlocksBoundedAndExact(t *testing.T) {
	lines := []string{
		`{"ts":"2026-03-10T01:00:00Z","job_id":"job-2","event":"job_started"}`,
		`[log_aaaaaa] sending request {`,
		`  method: 'POST',`,
		`  body: 'Retrying request to /v1/messages in 0.5 seconds',`,
		`  headers: {`,
		`    'x-job-id': 'job-1',`,
		`    'x-stainless-retry-count': '0',`,
		// the block's end was lost here
		`[log_aaaaaa, request-id: "req_0001abcd"] post https://api.anthropic.com/v1/messages failed with status 529 in 20ms - retrying, 2 attempts remaining`,
		`[log_bbbbbb, retryOf: log_aaaaaa, request-id: "req_0002abcd"] post https://api.anthropic.com/v1/messages succeeded with status 200 in 30ms`,
		`{"ts":"2026-03-10T01:00:01Z","job_id":"job-1","attempt":1,"status":200,"request_id":"req_0002abcd","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":5}}`,
	}
	d := NewDecoder(FormatAuto, nil, Options{})
	var calls []ingest.Event
	for _, l := range lines {
		d.Decode([]byte(l), func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				calls = append(calls, *ev)
			}
		})
	}
	if f, ok := d.(interface{ Flush(func(*ingest.Event)) int }); ok {
		f.Flush(func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				calls = append(calls, *ev)
			}
		})
	}
	if len(calls) != 3 {
		t.Fatalf("%d call records, want the SDK's 2 and the app's 1: %+v", len(calls), calls)
	}
	for i, ev := range calls[:2] {
		if ev.JobID != "job-1" || ev.Attempt != int16(i+1) {
			t.Errorf("SDK attempt %d: job %q attempt %d, want job-1 (its x-job-id) attempt %d", i, ev.JobID, ev.Attempt, i+1)
		}
	}
	if calls[1].ResponseID == "" || calls[1].ResponseID != calls[2].ResponseID {
		t.Errorf("the SDK's line and the app's of req_0002abcd are one HTTP attempt: %q, %q", calls[1].ResponseID, calls[2].ResponseID)
	}
}

// A hostile retryOf chain of a million lines, no app line claiming it, is
// held in bounded memory: every attempt comes out, none is lost.
func TestNodeHeldChainIsBounded(t *testing.T) {
	d := NewDecoder(FormatAuto, nil, Options{})
	n := 0
	emit := func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			n++
		}
	}
	d.Decode([]byte(`{"ts":"2026-03-10T01:00:00Z","job_id":"job-1","event":"job_started"}`), emit)
	d.Decode([]byte(`[log_000000] post https://api.anthropic.com/v1/messages failed with status 529 in 1ms - retrying, 2 attempts remaining`), emit)
	text := d.(*checked).inner.(*jsonlDecoder).text
	const lines = 100_000
	most := 0
	for range lines {
		d.Decode([]byte(`[log_000001, retryOf: log_000000] post https://api.anthropic.com/v1/messages failed with status 529 in 1ms - retrying, 2 attempts remaining`), emit)
		for _, h := range text.nodeHeld {
			most = max(most, len(h.evs))
		}
	}
	if most > maxNodeHeldAttempts {
		t.Errorf("one chain held %d attempts at once, past %d", most, maxNodeHeldAttempts)
	}
	if f, ok := d.(interface{ Flush(func(*ingest.Event)) int }); ok {
		f.Flush(emit)
	}
	if n != lines+1 {
		t.Errorf("%d attempts out of %d", n, lines+1)
	}
	if len(text.nodeHeld) != 0 {
		t.Errorf("%d chains still held after the end", len(text.nodeHeld))
	}
}
