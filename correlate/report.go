package correlate

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Report is the postmortem of everything applied so far. Its JSON keys are
// a public contract: add keys freely, never rename one.
type Report struct {
	Source            ReportSource     `json:"source"`
	Pricing           ReportPricing    `json:"pricing"`
	Totals            ReportTotals     `json:"totals"`
	CallsPerJob       Percentiles      `json:"calls_per_job"`
	Duplicates        int64            `json:"duplicates"`
	Status            map[string]int64 `json:"status"`
	TimeToDeadLetterS DeadLetterTimes  `json:"time_to_dead_letter_s"`
	RetryAfter        RetryAfterStats  `json:"retry_after"`
	Recovery          Recovery         `json:"recovery"`
	JobTypes          []JobTypeReport  `json:"job_types"`
	Models            []ModelReport    `json:"models"`
	Tools             []ToolReport     `json:"tools"`
	// Jobs are costliest first. With ReportOptions they may be only the
	// top few, or none and given by JobSource.
	Jobs     []JobReport     `json:"jobs"`
	Breakers []BreakerReport `json:"breakers"`
	Findings []FindingReport `json:"findings"`
	// UnseenLayers are the retry layers below the application's records
	// that the log cannot show (counts.go): their jobs' counts are lower
	// bounds. Absent when every call was seen at its HTTP attempt.
	UnseenLayers []UnseenLayer `json:"unseen_layers,omitempty"`
	// Assumptions is the assumptions log of the run (assumptions.go):
	// empty when the run declared nothing and showed no evidence.
	Assumptions []AssumptionReport `json:"assumptions"`
	// AssumptionsDropped counts declarations past the log's bound.
	AssumptionsDropped int64 `json:"assumptions_dropped,omitempty"`
	// DeclaredVsObserved sets a declared retry stack (report --stack or
	// --audit) beside the calls seen; nil, and absent, without one.
	DeclaredVsObserved *DeclaredVsObserved `json:"declared_vs_observed,omitempty"`
	Timeline           []TimelinePoint     `json:"timeline"`
	Config             ReportConfigState   `json:"config"`
	// RunID is the run this report is of, when a live process names runs;
	// PreviousRuns are the totals of the runs it saw before (a daemon
	// that ran for several nights).
	RunID        string       `json:"run_id,omitempty"`
	PreviousRuns []RunSummary `json:"previous_runs,omitempty"`
	// Replica names the process of a fleet that wrote it (watch
	// --replica), so report --merge can tell a shard from a copy.
	Replica string `json:"replica,omitempty"`
	// Instance names the process that wrote it, uniquely: its replica
	// name, run and start (watch --report-out). Two replicas may share a
	// name (the default is the host name); report --merge tells them
	// apart by it, and merges them by job identity or refuses them.
	Instance string `json:"instance,omitempty"`
	// Merged describes the replicas' reports this one was merged from
	// (report --merge); nil for one process's report.
	Merged *MergeInfo `json:"merged,omitempty"`
	// Night is what the config's limits and kill rules did, or would
	// have done, to this night (report --config, --journal); nil, and
	// absent, when no limit is set and no journal was read.
	Night *NightReport `json:"night,omitempty"`
	// JobSource, set by ReportOptions.StreamJobs, gives every job's
	// report in Jobs' order, one at a time, while the State is unchanged.
	JobSource JobSource `json:"-"`
}

// NightReport is the limits and kills of a night: each crossing of a
// ceiling or kill rule the config sets, as a live run would have seen it
// at that event, and the kills the alerts journal says were made.
type NightReport struct {
	// Limits says which limits were applied ("job ceiling $2.00, …").
	Limits    string     `json:"limits"`
	Crossings []Crossing `json:"crossings"`
	// CrossingsTotal counts every crossing; Crossings holds the first
	// MaxNightCrossings of them.
	CrossingsTotal int `json:"crossings_total"`
	// Journal is the alerts journal read (--journal); Kills its kill
	// actions for this night's jobs (or its run), newest state each.
	Journal string     `json:"journal,omitempty"`
	Kills   []KillMade `json:"kills,omitempty"`
}

// Crossing is one rule firing, as a live run fires it (once per job for a
// job rule, once per run otherwise).
type Crossing struct {
	Rule       string  `json:"rule"`
	Scope      string  `json:"scope"`
	JobID      string  `json:"job_id,omitempty"`
	JobType    string  `json:"job_type,omitempty"`
	At         string  `json:"at"`
	SpendUSD   float64 `json:"spend_usd"`
	CeilingUSD float64 `json:"ceiling_usd,omitempty"`
	// KillRule: the config's kill_on names the rule, so a live run with a
	// kill hook would have killed here.
	KillRule bool   `json:"kill_rule"`
	Reason   string `json:"reason"`
}

// KillMade is one kill the journal records.
type KillMade struct {
	JobID  string `json:"job_id,omitempty"`
	RunID  string `json:"run_id,omitempty"`
	Rule   string `json:"rule"`
	Action string `json:"action"`
	// State is the action's last state: acknowledged (the hook answered
	// 2xx, the command exited 0), sent, failed, …
	State string `json:"state"`
	At    string `json:"at"`
}

type ReportSource struct {
	Files           []string          `json:"files"`
	Lines           int64             `json:"lines"`
	Events          int64             `json:"events"`
	Skipped         int64             `json:"skipped"`
	SkippedByReason map[string]int64  `json:"skipped_by_reason"`
	ReadErrors      []string          `json:"read_errors,omitempty"`
	Formats         map[string]string `json:"formats,omitempty"` // file → format read as
	Hints           []string          `json:"hints,omitempty"`
	FirstTS         string            `json:"first_ts"`
	LastTS          string            `json:"last_ts"`
	// OutOfOrderEvents were too far ahead of their neighbours to move the
	// log clock (billed, at their own time).
	OutOfOrderEvents int64 `json:"out_of_order_events,omitempty"`
	// NoTimestamp counts lines read without a time of their own: each took
	// the time of the line before it (live: the time it was read).
	NoTimestamp int64 `json:"no_timestamp,omitempty"`
	// FieldsDropped counts, by reason, lines kept without one of their
	// fields (or with a time read in the configured zone): a field that
	// cannot be read costs that field, never the record (issue 39).
	FieldsDropped map[string]int64 `json:"fields_dropped,omitempty"`
}

