package alerts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// actionWorkers deliver actions concurrently, so one webhook that never
// answers does not hold up the others.
const actionWorkers = 4

// DefaultDrainWindow is how long a clean stop (SIGINT, SIGTERM) waits for
// deliveries under way. What is not acknowledged by then stays requested
// in the journal, and the next start sends it under the same key.
const DefaultDrainWindow = 10 * time.Second

// Hooks say where actions go.
type Hooks struct {
	KillWebhook string
	KillExec    *ExecTemplate
	// RunKillExec, when set, is the command for a run-wide kill (a run
	// ceiling) in place of KillExec: a run has no {job_id} to name.
	RunKillExec   *ExecTemplate
	NotifyWebhook string
	DryRun        bool
	ReadOnly      bool
}

// KillBody is the kill webhook's JSON body; field names are a contract.
type KillBody struct {
	Action     string  `json:"action"`
	Scope      string  `json:"scope"`
	RunID      string  `json:"run_id"`
	JobID      string  `json:"job_id"`
	JobType    string  `json:"job_type"`
	Rule       string  `json:"rule"`
	Reason     string  `json:"reason"`
	SpendUSD   float64 `json:"spend_usd"`
	CeilingUSD float64 `json:"ceiling_usd"`
	Attempts   int64   `json:"attempts"`
	At         string  `json:"at"`
}

type task struct {
	action string
	key    string
	alert  Alert
	// resent is the journal's count of blind re-runs (Record.Resent),
	// carried into every record of this action.
	resent int
	// onDisk: its requested record is in the journal. An action is fired
	// only then (see hold).
	onDisk bool
	// first is when this process first delivered it, rounds how many
	// deliveries it made and attempts their attempts: a retryable
	// failure is delivered again until first + RetryFor.
	first    time.Time
	rounds   int
	attempts int
	holds    int // times it was held (see hold), for its backoff
}

func (t task) kill() bool { return t.action != actionNotify }

// isExec: the action runs a command, which no receiver deduplicates.
func isExec(action string) bool { return action == actionKillExec || action == actionRunKillExec }

// KnownActions and KnownStates are every action and the states it ends
// in, for metrics initialized at zero.
var (
	KnownActions = []string{actionKillWebhook, actionKillExec, actionRunKillExec, actionNotify}
	KnownStates  = []ActionState{StateRequested, StateAcknowledged, StateRejected, StateMisconfigured, StateFailed, StateGaveUp, StateRefused, StateWouldFire, StateHeld, StateRetrying}
)

// Action names, as the journal and headless output write them.
const (
	actionKillWebhook = "kill_webhook"
	actionKillExec    = "kill_exec"
	actionRunKillExec = "run_kill_exec"
	actionNotify      = "notify"
)

// Dispatcher runs actions off the engine's goroutine, journals every step
// and tracks each job's kill state. Its queue has no fixed capacity: every
// alert fires at most once per subject, so the backlog is bounded by the
// jobs correlate holds, and a burst of kills waits for a worker instead of
// being dropped.
type Dispatcher struct {
	hooks   Hooks
	poster  *Poster
	journal *Journal
	report  func(Result)

	mu    sync.Mutex
	queue []task
	wake  chan struct{} // one token: work was queued or the dispatcher stops
	busy  int           // workers delivering right now
	// busyNotify are the busy workers delivering a notification (at most
	// maxNotifyWorkers: see pick).
	busyNotify int
	// busyNet are the busy workers delivering over the network (a
	// webhook's kill or a notification): at most maxNetWorkers, so one
	// worker is always free for a kill command (see pick).
	busyNet int
	// claimed holds every key queued or under way. A key is claimed (see
	// claim) under mu after the journal said it does not block, and
	// released only after its final record is in the journal: the resend
	// of an unfinished kill and the log raising it again cannot both run.
	claimed map[string]bool
	// waiting holds the actions due again later (a redelivery after a
	// backoff, a kill held until the journal has room), each with its
	// timer; under mu. Shutdown takes them out and leaves them for the
	// next start.
	waiting map[string]*waitingTask
	// breakers are the receivers' circuit breakers (breaker.go), by URL;
	// under mu.
	breakers        map[string]*breaker
	held            atomic.Int64 // kills held now: not fired, the journal had no room
	journalFailures atomic.Int64
	journalLast     atomic.Pointer[string]
	states          map[runJob]ActionState // a job's kill state: job identity is run + job ID
	// changes counts kill-state changes, so the engine can redraw for a
	// kill's result on a log that has gone quiet.
	changes  atomic.Uint64
	started  bool
	stopped  bool
	wg       sync.WaitGroup
	ctx      context.Context
	cancel   context.CancelFunc
	inflight sync.WaitGroup
}

// Result is what an action did, for the alerts pane and headless output.
type Result struct {
	Alert  Alert
	Action string
	State  ActionState
	Detail string
	// JournalError is set when the journal could not record this step
	// (a full disk, say): State is still what happened, and a restart may
	// run the action again.
	JournalError string
}

// NewDispatcher builds a dispatcher; report receives every result and may
// be nil. It must not block.
func NewDispatcher(h Hooks, p *Poster, j *Journal, report func(Result)) *Dispatcher {
	if h.KillExec != nil || h.RunKillExec != nil {
		hideEnviron() // a command must not read our secrets from /proc/PPID
	}
	if report == nil {
		report = func(Result) {}
	}
	return &Dispatcher{hooks: h, poster: p, journal: j, report: report, wake: make(chan struct{}, 1),
		claimed: map[string]bool{}, states: map[runJob]ActionState{}, waiting: map[string]*waitingTask{}}
}

