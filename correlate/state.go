// Package correlate holds burnrate's state: jobs, operations, attempts,
// pricing, spend, breakers and findings. It is pure and deterministic: no
// I/O and no clock of its own — time comes from events — so the same log
// always gives the same numbers.
package correlate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/burnrate-dev/burnrate/ingest"
)

// UnattributedJob collects attempts that carry no job, correlation or
// idempotency key. It is no job to stop — its calls may be any app's —
// so its spend is a guess (guess): it never weighs on a job ceiling
// (R8-34: a kill POST named "(unattributed)"), the run ceiling counts it.
const UnattributedJob = "(unattributed)"

// State is the correlated view of everything applied so far. It is not
// safe for concurrent use: one goroutine applies events and takes reports.
type State struct {
	cfg Config

	jobs    hashIndex // job ID → position in jobList
	jobList []*Job
	// timingLinks counts model calls placed in a job by timing alone (counts.go).
	timingLinks int64
	// keyNamedCalls counts calls that named no job, filed under their
	// idempotency key (counts.go).
	keyNamedCalls int64
	// requestIDConflicts counts records naming a request ID whose first
	// record named another job (requestIDConflict).
	requestIDConflicts int64
	// ambiguousFindings are the findings withdrawn from, or never raised
	// on, jobs whose count is ambiguous (ambiguous.go).
	ambiguousFindings [NumFindingKinds]ambiguousFinding
	// appFamilies are the provider families of every app-level call seen
	// (counts.go: a call whose record names no model takes the run's one).
	appFamilies uint8
	// famOf is the family of the last call's provider famProvider
	// (noteEvidence).
	famProvider, famOf string
	// ops finds operations by idempotency key (position in the slabs);
	// attempts without one form per-job operations keyed by tool (see
	// Job.ops).
	ops     hashIndex
	opCount int
	opSlab  []operation   // the free rest of the newest slab
	opSlabs [][]operation // every slab, in order: all operations, for reports
	store   attemptStore
	// agentReported is an agent's own cost figure per job (Job.Seq).
	agentReported map[int32]Pico
	// recorded is, per job (Job.Seq), the costs its records carried beside
	// the table's price of the same calls; recordedAll the run's
	// (dimensions.go). lastOurs is the table's price of the last call
	// priced from its recorded cost, when hasOurs.
	recorded map[int32]*recordedCost
	// forks is what a job holds as a fork's copies, by Job.Seq: only
	// the jobs whose transcript has a forkedFrom mark (resumed.go).
	forks map[int32]*forkHold
	// guessed is the spend of calls placed in a job by position or timing
	// alone (ingest.AttemptByLineAmbiguous), by Job.Seq: billed to the
	// job, never weighed against its ceiling — a guess never moves a job
	// toward a kill.
	guessed     map[int32]Pico
	recordedAll recordedCost
	lastOurs    Pico
	hasOurs     bool
	// contests are the responses several agent sessions hold, owned the
	// job IDs that own them (resumed.go).
	contests []contest
	owned    map[string]map[int32]struct{}
	moves    int
	// dirty are the jobs whose last record moved at dirtyTS, weighed
	// again once every record of that time is in (resumed.go).
	dirty   []*Job
	dirtyTS int64
	// dims counts the calls carrying each dimension of the bill, and
	// those priced by assumption (dimensions.go).
	dims dimCounts
	// responses is what each response (ingest.Event.ResponseID) has been
	// billed, by a digest of its ID (responses.go).
	responses map[responseKey]*responseUsage
	// responsesOld is the generation before (responses.go).
	responsesOld map[responseKey]*responseUsage
	// repeatedRecords are response records that added nothing (copies).
	repeatedRecords int64
	// retired sums the jobs retired after JobRetention (retention.go);
	// nextSweep is the log time of the next look for them.
	retired   retired
	nextSweep int64
	// retiredTries is the most tries of one call among a live job's
	// summarized operations, by Job.Seq (retention.go).
	retiredTries map[int32]int32
	// nextSeq is the next Job.Seq never given; freeSeqs are those of jobs
	// gone (retired, or a trace's job folded into its job), given again
	// (seq.go). Seq was len(jobList), which a compaction or a fold
	// shortens: a new job took a live job's Seq and the maps above mixed
	// the two jobs' figures.
	nextSeq  int32
	freeSeqs []int32
	models   map[string]*modelStats
	modelLs  []*modelStats
	tools    map[string]*toolStats
	toolLs   []*toolStats
	names    []string
	nameIdx  map[string]uint32

	lastModel *modelStats
	lastTool  *toolStats
	lastJob   *Job
	lastErr   string
	lastErrIx uint32
	lastMin   *Bucket
	resolved  []resolved // Consume's scratch
	// strs and jobSlab hold the IDs, keys and jobs of a State that keeps
	// every job (arena.go).
	strs    strArena
	jobSlab []Job
	// ahead is the hash of the scoped key of the event being applied,
	// when resolve found no operation under it.
	ahead  aheadHash
	warm   int    // resolve's sum of loads that bring a job's lines in
	scoped []byte // findOp's scratch: a job-scoped idempotency key
	hint   opHint // the operation of the event being applied (findOp)
	// clock is the log clock of all sources together (Now: the burn
	// window, breakers, the report's span); srcClocks are each source's
	// own (Event.Source), which judge its jobs' idle and retention: a
	// source whose clock is skewed (local time written as UTC) ages no
	// job of another (issue 34). Nil until a second source logs: with
	// one source its clock is the log clock.
	clock     logClock
	srcClocks map[uint16]*logClock
	lastSrc   *logClock // srcClocks[lastSrcID]: one source logs in runs
	lastSrcID uint16
	// clockSrc is the first source seen.
	clockSrc    uint16
	clockSrcSet bool
	// wall is the wall time of the events being applied (SetWall), 0 in
	// a replay; wallFirst the first given; nextWallSweep when a live
	// State looks for jobs to retire though no log clock moved.
	wall, wallFirst, nextWallSweep int64

	breakers  map[string]*breaker
	breakerLs []*breaker
	sync      *syncDetector
	// syncPending holds jobs of bursts seen before the burst threshold.
	syncPending      []*Job
	syncPendingWaste Pico // what the retries of those bursts wasted
	syncJoined       [1]*Job
	findings         [NumFindingKinds]findingAcc
	// hiddenExample is the hidden_retry_layer example's job and its
	// most-tried call (see layers).
	hiddenExample struct {
		job   *Job
		tries int32
		limit int
		what  string
	}
	raHonored int64 // retries that waited the full Retry-After
	raRehit   int64 // ... and met another 429
	raExample string

	statuses   statusCounts
	retryAfter map[int64]int64 // ms → count
	timeline   map[int64]*Bucket
	// burnline is the last minutes' spend and calls by minute of the burn
	// clock (burnNow, from burnFirst; see stepBurn), for the burn figures;
	// overClock steps it for the sources past maxSourceClocks.
	burnline           map[int64]*Bucket
	lastBurn           *Bucket
	burnNow, burnFirst int64
	overClock          logClock

	lastCost Pico
	// lastGuessed is the part of lastCost placed in its job by position or
	// timing alone (guess): the job-type ceiling leaves it out (R8-7).
	lastGuessed Pico
	// lastTries is the tries of one call the last attempt made (its
	// operation's attempts, or its keyless streak): the declared
	// product of calls is held to it (productCheck).
	lastTries                                         int32
	batchSpend                                        Pico
	batchCalls, noHint429                             int64
	events, attempts, toolCalls, duplicates, unpriced int64
	// overCap counts calls whose computed cost passed cfg.MaxCallCost;
	// recordedBelow those whose own recorded cost was under 1% of the
	// table's price of their tokens, billed at the table's.
	overCap, recordedBelow               int64
	input, output, cacheRead, cacheWrite int64
	spend                                Pico
	batchExpired, batchCanceled          int64
	firstTS, lastTS                      int64
	// Source stats are owned by the sources; the State only stores the
	// latest copy it was handed, for reports.
	sources []SourceInfo
	// assume is the assumptions log (assumptions.go).
	assume assumptionLog
	// rehomed counts trace-ID jobs moved to their named job (tracejob.go).
	rehomed int64
	// jobTypes holds one copy of each job type (jobType).
	jobTypes map[string]string
}