// UnknownModel names the calls that were clearly model calls (tokens, a
// GenAI operation) but named no model: unpriced, never dropped.
const UnknownModel = "(unknown)"

type ReportPricing struct {
	Table          string   `json:"table"`
	File           string   `json:"file,omitempty"`
	SHA256         string   `json:"sha256,omitempty"`
	UnpricedModels []string `json:"unpriced_models"`
	// ApproximatedModels maps a model ID priced as its family (a date or
	// a preview tag dropped) to the entry that priced it.
	ApproximatedModels map[string]string `json:"approximated_models,omitempty"`
	BatchNote          string            `json:"batch_note,omitempty"`
	// OverCapModels are the models some call of which was priced above
	// the per-call cap (Totals.OverCapCalls); MaxCallCostUSD is the cap.
	OverCapModels  []string `json:"over_cap_models,omitempty"`
	MaxCallCostUSD float64  `json:"max_call_cost_usd,omitempty"`
	// RefusedRates are the price table's rates refused at load (model,
	// field and why; PriceTable.Refused), the base table's after its own.
	RefusedRates []string `json:"refused_rates,omitempty"`
	// DimensionCalls counts the calls priced from the table that carried
	// each dimension of the bill beyond their tokens (fast, inference_geo_us,
	// service_tier_flex/priority, compaction, long_context, cache_write);
	// AssumedCalls those of them priced by an assumption, per reason
	// (dimensions.go): every other call was priced exactly from the table.
	DimensionCalls map[string]int64 `json:"dimension_calls,omitempty"`
	AssumedCalls   map[string]int64 `json:"assumed_calls,omitempty"`
	// RecordedCost is the producer's own cost of the calls whose records
	// carried one (billed as recorded) beside the table's price of them.
	RecordedCost *RecordedCost `json:"recorded_cost,omitempty"`
}

// RecordedCost compares what records said their calls cost with what the
// price table prices the same calls at.
type RecordedCost struct {
	Calls       int64   `json:"calls"`
	RecordedUSD float64 `json:"recorded_usd"`
	TableUSD    float64 `json:"table_usd"`
	// Billed says which figure spend holds, and why.
	Billed string `json:"billed"`
}

// RecordedBilled says which figure is billed when a record carries its
// cost.
const RecordedBilled = "recorded: the producer priced each call as it was made, with what its record may not show (tier, region, fast mode, its own rates); the table's price of the same tokens is shown beside it"

type ReportTotals struct {
	Attempts         int64 `json:"attempts"`
	ToolCalls        int64 `json:"tool_calls"`
	Jobs             int   `json:"jobs"`
	Operations       int   `json:"operations"`
	SucceededJobs    int   `json:"succeeded_jobs"`
	FailedJobs       int   `json:"failed_jobs"`
	DeadLetteredJobs int   `json:"dead_lettered_jobs"`
	RunningJobs      int   `json:"running_jobs"`
	QueuedJobs       int   `json:"queued_jobs"`
	// RetiredJobs are finished jobs whose detail was dropped after the
	// job retention (live runs); they are in every count and sum here.
	RetiredJobs int64   `json:"retired_jobs,omitempty"`
	SpendUSD    float64 `json:"spend_usd"`
	// SpendSaturated: the run's spend stopped at the most an amount holds
	// (about $9.2M, Pico.Saturated); the true figure is at least that, and
	// so is every job's that reads the same.
	SpendSaturated bool `json:"spend_saturated,omitempty"`
	// OverCapCalls are calls (or usage growths) whose computed cost was
	// above the per-call cap (max_call_cost_usd): kept in spend and in
	// every ceiling, flagged because a price table is likelier wrong.
	OverCapCalls     int64   `json:"over_cap_calls,omitempty"`
	WastedUSD        float64 `json:"wasted_usd"`
	UnpricedAttempts int64   `json:"unpriced_attempts"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_creation_tokens"`
	// Batch and synchronous spend side by side (seed 002 moved jobs to
	// batch to halve cost and cut 429s).
	// TimingLinks are model calls placed in a job by timing alone (SDK
	// lines that name no request, with jobs in flight): shown, never
	// held against a declaration, never a kill; their jobs' counts are
	// ambiguous. LowerBoundJobs are jobs whose count is a lower bound.
	TimingLinks int64 `json:"timing_links,omitempty"`
	// KeyNamedCalls are model calls that named no job, grouped under
	// their idempotency key: a key is not a job ID (two jobs may send
	// one), so those groups' counts are ambiguous — shown, never held
	// against a declaration, never a kill (R7-26).
	KeyNamedCalls int64 `json:"key_named_calls,omitempty"`
	// RecordedBelowTable are calls whose own recorded cost was under 1% of
	// the price table's for their tokens (a producer's $0, or a true one):
	// billed as recorded, counted unpriced (their spend a floor).
	RecordedBelowTable int64 `json:"recorded_below_table,omitempty"`
	// RequestIDConflicts are records naming a provider request ID whose
	// first record named another job (both jobs' counts ambiguous).
	RequestIDConflicts int64   `json:"request_id_conflicts,omitempty"`
	LowerBoundJobs     int     `json:"lower_bound_jobs,omitempty"`
	AmbiguousJobs      int     `json:"ambiguous_jobs,omitempty"`
	BatchCalls         int64   `json:"batch_calls"`
	BatchSpendUSD      float64 `json:"batch_spend_usd"`
	SyncSpendUSD       float64 `json:"sync_spend_usd"`
	// Batch requests that never ran: not calls, but failed jobs.
	BatchExpired  int64 `json:"batch_expired"`
	BatchCanceled int64 `json:"batch_canceled"`
}

// Percentiles are nearest-rank.
type Percentiles struct {
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

type DeadLetterTimes struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	Max   float64 `json:"max"`
}