// waitingTask is an action due again when its timer fires.
type waitingTask struct {
	t     task
	held  bool
	timer *time.Timer
}

// Backoff of a held kill: how soon the journal is tried again.
const (
	heldRetryFirst = 500 * time.Millisecond
	heldRetryCap   = 30 * time.Second
)

// Start launches the workers and returns at once. It first queues every
// action the journal holds unfinished — requested before a stop or a
// crash, or failed — under its original key, unless this process may not
// act (read-only, dry run), in which case they wait for one that may.
//
// ctx is the parent of the workers' context; a clean stop goes through
// Shutdown, not through ctx, so pass one that a signal does not cancel.
func (d *Dispatcher) Start(ctx context.Context) {
	d.mu.Lock()
	if d.started || d.stopped {
		d.mu.Unlock()
		return
	}
	d.started = true
	d.ctx, d.cancel = context.WithCancel(ctx)
	for range actionWorkers {
		d.wg.Add(1)
		go d.work()
	}
	d.mu.Unlock()
	if d.hooks.ReadOnly || d.hooks.DryRun {
		return
	}
	for _, r := range d.journal.Unfinished() {
		a := *r.Alert
		a.At = r.AtNS
		if !d.hookFor(r.Action) {
			continue // that hook is no longer configured
		}
		t := task{action: r.Action, key: r.Key, alert: a}
		if !d.claim(t.key) {
			continue
		}
		why := "left unfinished by an earlier run (" + string(r.State) + "): sent again under the same key"
		resent := r.Resent
		if unknownOutcome(r) {
			// How the last run of it ended is unknown.
			resent++
			if isExec(r.Action) && r.Resent >= 1 {
				// A command is not keyed like a webhook: running it a
				// third time blind could kill a successor. Given up for
				// good (the log raising it again runs nothing); said once.
				detail := fmt.Sprintf("the outcome of this command was lost twice (crash or journal failure); not run a third time: check %s by hand", a.Subject())
				jerr := d.record(t, StateGaveUp, Record{Error: detail, Resent: r.Resent})
				d.release(t.key)
				d.setState(a, StateGaveUp)
				d.report(Result{Alert: a, Action: t.action, State: StateGaveUp, Detail: detail, JournalError: jerr})
				continue
			}
			if isExec(r.Action) {
				why = "left unfinished by an earlier run whose outcome is unknown: run again once (never a third time)"
				if r.TimedOut {
					why = "killed at exec_timeout by an earlier run, so its outcome is unknown: run again once (never a third time)"
				}
			}
		}
		if isExec(r.Action) && r.State == StateSent && r.Pgid > 0 {
			// Its group may have outlived the burnrate that ran it: ended
			// before the command runs again, so the two never overlap.
			if n, err := endGroup(r.Pgid, r.PgidStart, r.Mark); err != nil {
				why += fmt.Sprintf("; %d process(es) of its earlier run (group %d) were found and could not all be ended: %v", n, r.Pgid, err)
			} else if n > 0 {
				why += fmt.Sprintf("; %d process(es) of its earlier run (group %d) were still running and were ended first (SIGTERM, then SIGKILL)", n, r.Pgid)
			}
			// Those that left the group (setsid), by PID and start time.
			if n, err := endProcs(r.Procs, groupGrace, r.Mark); err != nil {
				why += fmt.Sprintf("; %d process(es) its earlier run started outside its group were found and could not all be ended: %v", n, err)
			} else if n > 0 {
				why += fmt.Sprintf("; %d process(es) its earlier run started outside its group were still running and were ended first (SIGTERM, then SIGKILL)", n)
			}
		}
		t.resent = resent
		jerr := d.record(t, StateRequested, Record{Alert: &a, AtNS: a.At, Resent: resent})
		if jerr != "" {
			d.hold(t, why+"; its request could not be journaled", jerr)
			continue
		}
		t.onDisk = true
		d.enqueue(t, why, "")
	}
}

// unknownOutcome: the record says the action may have run, and not how it
// ended — a delivery or a command under way when burnrate died, or a
// command killed at its timeout. A requested kill command with no "sent"
// record never started.
func unknownOutcome(r Record) bool {
	if isExec(r.Action) {
		return r.State == StateSent || (r.State == StateFailed && r.TimedOut)
	}
	return r.State == StateRequested || r.State == StateSent
}

// claim takes a key for this process: false if it is queued or under way
// already, or the journal says it is finished. One critical section, so
// two paths to the same kill cannot both pass the check.
func (d *Dispatcher) claim(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.claimed[key] {
		return false
	}
	if prev, ok := d.journal.Last(key); ok && prev.State.Blocks() {
		return false
	}
	d.claimed[key] = true
	return true
}

func (d *Dispatcher) release(key string) {
	d.mu.Lock()
	delete(d.claimed, key)
	d.mu.Unlock()
}

// JournalHealth is how many journal writes failed and the last error, for
// the dashboard header and /metrics.
func (d *Dispatcher) JournalHealth() (failures int64, last string) {
	if p := d.journalLast.Load(); p != nil {
		last = *p
	}
	return d.journalFailures.Load(), last
}

