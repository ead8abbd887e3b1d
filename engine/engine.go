// Package engine runs the live pipeline: sources feed batches of events to
// one goroutine that owns the correlate.State, hands each event to the
// rules, and publishes a Frame for the dashboard on a tick. It exists so
// that watch, replay, demo and headless mode share one loop, and so that
// neither ingest nor the UI ever touches the State.
package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/statedir/spool"
)

// DefaultTick is how often a frame is published when something changed:
// the dashboard redraws at most this often, however fast lines arrive.
const DefaultTick = 100 * time.Millisecond

// DefaultQueue is how many batches may wait for the engine. A full queue
// blocks file sources (they resume where they were, losing nothing).
const DefaultQueue = 256

// Frame is one published view: a snapshot of the state plus the status of
// the sources. Frames are immutable once published.
type Frame struct {
	Snap    *correlate.Snapshot
	Sources []ingest.Status
	Replay  *ingest.ReplayStatus
	Alerts  []alerts.Line
	// Kills is each killed job's kill state, when the observer tracks kills.
	Kills map[string]alerts.KillState
	// Final is set on the last frame, after every source finished.
	Final bool
	// JournalProblem is "" while the action journal writes, else what
	// failed (see alerts.Rules.JournalProblem).
	JournalProblem string
	// RunChurn is said once the logs' run IDs churn (a run ID per call,
	// or many at once): events are routed by the run window from then on.
	RunChurn string
	// Spool is the event spool's status, nil without one.
	Spool *spool.Status
	// RunID is the run shown (the one with the latest event; "" before
	// the first, or when nothing names runs). Runs counts every run this
	// process has seen, the shown one included; PreviousRun is the one
	// before it, when there is one.
	RunID       string
	Runs        int
	PreviousRun *correlate.RunSummary
	// Now is the live clock for countdowns and ages: the log clock plus
	// the wall time since the last event arrived, capped by the idle
	// horizon (Config.IdleAfter: past it the State would have ended jobs
	// that it has not, since it moves only with events). In a replay it
	// is the log clock. QuietFor is that wall time once it passes
	// QuietAfter, else 0: the input has gone quiet and the dashboard says so.
	Now      int64
	QuietFor time.Duration
	// RunSpan is said when the run shown has covered more than a day of
	// log time with nothing to end it (no run_id, no run window): a daemon
	// that adds every night into one run.
	RunSpan string
}

// longRun is how much log time one run may cover, with nothing to end
// it, before the frame says so.
const longRun = 24 * int64(time.Hour)

// Clock is the live clock (Now), or the log clock for a frame built
// without one.
func (f *Frame) Clock() int64 {
	if f.Now != 0 {
		return f.Now
	}
	return f.Snap.Now
}

// QuietAfter is how long without an event before a live frame says the
// input is quiet.
const QuietAfter = 5 * time.Second

// journalReporter is an observer whose actions are journaled.
type journalReporter interface{ JournalProblem() string }

// changeReporter is an observer that counts its changes made without an
// event (an action's result arriving from a worker), so a frame shows
// them on a log that has gone quiet.
type changeReporter interface{ Changes() uint64 }

// Observer sees every event right after the State applied it, on the
// engine goroutine: the alert rules hang here. It must not block.
type Observer interface {
	Observe(st *correlate.State, job *correlate.Job, ev *ingest.Event)
	// Lines returns alert lines for the dashboard; called on each tick.
	Lines() []alerts.Line
	// KillStates returns each killed job's state; called on each tick.
	KillStates() map[string]alerts.KillState
}