// SourceInfo describes one input, for the report's source section.
type SourceInfo struct {
	Name   string
	Stats  ingest.Stats
	Err    string
	Format string
	Hint   string
}

type operation struct {
	key            string // its idempotency key; "" for a job's tool operation
	attempts       int32
	successes      int32
	firstSuccessAt int32 // attempt count at the first success; 0 if none
	// maxTries is the most tries of one call seen in the operation: its
	// attempts when keyed, the longest run of calls since a success when
	// not (what hidden_retry_layer counts). It sits in what was padding.
	maxTries        int32
	lastEnd         int64
	lastRetryAfter  int64
	lastDroppedPaid Pico
	// lastDroppedFailed: the dropped stream ended in an error status, so
	// its cost is counted as the job's non-2xx spend already.
	lastDroppedFailed bool
	lastStatus        int16
	lastDropped       bool
	terminal          bool
}

type modelStats struct {
	Model, Provider string
	price           Price
	priced          bool
	priceKey        string // the table entry that priced it
	approximate     bool   // priced as its family (a date or preview tag dropped)
	attempts        int64
	statuses        statusCounts
	spend           Pico
	input, output   int64
	cacheRead       int64
	cacheWrite      int64
	unpriced        int64
	overCap         int64 // calls priced above cfg.MaxCallCost
	unpricedGrowth  bool  // unpriced tokens from usage growth alone
	latencySum      int64 // ms, over attempts that reported one
	latencyN        int64
	nameIdx         uint32
	breaker         *breaker
}

type toolStats struct {
	Tool     string
	attempts int64
	statuses statusCounts
	nameIdx  uint32
	breaker  *breaker
}

// Bucket is one minute of activity, for charts.
type Bucket struct {
	Minute    int64 // Unix minute
	Calls     int64
	Success   int64
	Retryable int64
	Terminal  int64
	Unknown   int64
	ToolCalls int64
	// ToolFailed counts tool calls that did not succeed.
	ToolFailed int64
	Spend      Pico
	// firstTS and lastTS are the minute's first and last event: a window
	// that cuts the minute takes the share of its events' span inside.
	firstTS, lastTS int64
}

// New returns an empty State. cfg must be valid (see Config.Validate).
func New(cfg Config) *State {
	if cfg.Prices == nil {
		cfg.Prices = EmbeddedPrices()
	}
	return &State{
		cfg:      cfg,
		jobs:     newHashIndex(),
		ops:      newHashIndex(),
		models:   map[string]*modelStats{},
		tools:    map[string]*toolStats{},
		nameIdx:  map[string]uint32{"": 0},
		names:    []string{""},
		breakers: map[string]*breaker{},
		sync:     newSyncDetector(int64(cfg.SyncWindow), cfg.SyncMinJobs),

		retryAfter: map[int64]int64{},
		timeline:   map[int64]*Bucket{},
		assume:     assumptionLog{attemptLayer: cfg.AttemptLayer},
	}
}

// Config returns the configuration the state was built with.
func (s *State) Config() Config { return s.cfg }

// Consume applies a batch; it satisfies ingest.Consumer.
func (s *State) Consume(b ingest.Batch) {
	s.ApplyBatch(b, nil)
	ingest.Recycle(b) // ours now, and done with: the strings inside live on
}

// ApplyBatch applies every event of b in order, calling after (when not
// nil) right after each, as Apply would be followed.
//
// It first looks up the jobs and operations the events name: the lookups
// are hash-table probes that miss the cache (a night's jobs are
// interleaved), and a loop of independent probes lets the CPU wait for
// several misses at once, where applying between them would serialize
// them. That pass only finds; anything new is created while applying, in
// order, so the result is Apply's exactly.
func (s *State) ApplyBatch(b ingest.Batch, after func(*Job, *ingest.Event)) {
	if cap(s.resolved) < len(b) {
		s.resolved = make([]resolved, len(b))
	}
	res := s.resolved[:len(b)]
	s.resolve(b, res)
	for i := range b {
		ev := &b[i]
		if ev.Kind == ingest.KindAssumption {
			s.assumption(ev)
			continue
		}
		if ev.Kind == ingest.KindSpanLink {
			continue // the OTLP mapper's memory, spooled: nothing of a job's
		}
		if ev.Kind == ingest.KindTraceJob {
			if job := s.traceJob(ev); job != nil && after != nil {
				after(job, ev)
			}
			continue
		}
		job := res[i].job
		if job == nil {
			job = s.job(ev)
		}
		if res[i].op != nil {
			s.hint = opHint{res[i].op, res[i].h}
		} else if res[i].hashed {
			s.ahead = aheadHash{res[i].h, true}
		}
		s.apply(ev, job, res[i].op)
		s.ahead = aheadHash{}
		if after != nil {
			after(job, ev)
		}
	}
	clear(res) // no pointers kept past the batch
	s.hint = opHint{}
	s.retireSweep() // between batches: it moves jobs and operations
}

// SetSources records the inputs' counters for the report.
func (s *State) SetSources(src []SourceInfo) { s.sources = slices.Clone(src) }

// Name returns the string behind an Attempt's name index.
func (s *State) Name(i uint32) string {
	if int(i) < len(s.names) {
		return s.names[i]
	}
	return ""
}

func (s *State) errName(v string) uint32 {
	if v != s.lastErr {
		s.lastErr, s.lastErrIx = v, s.name(v)
	}
	return s.lastErrIx
}

func (s *State) name(v string) uint32 {
	if i, ok := s.nameIdx[v]; ok {
		return i
	}
	i := uint32(len(s.names))
	s.names = append(s.names, v)
	s.nameIdx[v] = i
	return i
}

// Job returns the job with the given ID, or nil.
func (s *State) Job(id string) *Job {
	if i, ok := s.jobs.find(id, s.jobs.hash(id), s.jobID); ok {
		return s.jobList[i]
	}
	return nil
}

func (s *State) jobID(i int32) string { return s.jobList[i].ID }

// Jobs returns all jobs in the order they were first seen. The slice is
// the State's own: read it, do not keep it across Apply calls.
func (s *State) Jobs() []*Job { return s.jobList }

// Spend is the run's total spend so far.
func (s *State) Spend() Pico { return s.spend }

// AttemptCount is the number of model-call attempts so far.
func (s *State) AttemptCount() int64 { return s.attempts }

// LastAttemptCost is the cost of the attempt most recently applied (0 when
// the last event was not an attempt): rules add it up without a map.
func (s *State) LastAttemptCost() Pico { return s.lastCost }

// LastGuessedCost is the part of LastAttemptCost placed in its job by
// position or timing alone: shown in the job's and its type's spend,
// never weighed by a ceiling that kills the job or its type.
func (s *State) LastGuessedCost() Pico { return min(s.lastGuessed, s.lastCost) }

// Now is the log clock: the latest event time seen.
func (s *State) Now() int64 { return s.lastTS }