func (d *Dispatcher) hookFor(action string) bool {
	switch action {
	case actionKillWebhook:
		return d.hooks.KillWebhook != ""
	case actionKillExec:
		return d.hooks.KillExec != nil
	case actionRunKillExec:
		return d.hooks.RunKillExec != nil
	case actionNotify:
		return d.hooks.NotifyWebhook != ""
	}
	return false
}

func (d *Dispatcher) work() {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		i := -1
		for d.ctx.Err() == nil {
			if i = d.pick(); i >= 0 || (len(d.queue) == 0 && d.stopped) {
				break
			}
			d.mu.Unlock()
			select {
			case <-d.wake:
			case <-d.ctx.Done():
			}
			d.mu.Lock()
		}
		if i < 0 || d.ctx.Err() != nil {
			d.mu.Unlock()
			d.poke() // pass the stop on to the next worker
			return
		}
		t := d.queue[i]
		copy(d.queue[i:], d.queue[i+1:])
		d.queue[len(d.queue)-1] = task{}
		d.queue = d.queue[:len(d.queue)-1]
		d.busy++
		notify, net := !t.kill(), !isExec(t.action)
		if notify {
			d.busyNotify++
		}
		if net {
			d.busyNet++
		}
		more := len(d.queue) > 0
		d.mu.Unlock()
		if more {
			d.poke() // the wake token holds one: hand the rest to another worker
		}
		finished := d.run(d.ctx, t)
		d.mu.Lock()
		d.busy--
		if notify {
			d.busyNotify--
		}
		if net {
			d.busyNet--
		}
		if finished {
			// Its final record is journaled: a later request finds it
			// there. An interrupted one stays claimed: the next start
			// sends it.
			delete(d.claimed, t.key)
		}
		more = len(d.queue) > 0
		d.mu.Unlock()
		d.inflight.Done()
		if (notify || net) && more {
			d.poke() // a network delivery's worker freed: what waited for it may go
		}
	}
}

// maxNotifyWorkers is how many workers may deliver notifications at once:
// one is always kept for kills, so a notify receiver that hangs (Slack
// down, a stuck proxy) holds notifications only, never a kill (red team
// R7-24: four hung notifications held every worker, and the kill waited
// 59 s, or never left a run stopped meanwhile).
const maxNotifyWorkers = actionWorkers - 2

// maxNetWorkers is how many workers may deliver over the network at once
// (kill webhooks and notifications together): one is always kept for a
// kill command, which runs here and waits for no receiver (R7b-7: a hung
// kill webhook held the one worker kept for kills, and --kill-exec waited
// 52 s behind it while notifications held the rest).
const maxNetWorkers = actionWorkers - 1

// pick is the index of the queued task a free worker takes, under mu: the
// first kill command; else the first kill webhook while fewer than
// maxNetWorkers deliver over the network; else the first notification
// while fewer than maxNotifyWorkers deliver one too; -1 for none.
func (d *Dispatcher) pick() int {
	hook, note := -1, -1
	for i := range d.queue {
		switch {
		case isExec(d.queue[i].action):
			return i
		case d.queue[i].kill():
			if hook < 0 {
				hook = i
			}
		case note < 0:
			note = i
		}
	}
	if d.busyNet >= maxNetWorkers {
		return -1
	}
	if hook >= 0 {
		return hook
	}
	if note >= 0 && d.busyNotify < maxNotifyWorkers {
		return note
	}
	return -1
}

func (d *Dispatcher) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Shutdown stops taking new work and lets the queue drain until ctx is
// done (the drain window), then interrupts what is still under way. Every
// action not acknowledged by then stays requested in the journal, so the
// next start sends it under the same key: a clean stop never loses a kill.
// It is idempotent and safe without Start.
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return nil
	}
	d.stopped = true
	started := d.started
	d.mu.Unlock()
	if !started {
		return d.journal.Close()
	}
	d.leaveWaiting()
	d.poke()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.cancel()
		<-done
	}
	d.cancel()
	d.mu.Lock()
	left := d.queue
	d.queue = nil
	d.mu.Unlock()
	for _, t := range left {
		d.leave(t, "not sent before the drain window ended")
		d.inflight.Done()
	}
	return d.journal.Close()
}

// leaveWaiting takes every action due again later out of the timers and
// leaves it for the next start. A held kill whose request never reached
// the journal gets one more try to write it; what still cannot be written
// is said lost from this process (the log raising it again fires it).
func (d *Dispatcher) leaveWaiting() {
	for _, t := range d.takeParked() {
		d.leaveOne(t)
	}
	d.mu.Lock()
	left := make([]*waitingTask, 0, len(d.waiting))
	for k, w := range d.waiting {
		w.timer.Stop()
		delete(d.waiting, k)
		left = append(left, w)
	}
	d.mu.Unlock()
	for _, w := range left {
		if w.held {
			d.held.Add(-1)
		}
		d.leaveOne(w.t)
	}
}

func (d *Dispatcher) leaveOne(t task) {
	if t.onDisk {
		d.leave(t, "waiting to be delivered again when burnrate stopped")
		return
	}
	a := t.alert
	jerr := d.record(t, StateRequested, Record{Alert: &a, AtNS: a.At, Resent: t.resent})
	if jerr == "" {
		d.leave(t, "held (the journal had no room) when burnrate stopped; its request is journaled now")
		return
	}
	{
		d.report(Result{Alert: t.alert, Action: t.action, State: StateHeld, JournalError: jerr,
			Detail: "held when burnrate stopped: never fired, and its request could not be journaled, so no start will send it; a start that reads the log again raises it again"})
	}
}

