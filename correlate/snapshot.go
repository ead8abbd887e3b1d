package correlate

import (
	"fmt"
	"time"
)

// Snapshot is a self-contained copy of the state for a renderer: nothing in
// it is shared with the State, so it may be read from another goroutine
// while the State moves on.
type Snapshot struct {
	Now       int64 // log clock, Unix ns
	Events    int64
	Attempts  int64
	ToolCalls int64
	Spend     Pico
	Wasted    Pico
	// Unpriced are the run's calls whose cost nothing in the evidence
	// says: Spend, Wasted and the burn rates are then lower bounds.
	Unpriced   int64
	CeilingUSD float64
	// BurnPerMin1 and BurnPerMin5 are USD/min over the last 1 and 5
	// minutes of log time, or over the part of that window the log covers
	// (at least minBurnCover) while the log is younger than the window:
	// then BurnWarming1 or BurnWarming5 is set.
	BurnPerMin1    float64
	BurnPerMin5    float64
	BurnWarming1   bool
	BurnWarming5   bool
	ProjectedUSD   float64  // spent + unfinished jobs × trailing mean cost of finished jobs of their type
	MinutesToCeil  float64  // at the 1-minute burn rate; -1 when not burning or no ceiling
	AttemptsPerSec float64  // over the last minute
	ErrorShare     float64  // non-2xx share of model calls over the last 5 minutes
	Jobs           []JobRow // empty when taken with NoJobRows
	JobCount       int
	// RetiredJobs of JobCount were finished and retired (JobRetention):
	// in the sums, no longer in Jobs.
	RetiredJobs int64
	Timeline    []Bucket // the last SnapshotMinutes minutes
	// SpendCurve is cumulative spend over the whole run, in at most
	// SpendCurvePoints steps of SpendCurveStep minutes each.
	SpendCurve     []Pico
	SpendCurveStep int64
	// ToolErrorShare is the share of tool calls that failed in the last
	// five minutes; ErrorShare is the same for model calls.
	ToolErrorShare float64
	Breakers       []BreakerReport
	Findings       []FindingReport
	Models         []ModelReport
	Status         map[string]int64 // model-call attempts by status
	Detail         *JobDetail       // the job asked for, if any
	// Assumptions is the run's assumptions log so far (the report's
	// rows, without the per-job-type p99, which needs every job), and
	// Findings holds what it shows: assumption_violated, _missing and
	// _changed within the run or against SnapshotOptions.Assumptions's
	// baseline, and default_changed_upstream.
	Assumptions []AssumptionReport
}

// SnapshotMinutes is how much timeline a snapshot carries for the calls
// chart: rates are about now.
const SnapshotMinutes = 120

// SpendCurvePoints is how many points the spend curve has at most: the
// whole run, downsampled, so the spend-vs-ceiling chart is the run's.
const SpendCurvePoints = 240

// JobRow is one job as the jobs table shows it.
type JobRow struct {
	ID, Type   string
	RunID      string
	Outcome    Outcome
	Calls      int32
	ToolCalls  int32
	Layers     [3]int32
	Amp        int
	Spend      Pico
	Wasted     Pico
	Duplicates int32
	LastStatus int16
	FirstTS    int64
	LastTS     int64
	Findings   uint16
	Seq        int32
	// OverCeiling is set when the job is at or over its job ceiling, by
	// the same JobCeilings.Over the job_ceiling rule uses.
	OverCeiling bool
	// Unpriced are the job's calls whose cost nothing in the evidence
	// says (JobReport.UnpricedCalls): Spend is then a lower bound.
	Unpriced int32
}

// LayersText renders the row's layer stack as "7×3×3".
func (r JobRow) LayersText() string {
	if r.Calls == 0 {
		return "-"
	}
	return FormatLayers([]int{int(r.Layers[0]), int(r.Layers[1]), int(r.Layers[2])})
}

// HasFinding reports whether the job is involved in a finding of kind k.
func (r JobRow) HasFinding(k FindingKind) bool { return r.Findings&(1<<k) != 0 }

// JobDetail is everything the job detail pane shows.
type JobDetail struct {
	Row JobRow
	// CacheShare is the share of the job's input tokens read from the
	// prompt cache, -1 when it read no input.
	CacheShare float64
	// InputTokens is every input token of the job, cached or not;
	// OutputTokens sums its retained attempts, so it is a floor when
	// OutputPartial (the job made more attempts than are retained).
	InputTokens   int64
	OutputTokens  int64
	OutputPartial bool
	Attempts      []AttemptView
	Findings      []FindingKind
	// CallsPerMinute is the job's model calls per minute from its first
	// attempt, for the mini chart.
	CallsPerMinute []float64
	// Count is how far Row.Calls can be trusted: CountExact,
	// CountLowerBound (Unseen names the layer below the log that retries
	// unseen), CountAmbiguous (calls placed in the job by timing alone).
	Count  string
	Unseen string
}