type RetryAfterStats struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_s"`
	P95   float64 `json:"p95_s"`
	// Honored counts retries that waited the full Retry-After; Rehit those
	// of them that met another 429.
	Honored int64 `json:"honored"`
	Rehit   int64 `json:"rehit_429"`
	// NoHint counts 429s that came without a Retry-After.
	NoHint int64 `json:"no_hint_429"`
}

type Recovery struct {
	Operations   int     `json:"operations"`
	FirstAttempt float64 `json:"first_attempt"`
	Within3      float64 `json:"within_3"`
	Within5      float64 `json:"within_5"`
}

type JobTypeReport struct {
	JobType        string  `json:"job_type"`
	Jobs           int     `json:"jobs"`
	Attempts       int64   `json:"attempts"`
	CallsPerJobP50 int64   `json:"calls_per_job_p50"`
	CallsPerJobP99 int64   `json:"calls_per_job_p99"`
	SpendUSD       float64 `json:"spend_usd"`
	WastedUSD      float64 `json:"wasted_usd"`
	Succeeded      int     `json:"succeeded"`
	Failed         int     `json:"failed"`
	DeadLettered   int     `json:"dead_lettered"`
	// UnpricedAttempts are the type's calls whose cost nothing in the
	// evidence says: SpendUSD and WastedUSD are then lower bounds.
	UnpricedAttempts int64 `json:"unpriced_attempts,omitempty"`
	// Layers is the most amplified layer stack seen in the type.
	Layers []int `json:"layers"`
}

type ModelReport struct {
	Model            string           `json:"model"`
	Provider         string           `json:"provider,omitempty"`
	Priced           bool             `json:"priced"`
	Attempts         int64            `json:"attempts"`
	SpendUSD         float64          `json:"spend_usd"`
	Status           map[string]int64 `json:"status"`
	InputTokens      int64            `json:"input_tokens"`
	OutputTokens     int64            `json:"output_tokens"`
	CacheReadTokens  int64            `json:"cache_read_tokens"`
	CacheWriteTokens int64            `json:"cache_creation_tokens"`
	UnpricedAttempts int64            `json:"unpriced_attempts"`
	MeanLatencyMs    float64          `json:"mean_latency_ms"`
}

type ToolReport struct {
	Tool     string           `json:"tool"`
	Attempts int64            `json:"attempts"`
	Status   map[string]int64 `json:"status"`
}

type JobReport struct {
	JobID      string   `json:"job_id"`
	JobType    string   `json:"job_type"`
	Outcome    string   `json:"outcome"`
	Attempts   int32    `json:"attempts"`
	ToolCalls  int32    `json:"tool_calls"`
	Layers     []int    `json:"layers"`
	SpendUSD   float64  `json:"spend_usd"`
	WastedUSD  float64  `json:"wasted_usd"`
	Duplicates int32    `json:"duplicates"`
	LastStatus int16    `json:"last_status"`
	FirstTS    string   `json:"first_ts"`
	LastTS     string   `json:"last_ts"`
	Findings   []string `json:"findings"`
	// AgentReportedUSD is the agent's own figure for the session (claude
	// -p's total_cost_usd), beside the computed SpendUSD; absent when the
	// log gave none.
	AgentReportedUSD *float64 `json:"agent_reported_usd,omitempty"`
	// RecordedUSD is what the job's records said their calls cost (a
	// producer's own figure, billed), TableUSD the price table's price of
	// the same calls; absent when no record carried a cost.
	RecordedUSD *float64 `json:"recorded_usd,omitempty"`
	TableUSD    *float64 `json:"table_usd,omitempty"`
	// Count says how far Attempts can be trusted (counts.go): exact (every
	// call seen at its HTTP attempt, or no retrying layer below the
	// records), lower_bound (the application's records, with an SDK below
	// that retries unseen: Report.UnseenLayers), ambiguous (a call placed
	// in the job by timing alone).
	Count string `json:"count"`
	// scratch holds a streamed report's times (JobSource.Fill): formatted
	// into it, not allocated, for each of a million jobs.
	scratch []byte
	// UnpricedCalls are the job's calls whose cost nothing in the evidence
	// says (answered, with no tokens and no price: an HTTP client span);
	// SpendUSD is then what the rest cost, a lower bound, never the job's
	// spend.
	UnpricedCalls int32 `json:"unpriced_calls,omitempty"`
}

type BreakerReport struct {
	Key          string       `json:"key"`
	State        BreakerState `json:"state"`
	Trips        int32        `json:"trips"`
	FailureRate  float64      `json:"failure_rate"`
	WouldBlock   int64        `json:"would_block"`
	WouldSaveUSD float64      `json:"would_save_usd"`
	OpenUntil    string       `json:"open_until,omitempty"`
	// TripFailureRate is the failure rate that last opened it (the window
	// starts over on a trip, so FailureRate alone reads 0% when open).
	TripFailureRate float64 `json:"trip_failure_rate,omitempty"`
	// ReopenedByProbe: the last opening was a failed half-open probe.
	ReopenedByProbe bool `json:"reopened_by_probe,omitempty"`
	// OpenUntilTS is OpenUntil in Unix ns, for the dashboard's countdown.
	OpenUntilTS int64 `json:"-"`
}

type FindingReport struct {
	Kind      string   `json:"kind"`
	Severity  Severity `json:"severity"`
	Count     int64    `json:"count"`
	Jobs      []string `json:"jobs"`
	JobsTotal int      `json:"jobs_total"`
	// WastedUSD is what this finding's own attempts wasted (each attempt
	// once); JobsWastedUSD is all the wasted spend of its jobs, which
	// includes their attempts this finding does not name. Neither exceeds
	// the run's wasted spend.
	WastedUSD     float64 `json:"wasted_usd"`
	JobsWastedUSD float64 `json:"jobs_wasted_usd"`
	Example       string  `json:"example"`
	FirstAt       string  `json:"first_at"`
	Advice        string  `json:"advice"`
	// Ambiguous: the finding's jobs have ambiguous counts (ambiguous.go):
	// shown at severity info, held against no one.
	Ambiguous bool `json:"ambiguous,omitempty"`
}

