package correlate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestFlagAllocatesNothingPerEvent: a finding already counted is counted
// again for every event that shows it (a retried call's duplicate
// success, a retry inside a synchronized burst); its example is built
// once. The closure that builds it was allocated on the heap for every
// such event while flag shared flagJob's path, which keeps the closure
// (issue 38: 48,000 allocations in 200,000 lines of a night).
func TestFlagAllocatesNothingPerEvent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoAttemptDetail = true
	st := New(cfg)
	ev := ingest.Event{Kind: ingest.KindLLMCall, JobID: "job-1", IdempotencyKey: "k", Model: "gpt-4o",
		Status: 200, Attempt: 1, InputTokens: 10, OutputTokens: 5, RetryAfterMs: ingest.NoRetryAfter, TS: 1e18}
	job := st.Apply(&ev)
	for range 3 {
		ev.TS += 1e6
		st.Apply(&ev)
	}
	if !job.HasFinding(DuplicateCompletion) {
		t.Fatal("no duplicate_completion: the test does not exercise flag")
	}
	allocs := testing.AllocsPerRun(200, func() {
		ev.TS += 1e6
		st.attempt(job, &ev, nil)
	})
	if allocs != 0 {
		t.Fatalf("a duplicate completion allocated %.1f objects: flag's example escapes again", allocs)
	}
	f := st.findings[DuplicateCompletion]
	if f.count < 200 || !strings.Contains(f.example, "success #2") {
		t.Fatalf("count %d, example %q: the first example, then every count", f.count, f.example)
	}
}

// TestObservedRetriesByTypeCache holds observedRetries.seen (the first
// job types' maxima, found by address) to the map it fronts: every type's
// largest attempt, whichever copy of its name a job carries (the types
// of jobs made by State.jobType share one; a trace job's is its own), more
// types than the cache holds, and maxima that grow late.
func TestObservedRetriesByTypeCache(t *testing.T) {
	st := New(DefaultConfig())
	want := map[string]int16{}
	var jobs []*Job
	for i := range 40 {
		name := fmt.Sprintf("type-%d", i%12)
		typ := st.jobType(name)
		if i%3 == 0 {
			typ = strings.Clone(name) // another copy: found through the map
		}
		jobs = append(jobs, &Job{ID: fmt.Sprint("job-", i), Type: typ})
	}
	for round := range 6 {
		for i, j := range jobs {
			attempt := int16(1 + (i*7+round*5)%9)
			ev := ingest.Event{Kind: ingest.KindLLMCall, Model: "gpt-4o", Attempt: attempt, Status: 500}
			st.assume.call(&ev, j)
			want[j.Type] = max(want[j.Type], attempt)
		}
	}
	if len(st.assume.retries) != 1 {
		t.Fatalf("%d layers, want 1", len(st.assume.retries))
	}
	for _, r := range st.assume.retries {
		if fmt.Sprint(r.byType) != fmt.Sprint(want) {
			t.Fatalf("byType %v\nwant   %v", r.byType, want)
		}
		for _, tm := range r.seen {
			if tm.jobType != "" && tm.max > want[tm.jobType] {
				t.Fatalf("cached %s %d over its maximum %d", tm.jobType, tm.max, want[tm.jobType])
			}
		}
	}
}