// Engine is the live pipeline. Create it with New, start it with Run.
type Engine struct {
	// st is the State shown: the current run's, or an empty one before
	// the first event. applying is the State of the run being applied.
	st       *correlate.State
	applying *correlate.State
	runs     runs
	in       chan ingest.Batch
	frames   chan *Frame
	sources  []ingest.Source
	observer Observer
	ceiling  float64
	jobCeil  correlate.JobCeilings
	summary  bool
	tick     time.Duration
	detail   atomic.Pointer[string]
	replay   ingest.ReplayControl
	latest   atomic.Pointer[Frame]
	done     chan struct{}
	// lastEvent is when, in wall time, the last event was applied (its
	// monotonic reading: a host clock stepped back or forth moves no
	// countdown); horizon caps how far the live clock runs past the log's.
	lastEvent time.Time
	horizon   time.Duration
	assume    AssumptionsLog
	// held are floating declarations waiting for the event after them,
	// heldAt their positions by job type and key.
	held   []ingest.Event
	heldAt map[[2]string]int
	// spool keeps the events of inputs that cannot be read again.
	spool    Spool
	replayed int64 // events ReplaySpool applied
	// replaying is set while ReplaySpool applies the spool.
	replaying bool
	// inFlight are an app's announced calls waiting for their answer
	// (spool.go).
	inFlight heldCalls
	// wall is the wall time of the live batch being applied, 0 for a
	// replayed one (see apply): monotonic ns since born.
	wall int64
	born time.Time
	mu   sync.Mutex // guards st after Run returns, for Report
}

// Options configure an Engine.
type Options struct {
	Config     correlate.Config
	CeilingUSD float64
	// JobCeilings marks rows over their ceiling; pass the rules' policy.
	JobCeilings correlate.JobCeilings
	Tick        time.Duration
	Queue       int
	Observer    Observer
	// SummaryFrames publishes frames without per-job rows (see
	// correlate.SnapshotOptions.NoJobRows): for a reader of totals only.
	SummaryFrames bool
	// RunWindow draws run boundaries for logs that name no run_id (the
	// logs' run_id always does): each run has its own State, so its own
	// spend, jobs, ceilings and rule state.
	RunWindow correlate.RunWindow
	// Assumptions keeps the assumptions log across runs (nil: each run
	// is compared with nothing before it).
	Assumptions AssumptionsLog
	// Declared are the operator's declarations (--assumptions FILE,
	// config.LoadAssumptions): applied to every run's State before its
	// first event, they are the only declarations that arm a kill
	// (kill_on finding:assumption_violated); the logs' own are shown and
	// alerted, never killed on.
	Declared []ingest.Event
	// Spool, when set, is appended every batch of every source before it
	// is applied; ReplaySpool applies what an earlier process spooled.
	// Give it only when no source would be read again from its start
	// at a restart (OTLP, stdin, files followed from their end): such a
	// file's events would be counted twice.
	Spool Spool
}

// AssumptionsLog is the assumptions log across runs (seed 003: "the
// boundary shows up mechanically in the sequence of logs"): the run a
// new one is compared with, and each run recorded once the next has
// begun — so a daemon that runs for weeks keeps a line per night, not
// one at its stop.
type AssumptionsLog interface {
	// Baseline is the last run recorded other than runID (a run resumed
	// after a restart is not its own baseline); nil when there is none.
	Baseline(runID string) []correlate.AssumptionReport
	// Record compares a run that a later one has superseded with its
	// baseline and keeps it; it becomes the baseline. It is called on
	// the engine goroutine, once per run.
	Record(r *correlate.Report, baseline []correlate.AssumptionReport)
	// Compare compares a run's report with its baseline and keeps
	// nothing: the final report of a run recorded already.
	Compare(r *correlate.Report, baseline []correlate.AssumptionReport)
	// Upstream names the recorded changes of a library's retry
	// behaviour between two of its versions.
	Upstream(id, from, to string) []string
}

