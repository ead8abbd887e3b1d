package alerts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/burnrate-dev/burnrate/correlate"
)

// actionQueue bounds the actions waiting for a worker. When it is full an
// action is recorded as failed, never silently dropped, and ingest never
// waits for it.
const actionQueue = 1024

// actionWorkers deliver actions concurrently, so one webhook that never
// answers does not hold up the others.
const actionWorkers = 4

// Hooks say where actions go.
type Hooks struct {
	KillWebhook   string
	KillExec      *ExecTemplate
	NotifyWebhook string
	DryRun        bool
	ReadOnly      bool
}

// KillBody is the kill webhook's JSON body; field names are a contract.
type KillBody struct {
	Action     string  `json:"action"`
	Scope      string  `json:"scope"`
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
	body   []byte
}

// Dispatcher runs actions off the engine's goroutine, journals every step
// and tracks each job's kill state.
type Dispatcher struct {
	hooks   Hooks
	poster  *Poster
	journal *Journal
	queue   chan task
	report  func(Result)

	mu       sync.Mutex
	states   map[string]ActionState // job ID → kill state
	started  bool
	stopped  bool
	wg       sync.WaitGroup
	cancel   context.CancelFunc
	inflight sync.WaitGroup
}

// Result is what an action did, for the alerts pane and headless output.
type Result struct {
	Alert  Alert
	Action string
	State  ActionState
	Detail string
}

// NewDispatcher builds a dispatcher; report receives every result and may
// be nil. It must not block.
func NewDispatcher(h Hooks, p *Poster, j *Journal, report func(Result)) *Dispatcher {
	if report == nil {
		report = func(Result) {}
	}
	return &Dispatcher{hooks: h, poster: p, journal: j, queue: make(chan task, actionQueue), report: report, states: map[string]ActionState{}}
}

// Start launches the workers and returns at once.
func (d *Dispatcher) Start(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started || d.stopped {
		return
	}
	d.started = true
	ctx, d.cancel = context.WithCancel(ctx)
	for range actionWorkers {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			for t := range d.queue {
				d.run(ctx, t)
				d.inflight.Done()
			}
		}()
	}
}

// Shutdown lets queued actions finish until ctx is done, then abandons the
// rest (their requested record stays in the journal, so a restart sends
// them again). It is idempotent and safe without Start.
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return nil
	}
	d.stopped = true
	started := d.started
	if started {
		close(d.queue) // under the lock: enqueue checks stopped under it too
	}
	d.mu.Unlock()
	if !started {
		return d.journal.Close()
	}
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.cancel()
		<-done
	}
	d.cancel()
	return d.journal.Close()
}

// Wait blocks until every enqueued action has finished; for tests and
// for --report-out at exit.
func (d *Dispatcher) Wait() { d.inflight.Wait() }

// KillStates returns a copy of each job's kill state.
func (d *Dispatcher) KillStates() map[string]KillState {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]KillState, len(d.states))
	for k, v := range d.states {
		out[k] = KillState{State: v}
	}
	return out
}

func (d *Dispatcher) setState(a Alert, s ActionState) {
	if a.JobID == "" {
		return
	}
	d.mu.Lock()
	d.states[a.JobID] = s
	d.mu.Unlock()
}

// IdempotencyKey is stable per rule and subject: the same kill always
// carries the same key, across retries and restarts.
func IdempotencyKey(action string, a Alert) string {
	h := sha256.Sum256([]byte(action + "\x00" + a.Rule + "\x00" + a.Scope + "\x00" + a.JobType + "\x00" + a.JobID))
	return hex.EncodeToString(h[:16])
}

// Kill requests the kill actions for an alert. It never blocks.
func (d *Dispatcher) Kill(a Alert) {
	if d.hooks.KillWebhook == "" && d.hooks.KillExec == nil {
		d.report(Result{Alert: a, Action: "kill", State: StateRefused, Detail: "no kill hook is configured"})
		return
	}
	if d.hooks.KillWebhook != "" {
		body, _ := json.Marshal(KillBody{Action: "kill", Scope: a.Scope, JobID: a.JobID, JobType: a.JobType, Rule: a.Rule,
			Reason: a.Reason, SpendUSD: a.SpendUSD, CeilingUSD: a.CeilingUSD, Attempts: a.Attempts, At: correlate.FormatTime(a.At)})
		d.enqueue(task{action: "kill_webhook", alert: a, body: body})
	}
	if d.hooks.KillExec != nil {
		d.enqueue(task{action: "kill_exec", alert: a})
	}
}

