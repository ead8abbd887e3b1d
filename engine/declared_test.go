package engine

import (
	"context"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// TestTheOperatorsDeclarationsReachEveryRun: Options.Declared (watch's
// --assumptions FILE) is given to each run as it opens, so a second night
// the process sees keeps the operator's premises (the only ones that arm
// kill_on finding:assumption_violated), marked as the operator's.
func TestTheOperatorsDeclarationsReachEveryRun(t *testing.T) {
	var decl ingest.Event
	decl.Reset()
	decl.Kind, decl.TSCarried = ingest.KindAssumption, true
	decl.SetAssumption(ingest.AssumptionFromOperator, "anthropic-sdk.maxRetries", "0")
	n1 := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	var evs []ingest.Event
	for i, run := range []string{"n1", "n2"} {
		// The nights' own declarations dropped: only the operator's.
		evs = append(evs, assumptionNight(run, n1.Add(time.Duration(i)*24*time.Hour), "0", 0)[1:]...)
	}
	release := make(chan struct{})
	close(release)
	log := &fakeAssumptionsLog{}
	eng := New(Options{Config: correlate.DefaultConfig(), Assumptions: log, Tick: time.Millisecond, Declared: []ingest.Event{decl}},
		&gated{events: evs, at: len(evs), release: release})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range eng.Frames() {
			if f.Final {
				return
			}
		}
	}()
	eng.Run(context.Background())
	<-done
	final := eng.Report()
	eng.RecordFinal(final)
	if len(log.recorded) != 2 {
		t.Fatalf("recorded %d runs, want 2", len(log.recorded))
	}
	for _, r := range log.recorded {
		found := false
		for _, a := range r.Assumptions {
			if a.Key == "anthropic-sdk.maxRetries" {
				found = a.Declared == "0" && a.DeclaredFrom == ingest.AssumptionFromOperator
			}
		}
		if !found {
			t.Errorf("run %s: the operator's declaration is missing: %+v", r.RunID, r.Assumptions)
		}
	}
}
