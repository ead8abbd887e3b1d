package correlate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
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

// shardReports is a night of n jobs over replicas, every job split over
// all of them when split (a traceID route), else each on one.
func shardReports(n, replicas int, split bool) []MergeInput {
	in := make([]MergeInput, replicas)
	for r := range in {
		rep := &Report{Source: ReportSource{Files: []string{"r"}}, Replica: string(rune('a' + r)), Status: map[string]int64{}}
		in[r] = MergeInput{Name: rep.Replica, Report: rep, Digest: [32]byte{byte(r)}}
	}
	for j := range n {
		for r := range in {
			if !split && j%replicas != r {
				continue
			}
			rep := in[r].Report
			rep.Jobs = append(rep.Jobs, JobReport{JobID: fmt.Sprintf("job-%07d", j), JobType: fmt.Sprintf("type-%d", j%50), Outcome: "succeeded",
				Attempts: int32(1 + (j+r)%7), SpendUSD: float64(1+j%1000) / 1e4, Layers: []int{1, 1, 1 + j%3}, Findings: []string{"hidden_retry_layer"},
				FirstTS: time.Unix(int64(1773104400+j+r), 0).UTC().Format(time.RFC3339Nano), LastTS: time.Unix(int64(1773104400+j+r+60), 0).UTC().Format(time.RFC3339Nano)})
			rep.Totals.Attempts += int64(1 + (j+r)%7)
			rep.Totals.Jobs++
			rep.Totals.SpendUSD = (PicoFromUSD(rep.Totals.SpendUSD) + PicoFromUSD(float64(1+j%1000)/1e4)).USD() // as burnrate writes it: the jobs' sum
		}
	}
	return in
}

// TestMergeOfManyJobs: 100× a big night's jobs, split over replicas, merge
// once each.
func TestMergeOfManyJobs(t *testing.T) {
	in := shardReports(20_000, 3, true)
	m, err := MergeReports(in)
	if err != nil {
		t.Fatal(err)
	}
	if m.Totals.Jobs != 20_000 || m.Merged.SplitJobs != 20_000 || len(m.Merged.SplitJobExamples) != maxSplitExamples {
		t.Errorf("jobs %d split %d examples %d", m.Totals.Jobs, m.Merged.SplitJobs, len(m.Merged.SplitJobExamples))
	}
}

