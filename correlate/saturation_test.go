package correlate

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestSaturationIsConsistentAcrossLevels: issue 36 — a 1e300 price showed
// the run at $9,223,372.04 while its ten jobs read $9,223,372.04 each, as
// if exact. A saturated amount is "at least" at every level: the run is
// never below any job or type, every saturated figure reads "≥$…", and the
// report's totals say the spend saturated.
func TestSaturationIsConsistentAcrossLevels(t *testing.T) {
	st := New(DefaultConfig())
	for i := range 50 {
		ev := ingest.Event{}
		ev.Reset()
		ev.TS, ev.Kind, ev.Model, ev.Status = int64(1_773_104_400+i)*1e9, ingest.KindLLMCall, "m", 200
		ev.JobID, ev.JobType = string(rune('a'+i%10)), string(rune('t'+i%2))
		ev.CostUSD, ev.HasCost = 1e300, true // past ingest's check: correlate's own arithmetic
		st.Apply(&ev)
	}
	if !st.Spend().Saturated() {
		t.Fatalf("run spend %d, want saturated", st.Spend())
	}
	r := st.Report()
	if !r.Totals.SpendSaturated {
		t.Error("totals do not say the spend saturated")
	}
	if len(r.Jobs) != 10 {
		t.Fatalf("%d jobs", len(r.Jobs))
	}
	for _, j := range r.Jobs {
		if j.SpendUSD > r.Totals.SpendUSD {
			t.Errorf("job %s spent %v, more than the run's %v", j.JobID, j.SpendUSD, r.Totals.SpendUSD)
		}
		if got := USD(j.SpendUSD); got != "≥$9,223,372.04" {
			t.Errorf("job %s spend reads %q", j.JobID, got)
		}
	}
	for _, jt := range r.JobTypes {
		if jt.SpendUSD != r.Totals.SpendUSD {
			t.Errorf("type %s spend %v, run %v: a level that includes a saturated job is saturated", jt.JobType, jt.SpendUSD, r.Totals.SpendUSD)
		}
	}
	if got := USD(r.Totals.SpendUSD); !strings.HasPrefix(got, "≥") {
		t.Errorf("run spend reads %q", got)
	}
	// Read back (a merge, a carried report), a saturated amount stays
	// saturated, never the smaller $9M it was clamped to.
	if p := PicoFromUSD(r.Totals.SpendUSD); !p.Saturated() {
		t.Errorf("PicoFromUSD(%v) = %d, not saturated", r.Totals.SpendUSD, p)
	}
	if p := PicoFromUSD(1e300); !p.Saturated() {
		t.Errorf("PicoFromUSD(1e300) = %d", p)
	}
	// A plausible rate times a huge call saturates the same way.
	if c := (Price{Input: PicoFromUSD(MaxPlausibleUSDPerToken)}).Cost(100_000_000, 0, 0, 0); !c.Saturated() {
		t.Errorf("1e8 tokens at $1 = %d, want saturated", c)
	}
	// Normal amounts read as before.
	if got := USD(9_000_000); got != "$9,000,000.00" {
		t.Errorf("USD(9e6) = %q", got)
	}
}
