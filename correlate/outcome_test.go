package correlate

import (
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestOutcomeWithoutLifecycle: issue 13 — every job without queue events
// stayed "running" forever, so a finished log of 200-OK calls reported
// succeeded_jobs 0. A job ends by its last call: live once idle for
// IdleAfter of log time, and at the end of input in a report.
func TestOutcomeWithoutLifecycle(t *testing.T) {
	st := New(DefaultConfig())
	at := func(min float64) int64 { return 1773104400_000000000 + int64(min*float64(time.Minute)) }
	call := func(job string, min float64, status int16) {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.Model, ev.Status = at(min), ingest.KindLLMCall, job, "claude-sonnet-4-6", status
		st.Apply(&ev)
	}
	call("ok", 0, 529)
	call("ok", 0.1, 200)
	call("bad", 0, 400)
	call("busy", 0, 200)
	call("busy", 4, 200)
	outcome := func(id string, final bool) Outcome { return st.Outcome(st.Job(id), final) }
	if o := outcome("ok", false); o != OutcomeActive {
		t.Errorf("a job 4 minutes quiet is %v live, want active", o)
	}
	call("busy", 6, 529) // the log clock moves on: ok and bad are idle past 5 minutes
	if o := outcome("ok", false); o != OutcomeSucceeded {
		t.Errorf("ok: %v, want succeeded once idle", o)
	}
	if o := outcome("bad", false); o != OutcomeFailed {
		t.Errorf("bad: %v, want failed", o)
	}
	if o := outcome("busy", false); o != OutcomeActive {
		t.Errorf("busy: %v, want active", o)
	}
	r := st.Report()
	if r.Totals.SucceededJobs != 1 || r.Totals.FailedJobs != 2 || r.Totals.RunningJobs != 0 {
		t.Errorf("report at the end: %d succeeded, %d failed, %d running; want 1, 2, 0", r.Totals.SucceededJobs, r.Totals.FailedJobs, r.Totals.RunningJobs)
	}
	snap := st.Snapshot(SnapshotOptions{})
	for _, row := range snap.Jobs {
		if row.ID == "busy" && row.Outcome != OutcomeActive {
			t.Errorf("dashboard row %s: %v", row.ID, row.Outcome)
		}
	}
}

// TestSpendCurveCoversTheRun: issue 14 — the spend chart covered only the
// last 120 minutes: replaying seed 001 the header said $217.80 while the
// chart topped out at $86.42. The curve covers the run; its last point
// is the spend.
func TestSpendCurveCoversTheRun(t *testing.T) {
	st := New(DefaultConfig())
	for i := range 600 { // ten hours, one call a minute
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.Model, ev.Status = 1773104400_000000000+int64(i)*int64(time.Minute), ingest.KindLLMCall, "j", "m", 200
		ev.CostUSD, ev.HasCost = 0.5, true
		st.Apply(&ev)
	}
	snap := st.Snapshot(SnapshotOptions{})
	if n := len(snap.SpendCurve); n == 0 || n > SpendCurvePoints || snap.SpendCurve[n-1] != snap.Spend || snap.Spend != PicoFromUSD(300) {
		t.Errorf("curve of %d points ending at %v, spend %v", n, snap.SpendCurve[max(n-1, 0)].USD(), snap.Spend.USD())
	}
	if snap.SpendCurveStep*int64(len(snap.SpendCurve)) < 600 {
		t.Errorf("%d points of %d minutes do not cover 600 minutes", len(snap.SpendCurve), snap.SpendCurveStep)
	}
}
