package correlate

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestComputedCostOverCapIsFlaggedAndKept: issue 36 — a "3.0 per token"
// typo billed $150,000 for 50 calls without a word. A computed cost above
// the per-call cap is counted and its model named, and stays in spend (so
// every ceiling still sees it); a logged cost is not held to this cap, and
// a cap of 0 flags nothing.
func TestComputedCostOverCapIsFlaggedAndKept(t *testing.T) {
	tab, err := LoadLiteLLMPrices(strings.NewReader(`{"dear":{"input_cost_per_token":0.9,"output_cost_per_token":0.9},"cheap":{"input_cost_per_token":1e-6,"output_cost_per_token":1e-6}}`), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(capUSD float64) *Report {
		cfg := DefaultConfig()
		cfg.Prices = tab.WithBase(EmbeddedPrices())
		cfg.MaxCallCost = PicoFromUSD(capUSD)
		st := New(cfg)
		for i := range 30 {
			ev := ingest.Event{}
			ev.Reset()
			ev.TS, ev.Kind, ev.JobID, ev.Status = int64(1_773_104_400+i)*1e9, ingest.KindLLMCall, "j", 200
			ev.Model, ev.InputTokens, ev.OutputTokens = []string{"dear", "cheap", "logged"}[i%3], 1000, 500
			if i%3 == 2 {
				ev.CostUSD, ev.HasCost = 5000, true // logged: ingest's cap, not this one
			}
			st.Apply(&ev)
		}
		return st.Report()
	}
	r := run(1000)
	if r.Totals.OverCapCalls != 10 {
		t.Errorf("over cap = %d, want 10 (the dear model's calls, $1,350 each)", r.Totals.OverCapCalls)
	}
	if strings.Join(r.Pricing.OverCapModels, ",") != "dear" || r.Pricing.MaxCallCostUSD != 1000 {
		t.Errorf("pricing = %+v", r.Pricing)
	}
	want := 10*1350.0 + 10*0.0015 + 10*5000
	if d := r.Totals.SpendUSD - want; d > 1e-6 || d < -1e-6 {
		t.Errorf("spend = %v, want %v: an over-cap cost stays in spend", r.Totals.SpendUSD, want)
	}
	if r := run(0); r.Totals.OverCapCalls != 0 || r.Pricing.OverCapModels != nil {
		t.Errorf("cap 0 flagged %d", r.Totals.OverCapCalls)
	}
	if r := run(DefaultMaxCallCostUSD); r.Totals.OverCapCalls != 0 {
		t.Errorf("default cap flagged %d calls of $1,350", r.Totals.OverCapCalls)
	}
	if err := (Config{Prices: tab, MaxCallCost: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "max call cost") {
		t.Errorf("a negative cap: %v", err)
	}
}