// after runs then(t) once wait has passed, unless Shutdown comes first
// (then the action is left for the next start). The action stays claimed
// meanwhile; Wait does not wait for it.
func (d *Dispatcher) after(t task, wait time.Duration, held bool, then func(task)) {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		d.leaveOne(t)
		return
	}
	if held {
		d.held.Add(1)
	}
	w := &waitingTask{t: t, held: held}
	d.waiting[t.key] = w
	w.timer = time.AfterFunc(wait, func() {
		d.mu.Lock()
		if d.waiting[t.key] != w {
			d.mu.Unlock()
			return // Shutdown took it
		}
		delete(d.waiting, t.key)
		d.mu.Unlock()
		if held {
			d.held.Add(-1)
		}
		then(w.t)
	})
	d.mu.Unlock()
}

// Held counts the kills held now: not fired because the journal could not
// record them first. For the dashboard header and /metrics.
func (d *Dispatcher) Held() int64 { return d.held.Load() }

// hold keeps an action that may not be fired yet — its record cannot be
// journaled first, or the journal cannot keep room for its outcome (a
// full disk) — and tries again, with a backoff, while burnrate runs.
//
// The rule: no action is fired before its requested record is on disk
// and room for its outcome is kept (Journal.Reserve). A kill that cannot
// be journaled is late, never doubled: fired twice across a restart
// because its record was lost, a kill command would kill a successor.
func (d *Dispatcher) hold(t task, why, jerr string) {
	t.holds++
	wait := min(heldRetryCap, heldRetryFirst<<min(t.holds-1, 16))
	if t.kill() {
		d.setState(t.alert, StateHeld)
	}
	if t.holds == 1 || t.holds%20 == 0 {
		// Said when it is first held, then every twentieth try (about
		// every ten minutes at the cap): a full disk for a night must not
		// become a line per kill every 30 s.
		d.report(Result{Alert: t.alert, Action: t.action, State: StateHeld, JournalError: jerr,
			Detail: fmt.Sprintf("not fired (try %d): %s; a kill is fired only once its record is on disk (so a restart cannot fire it twice): the journal is tried again in %s, and it fires then", t.holds, why, wait.Round(time.Millisecond))})
	}
	d.after(t, wait, true, d.unhold)
}

// unhold tries a held action again: its request is journaled if it was
// not, then it is queued (the worker checks the room for its outcome).
func (d *Dispatcher) unhold(t task) {
	if !t.onDisk {
		a := t.alert
		if jerr := d.record(t, StateRequested, Record{Alert: &a, AtNS: a.At, Resent: t.resent}); jerr != "" {
			d.hold(t, "its request still cannot be journaled", jerr)
			return
		}
		t.onDisk = true
	}
	t.holds = 0
	d.enqueue(t, "the journal has room again: fired now", "")
}

// leave reports an action left for the next start: its requested record is
// already in the journal.
func (d *Dispatcher) leave(t task, why string) {
	if t.kill() {
		d.setState(t.alert, StateRequested)
	}
	d.report(Result{Alert: t.alert, Action: t.action, State: StateRequested, Detail: why + "; still requested in the journal: the next start sends it under the same key"})
}

// Wait blocks until no action is queued or under way: each has finished
// or is due again later (a redelivery after a backoff, a held kill; see
// Waiting). For tests.
func (d *Dispatcher) Wait() { d.inflight.Wait() }

// Waiting counts the actions due again later.
func (d *Dispatcher) Waiting() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.waiting) + d.parkedLocked()
}

// runJob is a job's identity across runs: a cron job's name recurs every
// night, and each night's is another job.
type runJob struct{ run, job string }

// KillStates returns a copy of each job's kill state, by job ID, over
// every run (a job killed in two runs shows the later state).
func (d *Dispatcher) KillStates() map[string]KillState {
	return d.killStates(func(string) bool { return true })
}

// KillStatesOf returns a copy of the kill state of each job of one run, by
// job ID.
func (d *Dispatcher) KillStatesOf(runID string) map[string]KillState {
	return d.killStates(func(run string) bool { return run == runID })
}

func (d *Dispatcher) killStates(ofRun func(string) bool) map[string]KillState {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]KillState, len(d.states))
	for k, v := range d.states {
		if ofRun(k.run) {
			out[k.job] = KillState{State: v}
		}
	}
	return out
}

func (d *Dispatcher) setState(a Alert, s ActionState) {
	if a.JobID == "" {
		return
	}
	d.mu.Lock()
	d.states[runJob{a.RunID, a.JobID}] = s
	d.mu.Unlock()
	d.changes.Add(1)
}

// IdempotencyKey is stable per action, rule, subject and run: the same kill
// always carries the same key, across retries, restarts and replicas
// reading the same input, while another night's run gets another key.
func IdempotencyKey(action string, a Alert) string {
	h := sha256.Sum256([]byte(action + "\x00" + a.Rule + "\x00" + a.Scope + "\x00" + a.JobType + "\x00" + a.JobID + "\x00" + a.RunID))
	return hex.EncodeToString(h[:16])
}

