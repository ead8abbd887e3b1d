package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestTenacityAfterTheAppsFailedCall: red team R8-6 — an app that logs
// each attempt (its job, status and request ID) under tenacity's
// before_sleep_log: the "Retrying … as it raised" line right after the
// app's record of a failed call is that failure's, already counted, not
// one more attempt (50 calls for the wire's 41). Alone — LangChain's
// retries, which nothing else records — a tenacity line is an attempt.
func TestTenacityAfterTheAppsFailedCall(t *testing.T) {
	count := func(lines []string) int {
		d := NewDecoder(FormatAuto, nil, Options{})
		n := 0
		emit := func(ev *ingest.Event) {
			if ev.Kind == ingest.KindLLMCall {
				n++
			}
		}
		for _, l := range lines {
			d.Decode([]byte(l), emit)
		}
		if f, ok := d.(interface{ Flush(func(*ingest.Event)) int }); ok {
			f.Flush(emit)
		}
		return n
	}
	failed := `{"job_id":"py-001","status":500,"request_id":"req_011CLabe00218f8af577997","event":"model call failed","timestamp":"2026-12-07T23:53:19.429569Z"}`
	retry := `2026-12-07 23:53:19,429 WARNING app.retry: Retrying <unknown> in 0.01 seconds as it raised Retryable: status 500.`
	ok := `{"job_id":"py-001","status":200,"model":"claude-sonnet-4-5","input_tokens":5,"output_tokens":3,"request_id":"req_011CLabe00217f8af5777e4","event":"model call ok","timestamp":"2026-12-07T23:53:19.445750Z"}`
	if n := count([]string{failed, retry, ok}); n != 2 {
		t.Errorf("the app's failed call, tenacity's line of it, the answered retry: %d calls, want 2", n)
	}
	lc := `Retrying langchain_openai.chat_models.base.ChatOpenAI.completion_with_retry.<locals>._completion_with_retry in 4.0 seconds as it raised RateLimitError: Rate limit reached.`
	if n := count([]string{`{"job_id":"j1","event":"job_started","timestamp":"2026-12-07T23:53:19Z"}`, lc, lc}); n != 2 {
		t.Errorf("tenacity's lines alone: %d calls, want 2 (each an attempt)", n)
	}
}

// TestACallLineThatEndsItsJob: red team R8-1 — an app that logs its job's
// failure with the last call's status and request ID
// ({"outcome":"failed","status":529,"request_id":…,"msg":"job failed"})
// wrote one line that is both: read as the call only, the job's end was
// dropped and a job dead of a 529 storm read "running". The call, then
// the job's end. A message ("model call failed") speaks of the call only.
func TestACallLineThatEndsItsJob(t *testing.T) {
	var kinds []ingest.Kind
	d := NewDecoder(FormatAuto, nil, Options{})
	emit := func(ev *ingest.Event) { kinds = append(kinds, ev.Kind) }
	d.Decode([]byte(`{"time":1796687158599,"job_id":"j1","outcome":"failed","status":529,"request_id":"req_011CLab945e1b79a7b2c0a5","msg":"job failed"}`), emit)
	d.Decode([]byte(`{"time":1796687158600,"job_id":"j2","status":529,"request_id":"req_011CLab945e1b79a7b2c0a6","msg":"model call failed"}`), emit)
	want := []ingest.Kind{ingest.KindLLMCall, ingest.KindJobFailed, ingest.KindLLMCall}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("event %d: %v, want %v", i, kinds[i], want[i])
		}
	}
}
