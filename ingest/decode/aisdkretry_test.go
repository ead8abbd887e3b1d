package decode

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAISDKRetryErrorIsTheCallsAttempts: issue 35 — a Vercel AI SDK
// RetryError printed by Node read as "JSON cut off". Written here in
// util.inspect's shape: one call, three attempts, the last a 429 with
// its Retry-After; the app's own route line after it is no call; a dump
// the file ends inside still counts.
func TestAISDKRetryErrorIsTheCallsAttempts(t *testing.T) {
	dump := `[Error [AI_RetryError]: Failed after 3 attempts. Last error: Rate limit exceeded.] {
  cause: undefined,
  reason: 'maxRetriesExceeded',
  errors: [Array],
  lastError: [Error [AI_APICallError]: Rate limit exceeded.] {
    url: 'https://example.test/v1/chat/completions',
    requestBodyValues: {
      model: 'gpt-4o-mini',
      messages: [Array]
    },
    statusCode: 429,
    responseHeaders: {
      date: 'Sun, 17 May 2026 15:13:10 GMT',
      'retry-after': '20'
    },
    isRetryable: true
  }
}
 POST /api/ai 200 in 9988ms
RetryError [AI_RetryError]: Failed after 2 attempts. Last error: overloaded
    at _retryWithExponentialBackoff (file:///app/node_modules/ai/dist/index.mjs:1:1) {
  reason: 'maxRetriesExceeded',`
	lines := strings.Split(dump, "\n")
	d := NewDetector()
	for _, l := range lines {
		d.Add([]byte(l))
	}
	if f := d.Result().Format; f != FormatAIRetry {
		t.Fatalf("detected %s", f)
	}
	dec := NewDecoder(FormatAIRetry, nil, Options{SourceName: "app.log"})
	var evs []ingest.Event
	keep := func(ev *ingest.Event) { evs = append(evs, *ev) }
	for _, l := range lines {
		dec.Decode([]byte(l), keep)
	}
	dec.(Flusher).Flush(keep)
	if len(evs) != 5 {
		t.Fatalf("%d attempts, want 3 + 2", len(evs))
	}
	if e := evs[2]; e.Attempt != 3 || e.Status != 429 || e.RetryAfterMs != 20000 || e.Model != "gpt-4o-mini" || e.TS != 1779030790000000000 || e.ErrorType != "maxRetriesExceeded" {
		t.Errorf("the last attempt: %+v", e)
	}
	if e := evs[0]; e.Attempt != 1 || e.Status != ingest.StatusUnknown || e.JobID != "app.log" {
		t.Errorf("the first attempt: %+v", e)
	}
	if e := evs[4]; e.Attempt != 2 || e.Model != "" {
		t.Errorf("the dump the file ended in: %+v", e)
	}
}
