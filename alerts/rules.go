// Package alerts evaluates rules over correlate's state on every event, at
// the event's own time, and fires actions — a kill webhook, a kill
// command, a notify webhook — with a durable journal.
package alerts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// Rule names, as they appear in alerts, the journal and the webhook body.
const (
	RuleJobCeiling = "job_ceiling"
	// RuleJobCeilingGuessed: a job over its ceiling only by spend placed
	// in it by position or timing alone (a text line naming no job, after
	// the job's JSON line): a guess, said as a warning, never a kill.
	RuleJobCeilingGuessed = "job_ceiling_guessed"
	RuleJobTypeCeiling    = "job_type_ceiling"
	RuleRunCeiling        = "run_ceiling"
	RuleBurnRate          = "burn_rate"
	RuleProjectedCeiling  = "projected_ceiling"
	RuleManual            = "manual"
	findingPrefix         = "finding:"
)

// ruleTable is every rule, once: whether kill_on may name it (the manual
// kill is the operator's, not a rule's to configure). KnownRules and
// Config.Validate both read it.
var ruleTable = []struct {
	name     string
	killable bool
}{
	{RuleJobCeiling, true}, {RuleJobTypeCeiling, true}, {RuleRunCeiling, true},
	{RuleBurnRate, true}, {RuleProjectedCeiling, true}, {RuleManual, false},
	{RuleJobCeilingGuessed, false},
}

// KnownRules are the rules that exist whatever fired, for metrics that
// start at zero rather than appear when something happens.
var KnownRules = func() (out []string) {
	for _, r := range ruleTable {
		out = append(out, r.name)
	}
	return out
}()

// killableRules are the rules kill_on may name.
var killableRules = func() (out []string) {
	for _, r := range ruleTable {
		if r.killable {
			out = append(out, r.name)
		}
	}
	return out
}()

// KillableFindings are the finding kinds kill_on may name, as
// "finding:NAME". A kill needs a job: the kind must be flagged on the job
// at the attempt that showed it (the rules see it on that attempt and
// kill that job). Of those, only a contradiction of what the operator
// declared: assumption_violated (the run said anthropic-sdk.maxRetries 0,
// or a product of 4 calls per job, and the traffic broke it). The other
// kinds that name a job (terminal_error_retried, hidden_retry_layer,
// deadline_exceeded, …) are inferences from the traffic, left as alerts
// deliberately: a guess should not stop a job. Run-level kinds
// (assumption_changed, assumption_missing, default_changed_upstream,
// undeclared_retry_layer, synchronized_retries) name no job to stop.
var KillableFindings = []correlate.FindingKind{correlate.AssumptionViolated}

// killOnChoices is every kill_on entry Validate accepts, for its message.
var killOnChoices = func() (out []string) {
	out = append(out, killableRules...)
	for _, k := range KillableFindings {
		out = append(out, findingPrefix+k.String())
	}
	return out
}()

// DefaultBurnWindow is the burn-rate rule's window.
const DefaultBurnWindow = 5 * time.Minute

// projectedEvery bounds how often (in log time) the projected-spend rule,
// which walks every job, is evaluated: per event it would be quadratic.
const projectedEvery = time.Second

// burnRearm is the share of the limit the burn rate must fall below before
// the burn-rate rule can fire again.
const burnRearm = 0.8

// Config holds the limits and what they do.
type Config struct {
	RunCeilingUSD float64
	JobCeilingUSD float64
	// JobTypeJobCeilingUSD overrides JobCeilingUSD per job type.
	JobTypeJobCeilingUSD map[string]float64
	// JobTypeCeilingUSD caps the total spend of all jobs of a type.
	JobTypeCeilingUSD   map[string]float64
	BurnRateUSDPerMin   float64
	BurnWindow          time.Duration
	ProjectedCeilingUSD float64
	// FindingAlerts is the severity each finding kind's alert carries;
	// SeverityOff (the zero value) means the kind does not alert. A kind
	// alerts once per run, on its first occurrence.
	FindingAlerts [correlate.NumFindingKinds]correlate.Severity
	// KillOn lists the rules whose alerts fire the kill action.
	KillOn []string
	// RunID names this run (--run-id, run_id in the config). Empty: the
	// first event's run_id, else one derived from RunSources and the
	// first event (see Rules.RunID).
	RunID string
	// RunSources names the inputs, for a derived run ID: base names of
	// files, so replicas reading the same log elsewhere agree.
	RunSources []string
}