// FirstTS is the log time of the run's first event (carried across a
// restart), 0 before one.
func (s *State) FirstTS() int64 { return s.firstTS }

// jobKey is the job an event belongs to: its job ID, else its
// correlation ID, else the group of its idempotency key (KeyGroupPrefix
// and the key: a key is not a job ID, and its group is never the job a
// record names by that ID — R8-9), or the key itself when a decoder
// built it for a chain it linked (chainKey).
func jobKey(ev *ingest.Event) string {
	switch {
	case ev.JobID != "":
		return ev.JobID
	case ev.CorrelationID != "":
		return ev.CorrelationID
	case ev.IdempotencyKey != "":
		if chainKey(ev.IdempotencyKey) {
			return ev.IdempotencyKey
		}
		return KeyGroupPrefix + ev.IdempotencyKey
	}
	return UnattributedJob
}

// KeyGroupPrefix names the group of calls that named no job, filed under
// their idempotency key: "(key) K". A job a record names "(key) K" is that
// group too (a log can name anything); either way the group's calls are
// guessed — they never weigh on a job ceiling, convict no one and are
// never a kill's reason (counts.go, keyNamed).
const KeyGroupPrefix = "(key) "

// keyOnly: a call that names no job, filed under its idempotency key.
func keyOnly(ev *ingest.Event) bool {
	return ev.JobID == "" && ev.CorrelationID == "" && ev.IdempotencyKey != "" && !chainKey(ev.IdempotencyKey)
}

func (s *State) job(ev *ingest.Event) *Job {
	id := jobKey(ev)
	if j := s.lastJob; j != nil && j.ID == id {
		return j
	}
	h := s.jobs.hash(id)
	if i, ok := s.jobs.find(id, h, s.jobID); ok {
		j := s.jobList[i]
		s.lastJob = j
		return j
	}
	// A copy of its own: the event's may share a block with many others
	// (ingest's idArena), which the job would keep alive to the end.
	id = s.cloneID(id)
	j := s.newJob()
	j.ID, j.Seq, j.LastStatus = id, s.newSeq(), ingest.StatusUnknown
	s.jobs.add(h, int32(len(s.jobList)))
	s.jobList = append(s.jobList, j)
	s.lastJob = j
	return j
}

// jobType is t as the jobs of that type share it: one copy per type (up
// to maxJobTypes), so a job keeps no decoder block alive by its type, and
// the per-call reads of a type (assumptionLog.call) know it by its
// address.
func (s *State) jobType(t string) string {
	if v, ok := s.jobTypes[t]; ok {
		return v
	}
	t = strings.Clone(t)
	if s.jobTypes == nil {
		s.jobTypes = map[string]string{}
	}
	if len(s.jobTypes) < maxJobTypes && len(t) <= maxJobTypeLen {
		s.jobTypes[t] = t
	}
	return t
}

// maxJobTypes and maxJobTypeLen bound jobType's table, which outlives the
// jobs (a retired job's type stays): at most 4096 types of 128 bytes, 512
// KiB. A log that names a new type per job (hostile, or a type that is
// really an ID), or a type of a megabyte, costs a copy per job, as its IDs
// do, and nothing held past its jobs.
const (
	maxJobTypes   = 4096
	maxJobTypeLen = 128
)

// AgentReported is the agent's own figure for the job's cost (claude -p's
// total_cost_usd), when its log gave one: shown beside Spend, never in it.
// A side table, not a Job field: few jobs have one, and Job's size is
// budgeted (see Job).
func (s *State) AgentReported(job *Job) (Pico, bool) {
	p, ok := s.agentReported[job.Seq]
	return p, ok
}

// OutOfOrder counts the events too far ahead of their neighbours to move
// the log clock (see advanceClock).
func (s *State) OutOfOrder() int64 { return s.clock.outOfOrder }

// Apply folds one event into the state and returns the job it touched
// (nil for a KindAssumption, which belongs to no job).
func (s *State) Apply(ev *ingest.Event) *Job {
	if ev.Kind == ingest.KindAssumption {
		s.assumption(ev)
		return nil
	}
	if ev.Kind == ingest.KindSpanLink {
		return nil // the OTLP mapper's memory, spooled: nothing of a job's
	}
	if ev.Kind == ingest.KindTraceJob {
		return s.traceJob(ev)
	}
	job := s.apply(ev, s.job(ev), nil)
	s.hint = opHint{} // it names an operation a sweep may move
	if s.cfg.JobRetention > 0 && (s.lastTS >= s.nextSweep || (s.srcClocks != nil && s.wall != 0 && s.wall >= s.nextWallSweep)) {
		// A retired job is still whole for the caller: compaction only
		// drops it from the state.
		s.retireSweep()
	}
	return job
}

// apply is Apply with the event's job found, and its operation when op is
// not nil.
func (s *State) apply(ev *ingest.Event, job *Job, op *operation) *Job {
	s.events++
	s.lastCost, s.lastGuessed = 0, 0
	ts := ev.TS
	if len(s.assume.pending) > 0 && ts != 0 && !ev.TSCarried {
		s.assume.clock(ts)
	}
	if ts != 0 {
		if s.firstTS == 0 || ts < s.firstTS {
			s.firstTS = ts
		}
		s.advanceClock(ts, ev.Source)
	}
	if job.FirstTS == 0 || (ts != 0 && ts < job.FirstTS) {
		job.FirstTS = ts
	}
	if len(s.dirty) > 0 && ts > s.dirtyTS {
		s.resettleDirty()
	}
	if ts > job.LastTS {
		job.LastTS = ts
		if len(s.owned[job.ID]) > 0 {
			s.markDirty(job, ts) // its last record moved: the copies it holds may be another's
		}
	}
	if ts != 0 {
		job.src = ev.Source
	}
	if job.RunID == "" && ev.RunID != "" {
		job.RunID = ev.RunID
	}
	if job.Type == "" && ev.JobType != "" {
		job.Type = s.jobType(ev.JobType)
	}
	if ev.AgentSession {
		job.evidence |= evAgent
	}
	switch ev.Kind {
	case ingest.KindJobEnqueued:
		if job.EnqueuedTS == 0 {
			job.EnqueuedTS = ts
		}
		if !job.lifecycle() {
			job.Outcome = OutcomeQueued
		}
		job.evidence |= evLifecycle
	case ingest.KindJobStarted:
		job.QueueAttempts++
		job.rounds = 0
		job.Outcome = OutcomeRunning
		job.evidence |= evLifecycle
	case ingest.KindJobSucceeded:
		s.end(job, OutcomeSucceeded, ts)
	case ingest.KindJobFailed:
		job.setLastFailed(true)
		s.end(job, OutcomeFailed, ts)
	case ingest.KindJobDeadLettered:
		if job.DeadLetterTS == 0 {
			job.DeadLetterTS = ts
		}
		s.end(job, OutcomeDeadLettered, ts)
	case ingest.KindLLMCall, ingest.KindToolCall:
		if keyOnly(ev) {
			s.keyNamed(job, ev)
		}
		if ev.Kind == ingest.KindLLMCall && agentCopy(ev) {
			s.forkMark(job, ev)
		}
		var fresh *responseUsage
		if ev.ResponseID != "" && ev.Kind == ingest.KindLLMCall {
			if strings.HasPrefix(ev.ResponseID, ingest.OTLPSpanPrefix) {
				// A span under the IDs of one billed before but with
				// another start is another call, not its re-send: the
				// mapper's memory of starts is gone after a restart, the
				// state's (rebuilt by the replay) is not (R7b-12).
				if r, seen := s.response(ev.ResponseID, false); seen && r.ts != 0 && r.ts != ev.TS {
					ev.ResponseID += "@" + strconv.FormatInt(ev.TS, 36)
				}
			}
			if r, seen := s.response(ev.ResponseID, true); seen {
				// The same response, written again in another file (a
				// resumed session copies earlier messages): what it adds.
				if r.job != job.ID && strings.HasPrefix(ev.ResponseID, ingest.HTTPAttemptPrefix) {
					// (A resumed agent session copies its responses
					// into another session's file: no conflict.)
					s.requestIDConflict(job, r)
				}
				s.growResponse(job, ev, r)
				break
			} else {
				r.set(ev)
				r.job, r.forked = job.ID, ev.ForkCopy && agentCopy(ev)
				fresh = r
			}
		}
		s.attempt(job, ev, op)
		if fresh != nil {
			fresh.billed, fresh.calls, fresh.status, fresh.ts = s.lastCost, 1, ev.Status, ev.TS
			if fresh.forked {
				s.forkHeld(job, s.lastCost)
			}
			if s.hasOurs {
				fresh.recorded, fresh.ours = s.lastCost, s.lastOurs
			}
		}
		s.noteEvidence(job, ev)
		s.assumptionCall(ev, job)
	case ingest.KindUsageGrowth:
		if ev.ResponseID == "" {
			s.grow(job, ev)
		} else if r, seen := s.response(ev.ResponseID, false); seen {
			s.growResponse(job, ev, r)
		}
	case ingest.KindAgentReport:
		if ev.HasCost {
			if s.agentReported == nil {
				s.agentReported = map[int32]Pico{}
			}
			s.agentReported[job.Seq] = PicoFromUSD(ev.CostUSD) // its latest word
		}
	case ingest.KindRequestNotRun:
		// Not a call: it cost nothing and was never tried, but the work
		// was not done, so the job failed.
		if ev.ErrorType == "canceled" {
			s.batchCanceled++
		} else {
			s.batchExpired++
		}
		s.end(job, OutcomeFailed, ts)
	}
	// The unattributed calls (no job, no key: an editor's token log) are
	// no job, so they have no deadline to miss (issue 39).
	if d := s.cfg.JobDeadline; d > 0 && job.evidence&evAgent == 0 && job.ID != UnattributedJob && job.FirstAttemptTS != 0 && ts-job.FirstAttemptTS > int64(d) && !job.HasFinding(DeadlineExceeded) {
		s.flag(DeadlineExceeded, job, 1, 0, ts, func() string {
			return fmt.Sprintf("job %s was still going %s after its first attempt (deadline %s)", job.ID, fmtDur(ts-job.FirstAttemptTS), d)
		})
	}
	return job
}

