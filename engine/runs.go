package engine

import (
	"time"

	"slices"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// maxOpenRuns bounds the runs kept whole at once. More than one is open
// when files are read in any order (a set of nightly files caught up from
// the start), a straggler of last night arrives after tonight began, or
// several pipelines log to one file, each with its run_id; past the bound
// the run longest without an event is closed to its summary. It is large
// because closing a run that is still logging splits it: 5 pipelines
// interleaved under a bound of 4 were closed and begun again empty at
// every batch, and their run ceilings never fired.
const maxOpenRuns = 64

// maxRunSummaries bounds the finished runs a report lists.
const maxRunSummaries = 1000

// RunObserver is an Observer told of run boundaries: each run is a State
// of its own, and BeginRun names it (alerts.Rules keys kills by that name).
type RunObserver interface {
	BeginRun(st *correlate.State, start alerts.RunStart) string
	EndRun(st *correlate.State)
}

// run is one run's State and what routes events to it.
type run struct {
	id       string
	logRunID string // the logs' run_id, "" for a run the window drew
	window   string // the window's label
	st       *correlate.State
	// Daily windows: the span of log time the run covers.
	start, end int64
	firstTS    int64
	lastTS     int64
	seq        int   // order of creation, for a stable order of summaries
	used       int64 // when an event was last routed here, in events
	// The assumptions log: the run it is compared with, and whether it
	// has been recorded (Engine.recordSuperseded).
	baseline    []correlate.AssumptionReport
	baselineSet bool
	recorded    bool
}

// runs routes each event to its run: by the logs' run_id when an event
// names one, else by the run window (a day from a reset time, or a gap
// of log time), else to the one run there is. It runs on the engine
// goroutine only.
type runs struct {
	cfg      correlate.Config
	window   correlate.RunWindow
	observer RunObserver
	// declared are the operator's declarations (Options.Declared), given
	// to every run's State as it opens.
	declared []ingest.Event

	open   []*run
	last   *run // the run the previous event went to
	closed []correlate.RunSummary
	seq    int
	events int64 // events routed, the clock of run.used
	// closing is told of a run evict is about to close.
	closing func(*run)
	// jumpTo is the time of a lone event more than a day ahead of the
	// current run, waiting for a second to confirm the jump (pick).
	jumpTo int64
}

// farAhead is how far ahead of a run's clock an event may be and still
// move it at once (correlate's clockAhead).
const farAhead = 24 * int64(time.Hour)

// route returns the run ev belongs to, beginning it if need be. It is
// called once per event, in order.
func (rs *runs) route(ev *ingest.Event) *run {
	r := rs.pick(ev)
	if r.firstTS == 0 && ev.TS > 0 && !ev.TSCarried {
		r.firstTS = ev.TS
	}
	if ev.TS > r.lastTS && !(r.lastTS != 0 && ev.TS > r.lastTS+farAhead) {
		// A far-ahead line does not move the run's clock (as it does not
		// move the log clock, correlate's advanceClock): one line dated
		// 2199 must not open a run, nor hold one open.
		r.lastTS = ev.TS
	}
	rs.events++
	r.used = rs.events
	rs.last = r
	return r
}

func (rs *runs) pick(ev *ingest.Event) *run {
	last := rs.last
	if ev.RunID != "" {
		if last != nil && last.logRunID == ev.RunID {
			return last
		}
		for _, r := range rs.open {
			if r.logRunID == ev.RunID {
				return r
			}
		}
		if r := rs.adoptable(); r != nil {
			rs.adopt(r, ev)
			return r
		}
		return rs.begin(ev, ev.RunID, "", 0, 0)
	}
	// An event that names no run, in a log whose events name one, is of
	// the run the events around it name.
	if last != nil && last.logRunID != "" {
		return last
	}
	if last != nil && last.lastTS != 0 && ev.TS > last.lastTS+farAhead && rs.window.Kind != correlate.RunWindowNone {
		// A jump of more than a day: a new run only once a second event
		// confirms it (a weekend between two nights); a lone far-ahead
		// line stays in the run, billed, and opens nothing — else every
		// job over its ceiling would be killed again under a new run, and
		// the run's spend would start over from $0.
		if rs.jumpTo == 0 || ev.TS < rs.jumpTo-farAhead {
			rs.jumpTo = ev.TS
			return last
		}
		// Confirmed: the log is there now, and the window decides.
	}
	rs.jumpTo = 0
	switch rs.window.Kind {
	case correlate.RunWindowDaily:
		if ev.TS <= 0 && last != nil {
			return last // no time: where the line before it went
		}
		if last != nil && ev.TS >= last.start && ev.TS < last.end {
			return last
		}
		start, end, label := rs.window.DailySpan(ev.TS)
		for _, r := range rs.open {
			if r.logRunID == "" && r.start == start {
				return r
			}
		}
		return rs.begin(ev, "", label, start, end)
	case correlate.RunWindowIdle:
		if last != nil && (ev.TS <= 0 || ev.TS-last.lastTS <= int64(rs.window.Idle)) {
			return last
		}
		if last != nil {
			// A gap of log time longer than the window: a new run,
			// labelled by its first event's time.
			return rs.begin(ev, "", correlate.FormatTime(ev.TS), 0, 0)
		}
		return rs.begin(ev, "", "", 0, 0)
	}
	if last != nil {
		return last
	}
	if len(rs.open) > 0 {
		return rs.open[len(rs.open)-1]
	}
	return rs.begin(ev, "", "", 0, 0)
}

// adoptable is the run the first named run takes over instead of
// beginning beside it: the one run there is, drawn for events that named
// no run (no window), which has seen no call and no spend — a log whose
// job_started lines carry no run_id and whose calls do. Beginning beside
// it showed a phantom run ("2 runs; before: derived-… spent $0") and
// left the first jobs' starts in it.
func (rs *runs) adoptable() *run {
	if rs.window.Kind != correlate.RunWindowNone || len(rs.open) != 1 || len(rs.closed) > 0 {
		return nil
	}
	r := rs.open[0]
	if r.logRunID != "" || r.window != "" || r.st.AttemptCount() > 0 || r.st.Spend() != 0 {
		return nil
	}
	return r
}

// adopt makes r the run ev names: the rules forget the derived name (it
// fired nothing: no call was made in it) and key the run by the logs'.
func (rs *runs) adopt(r *run, ev *ingest.Event) {
	r.logRunID, r.id = ev.RunID, ev.RunID
	r.baseline, r.baselineSet = nil, false
	if rs.observer != nil {
		rs.observer.EndRun(r.st)
		r.id = rs.observer.BeginRun(r.st, alerts.RunStart{LogRunID: ev.RunID, First: ev})
	}
}

func (rs *runs) begin(ev *ingest.Event, logRunID, window string, start, end int64) *run {
	rs.seq++
	r := &run{logRunID: logRunID, window: window, st: correlate.New(rs.cfg), start: start, end: end, seq: rs.seq}
	rs.declare(r.st)
	r.id = logRunID
	if rs.observer != nil {
		r.id = rs.observer.BeginRun(r.st, alerts.RunStart{LogRunID: logRunID, Window: window, First: ev})
	}
	rs.open = append(rs.open, r)
	return r
}

// declare gives a run's State the operator's declarations (copies: a
// State keeps no event).
func (rs *runs) declare(st *correlate.State) {
	for i := range rs.declared {
		ev := rs.declared[i]
		st.Apply(&ev)
	}
}

// current is the run the latest event went to: the one the dashboard and
// /metrics show. nil before the first event.
func (rs *runs) current() *run {
	if rs.last != nil {
		return rs.last
	}
	var cur *run
	for _, r := range rs.open {
		if cur == nil || r.used > cur.used {
			cur = r
		}
	}
	return cur
}

// evict closes the runs past maxOpenRuns, the one longest without an event
// first — by arrival, not log time: a night whose clock is behind the
// others' (a host reset, a backfill) is the live one, and closing it by its
// old timestamps would begin it again, empty, at every batch. Call it
// between batches, never while one is being applied.
func (rs *runs) evict() {
	for len(rs.open) > maxOpenRuns {
		oldest := 0
		for i, r := range rs.open {
			if r.used < rs.open[oldest].used {
				oldest = i
			}
		}
		r := rs.open[oldest]
		if rs.closing != nil {
			rs.closing(r) // its assumptions line, before its State goes
		}
		rs.open = slices.Delete(rs.open, oldest, oldest+1)
		rs.closed = append(rs.closed, r.st.Summary(r.id))
		if len(rs.closed) > maxRunSummaries {
			rs.closed = slices.Delete(rs.closed, 0, len(rs.closed)-maxRunSummaries)
		}
		if rs.observer != nil {
			rs.observer.EndRun(r.st)
		}
		if rs.last == r {
			rs.last = nil
		}
	}
}

// previous lists every run but cur, finished ones first, each in the
// order it began.
func (rs *runs) previous(cur *run) []correlate.RunSummary {
	out := slices.Clone(rs.closed)
	others := make([]*run, 0, len(rs.open))
	for _, r := range rs.open {
		if r != cur {
			others = append(others, r)
		}
	}
	slices.SortFunc(others, func(a, b *run) int { return a.seq - b.seq })
	for _, r := range others {
		out = append(out, r.st.Summary(r.id))
	}
	return out
}

// CarriedRun is a run taken before a stop for a restart (see
// correlate.Carried): its ID and what routes events to it, and its totals.
type CarriedRun struct {
	ID       string
	LogRunID string // the logs' run_id, "" for a run a window or the configuration named
	Window   string
	// Start and End are a daily window's span of log time; LastTS the
	// run's latest event (an idle window's gap is measured from it).
	Start, End, LastTS int64
	// Current marks the run the latest event went to.
	Current bool
	Totals  correlate.Carried
}

// carrySeeder is an observer told that a run began from carried totals
// (alerts.Rules adds the carried jobs to its job-type spend).
type carrySeeder interface{ Seeded(st *correlate.State) }

// resume opens each carried run before the first event, seeded with its
// totals, so the same routing that would have sent the next events to it
// before the stop sends them to it now: by the logs' run_id, the day of a
// daily window, an idle window's gap from its last event, or, with none,
// to the one run there is. The run that was current is current again.
func (rs *runs) resume(carried []CarriedRun) {
	for _, c := range carried {
		rs.seq++
		// A run that was not current was recorded in the assumptions log
		// when a later one superseded it, or at the stop; the current one
		// is recorded again, whole, when its turn comes.
		r := &run{id: c.ID, logRunID: c.LogRunID, window: c.Window, st: correlate.New(rs.cfg), start: c.Start, end: c.End, lastTS: c.LastTS, seq: rs.seq, recorded: !c.Current}
		_ = r.st.Seed(c.Totals) // a new State: never refused
		rs.declare(r.st)
		if rs.observer != nil {
			r.id = rs.observer.BeginRun(r.st, alerts.RunStart{LogRunID: c.LogRunID, Window: c.Window, Resume: c.ID})
			if s, ok := rs.observer.(carrySeeder); ok {
				s.Seeded(r.st)
			}
		}
		rs.open = append(rs.open, r)
		if c.Current || rs.last == nil {
			rs.last = r
		}
	}
	rs.evict()
}

// carry takes every open run's carried totals, at most maxJobs jobs in
// all (0: every job): the current run's first, then the others' from the
// one with the latest event back; a run's jobs left out are counted in
// its totals, and their spend is in its spend all the same.
func (rs *runs) carry(maxJobs int) []CarriedRun {
	cur := rs.current()
	order := slices.Clone(rs.open)
	slices.SortStableFunc(order, func(a, b *run) int {
		switch {
		case a == cur:
			return -1
		case b == cur:
			return 1
		case a.used > b.used:
			return -1
		case a.used < b.used:
			return 1
		}
		return a.seq - b.seq
	})
	left := maxJobs
	type taken struct {
		seq int
		c   CarriedRun
	}
	all := make([]taken, 0, len(order))
	for _, r := range order {
		if r.used == 0 && r != cur && rs.events > 0 {
			// Resumed, and no event came to it while others came: a run
			// of an earlier night is not carried from restart to restart
			// for ever (its straggler after that begins at $0). A process
			// that applied nothing keeps every run it resumed.
			continue
		}
		limit := 0
		if maxJobs > 0 {
			limit = max(left, 0)
			if limit == 0 {
				limit = -1 // the budget is spent: totals only
			}
		}
		t := r.st.CarryOut(limit)
		left -= len(t.JobList)
		if t.Spend == 0 && t.Jobs == 0 {
			continue // nothing a ceiling could use
		}
		all = append(all, taken{r.seq, CarriedRun{ID: r.id, LogRunID: r.logRunID, Window: r.window, Start: r.start, End: r.end, LastTS: r.lastTS, Current: r == cur, Totals: t}})
	}
	// In the order the runs began, so a restart opens them in that order.
	slices.SortFunc(all, func(a, b taken) int { return a.seq - b.seq })
	out := make([]CarriedRun, len(all))
	for i, t := range all {
		out[i] = t.c
	}
	return out
}
