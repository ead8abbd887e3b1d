package engine

import (
	"fmt"
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
	closed      bool // evicted: its State is gone
	// dateShape is logRunID with its dates blanked, "" when it has none
	// (runroll.go).
	dateShape string
	dateDays  []int64
}

// jobAt is where a job's events went, for a daily window: the run of its
// first event and its latest event's time.
type jobAt struct {
	run    *run
	lastTS int64
}

// maxJobsAt bounds runs.jobAt; past it the map starts again (a job then
// goes where its day sends it).
const maxJobsAt = 1 << 18

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
	// churn is set once the logs' run IDs churn (see noteBegin): from
	// then on every event is routed as if it named no run, by the run
	// window, into fallback runs; churnSaid says why, for the frame.
	churn        bool
	churnSaid    string
	begun        [churnBegins][2]int64 // rs.events and log time at the last logged runs' begins, a ring
	begunN       int
	lastFallback *run
	// jobAt keeps, under a daily window, the run each job began in: a
	// job still running at the window's reset stays one job of that run
	// (issue 34: it became two, each under its ceiling).
	jobAt map[string]jobAt
	// rolledJobs keeps, for runs whose ID holds a date, the run each job
	// began in (runroll.go); shapeOf caches the date shape of the last
	// run ID asked about.
	rolledJobs     map[string]rolledAt
	shapeOf, shape string
	shapeDays      []int64
}

// farAhead is how far ahead of a run's clock an event may be and still
// move it at once (correlate's clockAhead).
const farAhead = 24 * int64(time.Hour)