// rekeyAfter is how much later (log time) than a finished kill a new
// trigger of the same key must come to be another kill: the resend
// horizon, within which a log read again raises the same kill at about
// the same log time (engine.ResendHorizon).
const rekeyAfter = int64(time.Hour)

// maxGenerations bounds the walk over a key's generations.
const maxGenerations = 1 << 10

// keyFor is the Idempotency-Key of action for a: IdempotencyKey, unless
// the journal says the kill of that key is finished (acknowledged,
// rejected, gave up) at a log time more than rekeyAfter before a's — then
// it is another night's kill of the same job under a run ID that did not
// change (a scheduler's static "nightly-batch", an operator's --run-id),
// and takes the key's next generation (red team R7-21: tomorrow's runaway
// job was "already acknowledged before a restart: not sent again", and
// burned on). A log read again raises a kill at about the log time it
// was journaled at, so it finds its generation finished, and is not sent
// again; a generation is a function of the journal and the log time, so a
// restart derives the same key. "About the same log time" is measured
// from the latest record time the run had read when it killed
// (Record.LogHigh), not the crossing record's alone: read again in
// another order the input crosses at another record, never past what was
// read before.
func (d *Dispatcher) keyFor(action string, a Alert) string {
	base := IdempotencyKey(action, a)
	key := base
	for gen := 1; gen <= maxGenerations; gen++ {
		prev, ok := d.journal.Last(key)
		if !ok || !prev.State.Blocks() || a.At == 0 || !a.AtFromLog {
			// A time the record did not carry (taken from the clock when
			// a log that prints no times was read) says nothing of which
			// night it is: a restart reading it again hours later would
			// kill the same job again (R7b-6).
			return key
		}
		at, err := time.Parse(time.RFC3339Nano, prev.LogAt)
		if err != nil {
			return key
		}
		ref := at.UnixNano()
		if high, err := time.Parse(time.RFC3339Nano, prev.LogHigh); err == nil && high.UnixNano() > ref {
			// The run had read records this late when it killed: a
			// trigger before the horizon past them is the same input read
			// again in another order, not another night (R8-3: two
			// workers' clocks 3 h apart, merged by time on a restart,
			// crossed 3 h "later" and killed the job again).
			ref = high.UnixNano()
		}
		if a.At-ref <= rekeyAfter {
			return key
		}
		if wall, err := time.Parse(time.RFC3339Nano, prev.Time); err == nil && time.Since(wall) < time.Duration(rekeyAfter) {
			// Finished less than an hour ago by the clock: not another
			// night, whatever the log times say — a restart reading the
			// same records in another order (two files followed apart,
			// another time zone for times without one) crossed at a
			// record hours "later" and killed the job again under a new
			// key (red team R8b-6, R8b-11).
			return key
		}
		h := sha256.Sum256([]byte(base + "\x00" + strconv.Itoa(gen)))
		key = hex.EncodeToString(h[:16])
	}
	return key
}

// jobKillNotSent says why a job's kill sends nothing ("" when it is sent).
func (d *Dispatcher) jobKillNotSent() string {
	switch {
	case d == nil:
		return "no kill hook"
	case d.hooks.ReadOnly:
		return "read-only"
	case d.hooks.DryRun:
		return "dry run"
	case d.hooks.KillWebhook == "" && d.hooks.KillExec == nil:
		return "no kill hook"
	}
	return ""
}

// Kill requests the kill actions for an alert. It never blocks.
func (d *Dispatcher) Kill(a Alert) {
	exec, execAction := d.hooks.KillExec, actionKillExec
	if a.JobID == "" && d.hooks.RunKillExec != nil {
		exec, execAction = d.hooks.RunKillExec, actionRunKillExec
	}
	if d.hooks.KillWebhook == "" && exec == nil {
		// A dashboard beside the daemon that kills: say what the journal
		// says the daemon did, not that nothing was done.
		for _, action := range []string{actionKillWebhook, actionKillExec, actionRunKillExec} {
			if prev, ok := d.journal.Last(d.keyFor(action, a)); ok {
				d.setState(a, prev.State)
				d.report(Result{Alert: a, Action: action, State: prev.State, Detail: "no kill hook here; the journal says another burnrate's kill is " + string(prev.State)})
				return
			}
		}
		d.report(Result{Alert: a, Action: "kill", State: StateRefused, Detail: "no kill hook is configured"})
		return
	}
	if d.hooks.KillWebhook != "" {
		d.request(task{action: actionKillWebhook, alert: a})
	}
	if exec != nil {
		d.request(task{action: execAction, alert: a})
	}
}

// Notify posts a non-kill alert to the notify webhook, if one is set.
func (d *Dispatcher) Notify(a Alert) {
	if d.hooks.NotifyWebhook == "" {
		return
	}
	d.request(task{action: actionNotify, alert: a})
}

func killBody(a Alert) []byte {
	b, _ := json.Marshal(KillBody{Action: "kill", Scope: a.Scope, RunID: a.RunID, JobID: a.JobID, JobType: a.JobType, Rule: a.Rule,
		Reason: a.Reason, SpendUSD: a.SpendUSD, CeilingUSD: a.CeilingUSD, Attempts: a.Attempts, At: correlate.FormatTime(a.At)})
	// job_id is the job as logged, byte for byte (JSON-escaped), so the
	// receiver kills the job that exists; display.JSON writes the
	// characters that would reorder a terminal as \u escapes (the same JSON).
	return display.JSON(b)
}

