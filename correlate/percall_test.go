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

// TestJobTypeTableIsBounded: State.jobType keeps one copy of each type for
// the life of the state, so a hostile log (a new type per job, types of a
// megabyte) must not grow it past its bounds; every job still has its own
// type, whole.
func TestJobTypeTableIsBounded(t *testing.T) {
	st := New(DefaultConfig())
	for i := range maxJobTypes + 500 {
		ev := ingest.Event{Kind: ingest.KindJobStarted, JobID: fmt.Sprint("job-", i), JobType: fmt.Sprint("type-", i), TS: 1e18}
		if j := st.Apply(&ev); j.Type != ev.JobType {
			t.Fatalf("job %d has type %q, want %q", i, j.Type, ev.JobType)
		}
	}
	huge := strings.Repeat("t", 1<<20)
	ev := ingest.Event{Kind: ingest.KindJobStarted, JobID: "job-huge", JobType: huge, TS: 1e18}
	if j := st.Apply(&ev); j.Type != huge {
		t.Fatal("the huge type was not kept whole")
	}
	if n := len(st.jobTypes); n > maxJobTypes {
		t.Fatalf("%d types held, bound %d", n, maxJobTypes)
	}
	if _, held := st.jobTypes[huge]; held {
		t.Fatal("a 1 MiB type is held past its job")
	}
	// Within the bounds, a type is one string for all its jobs.
	a := st.Apply(&ingest.Event{Kind: ingest.KindJobStarted, JobID: "a", JobType: "type-7", TS: 1e18})
	b := st.Apply(&ingest.Event{Kind: ingest.KindJobStarted, JobID: "b", JobType: strings.Clone("type-7"), TS: 1e18})
	if !sameString(a.Type, b.Type) {
		t.Fatal("two jobs of one type hold two copies of it")
	}
}
