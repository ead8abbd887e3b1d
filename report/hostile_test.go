package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// hostileReport is a report as report --merge or --baseline reads it from
// a file someone handed over: every string in it is s.
func hostileReport(s string) *correlate.Report {
	m := map[string]int64{s: 1}
	return &correlate.Report{
		Source:      correlate.ReportSource{Files: []string{s}, SkippedByReason: m, ReadErrors: []string{s}, FirstTS: s, LastTS: s},
		Pricing:     correlate.ReportPricing{Table: s, UnpricedModels: []string{s}, ApproximatedModels: map[string]string{s: s}},
		Totals:      correlate.ReportTotals{UnpricedAttempts: 1},
		Status:      m,
		JobTypes:    []correlate.JobTypeReport{{JobType: s}},
		Models:      []correlate.ModelReport{{Model: s, Status: m}},
		Tools:       []correlate.ToolReport{{Tool: s, Status: m}},
		Jobs:        []correlate.JobReport{{JobID: s, JobType: s, Outcome: s, FirstTS: s, LastTS: s}},
		Breakers:    []correlate.BreakerReport{{Key: s, Trips: 1}},
		Findings:    []correlate.FindingReport{{Kind: s, Count: 1, Jobs: []string{s}, Example: s, FirstAt: s, Advice: s}},
		Assumptions: []correlate.AssumptionReport{{Key: s, JobType: s, Declared: s, DeclaredFrom: s, Observed: s, Previous: s, ChangedAt: s, Evidence: s, ObservedAt: s}},
		Merged: &correlate.MergeInfo{Replicas: []correlate.MergedReplica{{File: s, Replica: s, RunID: s, FirstTS: s, LastTS: s}},
			SplitJobs: 1, SplitJobExamples: []string{s}, Dropped: []string{s}, Conflicts: []string{s}, Approximate: []string{s}},
	}
}

// TestMarkdownHostileCorpus (issue 36): a replica's or a baseline's report
// holding the hostile corpus in every string writes a Markdown report
// with none of it live — no terminal escape, no HTML, no forged heading,
// link, image, bare URL or mention.
func TestMarkdownHostileCorpus(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		var b bytes.Buffer
		if err := MarkdownCompared(&b, hostileReport(s), hostileReport(s)); err != nil {
			t.Fatal(err)
		}
		if u := testutil.MarkdownDocUnsafe(b.String()); u != "" {
			t.Errorf("%q: %q is live in the report:\n%s", s, u, b.String())
		}
	}
}

// TestMarkdownNoEmptyValues: a report whose events had no time says so in
// words; no sentence ends on an empty value ("First at .").
func TestMarkdownNoEmptyValues(t *testing.T) {
	r := &correlate.Report{Source: correlate.ReportSource{Files: []string{"sdk.log"}},
		Findings: []correlate.FindingReport{{Kind: "breaker_open", Count: 1, Example: "x"}}}
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"at .", "at :", " : ", "First at  ", "Prices: ."} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("report has an empty value (%q):\n%s", bad, b.String())
		}
	}
}

// TestSpendChartFromZero: the cumulative spend chart's axis starts at 0,
// not at the first column's spend.
func TestSpendChartFromZero(t *testing.T) {
	r := &correlate.Report{Source: correlate.ReportSource{Files: []string{"a.log"}}}
	for i := range 5 {
		r.Timeline = append(r.Timeline, correlate.TimelinePoint{UnixMinute: int64(i), Calls: 3, Spend: correlate.Pico(1_090_000_000_000 + int64(i)*100_000_000_000)})
	}
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	_, chart, ok := strings.Cut(b.String(), "Cumulative spend, USD:")
	if !ok {
		t.Fatalf("no spend chart:\n%s", b.String())
	}
	if !strings.Contains(chart, " 0.00 ") {
		t.Errorf("the spend axis does not start at 0:\n%s", chart)
	}
}