// NotifyBody is the notify webhook's JSON body; field names are a
// contract (text is what a Slack-compatible receiver shows). The fields
// are in the order the body has always had.
type NotifyBody struct {
	At       string  `json:"at"`
	JobID    string  `json:"job_id"`
	JobType  string  `json:"job_type"`
	Rule     string  `json:"rule"`
	RunID    string  `json:"run_id"`
	Scope    string  `json:"scope"`
	SpendUSD float64 `json:"spend_usd"`
	Text     string  `json:"text"`
}

func notifyBody(a Alert) []byte {
	// text is for people (a chat channel): escaped as shown and as Slack
	// mrkdwn (& < > as entities: no <!channel> or <@U…> is live); the other
	// fields are for programs: exact.
	b, _ := json.Marshal(NotifyBody{Text: display.Slack(fmt.Sprintf("burnrate %s: %s", a.Severity, a.Reason)), Rule: a.Rule, Scope: a.Scope,
		RunID: a.RunID, JobID: a.JobID, JobType: a.JobType, SpendUSD: a.SpendUSD, At: correlate.FormatTime(a.At)})
	return display.JSON(b)
}

// record journals one step of an action. It returns "" when the record is
// on disk, else the error, which is also counted for JournalHealth: the
// caller reports it with the step's real outcome, never as a second one.
func (d *Dispatcher) record(t task, state ActionState, r Record) string {
	return d.journalRecord(t, state, r, d.journal.Append)
}

// recordOutcome is record for what a fired action did: it may use the
// room the journal keeps (Journal.AppendOutcome).
func (d *Dispatcher) recordOutcome(t task, state ActionState, r Record) string {
	return d.journalRecord(t, state, r, d.journal.AppendOutcome)
}

func (d *Dispatcher) journalRecord(t task, state ActionState, r Record, write func(Record) error) string {
	r.LogAt, r.Key, r.Action, r.Rule, r.Scope = correlate.FormatTime(t.alert.At), t.key, t.action, t.alert.Rule, t.alert.Scope
	if t.alert.LogHigh > t.alert.At {
		r.LogHigh = correlate.FormatTime(t.alert.LogHigh)
	}
	r.RunID, r.JobID, r.JobType, r.State = t.alert.RunID, t.alert.JobID, t.alert.JobType, state
	err := write(r)
	if err == nil {
		return ""
	}
	return d.journalError(err)
}

// journalError counts a failed journal write for JournalHealth.
func (d *Dispatcher) journalError(err error) string {
	msg := err.Error()
	d.journalFailures.Add(1)
	d.journalLast.Store(&msg)
	return msg
}

// forgetRun drops the kill states of a run the engine closed.
func (d *Dispatcher) forgetRun(runID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k := range d.states {
		if k.run == runID {
			delete(d.states, k)
		}
	}
}

// request journals a new action and queues it, unless the journal says it
// is finished already, it is under way, or this process may not act.
func (d *Dispatcher) request(t task) {
	t.key = d.keyFor(t.action, t.alert)
	if !d.claim(t.key) {
		if prev, ok := d.journal.Last(t.key); ok && prev.State.Blocks() {
			if t.kill() {
				d.setState(t.alert, prev.State)
			}
			d.report(Result{Alert: t.alert, Action: t.action, State: prev.State, Detail: "already " + string(prev.State) + " before a restart: not sent again"})
		}
		return // under way already: its result is reported once, by its worker
	}
	if prev, ok := d.journal.Last(t.key); ok {
		t.resent = prev.Resent
		if isExec(t.action) && unknownOutcome(prev) && !d.hooks.ReadOnly && !d.hooks.DryRun {
			// The log raised a kill command that an earlier run started
			// and never saw end (a crash, exec_timeout): the same count as
			// a start's resend, so it runs at most once more in all.
			if prev.Resent >= 1 {
				detail := fmt.Sprintf("the outcome of this command was lost twice (crash, timeout or journal failure); not run a third time: check %s by hand", t.alert.Subject())
				jerr := d.record(t, StateGaveUp, Record{Error: detail, Resent: prev.Resent})
				d.release(t.key)
				d.setState(t.alert, StateGaveUp)
				d.report(Result{Alert: t.alert, Action: t.action, State: StateGaveUp, Detail: detail, JournalError: jerr})
				return
			}
			t.resent = prev.Resent + 1
		}
	}
	switch {
	case d.hooks.ReadOnly && t.kill():
		d.setState(t.alert, StateRefused)
		jerr := d.record(t, StateRefused, Record{Error: "read-only mode"})
		d.release(t.key)
		d.report(Result{Alert: t.alert, Action: t.action, State: StateRefused, Detail: "read-only: kills are disabled (a later run that may kill is not blocked)", JournalError: jerr})
		return
	case d.hooks.DryRun:
		if t.kill() {
			d.setState(t.alert, StateWouldFire)
		}
		jerr := d.record(t, StateWouldFire, Record{})
		d.release(t.key)
		d.report(Result{Alert: t.alert, Action: t.action, State: StateWouldFire, Detail: "dry run: nothing sent", JournalError: jerr})
		return
	}
	a := t.alert
	if jerr := d.record(t, StateRequested, Record{Alert: &a, AtNS: a.At, Resent: t.resent}); jerr != "" {
		d.hold(t, "its request could not be journaled", jerr)
		return
	}
	t.onDisk = true
	d.enqueue(t, "", "")
}

