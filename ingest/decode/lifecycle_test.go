package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAppLifecycleLines: issue 39 — an app's own "job finished" / "job
// failed" lines and outcome fields were skipped as no_event, so a job
// that failed with every call a 200 read "succeeded"; durationMs was not
// read as the call's latency. Each is read; a line about a retry, a
// message of both failure and success, or one that names no job is not a
// lifecycle event.
func TestAppLifecycleLines(t *testing.T) {
	for _, c := range []struct {
		line string
		want ingest.Kind
	}{
		{`{"level":30,"time":1773104402000,"msg":"job finished","jobId":"job-1","durationMs":2000}`, ingest.KindJobSucceeded},
		{`{"level":50,"time":1773104405000,"msg":"Job job-2 failed after 3 attempts","jobId":"job-2"}`, ingest.KindJobFailed},
		{`{"level":"info","message":"job completed","job_id":"w-1"}`, ingest.KindJobSucceeded},
		{`{"msg":"job done","jobId":"job-3","outcome":"failed"}`, ingest.KindJobFailed},
		{`{"jobId":"job-4","outcome":"succeeded"}`, ingest.KindJobSucceeded},
		{`{"msg":"job moved to the dead letter queue","jobId":"job-5"}`, ingest.KindJobDeadLettered},
		{`{"msg":"job started","jobId":"job-6","attempt":2}`, ingest.KindJobStarted},
		{`{"msg":"job 7: retrying after a failed call","jobId":"job-7"}`, ingest.KindUnknown},
		{`{"msg":"job finished, 2 calls failed","jobId":"job-8"}`, ingest.KindUnknown},
		{`{"msg":"job finished"}`, ingest.KindUnknown},
		{`{"msg":"cache warmed","jobId":"job-9"}`, ingest.KindUnknown},
		{`{"msg":{"text":"job finished"},"jobId":"job-10"}`, ingest.KindUnknown},
	} {
		p := NewParser()
		var ev ingest.Event
		r := p.ParseLine([]byte(c.line), &ev)
		got := ev.Kind
		if r != ingest.Accepted {
			got = ingest.KindUnknown
		}
		if got != c.want {
			t.Errorf("%s: %v (%v), want %v", c.line, got, r, c.want)
		}
	}
	p := NewParser()
	var ev ingest.Event
	for _, line := range []string{`{"msg":"llm call","jobId":"j","model":"claude-sonnet-4-5","status":200,"durationMs":1234}`, `{"model":"m","latencyMs":77}`} {
		if r := p.ParseLine([]byte(line), &ev); r != ingest.Accepted || ev.Kind != ingest.KindLLMCall || ev.LatencyMs == 0 {
			t.Errorf("%s: %v, kind %v, latency %d ms", line, r, ev.Kind, ev.LatencyMs)
		}
	}
	// A message does not carry over to the next line.
	p.ParseLine([]byte(`{"msg":"job finished","jobId":"a"`), &ev) // cut short
	if r := p.ParseLine([]byte(`{"jobId":"a"}`), &ev); r != ingest.SkipNoEvent {
		t.Errorf("a line after a cut one took its message: %v, kind %v", r, ev.Kind)
	}
}