// TestMergeRefusesWhatBurnrateNeverWrites: negative counts, a job twice.
func TestMergeRefusesWhatBurnrateNeverWrites(t *testing.T) {
	for name, spoil := range map[string]func(r *Report){
		"negative attempts":  func(r *Report) { r.Totals.Attempts = -5 },
		"negative job spend": func(r *Report) { r.Jobs[0].SpendUSD = -1 },
		"a job twice":        func(r *Report) { r.Jobs = append(r.Jobs, r.Jobs[0]) },
		"a job without ID":   func(r *Report) { r.Jobs[0].JobID = "" },
		"negative status":    func(r *Report) { r.Status["200"] = -1 },
		// Red team of issue 28: 1e308 merged as $9,000,000.65 (and printed
		// wrapped), totals the jobs do not add up to were summed as given.
		"a job of $1e308":       func(r *Report) { r.Jobs[0].SpendUSD = 1e308 },
		"a total of $1e308":     func(r *Report) { r.Totals.SpendUSD = 1e308 },
		"a total over its jobs": func(r *Report) { r.Totals.SpendUSD += 999 },
		"jobs over the total":   func(r *Report) { r.Jobs[0].SpendUSD += 5 },
	} {
		in := shardReports(10, 2, false)
		spoil(in[1].Report)
		if _, err := MergeReports(in); err == nil || !strings.Contains(err.Error(), "not a report burnrate wrote") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func BenchmarkMergeReports(b *testing.B) {
	for _, tc := range []struct {
		name  string
		split bool
	}{{"sharded-100k-jobs-2-replicas", false}, {"split-100k-jobs-2-replicas", true}} {
		b.Run(tc.name, func(b *testing.B) {
			in := shardReports(100_000, 2, tc.split)
			b.ResetTimer()
			for range b.N {
				if _, err := MergeReports(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMergeNeverClampsTheSum: red team of issue 28 — three reports of $5M
// each merged as $9,223,372.04, silently saturated. Past what burnrate holds
// to the picodollar, the merge is refused.
func TestMergeNeverClampsTheSum(t *testing.T) {
	in := shardReports(3, 3, false)
	for _, m := range in {
		m.Report.Jobs[0].SpendUSD = 5e6
		m.Report.Totals.SpendUSD = 5e6
	}
	if _, err := MergeReports(in); err == nil || !strings.Contains(err.Error(), "merge fewer at a time") {
		t.Errorf("$15M merged: err %v", err)
	}
	if got := USD(1e308); strings.Contains(got, "-") {
		t.Errorf("USD(1e308) = %s: a wrapped figure", got)
	}
}

// TestMergeAddsTheBillsDimensions: issue 35 — the replicas' counts of
// calls per dimension and per assumption, and their recorded costs beside
// the table's, add up; a job split over them adds its parts'.
func TestMergeAddsTheBillsDimensions(t *testing.T) {
	var in []MergeInput
	for i := range 2 {
		rec, tab := 0.25, 0.125
		r := &Report{Source: ReportSource{Files: []string{"x"}, Events: 1}, Replica: string(rune('a' + i)),
			Totals: ReportTotals{Attempts: 1, Jobs: 1, SpendUSD: 0.25},
			Jobs:   []JobReport{{JobID: "j", Attempts: 1, SpendUSD: 0.25, RecordedUSD: &rec, TableUSD: &tab, FirstTS: "2026-03-10T01:00:0" + string(rune('0'+i)) + "Z"}},
			Pricing: ReportPricing{DimensionCalls: map[string]int64{DimFast: 1}, AssumedCalls: map[string]int64{AssumeGeoUS: int64(i)},
				RecordedCost: &RecordedCost{Calls: 1, RecordedUSD: 0.25, TableUSD: 0.125, Billed: RecordedBilled}}}
		in = append(in, MergeInput{Name: r.Replica, Report: r, Digest: [32]byte{byte(i)}})
	}
	m, err := MergeReports(in)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Pricing
	if p.DimensionCalls[DimFast] != 2 || p.AssumedCalls[AssumeGeoUS] != 1 || p.RecordedCost == nil || p.RecordedCost.Calls != 2 || p.RecordedCost.RecordedUSD != 0.5 || p.RecordedCost.TableUSD != 0.25 {
		t.Errorf("merged pricing %+v %+v", p, p.RecordedCost)
	}
	if j := m.Jobs[0]; j.RecordedUSD == nil || *j.RecordedUSD != 0.5 || *j.TableUSD != 0.25 {
		t.Errorf("the split job's recorded cost: %v %v", j.RecordedUSD, j.TableUSD)
	}
}

// TestMergeKeepsAmbiguousFindingsApart: a replica's finding withdrawn from
// an ambiguous job (info, ambiguous) and another replica's critical
// finding of the same kind stay two rows: merged into one, the ambiguous
// job would be listed under a critical finding.
func TestMergeKeepsAmbiguousFindingsApart(t *testing.T) {
	mk := func(name string, f FindingReport) MergeInput {
		r := &Report{Source: ReportSource{Files: []string{name}, Events: 1}, Replica: name, Totals: ReportTotals{Attempts: 1, Jobs: 1},
			Findings: []FindingReport{f}}
		return MergeInput{Name: name, Report: r, Digest: [32]byte{name[0]}}
	}
	m, err := MergeReports([]MergeInput{
		mk("a", FindingReport{Kind: "terminal_error_retried", Severity: SeverityInfo, Ambiguous: true, Count: 1, Jobs: []string{"job-a"}, JobsTotal: 1}),
		mk("b", FindingReport{Kind: "terminal_error_retried", Severity: SeverityCritical, Count: 1, Jobs: []string{"job-z"}, JobsTotal: 1}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Findings) != 2 {
		t.Fatalf("findings %+v, want the critical row and the ambiguous row", m.Findings)
	}
	for _, f := range m.Findings {
		if f.Severity == SeverityCritical && (f.Ambiguous || slices.Contains(f.Jobs, "job-a")) {
			t.Errorf("the ambiguous job was merged into the critical row: %+v", f)
		}
	}
}