// AttemptView is an Attempt with its names resolved.
type AttemptView struct {
	Attempt
	Name    string
	ErrType string
}

// SnapshotOptions say what a renderer wants in a snapshot.
type SnapshotOptions struct {
	CeilingUSD  float64
	JobCeilings JobCeilings
	DetailJob   string
	// NoJobRows leaves Jobs empty (JobCount still counts them): for a
	// reader of the totals only, such as a headless status line, so a
	// frame of a huge run costs no row per job.
	NoJobRows bool
	// Now, when later than the log clock, is the live clock (log time plus
	// the time the input has been quiet, capped: the engine's): the burn
	// rates are of the windows ending then, so a log that went quiet reads
	// $0/min, not its last minute's rate for ever.
	Now int64
	// Assumptions compares the run's assumptions with the previous run's
	// (nil: with nothing before it).
	Assumptions *AssumptionOptions
	// Ended: the input has ended (a replay's last event, a closed pipe).
	// Jobs still open are judged as the report judges them — succeeded or
	// failed by their last call — not left "active" for ever.
	Ended bool
}

// AssumptionOptions is what a live run's assumptions are compared with.
type AssumptionOptions struct {
	// Baseline is the previous run's assumptions (the last line of
	// assumptions.jsonl, or the run this process saw before).
	Baseline []AssumptionReport
	// Upstream names the recorded changes of a library's retry
	// behaviour between two of its versions (audit.ChangesAcross, in
	// words); nil: none are known.
	Upstream func(id, from, to string) []string
}

func (s *State) row(j *Job, ended bool) JobRow {
	o := s.Outcome(j, ended)
	r := JobRow{ID: j.ID, Type: j.Type, Outcome: o, Calls: j.Calls, ToolCalls: j.ToolCalls, Amp: j.Amplification(),
		RunID: j.RunID, Spend: j.Spend, Wasted: j.wasted(o), Duplicates: j.Duplicates, LastStatus: j.LastStatus, FirstTS: j.FirstTS,
		LastTS: j.LastTS, Findings: j.findings, Seq: j.Seq, Unpriced: j.Unpriced}
	if j.Calls > 0 {
		r.Layers = [3]int32{max(j.QueueAttempts, 1), max(j.MaxRounds, 1), int32(max(j.MaxSDKAttempt, 1))}
	}
	return r
}