// enqueue hands a claimed, journaled action to the workers. jerr is the
// journal's error for its requested record, if any: the action is still
// delivered (a kill now beats a kill after a restart), and the failure
// said.
func (d *Dispatcher) enqueue(t task, why, jerr string) {
	d.mu.Lock()
	if d.stopped || !d.started {
		delete(d.claimed, t.key) // journaled requested: a later start sends it
		d.mu.Unlock()
		d.leave(t, "burnrate is stopping")
		return
	}
	waiting := len(d.queue) + 1 + d.busy - actionWorkers
	d.mu.Unlock()
	// Said before a worker can take it: said after, a quick delivery's
	// "acknowledged" could be followed by this "requested", and whoever
	// keeps the last result shows a finished kill as pending (issue 21's
	// redirect test caught it on CI).
	switch {
	case why != "":
		d.report(Result{Alert: t.alert, Action: t.action, State: StateRequested, Detail: why, JournalError: jerr})
	case waiting > 0:
		d.report(Result{Alert: t.alert, Action: t.action, State: StateRequested, JournalError: jerr,
			Detail: fmt.Sprintf("queued: every worker is busy, %d action(s) wait; delivered as soon as one frees (and after a restart if need be)", waiting)})
	case jerr != "":
		d.report(Result{Alert: t.alert, Action: t.action, State: StateRequested, JournalError: jerr,
			Detail: "delivering now, though the journal could not record the request"})
	}
	d.mu.Lock()
	if d.stopped {
		delete(d.claimed, t.key)
		d.mu.Unlock()
		d.leave(t, "burnrate is stopping")
		return
	}
	if t.kill() && t.alert.JobID != "" {
		// Before a worker can take it: set after, it could overwrite the
		// acknowledged state of a delivery that was quicker.
		d.states[runJob{t.alert.RunID, t.alert.JobID}] = StateRequested
	}
	d.inflight.Add(1)
	d.queue = append(d.queue, t)
	d.mu.Unlock()
	d.poke()
}

// interrupted is true when a delivery ended because Shutdown's drain
// window closed, not because the receiver or the deadline said so.
func (d *Dispatcher) interrupted(ctx context.Context) bool {
	return ctx.Err() != nil
}