type TimelinePoint struct {
	// UnixMinute and Spend are Minute and SpendUSD as the state holds them,
	// for a writer that folds the timeline (report's charts).
	UnixMinute int64   `json:"-"`
	Spend      Pico    `json:"-"`
	Minute     string  `json:"minute"`
	Calls      int64   `json:"calls"`
	Success    int64   `json:"success"`
	Retryable  int64   `json:"retryable"`
	Terminal   int64   `json:"terminal"`
	ToolCalls  int64   `json:"tool_calls"`
	SpendUSD   float64 `json:"spend_usd"`
}

// ReportConfigState records the thresholds the findings used.
type ReportConfigState struct {
	MaxCallsPerJob         int     `json:"max_calls_per_job"`
	AmplificationThreshold int     `json:"amplification_threshold"`
	JobDeadlineS           float64 `json:"job_deadline_s"`
	BreakerWindow          int     `json:"breaker_window"`
	BreakerTripRate        float64 `json:"breaker_trip_rate"`
	BreakerCooldownS       float64 `json:"breaker_cooldown_s"`
}

// HasCritical reports whether any finding is critical.
func (r *Report) HasCritical() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityCritical {
			return true
		}
	}
	return false
}

// JobSource gives a streamed report's jobs by position, costliest first.
// Fill may be called from several goroutines at once (each with its own jr).
type JobSource interface {
	Len() int
	// Fill writes job i's report into jr, reusing the storage of jr's
	// slices and times: what it writes is valid until the next Fill into
	// jr (Detached is a copy to keep). A million jobs' reports then
	// allocate nothing each, where they made 80 MB of garbage at the
	// JSON report's peak.
	Fill(i int, jr *JobReport)
}

// Detached is jr with storage of its own, to keep past the next
// JobSource.Fill into jr.
func (jr JobReport) Detached() JobReport {
	jr.Layers = slices.Clone(jr.Layers)
	jr.Findings = slices.Clone(jr.Findings)
	jr.FirstTS, jr.LastTS = strings.Clone(jr.FirstTS), strings.Clone(jr.LastTS)
	jr.scratch = nil
	return jr
}

type jobSource struct {
	s     *State
	order []jobOrder
}

func (js jobSource) Len() int { return len(js.order) }
func (js jobSource) Fill(i int, jr *JobReport) {
	js.s.fillJobReport(jr, js.s.jobList[js.order[i].idx])
}

// ReportOptions trim what a report holds, for reports of huge runs.
type ReportOptions struct {
	// TopJobs > 0 keeps only the costliest TopJobs jobs in Jobs, chosen
	// without building the others' reports (the Markdown shows ten).
	TopJobs int
	// StreamJobs leaves Jobs empty and sets JobSource, for a writer that
	// encodes the jobs one by one (report.JSON): a million JobReports
	// would otherwise be built and held at once.
	StreamJobs bool
}

// Report builds the postmortem. It reads the state and changes nothing.
func (s *State) Report() *Report { return s.ReportWith(ReportOptions{}) }

