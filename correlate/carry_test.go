package correlate

import (
	"errors"
	"strconv"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

func carryCall(job string, ts int64, cost float64) *ingest.Event {
	return &ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: job, JobType: "nightly", Model: "claude-sonnet-4-6", Status: 200, CostUSD: cost, HasCost: true,
		RetryAfterMs: ingest.NoRetryAfter, RateLimitTokens: ingest.NoValue, RateLimitRequests: ingest.NoValue}
}

// TestSeedThenApplyAddsToTheCarriedSpend: a seeded job's next attempt adds
// to its carried spend and calls; the run's totals start from the carried
// ones; a State that applied anything refuses a seed.
func TestSeedThenApplyAddsToTheCarriedSpend(t *testing.T) {
	a := New(DefaultConfig())
	a.Apply(carryCall("j1", 1e18, 0.18))
	a.Apply(carryCall("j2", 1e18+1e9, 0.01))
	c := a.CarryOut(0)
	if c.Spend != 190_000_000_000 || c.Attempts != 2 || len(c.JobList) != 2 || c.Jobs != 2 || c.LeftOut != 0 {
		t.Fatalf("carried %+v", c)
	}
	b := New(DefaultConfig())
	if err := b.Seed(c); err != nil {
		t.Fatal(err)
	}
	if err := b.Seed(c); !errors.Is(err, ErrSeedNotEmpty) {
		t.Errorf("a second seed: %v", err)
	}
	job := b.Apply(carryCall("j1", 1e18+2e9, 0.18))
	if job.Spend != 360_000_000_000 || job.Calls != 2 || job.Type != "nightly" || job.FirstTS != 1e18 {
		t.Errorf("j1 after the seed: spend %d calls %d type %q first %d", job.Spend, job.Calls, job.Type, job.FirstTS)
	}
	if b.Spend() != 370_000_000_000 || b.AttemptCount() != 3 || b.Now() != 1e18+2e9 || len(b.Jobs()) != 2 {
		t.Errorf("run after the seed: spend %d calls %d now %d jobs %d", b.Spend(), b.AttemptCount(), b.Now(), len(b.Jobs()))
	}
	fresh := New(DefaultConfig())
	fresh.Apply(carryCall("x", 1e18, 0.01))
	if err := fresh.Seed(c); !errors.Is(err, ErrSeedNotEmpty) {
		t.Errorf("a seed after an event: %v", err)
	}
	if r := b.Report(); r.Totals.SpendUSD != 0.37 || r.Status["200"] != 3 {
		t.Errorf("report spend %v, status %v; want $0.37 and 3 of 200", r.Totals.SpendUSD, r.Status)
	}
}

// TestCarryOutKeepsTheJobsThatCanStillBeStopped: past the bound the
// highest spend is kept (a job ceiling can still stop those), in
// first-seen order; the run total keeps every job's spend.
func TestCarryOutKeepsTheJobsThatCanStillBeStopped(t *testing.T) {
	s := New(DefaultConfig())
	for i, cost := range []float64{0.01, 0.5, 0.02, 0.4, 0.03} {
		s.Apply(carryCall(string(rune('a'+i)), 1e18+int64(i), cost))
	}
	c := s.CarryOut(2)
	if len(c.JobList) != 2 || c.JobList[0].ID != "b" || c.JobList[1].ID != "d" || c.LeftOut != 3 || c.Spend != 960_000_000_000 {
		t.Fatalf("carried %+v", c)
	}
	if none := s.CarryOut(-1); len(none.JobList) != 0 || none.LeftOut != 5 || none.Spend != c.Spend {
		t.Errorf("totals only: %+v", none)
	}
	// Hostile amounts from a file are floored at 0, never negative spend.
	b := New(DefaultConfig())
	b.Seed(Carried{Spend: -5, JobList: []CarriedJob{{ID: "x", Spend: -7, Calls: -1}, {ID: "x", Spend: 9}}})
	if b.Spend() != 0 || len(b.Jobs()) != 1 || b.Job("x").Spend != 0 || b.Job("x").Calls != 0 {
		t.Errorf("hostile seed: spend %d jobs %d", b.Spend(), len(b.Jobs()))
	}
}

// BenchmarkCarryOut100kJobs: what the engine goroutine spends every
// --carry-interval on a run of 100,000 jobs (every job kept).
func BenchmarkCarryOut100kJobs(b *testing.B) {
	s := New(DefaultConfig())
	for i := range 100_000 {
		s.Apply(carryCall("job-"+strconv.Itoa(i), 1e18+int64(i)*1e6, 0.01))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.CarryOut(0)
	}
}

// BenchmarkCarryOutBounded: the same run over a bound of 10,000 jobs (the
// highest spend kept: a sort of every job).
func BenchmarkCarryOutBounded(b *testing.B) {
	s := New(DefaultConfig())
	for i := range 100_000 {
		s.Apply(carryCall("job-"+strconv.Itoa(i), 1e18+int64(i)*1e6, float64(i%97)/100))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.CarryOut(10_000)
	}
}

// TestSeedKeepsAJobsStanding: a dead-lettered job stays dead-lettered and
// its spend wasted after the restart; a job whose last call failed ends
// failed; non-2xx spend stays wasted.
func TestSeedKeepsAJobsStanding(t *testing.T) {
	a := New(DefaultConfig())
	a.Apply(carryCall("dl", 1e18, 0.10))
	a.Apply(&ingest.Event{TS: 1e18 + 1e9, Kind: ingest.KindJobDeadLettered, JobID: "dl", JobType: "nightly"})
	bad := carryCall("bad", 1e18, 0.05)
	bad.Status = 500
	a.Apply(bad)
	b := New(DefaultConfig())
	b.Seed(a.CarryOut(0))
	ra, rb := a.Report(), b.Report()
	if len(rb.Jobs) != 2 || rb.Totals.WastedUSD != ra.Totals.WastedUSD || ra.Totals.WastedUSD != 0.15 {
		t.Fatalf("after the seed: %d jobs, wasted $%v; before: wasted $%v (want $0.15)", len(rb.Jobs), rb.Totals.WastedUSD, ra.Totals.WastedUSD)
	}
	for i := range ra.Jobs {
		ja, jb := ra.Jobs[i], rb.Jobs[i]
		if ja.JobID != jb.JobID || ja.Outcome != jb.Outcome || ja.WastedUSD != jb.WastedUSD || ja.SpendUSD != jb.SpendUSD {
			t.Errorf("job %s: before %s wasted $%v spend $%v; after the seed %s %s wasted $%v spend $%v", ja.JobID, ja.Outcome, ja.WastedUSD, ja.SpendUSD, jb.JobID, jb.Outcome, jb.WastedUSD, jb.SpendUSD)
		}
	}
}
