package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestPortkeyRetriesExhaustedKeepsTheResponse: issue 35 — Portkey's
// x-portkey-retry-attempt-count "-1" (its retries exhausted) was read as a
// negative count and the whole 429 lost. Written here in the shape of
// Portkey's responses: the saved response, and the header in an app's
// own log line; a count of 2 is attempt 3 of the gateway's layer.
func TestPortkeyRetriesExhaustedKeepsTheResponse(t *testing.T) {
	doc := `{"status":429,"headers":{"date":"Fri, 29 Aug 2025 03:48:00 GMT","x-portkey-provider":"openai","x-portkey-retry-attempt-count":"-1","x-portkey-trace-id":"tr-1","retry-after":"60"},"body":{"error":{"message":"rate limited","type":"AI_APICallError"},"provider":"openai"},"responseTime":44363}`
	d := NewDetector()
	d.Add([]byte(doc))
	if f := d.Result().Format; f != FormatPortkey {
		t.Fatalf("detected %s", f)
	}
	var evs []ingest.Event
	keep := func(ev *ingest.Event) { evs = append(evs, *ev) }
	NewDecoder(FormatPortkey, nil, Options{}).Decode([]byte(doc), keep)
	ok2 := `{"status":200,"headers":{"x-portkey-retry-attempt-count":"2","x-portkey-trace-id":"tr-2"},"body":{"model":"gpt-4o","usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":40}}},"responseTime":900}`
	NewDecoder(FormatPortkey, nil, Options{}).Decode([]byte(ok2), keep)
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2", len(evs))
	}
	e := evs[0]
	if e.Kind != ingest.KindLLMCall || e.Status != 429 || e.Attempt != 0 || e.Dropped&ingest.DropWrongType == 0 || e.JobID != "tr-1" ||
		e.Provider != "openai" || e.LatencyMs != 44363 || e.RetryAfterMs != 60000 || e.TS != 1756439280000000000-44363000000 {
		t.Errorf("the 429: %+v", e)
	}
	if e := evs[1]; e.Attempt != 3 || e.AttemptBy != ingest.AttemptByPortkey || e.Model != "gpt-4o" || e.InputTokens != 60 || e.CacheReadTokens != 40 || e.OutputTokens != 20 {
		t.Errorf("the success after 2 retries: %+v", e)
	}
	var ev ingest.Event
	line := `{"ts":"2026-01-01T00:00:00Z","model":"gpt-4o","status":429,"headers":{"x-portkey-retry-attempt-count":"-1"}}`
	if r := NewParser().ParseLine([]byte(line), &ev); r != ingest.Accepted || ev.Dropped&ingest.DropWrongType == 0 || ev.Status != 429 {
		t.Errorf("an app's line with the header: %v %+v", r, ev)
	}
}