// ReportWith is Report trimmed by opt.
func (s *State) ReportWith(opt ReportOptions) *Report {
	r := &Report{Status: map[string]int64{}}
	s.reportSource(r)
	r.Pricing = ReportPricing{Table: s.cfg.Prices.Describe(), UnpricedModels: []string{}}
	if s.cfg.Prices.SHA256 != "" {
		r.Pricing.File, r.Pricing.SHA256 = s.cfg.Prices.Source, s.cfg.Prices.SHA256
	}
	r.Config = ReportConfigState{MaxCallsPerJob: s.cfg.MaxCallsPerJob, AmplificationThreshold: s.cfg.AmplificationThreshold,
		JobDeadlineS: s.cfg.JobDeadline.Seconds(), BreakerWindow: s.cfg.Breaker.Window, BreakerTripRate: s.cfg.Breaker.TripRate,
		BreakerCooldownS: s.cfg.Breaker.Cooldown.Seconds()}

	t := &r.Totals
	rt := &s.retired
	t.Attempts, t.ToolCalls, t.Jobs, t.Operations = s.attempts, s.toolCalls, len(s.jobList)+int(rt.jobs), s.opCount+int(rt.ops)
	t.RetiredJobs = rt.jobs
	t.SpendUSD, t.UnpricedAttempts = s.spend.USD(), s.unpriced
	t.SpendSaturated = s.spend.Saturated()
	if t.OverCapCalls = s.overCap; s.overCap > 0 {
		r.Pricing.MaxCallCostUSD = s.cfg.MaxCallCost.USD()
	}
	for tab := s.cfg.Prices; tab != nil; tab = tab.Base {
		r.Pricing.RefusedRates = append(r.Pricing.RefusedRates, tab.Refused...)
	}
	t.BatchCalls, t.BatchSpendUSD, t.SyncSpendUSD = s.batchCalls, s.batchSpend.USD(), (s.spend - s.batchSpend).USD()
	t.BatchExpired, t.BatchCanceled = s.batchExpired, s.batchCanceled
	if s.batchCalls > 0 {
		r.Pricing.BatchNote = BatchPricingNote
	}
	r.Pricing.DimensionCalls, r.Pricing.AssumedCalls = maps.Clone(s.dims.dims), maps.Clone(s.dims.assumed)
	if a := s.recordedAll; a.calls > 0 {
		r.Pricing.RecordedCost = &RecordedCost{Calls: a.calls, RecordedUSD: a.recorded.USD(), TableUSD: a.ours.USD(), Billed: RecordedBilled}
	}
	t.InputTokens, t.OutputTokens, t.CacheReadTokens, t.CacheWriteTokens = s.input, s.output, s.cacheRead, s.cacheWrite
	r.Duplicates = s.duplicates
	r.Status = s.statuses.byName()

	wasted := rt.wasted
	// Calls per job are counted by value, not listed: a million jobs have
	// a few dozen distinct counts, and a list of them was 8 MB per list
	// (one here, one per job type) at the report's peak.
	calls := maps.Clone(rt.calls)
	if calls == nil {
		calls = map[int64]int64{}
	}
	deadLetter := slices.Clone(rt.deadLetter)
	t.SucceededJobs, t.FailedJobs, t.DeadLetteredJobs = int(rt.succeeded), int(rt.failed), int(rt.deadLettered)
	t.QueuedJobs, t.RunningJobs = int(rt.queued), int(rt.running)
	types := map[string]*jobTypeAcc{}
	for jt, x := range rt.types {
		types[jt] = &jobTypeAcc{JobTypeReport: JobTypeReport{JobType: jt, Layers: slices.Clone(x.layers), Jobs: int(x.jobs), Attempts: x.attempts,
			Succeeded: int(x.succeeded), Failed: int(x.failed), DeadLettered: int(x.deadLettered), UnpricedAttempts: x.unpriced}, spend: x.spend, wasted: x.wasted, amp: x.amp, hist: maps.Clone(x.calls)}
		if types[jt].Layers == nil {
			types[jt].Layers = []int{}
		}
	}
	top := opt.TopJobs > 0 && opt.TopJobs < len(s.jobList)
	var order []jobOrder
	if top {
		order = make([]jobOrder, 0, opt.TopJobs+1)
	} else {
		order = make([]jobOrder, 0, len(s.jobList))
	}
	for i, j := range s.jobList {
		o := s.Outcome(j, true)
		w := j.wasted(o)
		wasted = wasted.Add(w)
		switch o {
		case OutcomeSucceeded:
			t.SucceededJobs++
		case OutcomeFailed:
			t.FailedJobs++
		case OutcomeDeadLettered:
			t.DeadLetteredJobs++
		case OutcomeQueued:
			t.QueuedJobs++
		default:
			t.RunningJobs++
		}
		if j.Calls > 0 {
			calls[int64(j.Calls)]++
		}
		if j.DeadLetterTS != 0 {
			start := j.EnqueuedTS
			if start == 0 {
				start = j.FirstAttemptTS
			}
			if start != 0 {
				deadLetter = append(deadLetter, float64(j.DeadLetterTS-start)/1e9)
			}
		}
		jt := jobTypeName(j.Type)
		acc := types[jt]
		if acc == nil {
			acc = &jobTypeAcc{JobTypeReport: JobTypeReport{JobType: jt, Layers: []int{}}}
			types[jt] = acc
		}
		acc.add(j, o, w)
		if o := (jobOrder{usd: j.Spend.USD(), calls: j.Calls, idx: uint32(i)}); top {
			order = s.keepTop(order, o, opt.TopJobs)
		} else {
			order = append(order, o)
		}
		switch s.countKind(j) {
		case CountLowerBound:
			t.LowerBoundJobs++
		case CountAmbiguous:
			t.AmbiguousJobs++
		}
	}
	for ev, n := range rt.evidence {
		switch s.countKindOf(ev) {
		case CountLowerBound:
			t.LowerBoundJobs += int(n)
		case CountAmbiguous:
			t.AmbiguousJobs += int(n)
		}
	}
	t.TimingLinks = s.timingLinks
	t.KeyNamedCalls = s.keyNamedCalls
	t.RecordedBelowTable = s.recordedBelow
	t.RequestIDConflicts = s.requestIDConflicts
	r.UnseenLayers = s.unseenLayers()
	t.WastedUSD = wasted.USD()
	r.CallsPerJob = histPercentiles(nil, calls)
	slices.Sort(deadLetter)
	r.TimeToDeadLetterS = DeadLetterTimes{Count: len(deadLetter)}
	if len(deadLetter) > 0 {
		r.TimeToDeadLetterS.P50 = nearestRank(deadLetter, 50)
		r.TimeToDeadLetterS.Max = deadLetter[len(deadLetter)-1]
	}
	s.reportJobs(r, order, opt)

	for _, acc := range types {
		acc.finish()
		r.JobTypes = append(r.JobTypes, acc.JobTypeReport)
	}
	slices.SortFunc(r.JobTypes, func(a, b JobTypeReport) int {
		return cmp.Or(cmp.Compare(b.SpendUSD, a.SpendUSD), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.JobType, b.JobType))
	})

	s.reportRetryAfter(r)
	s.reportRecovery(r)
	s.reportModels(r)
	s.reportBreakers(r)
	s.reportFindings(r)
	s.reportAssumptions(r)
	r.Timeline = s.reportTimeline()
	return r
}

func (s *State) reportSource(r *Report) {
	src := &r.Source
	src.Files = []string{}
	src.SkippedByReason = map[string]int64{}
	src.OutOfOrderEvents = s.OutOfOrder()
	for _, in := range s.sources {
		src.Files = append(src.Files, in.Name)
		src.Lines += in.Stats.Lines
		src.Events += in.Stats.Events
		src.Skipped += in.Stats.SkippedTotal()
		src.NoTimestamp += in.Stats.NoTimestamp
		for k, v := range in.Stats.SkippedByReason() {
			src.SkippedByReason[k] += v
		}
		for k, v := range in.Stats.FieldsDroppedByReason() {
			if src.FieldsDropped == nil {
				src.FieldsDropped = map[string]int64{}
			}
			src.FieldsDropped[k] += v
		}
		if in.Err != "" {
			src.ReadErrors = append(src.ReadErrors, in.Err)
		}
		if in.Format != "" {
			if src.Formats == nil {
				src.Formats = map[string]string{}
			}
			src.Formats[in.Name] = in.Format
		}
		if in.Hint != "" {
			src.Hints = append(src.Hints, in.Name+": "+in.Hint)
		}
	}
	if len(s.sources) == 0 {
		src.Events = s.events
	}
	if h := s.sharedResponsesHint(); h != "" {
		src.Hints = append(src.Hints, h)
	}
	src.FirstTS, src.LastTS = FormatTime(s.firstTS), FormatTime(s.lastTS)
}

