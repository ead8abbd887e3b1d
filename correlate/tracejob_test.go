package correlate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestTraceJobRehomes: issue 39 — an exporter sends a job's root span
// (job.id) after its children, whose calls were filed under the trace ID:
// the storm jobs showed 7–10 calls for 63, and a critical finding named a
// trace ID. A KindTraceJob moves the trace's job to the named one: renamed
// when the job is new, folded in when it has calls already (a queue's
// second attempt is a second trace of one job), in a batch or alone.
func TestTraceJobRehomes(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprint("batched=", batched), func(t *testing.T) {
			st := New(DefaultConfig())
			var pending ingest.Batch
			apply := func(ev ingest.Event) {
				if batched {
					pending = append(pending, ev)
					return
				}
				st.Apply(&ev)
			}
			flush := func() {
				if len(pending) > 0 {
					st.ApplyBatch(pending, nil)
					pending = nil
				}
			}
			at := func(s int) int64 { return 1773104400_000000000 + int64(s)*int64(time.Second) }
			call := func(trace string, s int, status int16) {
				var ev ingest.Event
				ev.Reset()
				ev.TS, ev.Kind, ev.Model, ev.Status = at(s), ingest.KindLLMCall, "claude-sonnet-4-6", status
				ev.JobID, ev.CorrelationID, ev.OutputTokens = trace, trace, 10
				apply(ev)
			}
			link := func(trace, job string, s int) {
				var ev ingest.Event
				ev.Reset()
				ev.TS, ev.Kind, ev.JobID, ev.JobType, ev.CorrelationID = at(s), ingest.KindTraceJob, job, "summarize", trace
				apply(ev)
			}
			t1, t2 := strings.Repeat("a1", 16), strings.Repeat("b2", 16)
			// Trace 1: a 400 retried (terminal_error_retried, critical),
			// then its root names job-7.
			call(t1, 0, 400)
			call(t1, 1, 400)
			call(t1, 2, 529)
			flush()
			link(t1, "job-7", 3)
			// Another job in between, and trace 2 of job-7: a queue retry.
			call("other", 4, 200)
			call(t2, 5, 529)
			call(t2, 6, 200)
			flush()
			link(t2, "job-7", 7)
			flush()
			if st.Job(t1) != nil || st.Job(t2) != nil {
				t.Error("a trace-ID job is still there")
			}
			j := st.Job("job-7")
			if j == nil {
				t.Fatal("no job-7")
			}
			if j.Calls != 5 || j.Type != "summarize" || j.LastStatus != 200 || st.Outcome(j, true) != OutcomeSucceeded {
				t.Errorf("job-7: %d calls, type %q, last status %d, %v; want 5, summarize, 200, succeeded", j.Calls, j.Type, j.LastStatus, st.Outcome(j, true))
			}
			if n := len(st.Attempts(j)); n != 5 {
				t.Errorf("job-7 keeps %d attempts for its detail, want 5", n)
			}
			if len(st.Jobs()) != 2 || st.Job("other") == nil || st.Job("other").Calls != 1 {
				t.Errorf("jobs: %d, want job-7 and other", len(st.Jobs()))
			}
			if st.RehomedTraces() != 2 {
				t.Errorf("%d traces re-homed, want 2", st.RehomedTraces())
			}
			r := st.Report()
			if r.Totals.Jobs != 2 || r.Totals.Attempts != 6 {
				t.Errorf("report: %d jobs, %d attempts; want 2, 6", r.Totals.Jobs, r.Totals.Attempts)
			}
			for _, f := range r.Findings {
				if strings.Contains(f.Example, t1) || strings.Contains(f.Example, t2) || strings.Contains(strings.Join(f.Jobs, " "), "a1a1") {
					t.Errorf("finding %s names a trace ID: %s %v", f.Kind, f.Example, f.Jobs)
				}
			}
			found := false
			for _, f := range r.Findings {
				if f.Kind == "terminal_error_retried" {
					found = strings.Contains(f.Example, "job-7") && len(f.Jobs) == 1 && f.Jobs[0] == "job-7"
				}
			}
			if !found {
				t.Errorf("terminal_error_retried does not name job-7: %+v", r.Findings)
			}
			// A trace no call was filed under moves nothing.
			link(strings.Repeat("c3", 16), "job-9", 8)
			flush()
			if st.Job("job-9") != nil || len(st.Jobs()) != 2 {
				t.Error("a link for a trace with no calls made a job")
			}
		})
	}
}

// TestIndexRemove: removing keys from the open-addressing index keeps
// every other key findable, colliding tags included.
func TestIndexRemove(t *testing.T) {
	for _, collide := range []bool{false, true} {
		x := newHashIndex()
		x.testCollide = collide
		keys := make([]string, 3000)
		for i := range keys {
			keys[i] = fmt.Sprint("k", i)
			x.add(x.hash(keys[i]), int32(i))
		}
		at := func(i int32) string { return keys[i] }
		for i := 0; i < len(keys); i += 3 {
			if !x.remove(keys[i], x.hash(keys[i]), at) {
				t.Fatalf("collide=%v: %s not removed", collide, keys[i])
			}
		}
		for i, k := range keys {
			_, ok := x.find(k, x.hash(k), at)
			if ok != (i%3 != 0) {
				t.Fatalf("collide=%v: %s found=%v after removing every third key", collide, k, ok)
			}
		}
		if x.remove("nope", x.hash("nope"), at) {
			t.Error("removed a key never added")
		}
	}
}

// TestRetryLinksAcrossTraceRename: a job remembers its last keyed
// operation by the hash of its scoped key ("job\x00key", findOp); a trace
// job renamed to its job (traceJob) keeps its operations under the trace's
// name, so the next retry of that key, now under the job's name, must
// still find it: one operation of two attempts, not two of one.
func TestRetryLinksAcrossTraceRename(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprint("batched=", batched), func(t *testing.T) {
			st := New(DefaultConfig())
			at := func(s int) int64 { return 1773104400_000000000 + int64(s)*int64(time.Second) }
			trace := strings.Repeat("c3", 16)
			var evs []ingest.Event
			var ev ingest.Event
			ev.Reset()
			ev.TS, ev.Kind, ev.Model, ev.Status, ev.OutputTokens = at(0), ingest.KindLLMCall, "claude-sonnet-4-6", 529, 10
			ev.JobID, ev.CorrelationID, ev.IdempotencyKey = trace, trace, "k-1"
			evs = append(evs, ev)
			ev.Reset()
			ev.TS, ev.Kind, ev.JobID, ev.CorrelationID = at(1), ingest.KindTraceJob, "job-9", trace
			evs = append(evs, ev)
			ev.Reset()
			ev.TS, ev.Kind, ev.Model, ev.Status, ev.OutputTokens = at(2), ingest.KindLLMCall, "claude-sonnet-4-6", 200, 10
			ev.JobID, ev.IdempotencyKey = "job-9", "k-1"
			evs = append(evs, ev)
			if batched {
				st.ApplyBatch(evs, nil)
			} else {
				for i := range evs {
					st.Apply(&evs[i])
				}
			}
			if st.opCount != 1 {
				t.Errorf("%d operations, want 1: the retry after the rename must link to its call", st.opCount)
			}
		})
	}
}