// New builds an engine over the given sources.
func New(opt Options, sources ...ingest.Source) *Engine {
	if opt.Tick <= 0 {
		opt.Tick = DefaultTick
	}
	if opt.Queue <= 0 {
		opt.Queue = DefaultQueue
	}
	e := &Engine{st: correlate.New(opt.Config), in: make(chan ingest.Batch, opt.Queue), frames: make(chan *Frame, 1),
		sources: sources, observer: opt.Observer, ceiling: opt.CeilingUSD, jobCeil: opt.JobCeilings, summary: opt.SummaryFrames, tick: opt.Tick, done: make(chan struct{}), born: time.Now()}
	e.runs = runs{cfg: opt.Config, window: opt.RunWindow, declared: opt.Declared}
	e.assume = opt.Assumptions
	if e.assume != nil {
		e.runs.closing = func(r *run) {
			if !r.recorded {
				e.recordRun(r)
			}
		}
	}
	e.horizon = opt.Config.IdleAfter
	if e.horizon <= 0 { // jobs end only at the end: still, bound the run-on
		e.horizon = correlate.DefaultIdleAfter
	}
	if ro, ok := opt.Observer.(RunObserver); ok {
		e.runs.observer = ro
	}
	e.spool = opt.Spool
	for _, s := range sources {
		if r, ok := s.(ingest.ReplayControl); ok {
			e.replay = r
		}
		if m, ok := s.(ingest.Remembering); ok && e.spool != nil {
			// Its memory goes into the spool with its events (spool.go).
			m.SpoolMemory()
		}
	}
	return e
}

// Frames delivers the newest frame; an unread frame is replaced, never
// queued, so a slow renderer cannot make the engine fall behind.
func (e *Engine) Frames() <-chan *Frame { return e.frames }

// ShowDetail asks for the job's attempts in the following frames ("" for none).
func (e *Engine) ShowDetail(jobID string) { e.detail.Store(&jobID) }

// Latest returns the newest published frame (nil before the first); safe
// from any goroutine, for readers such as the metrics endpoint.
func (e *Engine) Latest() *Frame { return e.latest.Load() }

// Replay returns the replay source's controls, or nil when live.
func (e *Engine) Replay() ingest.ReplayControl { return e.replay }

