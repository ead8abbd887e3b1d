package correlate

import (
	"fmt"
	"time"
)

// A run is what a run ceiling, the rules' once-per-run state and every kill
// key are scoped to: one night's batch. A process that runs for weeks (the
// shipped systemd unit) sees many: a run ends when the logs' run_id
// changes, or at the boundary a RunWindow draws for logs that name none.

// RunWindowKind says how a RunWindow draws boundaries.
type RunWindowKind uint8

const (
	// RunWindowNone: no boundary but the logs' run_id.
	RunWindowNone RunWindowKind = iota
	// RunWindowDaily: a run per day, from a reset time in a named zone.
	RunWindowDaily
	// RunWindowIdle: a run ends after a gap of log time with no event.
	RunWindowIdle
)

// RunWindow draws run boundaries for logs that name no run_id. The zero
// value draws none.
type RunWindow struct {
	Kind RunWindowKind
	// Daily: the reset time, as hour and minute of the wall clock in Zone
	// (a DST change moves it with the clock, as a cron job's would).
	Hour, Minute int
	Zone         *time.Location
	// Idle: the gap of log time that ends a run.
	Idle time.Duration
}

// String is the window as --run-window spells it.
func (w RunWindow) String() string {
	switch w.Kind {
	case RunWindowDaily:
		return fmt.Sprintf("daily %02d:%02d %s", w.Hour, w.Minute, w.zone())
	case RunWindowIdle:
		return "idle " + w.Idle.String()
	}
	return "none"
}

func (w RunWindow) zone() *time.Location {
	if w.Zone == nil {
		return time.UTC
	}
	return w.Zone
}

// DailySpan returns the daily window holding log time ts: its start and end
// (Unix ns) and its label, the start's date in the zone ("2026-12-01").
// Pure: the same ts always lands in the same window, whatever order the
// events arrive in, so two files read in any order agree on every run.
func (w RunWindow) DailySpan(ts int64) (start, end int64, label string) {
	loc := w.zone()
	t := time.Unix(0, ts).In(loc)
	reset := time.Date(t.Year(), t.Month(), t.Day(), w.Hour, w.Minute, 0, 0, loc)
	if t.Before(reset) {
		reset = time.Date(t.Year(), t.Month(), t.Day()-1, w.Hour, w.Minute, 0, 0, loc)
	}
	next := time.Date(reset.Year(), reset.Month(), reset.Day()+1, w.Hour, w.Minute, 0, 0, loc)
	return reset.UnixNano(), next.UnixNano(), reset.Format("2006-01-02")
}

// RunSummary is a finished run's totals, kept when its detail is let go.
type RunSummary struct {
	RunID     string  `json:"run_id"`
	FirstTS   string  `json:"first_ts"`
	LastTS    string  `json:"last_ts"`
	Events    int64   `json:"events"`
	Attempts  int64   `json:"attempts"`
	ToolCalls int64   `json:"tool_calls"`
	Jobs      int     `json:"jobs"`
	SpendUSD  float64 `json:"spend_usd"`
}

// Summary is the state's totals under runID, cheap enough for every run
// boundary (no job is visited).
func (s *State) Summary(runID string) RunSummary {
	return RunSummary{RunID: runID, FirstTS: FormatTime(s.firstTS), LastTS: FormatTime(s.lastTS), Events: s.events,
		Attempts: s.attempts, ToolCalls: s.toolCalls, Jobs: len(s.jobList) + int(s.retired.jobs), SpendUSD: s.spend.USD()}
}