// Snapshot copies what a dashboard shows. Its cost grows with the number of
// jobs (one small row each); callers take it on a tick, not per event.
func (s *State) Snapshot(opt SnapshotOptions) *Snapshot {
	snap := &Snapshot{Now: s.lastTS, Events: s.events, Attempts: s.attempts, ToolCalls: s.toolCalls, Spend: s.spend, Unpriced: s.unpriced,
		CeilingUSD: opt.CeilingUSD, MinutesToCeil: -1}
	snap.JobCount = len(s.jobList) + int(s.retired.jobs)
	snap.RetiredJobs = s.retired.jobs
	snap.Wasted = s.retired.wasted
	if opt.NoJobRows {
		for _, j := range s.jobList {
			snap.Wasted = snap.Wasted.Add(j.wasted(s.Outcome(j, opt.Ended)))
		}
	} else {
		snap.Jobs = make([]JobRow, len(s.jobList))
		for i, j := range s.jobList {
			snap.Jobs[i] = s.row(j, opt.Ended)
			snap.Jobs[i].OverCeiling = opt.JobCeilings.Over(j.Type, s.CeilingSpend(j))
			snap.Wasted = snap.Wasted.Add(snap.Jobs[i].Wasted)
		}
	}
	now := max(s.lastTS, opt.Now)
	nowMin := now / int64(time.Minute)
	var calls5, failed5, tools5, toolFailed5 int64
	for m := nowMin - SnapshotMinutes + 1; m <= nowMin; m++ {
		b, ok := s.timeline[m]
		if !ok {
			continue
		}
		snap.Timeline = append(snap.Timeline, *b)
		if m > nowMin-5 {
			calls5 += b.Calls
			failed5 += b.Calls - b.Success
			tools5 += b.ToolCalls
			toolFailed5 += b.ToolFailed
		}
	}
	// Rates are of the window ending now: the minute buckets inside it,
	// and of the oldest, the part inside it (whole buckets made the "1m"
	// rate one of 1–2 minutes: $5.72/min over a last minute that spent
	// nothing), divided by the time of it the log covers.
	// They run on the burn clock (stepBurn), as the burn_rate alert does:
	// a skewed source neither hides nor inflates them. Live, it runs on
	// with the time the log has been quiet (opt.Now past the log clock).
	var burn1, burn5, rate1 float64
	bnow := s.burnNow + max(0, now-s.lastTS)
	burn1, rate1 = s.windowSums(bnow, time.Minute)
	burn5, _ = s.windowSums(bnow, 5*time.Minute)
	covered1, covered5 := s.burnCover(bnow, time.Minute), s.burnCover(bnow, 5*time.Minute)
	snap.BurnPerMin1, snap.BurnWarming1 = burn1/covered1, bnow-s.burnFirst < int64(time.Minute)
	snap.BurnPerMin5, snap.BurnWarming5 = burn5/covered5, bnow-s.burnFirst < int64(5*time.Minute)
	snap.AttemptsPerSec = rate1 / (covered1 * 60)
	if calls5 > 0 {
		snap.ErrorShare = float64(failed5) / float64(calls5)
	}
	if tools5 > 0 {
		snap.ToolErrorShare = float64(toolFailed5) / float64(tools5)
	}
	snap.SpendCurve, snap.SpendCurveStep = s.spendCurve()
	snap.ProjectedUSD = s.Projected().USD()
	if opt.CeilingUSD > 0 && snap.BurnPerMin1 > 0 {
		snap.MinutesToCeil = max(0, (opt.CeilingUSD-snap.Spend.USD())/snap.BurnPerMin1)
	}
	r := &Report{}
	s.reportBreakers(r)
	s.reportFindings(r)
	s.reportModels(r)
	if s.assume.any() {
		// The dashboard's badge and /metrics read what the report would
		// say of the run's premises, as the run goes.
		s.reportAssumptions(r)
		if a := opt.Assumptions; a != nil {
			if a.Baseline != nil {
				CompareAssumptions(r, a.Baseline, s.cfg.severity)
			}
			if a.Upstream != nil {
				FlagUpstreamChanges(r, a.Upstream, s.cfg.severity)
			}
		}
		snap.Assumptions = r.Assumptions
	}
	snap.Breakers, snap.Findings, snap.Models = r.Breakers, r.Findings, r.Models
	snap.Status = s.statuses.byName()
	if j := s.Job(opt.DetailJob); j != nil && opt.DetailJob != "" {
		snap.Detail = s.detail(j, opt.Ended)
	}
	return snap
}

// minBurnCover is the least log time a burn rate divides by: the first
// event alone is no rate.
const minBurnCover = 10 * time.Second

// burnCover is the log time, in minutes, of the window of length w ending
// at now that the log covers: from the window's start, or from the log's
// first event when that is later.
func (s *State) burnCover(now int64, w time.Duration) (minutes float64) {
	start := max(now-int64(w), s.burnFirst)
	return float64(max(now-start, int64(minBurnCover))) / float64(time.Minute)
}

// windowSums is the spend (USD) and the calls of the window of length w
// ending at now: every minute bucket inside it, and of the oldest one it
// cuts, the share of that minute's events' span inside it (its spend
// taken as even across its first to last event).
func (s *State) windowSums(now int64, w time.Duration) (usd, calls float64) {
	start := now - int64(w)
	first, last := start/int64(time.Minute), now/int64(time.Minute)
	for m := first; m <= last; m++ {
		b, ok := s.burnline[m]
		if !ok {
			continue
		}
		share := 1.0
		switch {
		case m != first || b.firstTS >= start:
		case b.lastTS < start:
			share = 0
		default:
			share = float64(b.lastTS-start) / float64(b.lastTS-b.firstTS)
		}
		usd += share * b.Spend.USD()
		calls += share * float64(b.Calls+b.ToolCalls)
	}
	return usd, calls
}

// spendCurve folds the whole run's minutes into at most SpendCurvePoints
// steps of cumulative spend; the last point is the spend so far.
func (s *State) spendCurve() ([]Pico, int64) {
	buckets := s.Timeline()
	if len(buckets) == 0 {
		return nil, 1
	}
	f := FoldTimeline(len(buckets), func(i int) (int64, int64, Pico) { return buckets[i].Minute, buckets[i].Calls, buckets[i].Spend }, SpendCurvePoints)
	return f.CumSpend, f.Step
}

