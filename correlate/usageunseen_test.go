package correlate_test

import (
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// An answered call whose usage its record does not carry (a stream the
// SDK's debug output never prints: ingest.Event.UsageUnseen) is unpriced
// until another record of the same response gives its usage, in whichever
// order they come; a growth showing part of the usage (cached tokens
// hidden) is billed for what it shows and stays unpriced until then.
func TestUsageUnseenUntilAnotherRecordGivesIt(t *testing.T) {
	mk := func(kind ingest.Kind, unseen bool, in, cached, out int64) ingest.Event {
		var e ingest.Event
		e.Reset()
		e.Kind, e.JobID, e.Model, e.Status, e.TS = kind, "doc-1", "gpt-4o-mini", 200, 1e18
		e.ResponseID = ingest.HTTPAttemptPrefix + "req_8ce85fdab81258e012df2663c75824f5"
		e.UsageUnseen = unseen
		e.SetInclusiveInput(in, cached, 0)
		e.OutputTokens = out
		return e
	}
	sdk := mk(ingest.KindLLMCall, true, 0, 0, 0)
	hidden := mk(ingest.KindUsageGrowth, true, 0, 0, 289)
	app := mk(ingest.KindLLMCall, false, 2998, 2048, 289)
	report := func(evs ...ingest.Event) correlate.JobReport {
		st := correlate.New(correlate.DefaultConfig())
		for i := range evs {
			st.Apply(&evs[i])
		}
		r := st.Report()
		if len(r.Jobs) != 1 {
			t.Fatalf("jobs %+v", r.Jobs)
		}
		return r.Jobs[0]
	}
	whole := report(app)
	if whole.UnpricedCalls != 0 || whole.SpendUSD == 0 {
		t.Fatalf("the app's line alone: %+v", whole)
	}
	for name, evs := range map[string][]ingest.Event{
		"SDK then app":            {sdk, app},
		"app then SDK":            {app, sdk},
		"SDK, hidden growth, app": {sdk, hidden, app},
		"app, SDK, hidden growth": {app, sdk, hidden},
	} {
		if j := report(evs...); j.Attempts != 1 || j.UnpricedCalls != 0 || j.SpendUSD != whole.SpendUSD {
			t.Errorf("%s: %d calls, $%v with %d unpriced; want 1, $%v, 0", name, j.Attempts, j.SpendUSD, j.UnpricedCalls, whole.SpendUSD)
		}
	}
	if j := report(sdk); j.UnpricedCalls != 1 || j.SpendUSD != 0 {
		t.Errorf("the stream alone: $%v with %d unpriced, want $0 with 1", j.SpendUSD, j.UnpricedCalls)
	}
	if j := report(sdk, hidden); j.UnpricedCalls != 1 || j.SpendUSD <= 0 || j.SpendUSD >= whole.SpendUSD {
		t.Errorf("the SDK's hidden usage: $%v with %d unpriced, want under $%v with 1", j.SpendUSD, j.UnpricedCalls, whole.SpendUSD)
	}
}