// route returns the run ev belongs to, beginning it if need be. It is
// called once per event, in order.
func (rs *runs) route(ev *ingest.Event) *run {
	var r *run
	if rs.churn {
		// A run begun before the churn keeps its events: its jobs
		// began there (issue 34: 64 other run IDs, and the honest run's
		// job was split between it and the fallback, never killed).
		// Only run IDs not open go by the window.
		if r = rs.openNamed(ev.RunID); r == nil {
			r = rs.fallback(ev)
			rs.lastFallback = r
		}
	} else {
		r = rs.pick(ev)
	}
	if rs.window.Kind == correlate.RunWindowDaily && ev.JobID != "" && ev.TS > 0 {
		if rs.jobAt == nil || len(rs.jobAt) >= maxJobsAt {
			rs.jobAt = map[string]jobAt{}
		}
		j := rs.jobAt[ev.JobID]
		if j.run != r {
			j = jobAt{run: r}
		}
		j.lastTS = max(j.lastTS, ev.TS)
		rs.jobAt[ev.JobID] = j
	}
	if r.dateShape != "" {
		rs.noteRolled(r, ev)
	}
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
		if r := rs.rolled(ev); r != nil {
			return r // a job across a dated run ID's roll: its first event's run
		}
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
		if r := rs.continuing(ev); r != nil {
			return r // a job across the reset: its first event's run
		}
		if last != nil && ev.TS >= last.start && ev.TS < last.end {
			return last
		}
		return rs.dailyRun(ev)
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

// dailyRun is the open run of ev's day that no run_id named, begun if
// need be.
func (rs *runs) dailyRun(ev *ingest.Event) *run {
	start, end, label := rs.window.DailySpan(ev.TS)
	for _, r := range rs.open {
		if r.logRunID == "" && r.start == start {
			return r
		}
	}
	return rs.begin(ev, "", label, start, end)
}

// continuing is the run of ev's job when the job is still running —
// its last event no longer ago than the job idle time — in an open run
// other than the one ev's day would send it to, else nil.
func (rs *runs) continuing(ev *ingest.Event) *run {
	if ev.JobID == "" {
		return nil
	}
	j, ok := rs.jobAt[ev.JobID]
	if !ok || j.run.closed {
		return nil
	}
	idle := int64(rs.cfg.IdleAfter)
	if idle <= 0 {
		idle = int64(correlate.DefaultIdleAfter)
	}
	if ev.TS > j.lastTS+idle || ev.TS < j.run.start-idle {
		return nil
	}
	return j.run
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
	r.dateShape, r.dateDays = datesOf(ev.RunID)
	r.baseline, r.baselineSet = nil, false
	if rs.observer != nil {
		rs.observer.EndRun(r.st)
		r.id = rs.observer.BeginRun(r.st, alerts.RunStart{LogRunID: ev.RunID, First: ev})
	}
}

// Run-ID churn: a log that gives many run IDs at once, or one per call (a
// LangChain/LangSmith run per call), would open a run per ID and close
// the honest runs to make room — every ceiling blinded, $1,000 spent and
// no kill. It is churn when churnBegins logged runs begin within
// churnWithin events and churnSpan of log time, or when a live run (an
// event within the last churnLive events and churnLiveSpan of log time)
// would be closed to make room. A backfill of many nights, each hours of
// log time apart, is neither.
const (
	churnBegins   = 32
	churnWithin   = 1024
	churnSpan     = int64(time.Hour)
	churnLive     = 4096
	churnLiveSpan = int64(10 * time.Minute)
)

// noteBegin records a logged run's begin and says churn when the runs
// begin too fast.
func (rs *runs) noteBegin(ts int64) {
	i := rs.begunN % churnBegins
	prev := rs.begun[i]
	rs.begun[i] = [2]int64{rs.events, ts}
	rs.begunN++
	if rs.begunN >= churnBegins && rs.events-prev[0] < churnWithin && ts > 0 && prev[1] > 0 && ts-prev[1] < churnSpan {
		rs.setChurn(fmt.Sprintf("%d run IDs began within %d events and %s of log time", churnBegins, rs.events-prev[0]+1, time.Duration(ts-prev[1]).Round(time.Second)))
	}
}

func (rs *runs) setChurn(why string) {
	if rs.churn {
		return
	}
	rs.churn = true
	by := "into one run (no --run-window)"
	if rs.window.Kind != correlate.RunWindowNone {
		by = "by --run-window " + rs.window.String()
	}
	rs.churnSaid = fmt.Sprintf("the logs' run IDs churn (%s: a run ID per call, or many at once): from here on events are routed %s instead of by their run_id, so no run is closed to make room and every ceiling still holds; log one run_id per batch, not per call", why, by)
}

// openNamed is the open run the logs named id, nil for none (or id "").
func (rs *runs) openNamed(id string) *run {
	if id == "" {
		return nil
	}
	if rs.last != nil && rs.last.logRunID == id && !rs.last.closed {
		return rs.last
	}
	for _, r := range rs.open {
		if r.logRunID == id {
			return r
		}
	}
	return nil
}

// fallback routes an event by the run window alone, into runs no run_id
// named (the churn's fallback).
func (rs *runs) fallback(ev *ingest.Event) *run {
	last := rs.lastFallback
	if last != nil && last.closed {
		last = nil
	}
	switch rs.window.Kind {
	case correlate.RunWindowDaily:
		if last != nil && (ev.TS <= 0 || ev.TS >= last.start && ev.TS < last.end) {
			return last
		}
		return rs.dailyRun(ev)
	case correlate.RunWindowIdle:
		if last != nil && (ev.TS <= 0 || ev.TS-last.lastTS <= int64(rs.window.Idle)) {
			return last
		}
		if last != nil {
			return rs.begin(ev, "", correlate.FormatTime(ev.TS), 0, 0)
		}
	default:
		if last != nil {
			return last
		}
		for _, r := range rs.open {
			if r.logRunID == "" && r.window == "" {
				return r
			}
		}
	}
	return rs.begin(ev, "", "", 0, 0)
}

func (rs *runs) begin(ev *ingest.Event, logRunID, window string, start, end int64) *run {
	if logRunID != "" {
		rs.noteBegin(ev.TS)
	}
	rs.seq++
	r := &run{logRunID: logRunID, window: window, st: correlate.New(rs.cfg), start: start, end: end, seq: rs.seq}
	r.dateShape, r.dateDays = datesOf(logRunID)
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
		if r.logRunID != "" && rs.events-r.used < churnLive && rs.last != nil && rs.last.lastTS-r.lastTS < churnLiveSpan {
			// A live run would be closed to make room for new run IDs:
			// churn. It stays; no logged run begins from here on.
			rs.setChurn(fmt.Sprintf("%d runs open, and the one longest without an event had one %d events ago", len(rs.open), rs.events-r.used))
			return
		}
		r.closed = true
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