// DefaultKillOn are the rules that kill when a kill hook is configured.
var DefaultKillOn = []string{RuleJobCeiling, RuleJobTypeCeiling, RuleRunCeiling}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	for _, l := range []struct {
		name string
		v    float64
	}{{"--ceiling (ceiling_usd)", c.RunCeilingUSD}, {"--job-ceiling (job_ceiling_usd)", c.JobCeilingUSD},
		{"--burn-rate (burn_rate_usd_per_min)", c.BurnRateUSDPerMin}, {"--projected-ceiling (projected_ceiling_usd)", c.ProjectedCeilingUSD}} {
		if err := checkLimit(l.name, l.v); err != nil {
			errs = append(errs, err)
		}
	}
	for _, m := range []struct {
		key string
		v   map[string]float64
	}{{"ceiling_usd", c.JobTypeCeilingUSD}, {"job_ceiling_usd", c.JobTypeJobCeilingUSD}} {
		types := slices.Sorted(maps.Keys(m.v))
		for _, jt := range types {
			if err := checkLimit(fmt.Sprintf("[job_types.%s] %s", jt, m.key), m.v[jt]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, r := range c.KillOn {
		if slices.Contains(killableRules, r) {
			continue
		}
		name, isFinding := strings.CutPrefix(r, findingPrefix)
		k, err := correlate.ParseFindingKind(name)
		switch {
		case !isFinding || err != nil:
			errs = append(errs, fmt.Errorf("kill_on %q: use one of %v", r, killOnChoices))
		case !slices.Contains(KillableFindings, k):
			errs = append(errs, fmt.Errorf("kill_on %q: %s is no kill rule (it names no job, or is an inference from the traffic rather than a broken declaration); killable findings: %v", r, name, killOnChoices[len(killableRules):]))
		case c.FindingAlerts[k] == correlate.SeverityOff:
			errs = append(errs, fmt.Errorf("kill_on %q: [alerts] %s is off, so it never fires and never kills; give it a severity, or drop it from kill_on", r, name))
		}
	}
	return errors.Join(errs...)
}

// MaxLimitUSD is the largest ceiling or rate burnrate can compare against:
// amounts are picodollars in an int64, which saturate at about $9.2M.
const MaxLimitUSD = 9e6

// checkLimit refuses a limit that would silently be off: NaN compares
// false with everything, so "--ceiling nan" never fires; an infinity or an
// amount past the saturation limit can never be reached.
// CheckLimit says what is wrong with a USD limit named name (how the
// reader gave it: "--job-ceiling", "job_ceiling_usd in config x.toml").
func CheckLimit(name string, v float64) error { return checkLimit(name, v) }

func checkLimit(name string, v float64) error {
	// A config key is named as the file writes it ("[budget] ceiling_usd
	// = NaN"), a flag as "--ceiling is NaN".
	name += " is"
	if strings.HasPrefix(name, "[") {
		name = strings.TrimSuffix(name, " is") + " ="
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s %g: give a finite USD amount, or 0 to turn it off", name, v)
	case v < 0:
		return fmt.Errorf("%s %g: give a positive USD amount, or 0 to turn it off", name, v)
	case v > 0 && correlate.PicoFromUSD(v) == 0:
		return fmt.Errorf("%s %g: smaller than a picodollar, so it would never fire; give a larger amount, or 0 to turn it off", name, v)
	case v > MaxLimitUSD:
		return fmt.Errorf("%s %g: the largest amount burnrate can count to is %s; give a smaller one, or 0 to turn it off", name, v, correlate.USD(MaxLimitUSD))
	}
	return nil
}

// JobCeilings is the job ceiling policy in picodollars, shared with the
// dashboard through the snapshot.
func (c Config) JobCeilings() correlate.JobCeilings {
	jc := correlate.JobCeilings{Default: correlate.PicoFromUSD(c.JobCeilingUSD)}
	if len(c.JobTypeJobCeilingUSD) > 0 {
		jc.ByType = make(map[string]correlate.Pico, len(c.JobTypeJobCeilingUSD))
		for t, v := range c.JobTypeJobCeilingUSD {
			jc.ByType[t] = correlate.PicoFromUSD(v)
		}
	}
	return jc
}

// Alert is one rule firing.
type Alert struct {
	Rule       string             `json:"rule"`
	Severity   correlate.Severity `json:"severity"`
	Scope      string             `json:"scope"` // job, job_type, run
	RunID      string             `json:"run_id"`
	JobID      string             `json:"job_id"`
	JobType    string             `json:"job_type"`
	Reason     string             `json:"reason"`
	SpendUSD   float64            `json:"spend_usd"`
	CeilingUSD float64            `json:"ceiling_usd"`
	Attempts   int64              `json:"attempts"`
	At         int64              `json:"-"` // log time, ns
	// AtFromLog: At is a time the triggering record carried, not one it
	// took from the clock when read (a log that prints no times): only
	// such a time tells another night's kill from the same one read again
	// (keyFor).
	AtFromLog bool `json:"-"`
	// LogHigh is, for a job's alert, the latest time of the job's own
	// records when it fired: what had been read of the job by then,
	// whatever order its records came in. A restart reading the same
	// records in another order (files merged by time, a second worker's
	// clock hours behind) crosses at another record, but never past this
	// (keyFor; red team R8-3). The job's own records only: the run's
	// latest time was poisoned by one line of another worker stamped days
	// ahead, and tomorrow's kill of the job was blocked (R8-33).
	LogHigh int64 `json:"-"`
	Kill    bool  `json:"kill"`
}

// Subject names what an alert is about, for messages.
func (a Alert) Subject() string {
	switch {
	case a.JobID != "":
		return "job " + a.JobID
	case a.JobType != "":
		return "job type " + a.JobType
	}
	return "run " + a.RunID
}

// Rules is the engine's observer: it evaluates every rule after each event.
// It serves every run a long-running process sees (see BeginRun): each run
// has its own rule state (runRules) — what fired, the burn window, the
// kills — while the alert board, the counters and the dispatcher are the
// process's.
type Rules struct {
	// atFromLog: the event being observed carried its own time; obsJob
	// is its job.
	atFromLog   bool
	obsJob      *correlate.Job
	cfg         Config
	jobCeilings correlate.JobCeilings
	disp        *Dispatcher
	emit        func(Alert)

	runs map[*correlate.State]*runRules
	// run is the run of the event being observed; cur the one with the
	// latest event, which the dashboard shows and a manual kill targets.
	run, cur *runRules
	curID    atomic.Pointer[string]
	// manual holds kills from the dashboard (another goroutine) until
	// Observe moves them into the current run's killedAt.
	manual    map[string]int64
	hasManual atomic.Bool

	// killFinding marks the finding kinds kill_on names: they fire per
	// job (findingKill), not once per run; findingRules are their rule
	// names, made once.
	killFinding  [correlate.NumFindingKinds]bool
	findingRules [correlate.NumFindingKinds]string
	noKill       bool // fireNoKill's: this alert kills nothing

	mu    sync.Mutex // guards manual: the dashboard's goroutine adds to it
	board Board      // alert lines and counters, shared with the action workers
}

// runRules is one run's rule state.
type runRules struct {
	id     string
	lastTS int64
	// name is the journal record of a derived ID, written with the run's
	// first action.
	name *Record

	fired map[string]bool
	// findingFired marks the finding kinds already alerted on (findings).
	findingFired [correlate.NumFindingKinds]bool
	burnFired    bool
	typeSpend    map[string]correlate.Pico
	burn         []burnSample
	burnHead     int
	burnSum      correlate.Pico
	lastProj     int64

	// mono is the window clock (see tick); srcs each source's place on it.
	mono    int64
	srcs    map[uint32]*srcTick // by source and lane (State.Lane)
	lastSrc *srcTick
	lastID  uint32

	killedAt map[string]int64 // job ID → log time of its kill alert
	still    map[string]bool  // killed jobs still logging attempts
}

// srcTick is one source's place on a run's window clock: its clock's
// last reading, and how far its own steps have taken it.
type srcTick struct{ prev, pos int64 }

// tick advances the run's window clock by the forward step of the event's
// time since the last event of its source and lane (a line far ahead of
// its source's clock is not given; one far behind steps a lane of its
// own: State.Lane), never back and never by more than
// a day at once: the burn window and the projection run on it,
// so a host clock that steps back cannot widen the window into a false
// rate, and one line dated 2199 cannot hold it (or the projection) for
// ever. Each source steps on its own and the clock is as far as the
// furthest has taken it: a second log 10 h ahead (local time written as
// UTC) interleaved with the first moved it 10 h at every step from one
// to the other, and the window never held more than a line (issue 34).
// A source first seen starts where the clock is.
func (rr *runRules) tick(now int64, src uint32, window int64) {
	if now <= 0 {
		return
	}
	s := rr.lastSrc
	if s == nil || rr.lastID != src {
		if s = rr.srcs[src]; s == nil {
			if rr.srcs == nil {
				rr.srcs = map[uint32]*srcTick{}
			}
			s = &srcTick{pos: rr.mono}
			if rr.apart(now, src, window) {
				// A source whose times are a window or more from every
				// other's (a second file's history, read after the
				// first's): its burn is its own, so the window it starts
				// in holds none of the others' spend — it was a window
				// start at the previous file's end, already over the
				// limit and never re-armed, and the second file's burn
				// never fired.
				s.pos = rr.mono + window
				rr.mono = s.pos
			}
			rr.srcs[src] = s
		}
		rr.lastSrc, rr.lastID = s, src
	}
	if d := now - s.prev; s.prev != 0 && d > 0 && d <= maxTick {
		s.pos += d
		rr.mono = max(rr.mono, s.pos)
	} else if d < 0 {
		// Its times went back (its source's clock came back to its lane):
		// it goes on from where the clock is, not from where it was, or
		// the clock would wait for it while the spend piles up.
		s.pos = max(s.pos, rr.mono)
	}
	s.prev = now
}

// apart reports whether src is a new source (no lane of it seen yet)
// whose first time, now, is a window or more from the last time of every
// other source: its events and theirs are not of the same minutes. A
// second lane of a known source is never apart (its lanes share its
// clock: State.Lane).
func (rr *runRules) apart(now int64, src uint32, window int64) bool {
	if len(rr.srcs) == 0 || len(rr.srcs) > maxApart {
		return false
	}
	for k, o := range rr.srcs {
		if k>>1 == src>>1 {
			return false
		}
		if d := now - o.prev; d < window && d > -window {
			return false
		}
	}
	return true
}

// maxApart bounds the sources apart looks through: an OTLP sender that
// names a new service in every request (up to 32,768 numbers) must not
// cost a pass over every source at each; past it a new source shares the
// window, as every source did before.
const maxApart = 256

// maxTick bounds one step of the window clock.
const maxTick = 24 * int64(time.Hour)

func newRunRules(id string) *runRules {
	// lastProj far in the past: the projection is evaluated at the run's
	// first event, as it always was.
	return &runRules{id: id, fired: map[string]bool{}, typeSpend: map[string]correlate.Pico{}, killedAt: map[string]int64{}, still: map[string]bool{},
		lastProj: -int64(projectedEvery)}
}

type burnSample struct {
	ts   int64
	cost correlate.Pico
}

// Wiring says where alerts and action results go besides the board; both
// may be nil and must not block.
type Wiring struct {
	// OnAlert receives each alert on the engine goroutine (headless mode
	// prints them as JSON lines).
	OnAlert func(Alert)
	// OnResult receives each action result, from the action workers.
	OnResult func(Result)
}

// New builds the rules and their dispatcher together: every action result
// goes to the rules' board, then to w.OnResult. Start the dispatcher
// (Rules.Dispatcher) before the first event; Shutdown it at the end.
func New(cfg Config, hooks Hooks, poster *Poster, journal *Journal, w Wiring) *Rules {
	r := NewRules(cfg, nil, w.OnAlert)
	r.disp = NewDispatcher(hooks, poster, journal, func(res Result) {
		r.board.result(res)
		if w.OnResult != nil {
			w.OnResult(res)
		}
	})
	return r
}

// Dispatcher is the rules' action runner, for its lifecycle (Start,
// Shutdown, Wait).
func (r *Rules) Dispatcher() *Dispatcher { return r.disp }

// NewRules builds the rules. emit, if not nil, receives each alert on the
// engine goroutine (headless mode prints them as JSON lines).
func NewRules(cfg Config, disp *Dispatcher, emit func(Alert)) *Rules {
	if cfg.BurnWindow <= 0 {
		cfg.BurnWindow = DefaultBurnWindow
	}
	r := &Rules{cfg: cfg, jobCeilings: cfg.JobCeilings(), disp: disp, emit: emit, runs: map[*correlate.State]*runRules{},
		manual: map[string]int64{}, board: newBoard()}
	for k := range correlate.NumFindingKinds {
		r.findingRules[k] = findingPrefix + k.String()
		r.killFinding[k] = slices.Contains(KillableFindings, k) && slices.Contains(cfg.KillOn, r.findingRules[k])
	}
	return r
}

// Observe evaluates the rules after the State applied ev to job.
func (r *Rules) Observe(st *correlate.State, job *correlate.Job, ev *ingest.Event) {
	ts := ev.TS
	r.atFromLog, r.obsJob = !ev.TSCarried, job
	defer func() { r.atFromLog, r.obsJob = false, nil }()
	if r.run == nil || r.runs[st] != r.run {
		r.enterRun(st, ev)
	}
	if ts > r.run.lastTS {
		r.run.lastTS = ts
	}
	// A line steps the window clock by the lane of its source it is in
	// (near its clock, or far behind it); one far ahead does not step it.
	// Either way its spend is counted at the window's now.
	if lane := st.Lane(ts, ev.Source); lane >= 0 {
		r.run.tick(ts, uint32(ev.Source)<<1|uint32(lane), int64(r.cfg.BurnWindow))
	}
	if r.cur != r.run {
		r.setCurrent(r.run) // the run the latest event went to, as the engine shows
	}
	if r.hasManual.Load() {
		r.takeManual()
	}
	isAttempt := ev.Kind == ingest.KindLLMCall || ev.Kind == ingest.KindToolCall
	// A usage growth is spend without an attempt (a response's later
	// records): it can carry a job over its ceiling as well.
	// A usage growth is spend without an attempt; a trace's calls moved
	// to the job its late root span named (KindTraceJob) may carry that
	// job over its ceiling at once.
	if isAttempt || ev.Kind == ingest.KindUsageGrowth || ev.Kind == ingest.KindTraceJob {
		if at, ok := r.run.killedAt[job.ID]; isAttempt && ok && ts > at && !r.run.still[job.ID] {
			r.run.still[job.ID] = true
			// Said as it happened: with no hook, a dry run or read-only,
			// no kill was sent, and "after its kill" would claim one.
			text := fmt.Sprintf("job %s is still logging attempts after its kill", job.ID)
			if why := r.disp.jobKillNotSent(); why != "" {
				text = fmt.Sprintf("job %s is still logging attempts after its kill rule fired (no kill was sent: %s)", job.ID, why)
			}
			r.line(ts, correlate.SeverityWarning, text)
		}
		cost := st.LastAttemptCost()
		if len(r.cfg.JobTypeCeilingUSD) > 0 { // only the job-type ceilings read it
			// Spend placed in the job by position or timing alone is not
			// its type's to weigh: a type-wide kill on a guess (R8-7, as
			// R7-17 for the job ceiling).
			r.run.typeSpend[job.Type] = r.run.typeSpend[job.Type].Add(max(0, cost-st.LastGuessedCost()))
		}
		r.burnAdd(r.run.mono, cost)
		r.ceilings(st, job, ts)
		r.findings(st, job, ts)
	}
	if now := r.run.mono; r.cfg.ProjectedCeilingUSD > 0 && now-r.run.lastProj >= int64(projectedEvery) {
		r.run.lastProj = now
		if p := st.Projected().USD(); p >= r.cfg.ProjectedCeilingUSD {
			r.fire(Alert{Rule: RuleProjectedCeiling, Severity: correlate.SeverityCritical, Scope: "run", SpendUSD: st.Spend().USD(), CeilingUSD: r.cfg.ProjectedCeilingUSD,
				Attempts: st.AttemptCount(), At: ts, Reason: fmt.Sprintf("projected run total %s reaches the projected ceiling %s (spent %s)", correlate.USD(p), correlate.USD(r.cfg.ProjectedCeilingUSD), correlate.USD(st.Spend().USD()))})
		}
	}
}

func (r *Rules) ceilings(st *correlate.State, job *correlate.Job, ts int64) {
	if r.jobCeilings.Over(job.Type, st.CeilingSpend(job)) {
		c := r.jobCeilings.For(job.Type).USD()
		// The figures that weighed: the kill's receiver logs or bills on
		// spend_usd, and a sum half of which was placed by position or
		// was a fork's copies is not what crossed (red team R8-26).
		weighed := st.CeilingSpend(job)
		reason := fmt.Sprintf("job %s spent %s, over its ceiling of %s after %d model calls and %d tool calls", job.ID, correlate.USD(weighed.USD()), correlate.USD(c), job.Calls, job.ToolCalls)
		if rest := job.Spend - weighed; rest > 0 && !job.Spend.Saturated() {
			reason += fmt.Sprintf(" (and %s more placed in it by position or timing, or a fork's copies of its parent's calls, not weighed)", correlate.USD(rest.USD()))
		}
		r.fire(Alert{Rule: RuleJobCeiling, Severity: correlate.SeverityCritical, Scope: "job", RunID: job.RunID, JobID: job.ID, JobType: job.Type, SpendUSD: weighed.USD(),
			CeilingUSD: c, Attempts: int64(job.Calls + job.ToolCalls), At: ts, Reason: reason})
	} else if g := st.GuessedSpend(job); g > 0 && r.jobCeilings.Over(job.Type, st.CeilingSpend(job).Add(g)) {
		// R7-17: a guess never weighs on a job ceiling — but the operator
		// is told the job is over it by such spend (R7b-4), never killed.
		c := r.jobCeilings.For(job.Type).USD()
		r.fireNoKill(Alert{Rule: RuleJobCeilingGuessed, Severity: correlate.SeverityWarning, Scope: "job", RunID: job.RunID, JobID: job.ID, JobType: job.Type, SpendUSD: job.Spend.USD(),
			CeilingUSD: c, Attempts: int64(job.Calls + job.ToolCalls), At: ts,
			Reason: fmt.Sprintf("job %s is over its ceiling of %s by spend placed by position only: %s spent, %s of it placed in the job by position, timing or an idempotency key alone (lines that name no job) — a guess, not a kill; name the job in those lines for its ceiling to act", job.ID, correlate.USD(c), correlate.USD(job.Spend.USD()), correlate.USD(g.USD()))})
	}
	if c := r.cfg.JobTypeCeilingUSD[job.Type]; c > 0 && r.run.typeSpend[job.Type].USD() >= c {
		r.fire(Alert{Rule: RuleJobTypeCeiling, Severity: correlate.SeverityCritical, Scope: "job_type", JobType: job.Type, SpendUSD: r.run.typeSpend[job.Type].USD(),
			CeilingUSD: c, At: ts, Reason: fmt.Sprintf("job type %s spent %s, over its ceiling of %s", job.Type, correlate.USD(r.run.typeSpend[job.Type].USD()), correlate.USD(c))})
	}
	if c := r.cfg.RunCeilingUSD; c > 0 && st.Spend().USD() >= c {
		r.fire(Alert{Rule: RuleRunCeiling, Severity: correlate.SeverityCritical, Scope: "run", SpendUSD: st.Spend().USD(), CeilingUSD: c, Attempts: st.AttemptCount(),
			At: ts, Reason: fmt.Sprintf("run spent %s, over its ceiling of %s", correlate.USD(st.Spend().USD()), correlate.USD(c))})
	}
	if lim := r.cfg.BurnRateUSDPerMin; lim > 0 {
		rate := r.run.burnSum.USD() / r.cfg.BurnWindow.Minutes()
		switch {
		case rate >= lim && !r.run.burnFired:
			r.run.burnFired = true
			r.fire(Alert{Rule: RuleBurnRate, Severity: correlate.SeverityCritical, Scope: "run", SpendUSD: st.Spend().USD(), CeilingUSD: lim, At: ts,
				Reason: fmt.Sprintf("burning %s/min over the last %s, over the limit of %s/min", correlate.USD(rate), r.cfg.BurnWindow, correlate.USD(lim))})
		case rate < lim*burnRearm && r.run.burnFired:
			r.run.burnFired = false // re-armed: the rate fell well below the limit
			delete(r.run.fired, RuleBurnRate+"|run||")
		}
	}
}

func (r *Rules) burnAdd(ts int64, cost correlate.Pico) {
	if cost > 0 {
		r.run.burn = append(r.run.burn, burnSample{ts, cost})
		r.run.burnSum = r.run.burnSum.Add(cost)
	}
	for r.run.burnHead < len(r.run.burn) && r.run.burn[r.run.burnHead].ts <= ts-int64(r.cfg.BurnWindow) {
		r.run.burnSum = max(0, r.run.burnSum-r.run.burn[r.run.burnHead].cost)
		r.run.burnHead++
	}
	if r.run.burnHead > 4096 && r.run.burnHead*2 > len(r.run.burn) {
		r.run.burn = append(r.run.burn[:0], r.run.burn[r.run.burnHead:]...)
		r.run.burnHead = 0
	}
}

func (r *Rules) findings(st *correlate.State, job *correlate.Job, ts int64) {
	for k := range correlate.NumFindingKinds {
		sev := r.cfg.FindingAlerts[k]
		if sev == correlate.SeverityOff || !job.HasFinding(k) {
			continue
		}
		// Only the operator arms a kill: a finding that rests on a
		// declaration read from the log (a model's output echoed there
		// reads as one) is alerted, never killed on (FindingArmed).
		if r.killFinding[k] && job.FindingArmed(k) {
			r.findingKill(k, sev, job, ts)
			continue
		}
		if r.run.findingFired[k] {
			continue
		}
		// Once per run (fire's key has no job): every later attempt of
		// a job with the finding skips the message it would have built.
		r.run.findingFired[k] = true
		a := Alert{Rule: findingPrefix + k.String(), Severity: sev, Scope: "run", RunID: job.RunID, JobID: job.ID, JobType: job.Type,
			SpendUSD: job.Spend.USD(), Attempts: int64(job.Calls + job.ToolCalls), At: ts,
			Reason: fmt.Sprintf("%s, first in job %s — %s", k, job.ID, correlate.Advice[k])}
		if !r.killFinding[k] {
			r.fire(a)
			continue
		}
		from := "the log"
		if k == correlate.AssumptionViolated && st != nil && st.ViolatedUnarmedFrom() != "" {
			from = "the log (" + st.ViolatedUnarmedFrom() + ")"
		}
		a.Reason = fmt.Sprintf("%s, first in job %s, declared in %s: not a kill (only the operator's --assumptions FILE arms a kill) — %s", k, job.ID, from, correlate.Advice[k])
		r.fireNoKill(a)
	}
}

// findingKill fires a kill_on finding on the job flagged with it: once
// per job and run (fire's job key), through the dispatcher like a job
// ceiling's kill — the same idempotency key for a restart or a replica,
// the same journal. A job another rule already killed this run gets the
// alert, not a second kill.
func (r *Rules) findingKill(k correlate.FindingKind, sev correlate.Severity, job *correlate.Job, ts int64) {
	rule := r.findingRules[k]
	if r.run.fired[rule+"|job||"+job.ID] {
		return // every later attempt of the job: no alert to build
	}
	a := Alert{Rule: rule, Severity: sev, Scope: "job", RunID: job.RunID, JobID: job.ID, JobType: job.Type,
		SpendUSD: job.Spend.USD(), Attempts: int64(job.Calls + job.ToolCalls), At: ts,
		Reason: fmt.Sprintf("%s in job %s — %s", k, job.ID, correlate.Advice[k])}
	if _, killed := r.run.killedAt[job.ID]; killed {
		a.Reason = fmt.Sprintf("%s in job %s, already killed this run: no second kill — %s", k, job.ID, correlate.Advice[k])
		r.fireNoKill(a)
		return
	}
	r.fire(a)
}

// RunStart describes a run the engine begins (see BeginRun).
type RunStart struct {
	// LogRunID is the run_id the logs name, "" when they name none.
	LogRunID string
	// Window is the run window's label for this run ("2026-12-01" for a
	// daily window), "" without one.
	Window string
	// First is the run's first event; the rules read it during the call.
	First *ingest.Event
}

// BeginRun makes a new State a run of its own and returns its ID: the
// logs' run_id; else the configured --run-id (with the window's label
// when there is a window); else one derived from the sorted input names
// and the window's label, or, without a window, the run's first event —
// persisted in the journal, so a restart that reads another file first
// keeps the ID its kills were keyed by.
func (r *Rules) BeginRun(st *correlate.State, start RunStart) string {
	id, name := r.nameRun(start)
	rr := newRunRules(id)
	rr.name = name
	r.runs[st] = rr
	if r.cur == nil {
		r.setCurrent(rr)
	}
	return id
}

// EndRun lets a finished run's rule state go.
func (r *Rules) EndRun(st *correlate.State) {
	rr := r.runs[st]
	delete(r.runs, st)
	if r.run == rr {
		r.run = nil
	}
	if rr != nil && r.disp != nil {
		r.disp.forgetRun(rr.id) // a daemon's memory stays bounded over nights
	}
}

// enterRun finds st's run; a State the engine never began (a caller that
// drives one State itself) becomes a run here, named from its first event.
func (r *Rules) enterRun(st *correlate.State, ev *ingest.Event) {
	rr := r.runs[st]
	if rr == nil {
		r.BeginRun(st, RunStart{LogRunID: ev.RunID, First: ev})
		rr = r.runs[st]
	}
	r.run = rr
}

func (r *Rules) setCurrent(rr *runRules) {
	r.cur = rr
	r.curID.Store(&rr.id)
}

// RunID is the current run's ID (the one the latest event went to), ""
// until the first event.
func (r *Rules) RunID() string {
	if p := r.curID.Load(); p != nil {
		return *p
	}
	return ""
}

// stateRunNamed journals a derived run ID (see nameRun).
const stateRunNamed ActionState = "run_named"

// sameRunWithin is how far apart two first events may be and still start
// the same derived run: a restart that reads another of the run's files
// first (or a file that appeared later, with earlier lines) sees another
// first event, hours at most from the one before. Nights are a day
// apart, so two are never taken for one.
const sameRunWithin = 6 * time.Hour

// nameRun names a run; for a derived ID it also returns the journal record
// that keeps the name for later starts (written with the run's first
// action, see fire), nil otherwise.
func (r *Rules) nameRun(start RunStart) (string, *Record) {
	switch {
	case start.LogRunID != "":
		return start.LogRunID, nil
	case r.cfg.RunID != "" && start.Window != "":
		return r.cfg.RunID + "-" + start.Window, nil
	case r.cfg.RunID != "":
		return r.cfg.RunID, nil
	}
	srcs := slices.Clone(r.cfg.RunSources)
	slices.Sort(srcs)
	h := sha256.New()
	for _, s := range srcs {
		h.Write([]byte(s + "\x00"))
	}
	sources := hex.EncodeToString(h.Sum(nil)[:8])
	if start.Window != "" {
		// The window is a pure function of log time: every restart and
		// every replica agrees on it whatever it reads first.
		return "derived-" + sources + "-" + start.Window, nil
	}
	first := start.First
	fmt.Fprintf(h, "%d\x00%s\x00%s", first.TS, first.JobID, first.Kind)
	derived := "derived-" + hex.EncodeToString(h.Sum(nil)[:8])
	if r.disp == nil || r.disp.journal == nil {
		return derived, nil
	}
	// Which file is read first is an accident of the read: look for a run
	// of these inputs derived from a first event close to this one.
	hour := first.TS / int64(time.Hour)
	span := int64(sameRunWithin / time.Hour)
	best, bestGap := "", int64(sameRunWithin)+1
	for hr := hour - span; hr <= hour+span; hr++ {
		if prev, ok := r.disp.journal.Last(fmt.Sprintf("run:%s:%d", sources, hr)); ok && prev.State == stateRunNamed && prev.RunID != "" {
			if gap := abs(prev.AtNS - first.TS); gap < bestGap {
				best, bestGap = prev.RunID, gap
			}
		}
	}
	if best != "" {
		return best, nil
	}
	// Journaled with the run's first action (see fire): a run that fires
	// nothing keys nothing, and needs no record.
	return derived, &Record{Key: fmt.Sprintf("run:%s:%d", sources, hour), Action: "run", State: stateRunNamed, RunID: derived, AtNS: first.TS,
		LogAt: correlate.FormatTime(first.TS)}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// runOf is the run a kill belongs to: the one being observed, else (a
// manual kill from the dashboard) the current one.
func (r *Rules) runOf() string {
	if r.run != nil {
		return r.run.id
	}
	return r.RunID()
}

// KillManual is the dashboard's kill: the same hooks, journal, keys and
// "still logging after kill" tracking as a rule's. Safe from any goroutine.
func (r *Rules) KillManual(jobID, jobType, jobRunID string, spendUSD float64, attempts, at int64) {
	r.mu.Lock()
	r.manual[jobID] = at
	r.mu.Unlock()
	r.hasManual.Store(true)
	// A job ID is a job of the run shown: the current one. jobRunID is
	// the run its events named, which is that run's ID when they name one.
	runID := r.RunID()
	if jobRunID != "" {
		runID = jobRunID
	}
	r.disp.Kill(Alert{Rule: RuleManual, Severity: correlate.SeverityCritical, Scope: "job", RunID: runID, JobID: jobID, JobType: jobType,
		Reason: "killed from the dashboard by the operator", SpendUSD: spendUSD, Attempts: attempts, At: at, Kill: true})
}

// takeManual moves the dashboard's kills into the current run's killedAt,
// on the engine goroutine that owns it.
func (r *Rules) takeManual() {
	r.mu.Lock()
	for id, at := range r.manual {
		if _, ok := r.cur.killedAt[id]; !ok {
			r.cur.killedAt[id] = at
		}
	}
	clear(r.manual)
	r.hasManual.Store(false)
	r.mu.Unlock()
}

// fire records an alert once per rule and subject and runs its action.
func (r *Rules) fire(a Alert) {
	key := a.Rule + "|" + a.Scope + "|" + a.JobType + "|" + a.JobID
	if a.Scope == "run" {
		key = a.Rule + "|run||"
	}
	if a.Scope == "job" {
		key = a.Rule + "|job||" + a.JobID
	}
	if r.run.fired[key] {
		return
	}
	r.run.fired[key] = true
	a.AtFromLog = r.atFromLog
	if j := r.obsJob; r.atFromLog && j != nil && a.JobID != "" && a.JobID == j.ID {
		a.LogHigh = max(j.LastTS, a.At)
	}
	a.RunID = r.runOf()
	a.Kill = slices.Contains(r.cfg.KillOn, a.Rule) && !r.noKill
	r.board.countAlert(a.Rule)
	// A derived run's name goes into the journal before the first kill
	// keyed by it: a crash between the two must not re-key the run.
	// A dry or read-only run blocks nothing later, so its name need not
	// survive it.
	if rn := r.run.name; rn != nil && r.disp != nil && r.disp.journal != nil && !r.disp.journal.readOnly && !r.disp.hooks.DryRun && !r.disp.hooks.ReadOnly {
		r.run.name = nil
		if err := r.disp.journal.Append(*rn); err != nil {
			r.disp.journalError(err)
		}
	}
	// The action first (journaled before Kill returns), then the words:
	// nothing that writes output can stand between a rule and its kill.
	if a.Kill && a.JobID != "" {
		r.run.killedAt[a.JobID] = a.At
	}
	if r.disp != nil {
		if a.Kill {
			r.disp.Kill(a)
		} else {
			r.disp.Notify(a)
		}
	}
	r.line(a.At, a.Severity, a.Reason)
	if r.emit != nil {
		r.emit(a)
	}
}

// fireNoKill fires a as an alert whatever kill_on says.
func (r *Rules) fireNoKill(a Alert) {
	r.noKill = true
	r.fire(a)
	r.noKill = false
}

func (r *Rules) line(at int64, sev correlate.Severity, text string) { r.board.add(at, sev, text) }

// Result records an action's result on the board; New passes it to the
// dispatcher.
func (r *Rules) Result(res Result) { r.board.result(res) }

// Lines returns the alerts and results, newest first.
func (r *Rules) Lines() []Line { return r.board.Lines() }

// Changes counts what the dashboard shows of the alerts changing (a line
// added, a kill's state moving) without an event: a kill's result on a
// quiet log must be drawn when it arrives, not with the next line.
func (r *Rules) Changes() uint64 {
	n := r.board.changes.Load()
	if r.disp != nil {
		n += r.disp.changes.Load()
	}
	return n
}

// KillStates reports each job's kill state for the dashboard.
func (r *Rules) KillStates() map[string]KillState {
	if r.disp == nil {
		return nil
	}
	ks := r.disp.KillStatesOf(r.RunID())
	if r.cur == nil {
		return ks
	}
	for id := range r.cur.still {
		if st, ok := ks[id]; ok {
			st.StillLogging = true
			ks[id] = st
		}
	}
	return ks
}

// JournalProblem is "" while every journal write succeeded, else how many
// failed and the last error: a journal that cannot write means kills may
// be sent again after a restart, and must be seen.
func (r *Rules) JournalProblem() string {
	if r.disp == nil {
		return ""
	}
	n, last := r.disp.JournalHealth()
	held := r.disp.Held()
	switch {
	case n == 0 && held == 0:
		// A journal that could not keep room for kills at start (a full
		// disk) is said before its first kill is held (R7-4).
		return r.disp.journal.RoomProblem()
	case held > 0:
		return fmt.Sprintf("journal: %d kill(s) held, not fired until the journal has room; %d write(s) failed, last: %s", held, n, last)
	}
	return fmt.Sprintf("journal: %d write(s) failed, last: %s", n, last)
}

// KillsHeld counts the kills held now (not fired: the journal could not
// record them first), for /metrics.
func (r *Rules) KillsHeld() int64 {
	if r.disp == nil {
		return 0
	}
	return r.disp.Held()
}

// JournalFailures counts failed journal writes, for /metrics.
func (r *Rules) JournalFailures() int64 {
	if r.disp == nil {
		return 0
	}
	n, _ := r.disp.JournalHealth()
	return n
}

// Counts returns alerts by rule and action results by action and state.
func (r *Rules) Counts() (alerts map[string]int64, actions map[[2]string]int64) {
	return r.board.Counts()
}