// run delivers one action and journals its outcome; it returns false when
// the action is not finished: the stop interrupted it (it stays requested
// for the next start), or it is due again later (held, or a retryable
// failure delivered again after a backoff).
func (d *Dispatcher) run(ctx context.Context, t task) bool {
	if err := d.journal.Reserve(); err != nil {
		// Fired now, its outcome might not reach the disk, and a restart
		// would fire it again.
		d.hold(t, "the journal cannot keep room for its outcome", d.journalError(err))
		return false
	}
	switch t.action {
	case actionKillWebhook, actionNotify:
		url, body := d.hooks.KillWebhook, killBody(t.alert)
		if t.action == actionNotify {
			url, body = d.hooks.NotifyWebhook, notifyBody(t.alert)
		}
		if t.kill() && (ingest.IsCappedID(t.alert.JobID) || ingest.IsCappedID(t.alert.RunID)) {
			// Past ingest's bound an ID is kept as a prefix and a digest:
			// a receiver told to kill it would look for a job that exists
			// nowhere, and say it was done.
			detail := fmt.Sprintf("the job ID is longer than %d bytes and was kept as its prefix and a digest (%q): no kill can name it, so none was sent; stop it by hand", ingest.MaxIDBytes, display.Text(t.alert.JobID[max(0, len(t.alert.JobID)-48):]))
			d.finish(t, StateRefused, Record{Error: detail}, detail)
			return true
		}
		if t.kill() && (!utf8.ValidString(t.alert.JobID) || !utf8.ValidString(t.alert.RunID)) {
			// JSON cannot carry these bytes: encoding/json writes U+FFFD
			// for them, and "victim\ufffd" may be another, real job. A
			// kill that could name the wrong job is not sent.
			detail := fmt.Sprintf("the job ID %q is not valid UTF-8: a JSON body cannot name it exactly (it could name another job), so the kill was not sent; stop it by hand", t.alert.JobID)
			d.finish(t, StateRefused, Record{Error: detail}, detail)
			return true
		}
		if !d.gate(url, t) {
			return false // parked: the receiver's breaker is open
		}
		if t.kill() {
			d.setState(t.alert, StateSent)
		}
		if t.first.IsZero() {
			t.first = time.Now()
		}
		del := d.poster.Post(ctx, url, t.key, body)
		t.rounds++
		t.attempts += del.Attempts
		if del.Err != nil && d.interrupted(ctx) {
			d.delivered(url, false) // no verdict on the receiver: a probe is not left hanging
			d.leave(t, fmt.Sprintf("interrupted by the stop after %d attempt(s)", t.attempts))
			return false
		}
		d.delivered(url, del.Err != nil && !errors.Is(del.Err, ErrMisconfigured) && !errors.Is(del.Err, ErrPermanent))
		r := Record{Attempts: t.attempts, Status: del.Status, Resent: t.resent}
		state := StateAcknowledged
		detail := fmt.Sprintf("HTTP %d after %d attempt(s)", del.Status, t.attempts)
		switch {
		case errors.Is(del.Err, ErrMisconfigured):
			state, r.Error, detail = StateMisconfigured, del.Err.Error(), del.Err.Error()
		case errors.Is(del.Err, ErrPermanent):
			state, r.Error, detail = StateRejected, del.Err.Error(), del.Err.Error()+" (the receiver refused it: not sent again)"
		case del.Err != nil:
			// Retryable (429, 5xx, a timeout, a reset): delivered again by
			// this process, after a backoff that frees the worker, until
			// the absolute deadline; then failed, for the next start.
			until := t.first.Add(d.poster.retryFor())
			wait := redeliverWait(t.rounds, del.RetryAfter)
			if time.Now().Add(wait).Before(until) {
				r.State, r.Error = StateFailed, del.Err.Error()
				detail := fmt.Sprintf("%s; delivered again in %s under the same key (delivery %d, %d attempt(s); retried until %s, then the next start sends it)",
					del.Err.Error(), wait.Round(time.Millisecond), t.rounds, t.attempts, until.UTC().Format(time.RFC3339))
				d.step(t, StateFailed, StateRetrying, r, detail)
				d.after(t, wait, false, func(t task) { d.enqueue(t, "", "") })
				return false
			}
			state, r.Error = StateFailed, del.Err.Error()
			detail = fmt.Sprintf("%s; not delivered in %s (%d deliveries, %d attempt(s)): the next start sends it again", del.Err.Error(), d.poster.retryFor(), t.rounds, t.attempts)
		}
		d.finish(t, state, r, detail)
	case actionKillExec, actionRunKillExec:
		tmpl := d.hooks.KillExec
		if t.action == actionRunKillExec {
			tmpl = d.hooks.RunKillExec
		}
		var sentErr string
		var group Record
		res := tmpl.RunTracked(ctx, t.alert, func(pgid int, start uint64, mark string) {
			// Its group, on disk before the wait: a burnrate killed now
			// leaves what a start needs to end the group before it runs
			// the command again.
			group = Record{Pgid: pgid, PgidStart: start, Mark: mark, Resent: t.resent}
			sentErr = d.recordOutcome(t, StateSent, group)
		}, func(procs []Proc) {
			// Its descendants as they appear, a setsid'd one included:
			// the start ends them too. A failed write is counted (the
			// journal's health) and leaves the group's record.
			r := group
			r.Procs = procs
			d.journalRecord(t, StateSent, r, d.journal.Append)
		})
		if res.Err != nil && !errors.Is(res.Err, ErrRefused) && d.interrupted(ctx) {
			d.leave(t, "the command was interrupted by the stop")
			return false
		}
		code := res.ExitCode
		r := Record{ExitCode: &code, Stdout: res.Stdout, Stderr: res.Stderr, Resent: t.resent, TimedOut: res.TimedOut}
		state, detail := StateAcknowledged, fmt.Sprintf("%q exited 0", res.Argv)
		if res.Err != nil {
			state, r.Error, detail = StateFailed, res.Err.Error(), res.Err.Error()
			if why := lastLine(res.Stderr, 200); why != "" {
				// The reason a command gives is usually its last line.
				detail += "; stderr ends: " + display.Text(why)
			}
			if errors.Is(res.Err, ErrRefused) {
				state = StateRefused
			}
			if res.TimedOut {
				if t.resent >= 1 {
					detail += "; it was already a re-run whose outcome was unknown: not run again (the next start gives it up: check it by hand)"
				} else {
					detail += "; run once more at the next start, never again after that"
				}
			}
		}
		if sentErr != "" {
			detail += "; its process group could not be journaled (" + sentErr + ")"
		}
		d.finish(t, state, r, detail)
	}
	return true
}

// step journals a step that is not an action's end (as journalState: a
// crash leaves it for the next start) and reports it as shown.
func (d *Dispatcher) step(t task, journalState, shown ActionState, r Record, detail string) {
	r.Stdout, r.Stderr, r.Error, detail = Redact(r.Stdout), Redact(r.Stderr), Redact(r.Error), Redact(detail)
	jerr := d.recordOutcome(t, journalState, r)
	if t.kill() {
		d.setState(t.alert, shown)
	}
	d.report(Result{Alert: t.alert, Action: t.action, State: shown, Detail: detail, JournalError: jerr})
}

// finish journals an action's outcome and reports it once: when the
// journal cannot record it, the report carries the real outcome and the
// journal's error, never a second, contradicting state.
func (d *Dispatcher) finish(t task, state ActionState, r Record, detail string) {
	// Whatever a command printed or a receiver answered passes the one
	// redaction before the journal, stdout and alerts see it (Run and the
	// poster redact already; this also covers a secret in an argv).
	r.Stdout, r.Stderr, r.Error, detail = Redact(r.Stdout), Redact(r.Stderr), Redact(r.Error), Redact(detail)
	if r.Resent < t.resent {
		r.Resent = t.resent
	}
	jerr := d.recordOutcome(t, state, r)
	if t.kill() {
		d.setState(t.alert, state)
	}
	if jerr != "" {
		again := "send it again under the same key"
		if isExec(t.action) {
			again = "run the command once more"
		}
		detail += "; the journal could not record this outcome, so a restart may " + again
	}
	d.report(Result{Alert: t.alert, Action: t.action, State: state, Detail: detail, JournalError: jerr})
}