// sharedResponsesHint says how many responses two or more sessions hold
// with no fork mark (resumed.go): each is billed to the session that
// stopped first, which is right for a resume and wrong for a fork that
// rewrote its session ID and left no mark, if the fork stopped first.
func (s *State) sharedResponsesHint() string {
	n := 0
	for i := range s.contests {
		if bits.OnesCount8(s.contests[i].made) >= 2 {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d response(s) are in the records of two or more agent sessions under one response ID, with no fork mark: each is billed once, to the session that stopped first — the original of a resumed session, which stops when it is resumed. A fork that rewrote the session ID and left no mark goes on beside its parent: if it stopped first, its parent's responses are billed to it (compare the sessions' first and last times in jobs)", n)
}

// jobOrder is a job's place in the costliest-first order, compact (16
// bytes) so that sorting a million jobs moves little memory and holds
// little at the report's peak: spend, then model calls, descending, then
// job ID (read from the job, only on a tie).
type jobOrder struct {
	usd   float64
	calls int32
	idx   uint32 // into jobList
}

func (s *State) compareJobs(a, b jobOrder) int {
	if c := cmp.Or(cmp.Compare(b.usd, a.usd), cmp.Compare(b.calls, a.calls)); c != 0 {
		return c
	}
	return cmp.Compare(s.jobList[a.idx].ID, s.jobList[b.idx].ID)
}

// keepTop adds o to top, the n best jobs seen so far in order, and keeps
// n: a report that shows n jobs sorts no list of all of them.
func (s *State) keepTop(top []jobOrder, o jobOrder, n int) []jobOrder {
	if len(top) == n && s.compareJobs(o, top[n-1]) >= 0 {
		return top // nearly always, decided at the first key
	}
	at, _ := slices.BinarySearchFunc(top, o, s.compareJobs)
	top = slices.Insert(top, at, o)
	if len(top) > n {
		top = top[:n]
	}
	return top
}

// sortJobs sorts order costliest first (a total order: IDs are unique),
// in two passes. The keys are sorted by spend and calls alone, which
// reads nothing but the keys; then each run of equal spend and calls is
// sorted by ID, its IDs gathered once into a scratch list (a tie read
// from the job at every comparison was three cache misses: a night of
// identical jobs took three times as long to sort). A million jobs take
// half a second to sort on one core, so a big list is sorted in two
// halves at once and merged in place, from a copy of the left half only
// (the merge writes at most as far as it has read of the right half):
// half a list more at the peak, not a whole one. Pure: the goroutine only
// sorts its own half of the keys.
func (s *State) sortJobs(order []jobOrder) []jobOrder {
	bySpend := func(a, b jobOrder) int { return cmp.Or(cmp.Compare(b.usd, a.usd), cmp.Compare(b.calls, a.calls)) }
	if len(order) < 1<<16 {
		slices.SortFunc(order, bySpend)
	} else {
		half := len(order) / 2
		done := make(chan struct{})
		go func() {
			slices.SortFunc(order[half:], bySpend)
			close(done)
		}()
		slices.SortFunc(order[:half], bySpend)
		<-done
		left, r, k := slices.Clone(order[:half]), half, 0
		for len(left) > 0 && r < len(order) {
			if bySpend(left[0], order[r]) <= 0 {
				order[k], left = left[0], left[1:]
			} else {
				order[k] = order[r]
				r++
			}
			k++
		}
		copy(order[k:], left) // what is left of the right half is in place
	}
	type byID struct {
		id  string
		idx uint32
	}
	var run []byID
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && bySpend(order[i], order[j]) == 0 {
			j++
		}
		if j-i > 1 {
			run = run[:0]
			for _, o := range order[i:j] {
				run = append(run, byID{s.jobList[o.idx].ID, o.idx})
			}
			slices.SortFunc(run, func(a, b byID) int { return cmp.Compare(a.id, b.id) })
			for k, x := range run {
				order[i+k].idx = x.idx // usd and calls are the run's
			}
		}
		i = j
	}
	return order
}

// reportJobs fills r.Jobs (or r.JobSource) in costliest-first order.
func (s *State) reportJobs(r *Report, order []jobOrder, opt ReportOptions) {
	if n := opt.TopJobs; n <= 0 || n >= len(s.jobList) {
		order = s.sortJobs(order)
	} // else order is the n costliest, sorted (keepTop)
	if opt.StreamJobs {
		r.JobSource = jobSource{s, order}
		return
	}
	r.Jobs = make([]JobReport, len(order))
	for i, o := range order {
		s.fillJobReport(&r.Jobs[i], s.jobList[o.idx])
	}
}

// fillJobReport writes j's report into jr, reusing jr's slices' storage
// and its scratch only when jr is a stream's (see JobSource.Fill): a
// report's own JobReports are fresh, their slices nil.
func (s *State) fillJobReport(jr *JobReport, j *Job) {
	o := s.Outcome(j, true)
	findings := jr.Findings[:0]
	if findings == nil {
		findings = []string{}
	}
	outcome := o.String()
	if j.KilledTS != 0 {
		outcome = "killed" // a kill was made (the alerts journal says so)
	}
	layers := j.Layers()
	var first, last string
	scratch := jr.scratch
	if jr.Layers != nil { // a stream's: the same values in the storage it had
		layers = j.appendLayers(jr.Layers[:0])
		scratch = appendTime(scratch[:0], j.FirstTS)
		n := len(scratch)
		scratch = appendTime(scratch, j.LastTS)
		first, last = unsafe.String(unsafe.SliceData(scratch), n), unsafe.String(unsafe.SliceData(scratch[n:]), len(scratch)-n)
	} else {
		first, last = FormatTime(j.FirstTS), FormatTime(j.LastTS)
	}
	*jr = JobReport{JobID: j.ID, JobType: j.Type, Outcome: outcome, Attempts: j.Calls, ToolCalls: j.ToolCalls,
		Layers: layers, SpendUSD: j.Spend.USD(), WastedUSD: j.wasted(o).USD(), Duplicates: j.Duplicates, LastStatus: j.LastStatus,
		FirstTS: first, LastTS: last, Findings: findings, scratch: scratch}
	if p, ok := s.AgentReported(j); ok {
		usd := p.USD()
		jr.AgentReportedUSD = &usd
	}
	if rec, ours, _, ok := s.Recorded(j); ok {
		a, b := rec.USD(), ours.USD()
		jr.RecordedUSD, jr.TableUSD = &a, &b
	}
	for k := FindingKind(0); k < NumFindingKinds; k++ {
		if j.HasFinding(k) {
			jr.Findings = append(jr.Findings, k.String())
		}
	}
	jr.Count = s.countKind(j)
	jr.UnpricedCalls = j.Unpriced
}