// Folded is a timeline folded into columns of Step minutes each: the calls
// in each column and the spend up to each column's end.
type Folded struct {
	Step     int64
	Calls    []int64
	CumSpend []Pico
}

// FoldTimeline folds n per-minute points — at(i) gives the i-th point's
// Unix minute, calls and spend, in time order — into at most maxCols
// columns covering the first minute to the last. It is the one fold the
// dashboard's spend curve and the report's charts share.
func FoldTimeline(n int, at func(i int) (minute, calls int64, spend Pico), maxCols int) Folded {
	if n == 0 {
		return Folded{Step: 1}
	}
	first, _, _ := at(0)
	last, _, _ := at(n - 1)
	minutes := last - first + 1
	step := max(1, (minutes+int64(maxCols)-1)/int64(maxCols))
	cols := (minutes + step - 1) / step
	f := Folded{Step: step, Calls: make([]int64, cols), CumSpend: make([]Pico, cols)}
	for i := range n {
		m, calls, spend := at(i)
		c := min((m-first)/step, cols-1)
		f.Calls[c] += calls
		f.CumSpend[c] = f.CumSpend[c].Add(spend)
	}
	for i := 1; i < len(f.CumSpend); i++ {
		f.CumSpend[i] = f.CumSpend[i].Add(f.CumSpend[i-1])
	}
	return f
}

// Projected is the run's projected total: spend so far plus, for each job
// enqueued or running but not finished, the trailing mean cost of finished
// jobs of its type (of all finished jobs when its type has none yet).
func (s *State) Projected() Pico {
	type acc struct {
		spend    Pico
		finished int64
		open     int64
	}
	byType := map[string]*acc{}
	var all acc
	for jt, x := range s.retired.types { // finished before they were retired
		byType[jt] = &acc{spend: x.finishedSpend, finished: x.finished}
		all.spend = all.spend.Add(x.finishedSpend)
		all.finished += x.finished
	}
	for _, j := range s.jobList {
		jt := jobTypeName(j.Type)
		a := byType[jt]
		if a == nil {
			a = &acc{}
			byType[jt] = a
		}
		if s.Outcome(j, false).Finished() {
			a.spend = a.spend.Add(j.Spend)
			a.finished++
			all.spend = all.spend.Add(j.Spend)
			all.finished++
		} else {
			a.open++
		}
	}
	total := s.spend
	for _, a := range byType {
		switch {
		case a.open == 0:
		case a.finished > 0:
			total = total.Add(mulTokens(a.open, a.spend/Pico(a.finished)))
		case all.finished > 0:
			total = total.Add(mulTokens(a.open, all.spend/Pico(all.finished)))
		}
	}
	return total
}

func (s *State) detail(j *Job, ended bool) *JobDetail {
	d := &JobDetail{Row: s.row(j, ended), Findings: j.Findings(), CacheShare: -1, Count: s.countKind(j)}
	if d.Count == CountLowerBound {
		for _, u := range s.unseenLayers() {
			if d.Unseen != "" {
				d.Unseen += "; "
			}
			d.Unseen += fmt.Sprintf("%s %d retries (%s): up to %d HTTP calls per call logged", u.Layer, u.Retries, u.From, u.AttemptsPerCall)
		}
	}
	if all := j.tokensFresh + j.tokensCacheRead + j.tokensCacheWrite; all > 0 {
		d.CacheShare = float64(j.tokensCacheRead) / float64(all)
	}
	d.InputTokens = j.tokensFresh + j.tokensCacheRead + j.tokensCacheWrite
	atts := s.Attempts(j)
	d.OutputPartial = len(atts) < int(j.Calls+j.ToolCalls)
	for _, a := range atts {
		d.OutputTokens += int64(a.OutputTokens)
	}
	d.Attempts = make([]AttemptView, len(atts))
	var first int64
	for i, a := range atts {
		d.Attempts[i] = AttemptView{Attempt: a, Name: s.Name(a.Name), ErrType: s.Name(a.ErrType)}
		if a.Flags&FlagTool != 0 {
			continue
		}
		if first == 0 {
			first = a.TS
		}
		m := int((a.TS - first) / int64(time.Minute))
		if m >= 0 && m < 24*60 {
			for len(d.CallsPerMinute) <= m {
				d.CallsPerMinute = append(d.CallsPerMinute, 0)
			}
			d.CallsPerMinute[m]++
		}
	}
	return d
}
