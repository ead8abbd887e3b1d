package correlate

import (
	"math/rand/v2"
	"testing"
)

// TestMergeSumsMoneyExactly: three replicas of $0.1 are $0.3, not
// 0.30000000000000004, in the totals, a job split over them, its type and
// its model.
func TestMergeSumsMoneyExactly(t *testing.T) {
	var in []MergeInput
	for i := range 3 {
		r := &Report{Source: ReportSource{Files: []string{"x"}, Events: 1}, Replica: string(rune('a' + i)),
			Totals:   ReportTotals{Attempts: 1, Jobs: 1, SpendUSD: 0.1},
			Jobs:     []JobReport{{JobID: "j", JobType: "t", Attempts: 1, SpendUSD: 0.1, FirstTS: "2026-03-10T01:00:0" + string(rune('0'+i)) + "Z"}},
			Models:   []ModelReport{{Model: "m", Attempts: 1, SpendUSD: 0.1}},
			Timeline: []TimelinePoint{{Minute: "2026-03-10T01:00:00Z", Calls: 1, SpendUSD: 0.1}}}
		in = append(in, MergeInput{Name: r.Replica, Report: r, Digest: [32]byte{byte(i)}})
	}
	m, err := MergeReports(in)
	if err != nil {
		t.Fatal(err)
	}
	if m.Totals.SpendUSD != 0.3 || m.Jobs[0].SpendUSD != 0.3 || m.JobTypes[0].SpendUSD != 0.3 || m.Models[0].SpendUSD != 0.3 || m.Timeline[0].SpendUSD != 0.3 {
		t.Errorf("totals %v job %v type %v model %v minute %v", m.Totals.SpendUSD, m.Jobs[0].SpendUSD, m.JobTypes[0].SpendUSD, m.Models[0].SpendUSD, m.Timeline[0].SpendUSD)
	}
	if m.Totals.Jobs != 1 || m.Jobs[0].Attempts != 3 || m.Merged.SplitJobs != 1 || m.Jobs[0].FirstTS != "2026-03-10T01:00:00Z" {
		t.Errorf("jobs %d, attempts %d, split %d, first %s", m.Totals.Jobs, m.Jobs[0].Attempts, m.Merged.SplitJobs, m.Jobs[0].FirstTS)
	}
}

// TestDollarsRoundTripToPicodollars: a report's dollars (a Pico printed as
// float64) read back as the same picodollars, up to $2,000 per figure.
func TestDollarsRoundTripToPicodollars(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		p := Pico(rng.Int64N(2000 * PicoPerUSD))
		if got := PicoFromUSD(p.USD()); got != p {
			t.Fatalf("%d picodollars read back as %d", p, got)
		}
	}
}