// appendLayers is Layers appended to b.
func (j *Job) appendLayers(b []int) []int {
	if j.Calls == 0 {
		return b
	}
	return append(b, int(max(j.QueueAttempts, 1)), int(max(j.MaxRounds, 1)), int(max(j.MaxSDKAttempt, 1)))
}

// appendTime is FormatTime appended to b.
func appendTime(b []byte, ns int64) []byte {
	if ns == 0 {
		return b
	}
	return appendRFC3339Nano(b, ns)
}

type jobTypeAcc struct {
	JobTypeReport
	hist   map[int64]int64 // calls per job: how many jobs made each count (the retired ones' included)
	spend  Pico
	wasted Pico
	amp    int
}

func (a *jobTypeAcc) add(j *Job, o Outcome, wasted Pico) {
	a.Jobs++
	a.Attempts += int64(j.Calls)
	a.UnpricedAttempts += int64(j.Unpriced)
	a.spend = a.spend.Add(j.Spend)
	a.wasted = a.wasted.Add(wasted)
	if j.Calls > 0 {
		if a.hist == nil {
			a.hist = map[int64]int64{}
		}
		a.hist[int64(j.Calls)]++
	}
	switch o {
	case OutcomeSucceeded:
		a.Succeeded++
	case OutcomeFailed:
		a.Failed++
	case OutcomeDeadLettered:
		a.DeadLettered++
	}
	if amp := j.Amplification(); amp > a.amp {
		a.amp, a.Layers = amp, j.Layers()
	}
}

func (a *jobTypeAcc) finish() {
	p := histPercentiles(nil, a.hist)
	a.CallsPerJobP50, a.CallsPerJobP99 = p.P50, p.P99
	a.SpendUSD, a.WastedUSD = a.spend.USD(), a.wasted.USD()
}

func (s *State) reportRetryAfter(r *Report) {
	keys := make([]int64, 0, len(s.retryAfter))
	var n int64
	for ms, c := range s.retryAfter {
		keys = append(keys, ms)
		n += c
	}
	slices.Sort(keys)
	r.RetryAfter = RetryAfterStats{Count: n, Honored: s.raHonored, Rehit: s.raRehit, NoHint: s.noHint429}
	if n == 0 {
		return
	}
	rank := func(p float64) float64 {
		want := int64(math.Ceil(p / 100 * float64(n)))
		var seen int64
		for _, k := range keys {
			seen += s.retryAfter[k]
			if seen >= want {
				return float64(k) / 1000
			}
		}
		return float64(keys[len(keys)-1]) / 1000
	}
	r.RetryAfter.P50, r.RetryAfter.P95 = rank(50), rank(95)
}

func (s *State) reportRecovery(r *Report) {
	rt := &s.retired
	ops, first, w3, w5 := int(rt.ops), int(rt.opsFirst), int(rt.opsWithin3), int(rt.opsWithin5)
	count := func(o *operation) {
		ops++
		switch n := o.firstSuccessAt; {
		case n == 1:
			first++
			fallthrough
		case n >= 1 && n <= 3:
			w3++
			fallthrough
		case n >= 1 && n <= 5:
			w5++
		}
	}
	// Every operation, keyed or not, was carved from a slab: reading the
	// slabs in order visits each once, sequentially.
	left := s.opCount
	for _, slab := range s.opSlabs {
		for i := range slab[:min(len(slab), left)] {
			count(&slab[i])
		}
		left -= min(len(slab), left)
	}
	r.Recovery = Recovery{Operations: ops}
	if ops > 0 {
		r.Recovery.FirstAttempt = round4(float64(first) / float64(ops))
		r.Recovery.Within3 = round4(float64(w3) / float64(ops))
		r.Recovery.Within5 = round4(float64(w5) / float64(ops))
	}
}

func (s *State) reportModels(r *Report) {
	r.Models = []ModelReport{}
	for _, m := range s.modelLs {
		mr := ModelReport{Model: m.Model, Provider: m.Provider, Priced: m.priced, Attempts: m.attempts, SpendUSD: m.spend.USD(),
			Status: map[string]int64{}, InputTokens: m.input, OutputTokens: m.output, CacheReadTokens: m.cacheRead,
			CacheWriteTokens: m.cacheWrite, UnpricedAttempts: m.unpriced}
		if mr.Model == "" {
			mr.Model = UnknownModel
		}
		noCacheRate := m.priced && m.price.NoCacheRead && m.cacheRead > 0
		if m.approximate || noCacheRate {
			if r.Pricing.ApproximatedModels == nil {
				r.Pricing.ApproximatedModels = map[string]string{}
			}
			r.Pricing.ApproximatedModels[mr.Model] = m.priceKey
			if noCacheRate {
				// Said, not hidden: the entry prices cached input at the
				// full input rate, which may be up to 10× the bill.
				r.Pricing.ApproximatedModels[mr.Model] = m.priceKey + " (no cache-read rate: cached input priced at the input rate)"
			}
		}
		if m.latencyN > 0 {
			mr.MeanLatencyMs = math.Round(float64(m.latencySum)/float64(m.latencyN)*10) / 10
		}
		mr.Status = m.statuses.byName()
		if m.unpriced > 0 || m.unpricedGrowth {
			r.Pricing.UnpricedModels = append(r.Pricing.UnpricedModels, mr.Model)
		}
		if m.overCap > 0 {
			r.Pricing.OverCapModels = append(r.Pricing.OverCapModels, mr.Model)
		}
		r.Models = append(r.Models, mr)
	}
	slices.Sort(r.Pricing.UnpricedModels)
	slices.Sort(r.Pricing.OverCapModels)
	slices.SortFunc(r.Models, func(a, b ModelReport) int {
		return cmp.Or(cmp.Compare(b.SpendUSD, a.SpendUSD), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Model, b.Model))
	})
	r.Tools = []ToolReport{}
	for _, t := range s.toolLs {
		tr := ToolReport{Tool: t.Tool, Attempts: t.attempts, Status: map[string]int64{}}
		tr.Status = t.statuses.byName()
		r.Tools = append(r.Tools, tr)
	}
	slices.SortFunc(r.Tools, func(a, b ToolReport) int {
		return cmp.Or(cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Tool, b.Tool))
	})
}