// Done is closed when Run has returned.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Run starts the sources and applies their batches until they all finish
// or ctx is done, then publishes a final frame. It owns the State.
func (e *Engine) Run(ctx context.Context) {
	defer close(e.done)
	e.mu.Lock()
	defer e.mu.Unlock()
	srcCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var spoolMu sync.Mutex
	for _, s := range e.sources {
		if e.spool != nil {
			e.spooled(srcCtx, s, &wg, &spoolMu)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.Run(srcCtx, e.in) // errors are reported through Status
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	ticker := time.NewTicker(e.tick)
	defer ticker.Stop()
	dirty := true
	lastDetail := ""
	var lastChanges uint64
	var lastReplay ingest.ReplayStatus
	// A frame copies every job's row; with 100,000 jobs that takes tens of
	// milliseconds. Frames may take at most a fifth of the engine's time,
	// so a huge run redraws less often rather than falling behind.
	var notBefore, lastPublish time.Time
	lastRetain := time.Now()
	for {
		select {
		case b := <-e.in:
			e.apply(b)
			dirty = true
		case <-ticker.C:
			if time.Since(lastRetain) >= retainEvery {
				e.retain()
				lastRetain = time.Now()
			}
			if d := e.detailJob(); d != lastDetail {
				lastDetail, dirty = d, true
			}
			if c := e.observerChanges(); c != lastChanges {
				lastChanges, dirty = c, true
			}
			// A key pressed while paused changes nothing in the state, but
			// the speed and pause shown must follow it.
			if e.replay != nil {
				if st := e.replay.Progress(); st.Speed != lastReplay.Speed || st.Paused != lastReplay.Paused {
					lastReplay, dirty = st, true
				}
			}
			// Live, the clock runs between lines: a frame a second keeps
			// countdowns, ages and the quiet marker moving.
			if e.replay == nil && !e.lastEvent.IsZero() && time.Since(lastPublish) >= time.Second {
				dirty = true
			}
			if dirty && !time.Now().Before(notBefore) {
				start := time.Now()
				e.publish(false)
				notBefore, lastPublish = start.Add(5*time.Since(start)), start
				dirty = false
			}
		case <-finished:
			e.drain()
			e.applyInFlight()
			e.placeHeld()
			// The postmortem is read after the last frame: a job's detail
			// asked for then, or a kill's result, still needs a frame.
			// What the final frame shows is taken before it is built, so a
			// request made meanwhile is answered again.
			detail, changes := e.detailJob(), e.observerChanges()
			e.publish(true)
			go e.afterFinal(ctx, detail, changes)
			return
		case <-ctx.Done():
			cancel()
			// A stopping source hands over what it still holds (a held
			// "calling model" line, lines read but not sent): taken until
			// every source has returned, so none waits on a full queue.
			for waiting := true; waiting; {
				select {
				case b := <-e.in:
					e.apply(b)
				case <-finished:
					waiting = false
				}
			}
			e.drain()
			e.applyInFlight()
			e.placeHeld()
			e.publish(true)
			return
		}
	}
}

// observerChanges is the observer's change count, 0 when it keeps none.
func (e *Engine) observerChanges() uint64 {
	if c, ok := e.observer.(changeReporter); ok {
		return c.Changes()
	}
	return 0
}

// afterFinal answers, until ctx is done, what the dashboard asks after
// the final frame: each new detail request and each change of the
// observer (a manual kill's result) is published as another final frame.
func (e *Engine) afterFinal(ctx context.Context, detail string, changes uint64) {
	<-e.done // Run has returned: e.mu is free and the State is still
	ticker := time.NewTicker(e.tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			d, c := e.detailJob(), e.observerChanges()
			if d == detail && c == changes {
				continue
			}
			detail, changes = d, c
			e.mu.Lock()
			e.publish(true)
			e.mu.Unlock()
		}
	}
}

func (e *Engine) drain() {
	for {
		select {
		case b := <-e.in:
			e.apply(b)
		default:
			return
		}
	}
}

// apply routes a batch's events to their runs and applies each stretch of
// one run's events to its State in one ApplyBatch.
func (e *Engine) apply(b ingest.Batch) {
	if len(b) > 0 {
		e.lastEvent = time.Now()
	}
	if e.replay == nil {
		// Live: a quiet source's clock runs on with wall time
		// (correlate's State.SetWall); a replay's has none. Monotonic,
		// from the engine's start: a host clock that steps 10 h on must
		// not make every quiet source's jobs idle.
		e.wall = int64(time.Since(e.born)) + 1
		defer func() { e.wall = 0 }()
	}
	e.applyBatch(e.inFlight.sift(e.memory(b)))
}

// applyBatch is apply without the live clock: a replayed batch arrived
// before this process began.
func (e *Engine) applyBatch(b ingest.Batch) {
	var cur *run
	from := 0
	flush := func(to int) {
		if cur != nil && from < to {
			e.applyTo(cur, b[from:to])
		}
		from = to
	}
	for i := range b {
		ev := &b[i]
		if floatingDeclaration(ev) {
			flush(i)
			from = i + 1
			e.hold(ev)
			continue
		}
		r := e.runs.route(ev)
		if len(e.held) > 0 {
			// The declarations before this event open its run.
			flush(i)
			e.applyTo(r, e.held)
			clear(e.held)
			e.held = e.held[:0]
			clear(e.heldAt)
			cur = r
			continue
		}
		if r != cur {
			flush(i)
			cur = r
		}
	}
	flush(len(b))
	before := e.runs.current()
	e.runs.evict()
	if c := e.runs.current(); c != nil {
		e.st = c.st
	}
	e.recordSuperseded(before)
	ingest.Recycle(b) // the engine owns it, and nothing keeps it past here
}

// floatingDeclaration is a declaration that names no run — seed 003's
// `[assumptions] {…}` line, printed at the top of a run: it belongs to the
// run the event after it opens, not to the one the line before it ended
// (it carries that line's time), nor to a run of its own (the decoder
// gives an untimed one the next line's time: at the top of a log whose
// events name a run_id it opened a derived run, and the real run lost its
// declarations and a critical violation). What the traffic showed
// (observed facts) is routed with its call.
func floatingDeclaration(ev *ingest.Event) bool {
	if ev.Kind != ingest.KindAssumption || ev.RunID != "" {
		return false
	}
	from, _, _, ok := ev.AssumptionParts()
	return ok && !strings.HasPrefix(from, ingest.AssumptionFromObserved)
}

// maxHeld bounds the declarations waiting for an event: past it they are
// the current run's at once.
const maxHeld = 4096

// hold keeps a floating declaration until the next event. Declarations of
// one key with no event between them have no event under any but the
// last: only the last is kept (a million untimed lines with no event
// between held 990 MB), and the hold never passes maxHeld.
func (e *Engine) hold(ev *ingest.Event) {
	_, key, _, _ := ev.AssumptionParts()
	k := [2]string{ev.JobType, key}
	if i, ok := e.heldAt[k]; ok {
		e.held[i] = *ev
		return
	}
	if e.heldAt == nil {
		e.heldAt = map[[2]string]int{}
	}
	e.heldAt[k] = len(e.held)
	e.held = append(e.held, *ev)
	if len(e.held) >= maxHeld {
		e.placeHeld()
	}
}

// placeHeld applies declarations still waiting for an event (the input
// ended on them) to the current run, or to a run of their own.
func (e *Engine) placeHeld() {
	if len(e.held) == 0 {
		return
	}
	r := e.runs.current()
	if r == nil {
		r = e.runs.route(&e.held[0])
	}
	e.applyTo(r, e.held)
	e.held, e.heldAt = nil, nil
	e.st = r.st
}

func (e *Engine) applyTo(r *run, seg ingest.Batch) {
	e.applying = r.st
	r.st.SetWall(e.wall)
	if e.observer == nil {
		r.st.ApplyBatch(seg, nil)
	} else {
		r.st.ApplyBatch(seg, e.observe)
	}
}

// observe hands each applied event to the observer (ApplyBatch's after).
func (e *Engine) observe(job *correlate.Job, ev *ingest.Event) {
	e.observer.Observe(e.applying, job, ev)
}

// recordSuperseded hands the assumptions log every run a later one has
// superseded — a new run_id, the next day of a run window — once the
// later run's log has moved recordAfter past the earlier one's last event:
// interleaved run_ids and last night's stragglers land in their run's
// line first (written at once, a run's later retries were left out of it
// and the next night's baseline was stale). A straggler later still stays
// in its run's numbers but is not recorded again.
func (e *Engine) recordSuperseded(cur *run) {
	if e.assume == nil || cur == nil {
		return
	}
	for _, r := range e.runs.open {
		if r.recorded || r.seq >= cur.seq || cur.lastTS-r.lastTS < recordAfter {
			continue
		}
		e.recordRun(r)
	}
}

// recordAfter is how far past a superseded run's last event the run after
// it must be before its assumptions line is written.
const recordAfter = int64(time.Hour)

// RecordFinal records, after Run has returned, every run not recorded
// yet in the order they began — the current one as final, its final
// report — and compares final with its run's baseline in any case.
func (e *Engine) RecordFinal(final *correlate.Report) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.runs.current()
	if e.assume == nil || cur == nil {
		return
	}
	open := slices.Clone(e.runs.open)
	slices.SortFunc(open, func(a, b *run) int { return a.seq - b.seq })
	for _, r := range open {
		switch {
		case r == cur && r.recorded:
			// A straggler of an earlier run was read last: its run was
			// kept when the next began.
			e.assume.Compare(final, e.baseline(r).Baseline)
		case r == cur:
			r.recorded = true
			e.assume.Record(final, e.baseline(r).Baseline)
		case !r.recorded:
			e.recordRun(r)
		}
	}
}

