package correlate

import "testing"

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
	if len(m.Assumptions) != 1 {
		t.Fatalf("%+v", m.Assumptions)
	}
	a := m.Assumptions[0]
	if a.Declared != "0" || a.FirstAt != "2026-07-01T01:00:01Z" || a.Observed != "3" || a.Evidence != "replica 3" {
		t.Errorf("%+v", a)
	}
}