func (s *State) reportBreakers(r *Report) {
	r.Breakers = []BreakerReport{}
	for _, b := range s.breakerLs {
		br := BreakerReport{Key: b.key, State: b.stateAt(s.lastTS), Trips: b.trips, FailureRate: round4(b.failureRate()),
			WouldBlock: b.blocked, WouldSaveUSD: b.blockedWaste.USD(), TripFailureRate: round4(b.tripRate), ReopenedByProbe: b.byProbe}
		if b.stateAt(s.lastTS) == BreakerStateOpen {
			br.OpenUntil, br.OpenUntilTS = FormatTime(b.openUntil), b.openUntil
		}
		r.Breakers = append(r.Breakers, br)
	}
	slices.SortFunc(r.Breakers, func(a, b BreakerReport) int { return cmp.Or(cmp.Compare(b.Trips, a.Trips), cmp.Compare(a.Key, b.Key)) })
}

// jobScoped kinds are a property of the whole job (its layers multiply,
// it outran its deadline), so the attempts they name are all the job's
// failed attempts and duplicate completions; the other kinds name single
// attempts and add up their waste as they flag them.
var jobScoped = [NumFindingKinds]bool{RetryAmplification: true, DeadlineExceeded: true}

func (s *State) reportFindings(r *Report) {
	r.Findings = []FindingReport{}
	// Retired jobs' shares first (retention.go), then the live jobs'.
	jobsWasted, attemptsWasted := s.retired.findingJobsWasted, s.retired.findingAttemptsWasted
	for _, j := range s.jobList {
		if j.findings == 0 {
			continue
		}
		w := j.wasted(s.Outcome(j, true))
		for k := range NumFindingKinds {
			if j.HasFinding(k) {
				jobsWasted[k] = jobsWasted[k].Add(w)
				if jobScoped[k] {
					attemptsWasted[k] = attemptsWasted[k].Add(j.spendNon2xx.Add(j.spendDuplicates))
				}
			}
		}
	}
	for k := range NumFindingKinds {
		f := s.findings[k]
		count, example := f.count, f.exampleText()
		if k == RetryAfterTooShort {
			if s.raHonored < int64(s.cfg.RetryAfterMinSample) || float64(s.raRehit) < s.cfg.RetryAfterRehitShare*float64(s.raHonored) {
				continue
			}
			example = fmt.Sprintf("%d of %d retries that waited the full Retry-After met another 429 (%.0f%%); e.g. %s",
				s.raRehit, s.raHonored, 100*float64(s.raRehit)/float64(s.raHonored), example)
		}
		sev := s.cfg.severity(k)
		if count == 0 || sev == SeverityOff {
			continue
		}
		wasted := f.wasted
		if jobScoped[k] {
			wasted = attemptsWasted[k]
		}
		jobs := f.jobs
		if jobs == nil {
			jobs = []string{}
		}
		r.Findings = append(r.Findings, FindingReport{Kind: k.String(), Severity: sev, Count: count, Jobs: jobs,
			JobsTotal: f.jobsTotal, WastedUSD: wasted.USD(), JobsWastedUSD: jobsWasted[k].USD(), Example: example, FirstAt: FormatTime(f.firstTS), Advice: Advice[k]})
	}
	s.reportAmbiguous(r)
	slices.SortStableFunc(r.Findings, func(a, b FindingReport) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.WastedUSD, a.WastedUSD), cmp.Compare(b.JobsWastedUSD, a.JobsWastedUSD))
	})
}

// Timeline returns the per-minute buckets in time order.
func (s *State) Timeline() []Bucket {
	out := make([]Bucket, 0, len(s.timeline))
	for _, b := range s.timeline {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b Bucket) int { return cmp.Compare(a.Minute, b.Minute) })
	return out
}

func (s *State) reportTimeline() []TimelinePoint {
	buckets := s.Timeline()
	out := make([]TimelinePoint, 0, len(buckets))
	for _, b := range buckets {
		out = append(out, TimelinePoint{UnixMinute: b.Minute, Spend: b.Spend, Minute: FormatTime(b.Minute * int64(time.Minute)), Calls: b.Calls, Success: b.Success,
			Retryable: b.Retryable, Terminal: b.Terminal, ToolCalls: b.ToolCalls, SpendUSD: b.Spend.USD()})
	}
	return out
}

func jobTypeName(t string) string {
	if t == "" {
		return "(none)"
	}
	return t
}

func statusKey(st int16) string {
	if st < 0 {
		return "unknown"
	}
	return strconv.Itoa(int(st))
}

func intPercentiles(v []int64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	slices.Sort(v)
	return Percentiles{P50: nearestRank(v, 50), P99: nearestRank(v, 99), Max: v[len(v)-1]}
}

// nearestRank is the nearest-rank percentile of sorted values.
func nearestRank[T cmp.Ordered](sorted []T, p float64) T {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// FormatLayers renders a layer stack as "7×3×3".
func FormatLayers(l []int) string {
	if len(l) == 0 {
		return "-"
	}
	parts := make([]string, len(l))
	for i, n := range l {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, "×")
}

func fmtDur(ns int64) string {
	return time.Duration(ns).Round(time.Millisecond).String()
}