// Outcome is where job stands. A job with queue lifecycle events has the
// outcome they gave. One without — every LiteLLM, batch, OTLP, SDK-text
// and agent log — ends by its last attempt: succeeded when that was 2xx,
// failed when it was an error (terminal, or the last of its retries).
// Until then it is active: live, that is while it has logged something in
// the last IdleAfter of log time; final (a report at the end of input)
// classifies every job.
func (s *State) Outcome(job *Job, final bool) Outcome {
	if job.KilledTS != 0 {
		// Killed (the alerts journal says a kill was acknowledged): its
		// work was not done, and its spend is wasted. Reports show
		// "killed" for it (fillJobReport).
		return OutcomeFailed
	}
	if job.lifecycle() || job.Calls+job.ToolCalls == 0 {
		return job.Outcome
	}
	if !final && (s.cfg.IdleAfter <= 0 || s.clockOf(job)-job.LastTS < int64(s.cfg.IdleAfter)) {
		return OutcomeActive
	}
	if job.lastFailed() {
		return OutcomeFailed
	}
	return OutcomeSucceeded
}

func (s *State) end(job *Job, o Outcome, ts int64) {
	job.Outcome = o
	job.EndTS = ts
	job.evidence |= evLifecycle
}

func (s *State) op(job *Job, ev *ingest.Event) *operation {
	if key := ev.IdempotencyKey; key != "" {
		var o *operation
		var h uint64
		if s.ahead.ok {
			// The key was new when the batch was looked up (resolve): its
			// hash is known, its operation may have been created since.
			h = s.ahead.h
			o = s.findOpHashed(job, job.ID, key, h)
		} else {
			o, h = s.findOp(job, job.ID, key)
		}
		if o == nil {
			o = s.newOp()
			o.key = s.scopedCopy(job.ID, key) // a copy: the event's strings share a block
			s.ops.add(h, int32(s.opCount-1))
		}
		s.hint = opHint{o, h}
		return o
	}
	// Without a key, an operation is the job and tool; a job rarely has
	// more than a few tools, so a short list beats a map.
	for i := range job.ops {
		if job.ops[i].tool == ev.Tool {
			return job.ops[i].op
		}
	}
	o := s.newOp()
	job.ops = append(job.ops, toolOp{tool: ev.Tool, op: o})
	return o
}

// findOp is the one retry-linking rule: the operation a keyed attempt of
// job belongs to, nil when its key is new. The job's last call when the
// key repeats it (a retry, the common case: no lookup), else the key's.
// job may be nil (not created yet).
//
// An idempotency key is scoped to its job (jk, the job's key): per-worker
// counters such as "req-1" are common, and two jobs sharing one are two
// operations, not one that "completed twice".
//
// h is the index's hash of the scoped key: the operation's own when it is
// found or created under it (op and opHint spare hashing it again).
func (s *State) findOp(job *Job, jk, key string) (o *operation, h uint64) {
	// The index holds "job\x00key"; it is built in a scratch buffer that
	// the lookup reads and does not keep.
	h = s.ops.hash(s.scope(jk, key))
	return s.findOpHashed(job, jk, key, h), h
}

// findOpHashed is findOp with the hash of the scoped key known.
func (s *State) findOpHashed(job *Job, jk, key string, h uint64) *operation {
	if job != nil && job.lastOp != nil && job.lastHash == h && lastKey(job.lastOp) == key {
		return job.lastOp
	}
	return s.keyedOp(s.scope(jk, key), h)
}

// scope is "jk\x00key" in findOp's scratch buffer, valid until the next call.
func (s *State) scope(jk, key string) string {
	s.scoped = append(append(append(s.scoped[:0], jk...), 0), key...)
	return unsafe.String(unsafe.SliceData(s.scoped), len(s.scoped))
}