// Notify posts a non-kill alert to the notify webhook, if one is set.
func (d *Dispatcher) Notify(a Alert) {
	if d.hooks.NotifyWebhook == "" {
		return
	}
	text := fmt.Sprintf("burnrate %s: %s", a.Severity, a.Reason)
	body, _ := json.Marshal(map[string]any{"text": text, "rule": a.Rule, "scope": a.Scope, "job_id": a.JobID,
		"job_type": a.JobType, "spend_usd": a.SpendUSD, "at": correlate.FormatTime(a.At)})
	d.enqueue(task{action: "notify", alert: a, body: body})
}

func (d *Dispatcher) record(t task, state ActionState, r Record) {
	r.LogAt, r.Key, r.Action, r.Rule, r.Scope = correlate.FormatTime(t.alert.At), t.key, t.action, t.alert.Rule, t.alert.Scope
	r.JobID, r.JobType, r.State = t.alert.JobID, t.alert.JobType, state
	if err := d.journal.Append(r); err != nil {
		d.report(Result{Alert: t.alert, Action: t.action, State: StateFailed, Detail: "journal: " + err.Error()})
	}
}

func (d *Dispatcher) enqueue(t task) {
	t.key = IdempotencyKey(t.action, t.alert)
	kill := t.action != "notify"
	if state, ok := d.journal.Done(t.key); ok {
		if kill {
			d.setState(t.alert, state)
		}
		d.report(Result{Alert: t.alert, Action: t.action, State: state, Detail: "already " + string(state) + " before a restart: not sent again"})
		return
	}
	switch {
	case d.hooks.ReadOnly && kill:
		d.record(t, StateRefused, Record{Error: "read-only mode"})
		d.report(Result{Alert: t.alert, Action: t.action, State: StateRefused, Detail: "read-only: kills are disabled"})
		return
	case d.hooks.DryRun:
		d.record(t, StateWouldFire, Record{})
		d.report(Result{Alert: t.alert, Action: t.action, State: StateWouldFire, Detail: "dry run: nothing sent"})
		return
	}
	if kill {
		d.setState(t.alert, StateRequested)
	}
	d.record(t, StateRequested, Record{})
	// Check and send under the lock Shutdown takes to close the queue, so
	// a send can never meet a closed channel. The send does not block.
	d.mu.Lock()
	var state ActionState
	var detail string
	switch {
	case d.stopped || !d.started:
		state, detail = StateFailed, "dispatcher not running"
	default:
		d.inflight.Add(1)
		select {
		case d.queue <- t:
		default:
			d.inflight.Done()
			state, detail = StateFailed, "action queue full: not sent"
		}
	}
	d.mu.Unlock()
	if state != "" {
		d.record(t, state, Record{Error: detail})
		if kill {
			d.setState(t.alert, state)
		}
		d.report(Result{Alert: t.alert, Action: t.action, State: state, Detail: detail})
	}
}

func (d *Dispatcher) run(ctx context.Context, t task) {
	kill := t.action != "notify"
	switch t.action {
	case "kill_webhook", "notify":
		url := d.hooks.KillWebhook
		if t.action == "notify" {
			url = d.hooks.NotifyWebhook
		}
		if kill {
			d.setState(t.alert, StateSent)
		}
		del := d.poster.Post(ctx, url, t.key, t.body)
		r := Record{Attempts: del.Attempts, Status: del.Status}
		state := StateAcknowledged
		detail := fmt.Sprintf("HTTP %d after %d attempt(s)", del.Status, del.Attempts)
		if del.Err != nil {
			state, r.Error, detail = StateFailed, del.Err.Error(), del.Err.Error()
		}
		d.record(t, state, r)
		if kill {
			d.setState(t.alert, state)
		}
		d.report(Result{Alert: t.alert, Action: t.action, State: state, Detail: detail})
	case "kill_exec":
		res := d.hooks.KillExec.Run(ctx, t.alert)
		code := res.ExitCode
		r := Record{ExitCode: &code, Stderr: res.Stderr}
		state, detail := StateAcknowledged, fmt.Sprintf("%v exited 0", res.Argv)
		if res.Err != nil {
			state, r.Error, detail = StateFailed, res.Err.Error(), res.Err.Error()
			if errors.Is(res.Err, ErrRefused) {
				state = StateRefused
			}
		}
		d.record(t, state, r)
		d.setState(t.alert, state)
		d.report(Result{Alert: t.alert, Action: t.action, State: state, Detail: detail})
	}
}
