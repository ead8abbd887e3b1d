package correlate

import (
	"fmt"
	"testing"
)

// TestMergeAssumptions: a sharded night's replicas keep one row per key:
// the declaration, and the worst observation of any replica.
func TestMergeAssumptions(t *testing.T) {
	var in []MergeInput
	for i, obs := range []string{"1", "3"} {
		r := &Report{Source: ReportSource{Files: []string{"x"}, Events: 1}, Replica: string(rune('a' + i)),
			Totals: ReportTotals{Attempts: 1, Jobs: 1},
			Jobs:   []JobReport{{JobID: "j" + obs, JobType: "t", Attempts: 1, FirstTS: "2026-07-01T01:00:00Z"}},
			Assumptions: []AssumptionReport{{Key: "anthropic-sdk.maxRetries", Declared: "0", DeclaredFrom: "log line", FirstAt: "2026-07-01T01:00:0" + obs + "Z",
				Observed: obs, Evidence: "replica " + obs}}}
		in = append(in, MergeInput{Name: r.Replica, Report: r, Digest: [32]byte{byte(i)}})
	}
	m, err := MergeReports(in)
	if err != nil {
		t.Fatal(err)
	}
	// Beside it, the merged job type's calls per job.
	if len(m.Assumptions) != 2 || m.Assumptions[0].Key != "anthropic-sdk.maxRetries" || m.Assumptions[1].Key != "calls_per_job.p99" {
		t.Fatalf("%+v", m.Assumptions)
	}
	a := m.Assumptions[0]
	if a.Declared != "0" || a.FirstAt != "2026-07-01T01:00:01Z" || a.Observed != "3" || a.Evidence != "replica 3" {
		t.Errorf("%+v", a)
	}
}

// TestMergeRecomputesCallsPerJob: issue 27 — the merged calls_per_job.p99
// was the largest replica's (1), while the merged report's own job types
// said 2 (one job's calls split across the replicas), and its evidence
// counted one replica's jobs (15 of 30). The row now comes from the
// merged job types.
func TestMergeRecomputesCallsPerJob(t *testing.T) {
	var in []MergeInput
	for i := range 2 {
		r := &Report{Source: ReportSource{Files: []string{"x"}, Events: 16}, Replica: string(rune('a' + i)), Totals: ReportTotals{Attempts: 16, Jobs: 16}}
		// The job both replicas saw one call of.
		r.Jobs = append(r.Jobs, JobReport{JobID: "split", JobType: "nightly", Attempts: 1, FirstTS: fmt.Sprintf("2026-07-01T01:00:0%dZ", 2*i),
			LastTS: fmt.Sprintf("2026-07-01T01:00:0%dZ", 2*i)})
		for j := range 15 {
			r.Jobs = append(r.Jobs, JobReport{JobID: fmt.Sprintf("site-a-%d-%d", i, j), JobType: "site-a", Attempts: 1, FirstTS: "2026-07-01T01:00:01Z"})
		}
		r.Assumptions = []AssumptionReport{
			{Key: "calls_per_job.p99", JobType: "nightly", Observed: "1", Evidence: "1 jobs of type nightly"},
			{Key: "calls_per_job.p99", JobType: "site-a", Observed: "1", Evidence: "15 jobs of type site-a"},
		}
		in = append(in, MergeInput{Name: r.Replica, Report: r, Digest: [32]byte{byte(i)}})
	}
	m, err := MergeReports(in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range m.Assumptions {
		got[a.JobType+" "+a.Key] = a.Observed + " / " + a.Evidence
	}
	want := map[string]string{"nightly calls_per_job.p99": "2 / 1 jobs of type nightly", "site-a calls_per_job.p99": "1 / 30 jobs of type site-a"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, jt := range m.JobTypes {
		if jt.JobType == "nightly" && jt.CallsPerJobP99 != 2 {
			t.Errorf("merged job type nightly p99 %d, want 2", jt.CallsPerJobP99)
		}
	}
}
