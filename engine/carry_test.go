package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// carryPart runs one process's part of a night: a fresh engine and rules,
// seeded with carried, over evs; it returns the job_ceiling and
// run_ceiling alerts (run ID/job ID) and what it carries at the end.
func carryPart(t *testing.T, cfg alerts.Config, window correlate.RunWindow, carried []CarriedRun, evs ...ingest.Event) (fired []string, out []CarriedRun) {
	t.Helper()
	var mu sync.Mutex
	rules := alerts.NewRules(cfg, nil, func(a alerts.Alert) {
		mu.Lock()
		fired = append(fired, a.Rule+" "+a.RunID+"/"+a.JobID)
		mu.Unlock()
	})
	e := New(Options{Config: correlate.DefaultConfig(), Observer: rules, RunWindow: window, Carried: carried}, &oneByOne{evs})
	e.Run(context.Background())
	return fired, e.Carry(0)
}

// TestACarriedRunTakesTheNextEventsOfItsRun: the carried run is the one the
// next events of that run go to, however the run was named: the logs'
// run_id, the configured --run-id, a derived ID (no run_id, no --run-id: it
// would be derived again from the first event after the restart, another
// name; the carried one is kept), a daily window's day, an idle window
// within its gap. Its spend adds to the carried spend at the crossing
// event; the run ceiling is judged on the carried run total.
func TestACarriedRunTakesTheNextEventsOfItsRun(t *testing.T) {
	idle := correlate.RunWindow{Kind: correlate.RunWindowIdle, Idle: 2 * time.Hour}
	daily := correlate.RunWindow{Kind: correlate.RunWindowDaily, Hour: 6, Zone: time.UTC}
	at := func(ev ingest.Event, d time.Duration) ingest.Event { ev.TS += int64(d); return ev }
	for _, c := range []struct {
		name        string
		runID, logs string
		window      correlate.RunWindow
		gap         time.Duration
		want        string // the run of the kill; "" none
	}{
		{"logs' run_id", "", "n1", correlate.RunWindow{}, time.Minute, "n1"},
		{"--run-id", "night-x", "", correlate.RunWindow{}, time.Minute, "night-x"},
		{"derived", "", "", correlate.RunWindow{}, time.Minute, "derived"},
		{"daily window", "", "", daily, time.Minute, "daily"},
		{"idle window, within the gap", "night-i", "", idle, time.Hour, "night-i"},
		{"idle window, past the gap", "night-i", "", idle, 3 * time.Hour, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := alerts.Config{JobCeilingUSD: 0.2, RunCeilingUSD: 0.6, RunID: c.runID, RunSources: []string{"otlp"}, KillOn: alerts.DefaultKillOn}
			fired, carried := carryPart(t, cfg, c.window, nil, call(c.logs, "a", 10, 0.18), call(c.logs, "b", 10, 0.18))
			if len(fired) != 0 || len(carried) != 1 || carried[0].Totals.Spend != 360_000_000_000 || len(carried[0].Totals.JobList) != 2 {
				t.Fatalf("part 1: fired %v, carried %+v", fired, carried)
			}
			first := carried[0].ID
			fired, carried = carryPart(t, cfg, c.window, carried, at(call(c.logs, "a", 10, 0.18), c.gap))
			if c.want == "" {
				if len(fired) != 0 {
					t.Fatalf("a new run began with the carried spend: %v", fired)
				}
				return
			}
			want := []string{"job_ceiling " + first + "/a"}
			if len(fired) != 1 || fired[0] != want[0] {
				t.Fatalf("part 2: fired %v, want %v", fired, want)
			}
			if len(carried) != 1 || carried[0].ID != first || carried[0].Totals.Spend != 540_000_000_000 {
				t.Fatalf("part 2 carries %+v, want %s at $0.54", carried, first)
			}
			// A third part: the run crosses its $0.60 ceiling on the
			// carried spend ($0.54 + $0.18).
			fired, _ = carryPart(t, cfg, c.window, carried, at(call(c.logs, "c", 10, 0.18), c.gap+time.Minute))
			if len(fired) != 1 || fired[0] != "run_ceiling "+first+"/" {
				t.Fatalf("part 3: fired %v, want the run ceiling of %s", fired, first)
			}
		})
	}
}

// TestAnOldCarriedRunIsNotCarriedForEver: a resumed run that gets no event
// in this process, and is not the current one, is left out of the next
// carry: last week's run is not reopened at every restart.
func TestAnOldCarriedRunIsNotCarriedForEver(t *testing.T) {
	cfg := alerts.Config{JobCeilingUSD: 0.2, KillOn: alerts.DefaultKillOn}
	_, carried := carryPart(t, cfg, correlate.RunWindow{}, nil, call("n1", "a", 10, 0.18), call("n2", "b", 11, 0.18))
	if len(carried) != 2 || !carried[1].Current {
		t.Fatalf("part 1 carries %+v", carried)
	}
	// Restarted with no event: both stay (n2 is still current).
	_, again := carryPart(t, cfg, correlate.RunWindow{}, carried)
	if len(again) != 2 {
		t.Fatalf("a restart with no event carries %d runs, want 2", len(again))
	}
	// n3 begins: n1 (untouched since the restart) is left out; n2 too.
	_, next := carryPart(t, cfg, correlate.RunWindow{}, again, call("n3", "c", 12, 0.01))
	if len(next) != 1 || next[0].ID != "n3" {
		t.Fatalf("after n3 began, carried %+v, want n3 only", next)
	}
}

// TestAJobTypeCeilingCountsTheCarriedJobs: a job type's ceiling is judged
// on its carried jobs' spend plus what comes after the restart.
func TestAJobTypeCeilingCountsTheCarriedJobs(t *testing.T) {
	cfg := alerts.Config{JobTypeCeilingUSD: map[string]float64{"": 0.5}, RunID: "night-t", KillOn: alerts.DefaultKillOn}
	fired, carried := carryPart(t, cfg, correlate.RunWindow{}, nil, call("", "a", 10, 0.18), call("", "b", 10, 0.18))
	if len(fired) != 0 {
		t.Fatalf("part 1 fired %v", fired)
	}
	fired, _ = carryPart(t, cfg, correlate.RunWindow{}, carried, call("", "c", 10, 0.18))
	if len(fired) != 1 || fired[0] != "job_type_ceiling night-t/" {
		t.Fatalf("after the restart: %v, want the job type's ceiling at $0.54", fired)
	}
}