func (e *Engine) recordRun(r *run) {
	r.recorded = true
	if e.replaying {
		// The process that applied these events first recorded the run:
		// its line is in the assumptions log already.
		return
	}
	if r.st.Summary(r.id).Events == 0 {
		return
	}
	rep := r.st.ReportWith(correlate.ReportOptions{StreamJobs: true})
	rep.RunID = r.id
	e.assume.Record(rep, e.baseline(r).Baseline)
}

// baseline is what run r's assumptions are compared with: the run
// recorded last when r began showing (the night before, from the log or
// this process).
func (e *Engine) baseline(r *run) *correlate.AssumptionOptions {
	if e.assume == nil {
		return nil
	}
	if !r.baselineSet {
		r.baseline, r.baselineSet = e.assume.Baseline(r.id), true
	}
	return &correlate.AssumptionOptions{Baseline: r.baseline, Upstream: e.assume.Upstream}
}

func (e *Engine) detailJob() string {
	if p := e.detail.Load(); p != nil {
		return *p
	}
	return ""
}

func (e *Engine) publish(final bool) {
	opt := correlate.SnapshotOptions{CeilingUSD: e.ceiling, JobCeilings: e.jobCeil, DetailJob: e.detailJob(), NoJobRows: e.summary, Ended: final}
	var quiet time.Duration
	live := e.replay == nil && !e.lastEvent.IsZero() && e.st.Now() != 0
	if live {
		quiet = time.Since(e.lastEvent)
		opt.Now = e.st.Now() + int64(min(quiet, e.horizon)) // rates of the windows ending now
	}
	if cur := e.runs.current(); cur != nil {
		opt.Assumptions = e.baseline(cur)
	}
	f := &Frame{Snap: e.st.Snapshot(opt), Final: final}
	f.Now = f.Snap.Now
	if live {
		f.Now += int64(min(quiet, e.horizon))
		if quiet >= QuietAfter {
			f.QuietFor = quiet
		}
	}
	for _, s := range e.sources {
		f.Sources = append(f.Sources, s.Status()...)
	}
	if e.replay != nil {
		st := e.replay.Progress()
		f.Replay = &st
	}
	if e.observer != nil {
		f.Alerts = e.observer.Lines()
		f.Kills = e.observer.KillStates()
		if jr, ok := e.observer.(journalReporter); ok {
			f.JournalProblem = jr.JournalProblem()
		}
	}
	if e.spool != nil {
		st := e.spool.Status()
		f.Spool = &st
	}
	f.RunChurn = e.runs.churnSaid
	if cur := e.runs.current(); cur != nil {
		f.RunID, f.Runs = cur.id, len(e.runs.closed)+len(e.runs.open)
		// The span by the run's log clock, which a lone far-ahead line
		// does not move but a confirmed jump does (a week between two
		// nights), and its first event.
		first, last := cur.st.FirstTS(), cur.st.Now()
		if first <= 0 || cur.firstTS > 0 && cur.firstTS < first {
			first = cur.firstTS
		}
		if cur.logRunID == "" && e.runs.window.Kind == correlate.RunWindowNone && first > 0 && last-first > longRun {
			f.RunSpan = fmt.Sprintf("run %s has covered %s of log time and nothing ends it (no run_id in the logs, no run window): every night adds into one run — one run ceiling, a recurring job ID one job; set --run-window (\"daily 06:00 Europe/Berlin\" or \"idle 2h\") or log a run_id",
				display.Text(cur.id), time.Duration(last-first).Round(time.Hour))
		}
		if prev := e.runs.previous(cur); len(prev) > 0 {
			f.PreviousRun = &prev[len(prev)-1]
		}
	}
	e.latest.Store(f)
	select {
	case e.frames <- f:
	default:
		select { // replace the unread frame with this newer one
		case <-e.frames:
		default:
		}
		e.frames <- f
	}
}

// Report builds the postmortem of everything applied; call it after Run
// has returned.
func (e *Engine) Report() *correlate.Report {
	e.mu.Lock()
	defer e.mu.Unlock()
	var src []correlate.SourceInfo
	for _, s := range e.sources {
		for _, st := range s.Status() {
			if st.SameFileAs != "" {
				continue // not read: the file is listed once, by the path read
			}
			src = append(src, correlate.SourceInfo{Name: st.Name, Stats: st.Stats, Err: st.Err, Hint: st.Hint})
		}
	}
	if e.replayed > 0 {
		// What an earlier process read, replayed from the spool: the
		// report's events are the night's, not this process's only.
		src = append([]correlate.SourceInfo{{Name: "spool (replayed)", Stats: ingest.Stats{Events: e.replayed}}}, src...)
	}
	e.st.SetSources(src)
	r := e.st.Report()
	if cur := e.runs.current(); cur != nil {
		// The shown run in full; every other run this process saw by its
		// totals.
		r.RunID, r.PreviousRuns = cur.id, e.runs.previous(cur)
	}
	return r
}