// scopedCopy is jk+"\x00"+key (scope's string) in storage of its own, built
// without the runtime's general concatenation (a third of op's cost).
func (s *State) scopedCopy(jk, key string) string {
	var b []byte
	if s.keepsAll() {
		b = s.strs.bytes(len(jk) + 1 + len(key))
	} else {
		b = make([]byte, len(jk)+1+len(key))
	}
	copy(b, jk)
	copy(b[len(jk)+1:], key)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// aheadHash is a hash resolve computed: findOp's, for the event being applied.
type aheadHash struct {
	h  uint64
	ok bool
}

// opHint is the operation the event being applied was found or created
// under, and the hash of its scoped key (findOp): Job.lastHash without
// hashing the key a third time.
type opHint struct {
	op *operation
	h  uint64
}

// lastHashOf is Job.lastHash for op as job's last operation: the hash
// findOp computes for a retry of op's key in job.
func (s *State) lastHashOf(job *Job, op *operation) uint64 {
	if s.hint.op == op {
		return s.hint.h
	}
	return s.ops.hash(s.scope(job.ID, lastKey(op)))
}

// lastKey is the idempotency key of a keyed operation: the part of its
// own copy ("job\x00key") after the job. The job part may be a trace ID
// the job has since been renamed from (traceJob): the retry still links.
func lastKey(o *operation) string { return o.key[strings.IndexByte(o.key, 0)+1:] }

// keyedOp is the operation of an idempotency key (of hash h), or nil.
func (s *State) keyedOp(key string, h uint64) *operation {
	if i, ok := s.ops.find(key, h, s.opKey); ok {
		return s.opAt(i)
	}
	return nil
}

func (s *State) opAt(i int32) *operation { return &s.opSlabs[i/opSlabSize][i%opSlabSize] }
func (s *State) opKey(i int32) string    { return s.opAt(i).key }

// opSlabSize is how many operations one slab holds.
const opSlabSize = 1024

// newOp carves operations out of slabs: one allocation per thousand.
func (s *State) newOp() *operation {
	if len(s.opSlab) == 0 {
		s.opSlab = make([]operation, opSlabSize)
		s.opSlabs = append(s.opSlabs, s.opSlab)
	}
	o := &s.opSlab[0]
	s.opSlab = s.opSlab[1:]
	o.lastRetryAfter = ingest.NoRetryAfter
	s.opCount++
	return o
}

// retain keeps a for the job detail view, up to MaxRetainedAttemptsPerJob.
func (s *State) retain(job *Job, a Attempt) {
	if !s.cfg.NoAttemptDetail && job.retained < MaxRetainedAttemptsPerJob {
		s.store.add(job, a)
	}
}

// attempt applies one call attempt, in named steps: sequence within its
// operation, retry layers, synchronized retries, spend, shadow breaker.
func (s *State) attempt(job *Job, ev *ingest.Event, op *operation) {
	ts := ev.TS
	isLLM := ev.Kind == ingest.KindLLMCall
	class := classify(ev.Status)
	failed := class != classSuccess
	if job.FirstAttemptTS == 0 {
		job.FirstAttemptTS = ts
	}
	cost, priced, ms := s.price(ev)
	if op == nil {
		op = s.op(job, ev)
	}
	if op.key != "" && job.lastOp != op {
		job.lastOp, job.lastHash = op, s.lastHashOf(job, op)
	}
	a := Attempt{TS: ts, Cost: cost, Status: ev.Status, Num: ev.Attempt, LatencyMs: ev.LatencyMs,
		InputTokens: clamp32(ev.InputTokens), OutputTokens: clamp32(ev.OutputTokens),
		CacheRead: clamp32(ev.CacheReadTokens), CacheWrite: clamp32(ev.CacheCreateTokens),
		RetryAfterMs: int32(min(ev.RetryAfterMs, 1<<31-1)), WaitMs: -1,
		ErrType: s.errName(ev.ErrorType), Queue: uint16(min(job.QueueAttempts, 1<<16-1))}
	if isLLM {
		a.Name = ms.nameIdx
	} else {
		a.Name = s.tool(ev.Tool, ev.Status).nameIdx
		a.Flags |= FlagTool
	}
	if !priced {
		a.Flags |= FlagUnpriced
	}
	if ev.StreamDropped {
		a.Flags |= FlagStreamDropped
	}

	s.sequence(job, ev, op, &a, class, cost, ms)
	tries := op.attempts
	if op.key == "" {
		if job.lastFailed() {
			job.streak = min(job.streak+1, 1<<15-1)
		} else {
			job.streak = 1
		}
		tries = int32(job.streak)
	}
	op.maxTries = max(op.maxTries, tries)
	s.lastTries = tries
	s.layers(job, ev, &a, class, tries)
	s.syncRetries(ev.TS, job, &a)
	job.setLastFailed(failed)
	job.LastStatus = ev.Status
	s.spendOn(job, ev, class, cost, priced)
	s.shadowBreaker(job, ev, &a, ms, class, cost)
	s.retain(job, a)
}

// sequence places the attempt within its operation: retries, the wait
// before it, Retry-After honoured or not, terminal errors retried,
// dropped streams paid again, duplicate completions.
func (s *State) sequence(job *Job, ev *ingest.Event, op *operation, a *Attempt, class statusClass, cost Pico, ms *modelStats) {
	ts := ev.TS
	isLLM := ev.Kind == ingest.KindLLMCall
	if op.attempts > 0 {
		wait := ts - op.lastEnd
		a.WaitMs = int32(max(min(wait/1e6, 1<<31-1), -1<<31))
		prevFailed := classify(op.lastStatus) != classSuccess
		if prevFailed {
			a.Flags |= FlagRetry
		}
		if prevFailed && op.lastRetryAfter >= 0 {
			s.assume.retryAfterSeen(ev, job, wait, op.lastRetryAfter)
			if wait < op.lastRetryAfter*1e6 {
				a.Flags |= FlagRetryAfterIgnored
				s.flag(RetryAfterIgnored, job, 1, attemptWaste(class, cost), ts, func() string {
					return fmt.Sprintf("job %s retried %s after a %d that asked for %s", job.ID, fmtDur(wait), op.lastStatus, fmtDur(op.lastRetryAfter*1e6))
				})
			} else {
				s.raHonored++
				if ev.Status == 429 {
					s.raRehit++
					s.flag(RetryAfterTooShort, job, 1, 0, ts, func() string {
						return fmt.Sprintf("job %s waited %s for a Retry-After of %s and met another 429", job.ID, fmtDur(wait), fmtDur(op.lastRetryAfter*1e6))
					})
				}
			}
		}
		if op.terminal {
			a.Flags |= FlagTerminalRetried
			s.flag(TerminalErrorRetried, job, 1, attemptWaste(class, cost), ts, func() string {
				what := ev.Tool
				if isLLM {
					what = ev.Model
				}
				return fmt.Sprintf("job %s: %s answered %d and was retried anyway", job.ID, what, op.lastStatus)
			})
		}
		if op.lastDropped {
			// The dropped stream's output was paid and is paid again: the
			// first payment is waste. A dropped stream that ended in an
			// error is waste already (all of it, with the job's non-2xx).
			if !op.lastDroppedFailed {
				job.spendDuplicates = job.spendDuplicates.Add(op.lastDroppedPaid)
			}
			s.flag(StreamRepaid, job, 1, op.lastDroppedPaid, ts, func() string {
				return fmt.Sprintf("job %s: a dropped stream was retried and its output paid again", job.ID)
			})
		}
	}
	if ev.Attempt > 1 || job.lastFailed() {
		a.Flags |= FlagRetry
	}
	if class == classTerminal {
		op.terminal = true
	}
	op.attempts++
	// A dropped stream is no completion: the retry that regenerates it is
	// stream_repaid, not a duplicate success.
	if class == classSuccess && isLLM && !ev.StreamDropped {
		op.successes++
		if op.successes == 1 {
			op.firstSuccessAt = op.attempts
		} else if ev.IdempotencyKey != "" {
			// Only a key says two successes were the same request; without
			// one, a job's next call is just its next call.
			a.Flags |= FlagDuplicate
			job.Duplicates++
			job.spendDuplicates = job.spendDuplicates.Add(cost)
			s.duplicates++
			s.flag(DuplicateCompletion, job, 1, cost, ts, func() string {
				return fmt.Sprintf("job %s: a retried call succeeded again (success #%d under one key)", job.ID, op.successes)
			})
		}
	}
	op.lastEnd = ts + int64(ev.LatencyMs)*1e6
	op.lastStatus = ev.Status
	op.lastRetryAfter = ev.RetryAfterMs
	op.lastDropped = ev.StreamDropped
	op.lastDroppedFailed = class != classSuccess
	if ev.StreamDropped && ms != nil {
		// What the dropped output cost, never more than the attempt did
		// (a logged cost_usd, a batch or a tier rate prices it below the
		// table's output rate).
		op.lastDroppedPaid = min(mulTokens(ev.OutputTokens, ms.price.Output), cost)
	}
}

// layers counts the job's retry layers and the per-call findings; tries
// is how many times the attempt's call has been tried, this one included.
func (s *State) layers(job *Job, ev *ingest.Event, a *Attempt, class statusClass, tries int32) {
	ts := ev.TS
	// A restart at attempt 1 after a failure is a new wrapper round; after
	// a success it is just the job's next call.
	if ev.Kind == ingest.KindLLMCall {
		job.Calls++
		s.attempts++
		if q := int32(ev.QueueAttempt); q > job.QueueAttempts {
			// The queue's next attempt at the job (the record's
			// queue_attempt, BullMQ's attemptsMade): its wrapper rounds
			// start again, as a job_started line's do — else a queue's
			// 7 attempts of 3 rounds read as 1×21.
			job.QueueAttempts = q
			job.rounds = 0
		}
		if ev.Attempt <= 1 && (job.rounds == 0 || job.lastFailed()) {
			job.rounds++
			job.MaxRounds = max(job.MaxRounds, job.rounds)
		}
		job.MaxSDKAttempt = max(job.MaxSDKAttempt, max(ev.Attempt, 1))
		a.Round = uint16(min(job.rounds, 1<<16-1))
		s.statuses.add(ev.Status)
		// Retry-After on a 2xx is not a rate-limit signal.
		if ev.RetryAfterMs >= 0 && class != classSuccess {
			s.retryAfter[ev.RetryAfterMs]++
		}
		if ev.Status == 429 && ev.RetryAfterMs < 0 {
			s.noHint429++
		}
		if job.Amplification() >= s.cfg.AmplificationThreshold && !job.HasFinding(RetryAmplification) {
			s.flagJob(RetryAmplification, job, 1, 0, ts, func() string {
				return fmt.Sprintf("job %s: retry layers %s multiply to %d calls", job.ID, FormatLayers(job.Layers()), job.Amplification())
			})
		}
	} else {
		job.ToolCalls++
		s.toolCalls++
	}
	// Evidence of a hidden layer is one call (a model's or a tool's) tried
	// more often than the attempts allowed, never a job's call count: an
	// agent session or a pipeline makes many distinct calls by design.
	if lim := s.cfg.maxCallsFor(job.Type); lim > 0 && int(tries) > lim {
		// Each try past the limit is one the hidden layer made; the finding
		// counts the job once and wastes what those tries wasted.
		n := int64(1)
		if job.HasFinding(HiddenRetryLayer) {
			n = 0
		}
		// The example names the example job's most-tried call, followed
		// past the first crossing: its tries as they end, not as they
		// were at limit + 1.
		hx := &s.hiddenExample
		// (Never an ambiguous job: its finding is the ambiguous row's.)
		if hx.job == nil && s.cfg.severity(HiddenRetryLayer) != SeverityOff && job.evidence&evTiming == 0 {
			hx.job, hx.limit = job, lim
		}
		if hx.job == job && tries > hx.tries {
			hx.tries, hx.what = tries, "model call"
			if ev.Kind != ingest.KindLLMCall {
				hx.what = ev.Tool + " call"
			}
		}
		// Every try past the limit comes here, and flagJob keeps its
		// example: the closure (a heap object) is made only while the
		// finding has none.
		var example func() string
		if f := &s.findings[HiddenRetryLayer]; f.count == 0 && f.example == "" {
			example = func() string {
				return fmt.Sprintf("job %s: one %s was tried %d times (limit %d): layers %s", hx.job.ID, hx.what, hx.tries, hx.limit, FormatLayers(hx.job.Layers()))
			}
		}
		s.flagJob(HiddenRetryLayer, job, n, attemptWaste(class, a.Cost), ts, example)
	}
}

// syncRetries feeds a retry to the synchronized-retries detector.
func (s *State) syncRetries(ts int64, job *Job, a *Attempt) {
	if a.Flags&FlagRetry != 0 {
		waste := attemptWaste(classify(a.Status), a.Cost)
		if started, startedWaste, joined := s.sync.add(ts, job, waste); started != nil {
			s.syncBurst(ts, true, started, startedWaste)
		} else if joined {
			s.syncJoined[0] = job
			s.syncBurst(ts, false, s.syncJoined[:], waste)
		}
	}
}

// spendOn adds the attempt's cost and tokens to the job, the run and the
// timeline.
func (s *State) spendOn(job *Job, ev *ingest.Event, class statusClass, cost Pico, priced bool) {
	failed := class != classSuccess
	isLLM := ev.Kind == ingest.KindLLMCall
	s.lastCost = cost
	if s.hasOurs {
		s.noteRecorded(job, cost, s.lastOurs, ev.TS, true)
	}
	job.Spend = job.Spend.Add(cost)
	if ev.AttemptBy == ingest.AttemptByLineAmbiguous || keyOnly(ev) || job.ID == UnattributedJob {
		s.guess(job, cost)
	}
	if failed {
		job.spendNon2xx = job.spendNon2xx.Add(cost)
	}
	s.spend = s.spend.Add(cost)
	if !priced || usageUnseen(ev) {
		job.Unpriced++
		s.unpriced++
	}
	s.addTokens(job, ev)
	s.bucket(ev.TS, class, isLLM, cost)
}

// usageUnseen: an answered call whose usage its record does not carry
// and its source will not (ingest.Event.UsageUnseen): its cost is unknown,
// not 0 — whatever its model's price.
func usageUnseen(ev *ingest.Event) bool {
	// With a usage field dropped as unreadable (an OTLP span's count that
	// is not one), what the rest of its usage prices is a floor.
	return ev.UsageUnseen && ev.Kind == ingest.KindLLMCall && ev.Status >= 200 && ev.Status < 300 && !ev.HasCost &&
		(ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens == 0 || ev.Dropped&ingest.DropWrongType != 0)
}

func (s *State) addTokens(job *Job, ev *ingest.Event) {
	job.tokensFresh = satAdd(job.tokensFresh, ev.InputTokens)
	job.tokensCacheRead = satAdd(job.tokensCacheRead, ev.CacheReadTokens)
	job.tokensCacheWrite = satAdd(job.tokensCacheWrite, ev.CacheCreateTokens)
	s.input = satAdd(s.input, ev.InputTokens)
	s.output = satAdd(s.output, ev.OutputTokens)
	s.cacheRead = satAdd(s.cacheRead, ev.CacheReadTokens)
	s.cacheWrite = satAdd(s.cacheWrite, ev.CacheCreateTokens)
}

// shadowBreaker records the outcome on the model's or tool's breaker.
func (s *State) shadowBreaker(job *Job, ev *ingest.Event, a *Attempt, ms *modelStats, class statusClass, cost Pico) {
	ts := ev.TS
	failed := class != classSuccess
	var br *breaker
	if ev.Kind == ingest.KindLLMCall {
		br = ms.breaker
	} else {
		br = s.lastTool.breaker
	}
	if class != classUnknown {
		tripped, blocked := br.record(s.cfg.Breaker, ts, failed, cost)
		if blocked {
			a.Flags |= FlagBreakerWouldBlock
			if failed {
				s.findings[BreakerOpen].wasted = s.findings[BreakerOpen].wasted.Add(cost)
			}
		}
		if tripped {
			s.flag(BreakerOpen, job, 1, 0, ts, func() string {
				return fmt.Sprintf("breaker %s opened %s: %.0f%% of the last %d calls failed", br.key, atTime(ts), s.cfg.Breaker.TripRate*100, s.cfg.Breaker.Window)
			})
		}
	}
}

// syncBurst records the jobs of a synchronized burst: all of them when the
// burst starts, then each job that joins it.
func (s *State) syncBurst(ts int64, newBurst bool, jobs []*Job, waste Pico) {
	slices.SortFunc(jobs, func(a, b *Job) int { return int(a.Seq - b.Seq) })
	if s.sync.bursts < int64(s.cfg.SyncMinBursts) {
		// Below the threshold a burst may be chance; remember who was in it.
		if len(s.syncPending) < maxFindingJobs {
			s.syncPending = append(s.syncPending, jobs...)
		}
		s.syncPendingWaste = s.syncPendingWaste.Add(waste)
		return
	}
	// The example counts this burst's own jobs (distinct, from the
	// detector), never those of the earlier bursts flagged with it.
	burstJobs := len(jobs)
	example := func() string {
		return fmt.Sprintf("%d jobs retried within %s of each other %s (burst %d)", burstJobs, s.cfg.SyncWindow, atTime(ts), s.sync.bursts)
	}
	if newBurst {
		n := int64(1)
		if s.sync.bursts == int64(s.cfg.SyncMinBursts) {
			n = s.sync.bursts // the finding starts counting at its threshold
			jobs = append(s.syncPending, jobs...)
			waste = waste.Add(s.syncPendingWaste)
			s.syncPending, s.syncPendingWaste = nil, 0
		}
		s.flag(SynchronizedRetries, nil, n, waste, ts, example)
		waste = 0
	}
	for _, j := range jobs {
		s.flag(SynchronizedRetries, j, 0, waste, ts, example)
		waste = 0
	}
}

// price returns an attempt's cost, whether it was priced, and its model's
// stats (nil for a tool call without a model).
func (s *State) price(ev *ingest.Event) (Pico, bool, *modelStats) {
	s.hasOurs = false
	if ev.Kind != ingest.KindLLMCall {
		// Tools are not priced by token; a logged cost still counts.
		return PicoFromUSD(ev.CostUSD), true, nil
	}
	ms := s.model(ev)
	cost, priced := s.cost(ms, ev, 0)
	ms.attempts++
	ms.statuses.add(ev.Status)
	if ev.Batch {
		s.batchSpend = s.batchSpend.Add(cost)
		s.batchCalls++
	}
	s.modelTokens(ms, ev, cost)
	if !priced {
		ms.unpriced++
	}
	if ev.LatencyMs > 0 {
		ms.latencySum += int64(ev.LatencyMs)
		ms.latencyN++
	}
	return cost, priced, ms
}

// cost prices a call's tokens with its model's price; prompt, when not 0,
// is the call's whole prompt, which picks the long-context tier (a usage
// growth carries only part of the call's tokens).
func (s *State) cost(ms *modelStats, ev *ingest.Event, prompt int64) (Pico, bool) {
	s.hasOurs = false
	if ev.HasCost {
		// The record's own cost is billed: its producer priced the call
		// when it was made, with what the record may not show (its tier,
		// region, negotiated rates). The table's price of the same tokens
		// is kept beside it (noteRecorded).
		recorded := PicoFromUSD(ev.CostUSD)
		if ms.priced && ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens > 0 {
			ours := billCost(&ms.price, ev, prompt, nil)
			s.lastOurs, s.hasOurs = ours, true
			if recorded < ours/100 {
				// A recorded cost under 1% of the table's: either a
				// producer that could not price the call (LiteLLM's
				// response_cost of 0 for a deployment its cost map lacks)
				// or a true $0 (a self-hosted model served under a hosted
				// one's name, a free tier). Which, nothing says: billed as
				// recorded, never a kill on a guess (R7b-1), and counted
				// unpriced — a floor, "≥", never an exact $0 (R7-19).
				s.recordedBelow++
				return recorded, false
			}
		}
		return recorded, true
	}
	if ms.priced {
		count := &s.dims
		if ev.Kind == ingest.KindUsageGrowth {
			count = nil // the call was counted at its first record
		}
		c := billCost(&ms.price, ev, prompt, count)
		if s.cfg.MaxCallCost > 0 && c > s.cfg.MaxCallCost {
			// A computed cost no call should have: flagged (the report
			// counts and names it), kept in spend and in every ceiling.
			s.overCap++
			ms.overCap++
		}
		return c, true
	}
	// No price: report tokens as unpriced, never as $0. A failed call
	// that used no tokens costs nothing whatever the price; an answered
	// one with no price and no tokens (an HTTP client span, all that
	// OpenTelemetry's undici instrumentation sees of an OpenAI call) cost
	// what nothing says: unpriced, never $0.
	if ev.InputTokens+ev.OutputTokens+ev.CacheReadTokens+ev.CacheCreateTokens != 0 {
		return 0, false
	}
	return 0, !(ev.Status >= 200 && ev.Status < 300)
}

func (s *State) modelTokens(ms *modelStats, ev *ingest.Event, cost Pico) {
	ms.spend = ms.spend.Add(cost)
	ms.input = satAdd(ms.input, ev.InputTokens)
	ms.output = satAdd(ms.output, ev.OutputTokens)
	ms.cacheRead = satAdd(ms.cacheRead, ev.CacheReadTokens)
	ms.cacheWrite = satAdd(ms.cacheWrite, ev.CacheCreateTokens)
}

// grow adds a usage growth (ingest.KindUsageGrowth) to its job, model and
// run: spend and tokens, not an attempt. Its cost is priced at the tier of
// the whole call's prompt, so a response's first record plus its growth
// costs exactly what its last record would.
func (s *State) grow(job *Job, ev *ingest.Event) {
	ms := s.model(ev)
	cost, priced := s.cost(ms, ev, ev.PromptTokens)
	if !priced && ms.attempts == 0 && ms.unpriced == 0 {
		// Tokens no price covers, of a model no attempt named (a claude
		// -p result's internal calls): the model is listed as unpriced,
		// never shown as $0. A growth is not an attempt, so it counts no
		// unpriced attempt of its own.
		ms.unpricedGrowth = true
	}
	s.modelTokens(ms, ev, cost)
	if ev.UsageUnseen {
		// A part of the usage (OpenAI's cached tokens hidden in the SDK's
		// debug block): what it shows is billed, the call counted unpriced.
		job.Unpriced++
		s.unpriced++
	}
	class := classify(ev.Status)
	s.lastCost = cost
	if s.hasOurs {
		s.noteRecorded(job, cost, s.lastOurs, ev.TS, false)
	}
	job.Spend = job.Spend.Add(cost)
	if ev.AttemptBy == ingest.AttemptByLineAmbiguous || keyOnly(ev) || job.ID == UnattributedJob {
		s.guess(job, cost)
	}
	if class != classSuccess {
		job.spendNon2xx = job.spendNon2xx.Add(cost)
	}
	s.spend = s.spend.Add(cost)
	s.addTokens(job, ev)
	s.bucketSpend(ev.TS, cost)
}

func (s *State) model(ev *ingest.Event) *modelStats {
	if ms := s.lastModel; ms != nil && ms.Model == ev.Model && (ev.Provider == "" || ms.Provider == ev.Provider) {
		return ms
	}
	if ms, ok := s.models[ev.Model]; ok {
		s.lastModel = ms
		if ms.Provider == "" {
			ms.Provider = ev.Provider
		}
		return ms
	}
	ms := &modelStats{Model: ev.Model, Provider: ev.Provider, nameIdx: s.name(ev.Model)}
	res := s.cfg.Prices.Resolve(ev.Model)
	ms.price, ms.priced, ms.priceKey, ms.approximate = res.Price, res.Key != "", res.Key, res.Approximate
	key := ev.Model
	if key == "" {
		key = "(unknown model)"
	}
	if ev.Provider != "" {
		key = ev.Provider + "/" + key
	}
	ms.breaker = s.breakerFor(key)
	s.models[ev.Model] = ms
	s.modelLs = append(s.modelLs, ms)
	s.lastModel = ms
	return ms
}

func (s *State) tool(name string, status int16) *toolStats {
	ts := s.lastTool
	ok := ts != nil && ts.Tool == name
	if !ok {
		ts, ok = s.tools[name]
	}
	s.lastTool = ts
	if !ok {
		key := name
		if key == "" {
			key = "(unnamed)"
		}
		ts = &toolStats{Tool: name, nameIdx: s.name(name), breaker: s.breakerFor("tool:" + key)}
		s.tools[name] = ts
		s.toolLs = append(s.toolLs, ts)
		s.lastTool = ts
	}
	ts.attempts++
	ts.statuses.add(status)
	return ts
}

func (s *State) breakerFor(key string) *breaker {
	if b, ok := s.breakers[key]; ok {
		return b
	}
	b := newBreaker(key, s.cfg.Breaker.Window)
	s.breakers[key] = b
	s.breakerLs = append(s.breakerLs, b)
	return b
}

func (s *State) bucket(ts int64, class statusClass, isLLM bool, cost Pico) {
	s.burnBucket(cost, 1)
	b := s.minuteBucket(ts)
	b.Spend = b.Spend.Add(cost)
	if !isLLM {
		b.ToolCalls++
		if class != classSuccess {
			b.ToolFailed++
		}
		return
	}
	b.Calls++
	switch class {
	case classSuccess:
		b.Success++
	case classRetryable:
		b.Retryable++
	case classTerminal:
		b.Terminal++
	default:
		b.Unknown++
	}
}

// bucketSpend adds spend that is not a call (a usage growth) to its minute.
func (s *State) bucketSpend(ts int64, cost Pico) {
	s.burnBucket(cost, 0)
	b := s.minuteBucket(ts)
	b.Spend = b.Spend.Add(cost)
}

// burnKeep is how many minutes of the burn clock burnline keeps: the
// longest burn figure's, and the one it cuts.
const burnKeep = 6

// burnBucket counts spend and calls at the burn clock's now (stepBurn).
func (s *State) burnBucket(cost Pico, calls int64) {
	now := s.burnNow
	if now == 0 {
		return // no event time yet
	}
	minute := now / int64(time.Minute)
	b := s.lastBurn
	if b == nil || b.Minute != minute {
		if s.burnline == nil {
			s.burnline = map[int64]*Bucket{}
		}
		if b = s.burnline[minute]; b == nil {
			b = &Bucket{Minute: minute}
			s.burnline[minute] = b
			for m := range s.burnline {
				if m <= minute-burnKeep {
					delete(s.burnline, m)
				}
			}
		}
		s.lastBurn = b
	}
	if b.firstTS == 0 || now < b.firstTS {
		b.firstTS = now
	}
	b.lastTS = max(b.lastTS, now)
	b.Spend = b.Spend.Add(cost)
	b.Calls += calls
}

func (s *State) minuteBucket(ts int64) *Bucket {
	minute := ts / int64(time.Minute)
	b := s.lastMin
	if b == nil || b.Minute != minute {
		var ok bool
		if b, ok = s.timeline[minute]; !ok {
			b = &Bucket{Minute: minute}
			s.timeline[minute] = b
		}
		s.lastMin = b
	}
	if b.firstTS == 0 || ts < b.firstTS {
		b.firstTS = ts
	}
	b.lastTS = max(b.lastTS, ts)
	return b
}

// flag records n occurrences of a finding for job (nil for none); example
// describes the first, as it was then. It is called only for the first,
// and not kept: the closure stays on the caller's stack (a retried call's
// duplicate success or a synchronized retry allocated one per event when
// flag shared flagJob's path, which keeps it).
func (s *State) flag(k FindingKind, job *Job, n int64, wasted Pico, ts int64, example func() string) {
	f := s.flagFirst(k, job, n, wasted, ts)
	if f == nil {
		return
	}
	if f.count == 0 && f.example == "" {
		f.example = example()
		f.firstTS = ts
	}
	s.flagCount(f, k, job, n, wasted)
}

// flagJob is flag for a finding whose example gives its job's figures
// (layers, calls, tries): example is kept and called again whenever a
// report is built, so it must read only the job and state that outlive
// the event (never the event). The first report of a night read "layers
// 2×3×3 multiply to 18 calls" while the job's row showed 63 at 7×3×3.
// example may be nil when the finding has one already (its caller's
// closure then costs no allocation).
func (s *State) flagJob(k FindingKind, job *Job, n int64, wasted Pico, ts int64, example func() string) {
	f := s.flagFirst(k, job, n, wasted, ts)
	if f == nil {
		return
	}
	if f.count == 0 && f.example == "" && example != nil {
		f.example = example()
		f.firstTS = ts
		f.exampleOf = example
	}
	s.flagCount(f, k, job, n, wasted)
}

// flagFirst is flag's first part: the finding to count in, nil when it is
// off or the job's count is ambiguous (counted there instead).
func (s *State) flagFirst(k FindingKind, job *Job, n int64, wasted Pico, ts int64) *findingAcc {
	if s.cfg.severity(k) == SeverityOff {
		return nil
	}
	if job != nil && convicts[k] && job.evidence&evTiming != 0 {
		// An ambiguous count convicts no one (ambiguous.go).
		s.addAmbiguous(k, job, max(n, 1), wasted, ts)
		return nil
	}
	f := &s.findings[k]
	if job != nil && convicts[k] {
		f.share(job, n, wasted)
	}
	return f
}

// flagCount is flag's last part, after the example: the counts.
func (s *State) flagCount(f *findingAcc, k FindingKind, job *Job, n int64, wasted Pico) {
	f.count += n
	f.wasted = f.wasted.Add(wasted)
	if job != nil && job.findings&(1<<k) == 0 {
		job.findings |= 1 << k
		f.jobsTotal++
		if len(f.jobs) < maxFindingJobs {
			f.jobs = append(f.jobs, job.ID)
		}
	}
}

// attemptWaste is what one attempt wasted as the run's wasted spend counts
// it: its cost when it failed, nothing when it worked (a duplicate success
// is counted where it is found).
func attemptWaste(class statusClass, cost Pico) Pico {
	if class == classSuccess {
		return 0
	}
	return cost
}

func clamp32(v int64) int32 { return int32(min(max(v, 0), 1<<31-1)) }

// statusCounts counts attempts by HTTP status. A call sees few distinct
// statuses, so a short list beats a map.
type statusCounts []statusCount

type statusCount struct {
	status int16
	n      int64
}

func (c *statusCounts) add(status int16) {
	for i := range *c {
		if (*c)[i].status == status {
			(*c)[i].n++
			return
		}
	}
	*c = append(*c, statusCount{status, 1})
}

// byName returns the counts keyed by status text ("429", "unknown").
func (c statusCounts) byName() map[string]int64 {
	m := make(map[string]int64, len(c))
	for _, sc := range c {
		m[statusKey(sc.status)] += sc.n
	}
	return m
}
