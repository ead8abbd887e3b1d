package decode

import (
	"fmt"
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

// TestAJobSummaryIsItsEndNotACall: red team R8-37 — an app's "job
// finished" line carrying the job's model and token totals was billed as
// one more call (spend ×2, 13 innocent kills) and the job's end lost.
// After the job's calls it is the job's end; a job whose only record it is
// keeps it as its call, then its end.
func TestAJobSummaryIsItsEndNotACall(t *testing.T) {
	var got []ingest.Kind
	d := NewDecoder(FormatAuto, nil, Options{})
	emit := func(ev *ingest.Event) { got = append(got, ev.Kind) }
	for _, l := range []string{
		`{"ts":"2026-12-08T00:00:00Z","job_id":"a","model":"claude-sonnet-4-5","input_tokens":500,"output_tokens":50,"request_id":"req_011CLabd68af270af95cfc3","msg":"turn done"}`,
		`{"ts":"2026-12-08T00:00:01Z","job_id":"a","model":"claude-sonnet-4-5","input_tokens":700,"output_tokens":80,"request_id":"req_011CLabd68af270af95cfc4","msg":"turn done"}`,
		`{"ts":"2026-12-08T00:00:02Z","job_id":"a","outcome":"succeeded","model":"claude-sonnet-4-5","input_tokens":1200,"output_tokens":130,"msg":"job finished"}`,
		`{"ts":"2026-12-08T00:00:03Z","job_id":"b","outcome":"succeeded","model":"claude-sonnet-4-5","input_tokens":900,"output_tokens":90,"msg":"job finished"}`,
	} {
		d.Decode([]byte(l), emit)
	}
	want := []ingest.Kind{ingest.KindLLMCall, ingest.KindLLMCall, ingest.KindJobSucceeded, ingest.KindLLMCall, ingest.KindJobSucceeded}
	if len(got) != len(want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestPerCallOutcomesAreCalls: red team R8b-3 — R8-37's first rule took
// an outcome field alone for a job's end: an app that logs every call
// with "outcome":"success" had each call after the first read as a
// summary (5 calls for 30). Only a message that speaks of the job ends it.
func TestPerCallOutcomesAreCalls(t *testing.T) {
	n := 0
	d := NewDecoder(FormatAuto, nil, Options{})
	emit := func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			n++
		}
	}
	for i := range 6 {
		d.Decode([]byte(fmt.Sprintf(`{"time":%d,"job_id":"job-1","model":"gpt-4o","input_tokens":1000,"output_tokens":200,"outcome":"success","msg":"llm call"}`, 1796687158599+i)), emit)
	}
	if n != 6 {
		t.Errorf("6 call lines with a per-call outcome: %d calls", n)
	}
}

// TestAFrameworksTenacityLineAfterAnAppsFailureIsAnAttempt: red team
// R8b-5 — R8-6's rule took adjacency alone: LangChain's tenacity line (a
// dotted function: its only record) right after another job's failed-call
// line was dropped as that failure's (11 calls for 21).
func TestAFrameworksTenacityLineAfterAnAppsFailureIsAnAttempt(t *testing.T) {
	n := 0
	d := NewDecoder(FormatAuto, nil, Options{})
	emit := func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			n++
		}
	}
	d.Decode([]byte(`{"job_id":"py-A","status":429,"request_id":"req_011CLabe00218f8af577997","event":"model call failed","timestamp":"2026-12-07T23:53:19.429569Z"}`), emit)
	d.Decode([]byte(`2026-12-07 23:53:19,430 WARNING langchain_core: Retrying langchain_openai.chat_models.base.ChatOpenAI.completion_with_retry.<locals>._completion_with_retry in 4.0 seconds as it raised RateLimitError: Rate limit reached.`), emit)
	if n != 2 {
		t.Errorf("the app's failed call and LangChain's retry line: %d calls, want 2", n)
	}
}
