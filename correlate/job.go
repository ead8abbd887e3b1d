package correlate

// toolOp is a job's operation for attempts that carry no idempotency key.
type toolOp struct {
	tool string
	op   *operation
}

// Outcome is where a job stands.
type Outcome uint8

const (
	OutcomeRunning Outcome = iota
	OutcomeQueued
	OutcomeSucceeded
	OutcomeFailed
	OutcomeDeadLettered
	// OutcomeActive is a job without queue lifecycle events whose calls
	// are still coming (see State.Outcome).
	OutcomeActive
)

var outcomeNames = [...]string{"running", "queued", "succeeded", "failed", "dead_lettered", "active"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// ParseOutcome is String's inverse.
func ParseOutcome(name string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == name {
			return Outcome(i), true
		}
	}
	return 0, false
}

// Finished reports whether the outcome is final.
func (o Outcome) Finished() bool {
	return o == OutcomeSucceeded || o == OutcomeFailed || o == OutcomeDeadLettered
}

// Attempt flags.
const (
	FlagTool uint8 = 1 << iota
	FlagRetry
	FlagDuplicate
	FlagStreamDropped
	FlagUnpriced
	FlagRetryAfterIgnored
	FlagTerminalRetried
	FlagBreakerWouldBlock
)

// Attempt is the compact record kept per call attempt for the job detail
// view (64 bytes). Names are indexes into the State's name table.
type Attempt struct {
	TS           int64
	Cost         Pico
	InputTokens  int32
	OutputTokens int32
	CacheRead    int32
	CacheWrite   int32
	RetryAfterMs int32 // -1: none given
	LatencyMs    int32
	WaitMs       int32 // since the previous attempt of the operation answered; -1: first
	Name         uint32
	ErrType      uint32
	Status       int16
	Num          int16 // the logging layer's attempt number, 0 unknown
	Queue        uint16
	Round        uint16
	Flags        uint8
}

// Job is the state of one unit of business work. Its fields are ordered
// hot to cold: what every attempt reads or writes fills the first three
// cache lines, the rest the fourth (256 bytes in all, a size class of its
// own), since a night's jobs are visited at random and each line is a
// cache miss.
type Job struct {
	ID string
	// lastOp is the operation of the job's last keyed attempt and
	// lastHash the ops index's hash of its key ("job\x00key"): retries
	// repeat it, and this spares them the ops index. A new key (most
	// calls) differs in the hash, so its bytes are compared only on a
	// full-hash match: the key's bytes are a cache miss of their own.
	lastOp   *operation
	lastHash uint64

	Spend       Pico
	spendNon2xx Pico

	FirstTS, LastTS int64
	FirstAttemptTS  int64
	// Input tokens by kind, for the cache share (an agent session lives
	// on its cache: 90% read is normal, 0% means the cache is broken).
	tokensFresh, tokensCacheRead, tokensCacheWrite int64

	Calls         int32 // llm_call attempts
	ToolCalls     int32
	QueueAttempts int32
	MaxRounds     int32
	rounds        int32
	// streak is the attempts of the job's keyless call in flight: calls
	// since its last success (a keyed call's are its operation's).
	streak        int16
	MaxSDKAttempt int16
	LastStatus    int16
	findings      uint16 // bit per FindingKind
	Outcome       Outcome
	// evidence holds the job's agent bit — an interactive agent session
	// (Claude Code, Codex, Gemini CLI), long by design, so no job deadline
	// applies to it — what its calls were seen by (counts.go), and two
	// bits that are no evidence: evLifecycle and evLastFailed (in here to
	// make room for src).
	evidence uint8
	// src is the source (Event.Source) of the job's latest timed event:
	// its clock judges the job idle and retired (State.clockOf).
	src uint16

	Type string
	// RunID is the run its first event named, "" when the log names none.
	RunID string
	ops   []toolOp
	// Seq is the job's creation order. It is read for every retry (the
	// synchronized-retries detector counts by it), so it sits in this
	// line, which the look-ahead loads with RunID (resolve), not in the
	// cold one: there it was a cache miss of its own per retry.
	Seq int32

	// Cold: lifecycle ends, duplicates, kept attempts.
	// retained attempts live in the State's store (see State.Attempts).
	firstChunk, lastChunk int32
	retained              int32
	Duplicates            int32
	spendDuplicates       Pico
	EnqueuedTS            int64
	EndTS                 int64 // time of the last final lifecycle event
	DeadLetterTS          int64
	KilledTS              int64 // set by the alerts layer's feedback, 0 if never
	Unpriced              int32
}

// Layers returns the job's retry layers outermost first: queue attempts,
// wrapper rounds, SDK attempts. A job without model calls has none.
func (j *Job) Layers() []int {
	if j.Calls == 0 {
		return []int{}
	}
	return []int{int(max(j.QueueAttempts, 1)), int(max(j.MaxRounds, 1)), int(max(j.MaxSDKAttempt, 1))}
}

// Amplification is the product of the layers.
func (j *Job) Amplification() int {
	if j.Calls == 0 {
		return 0
	}
	return int(max(j.QueueAttempts, 1)) * int(max(j.MaxRounds, 1)) * int(max(j.MaxSDKAttempt, 1))
}

// Wasted is all spend of a job that ended failed or dead-lettered, else the
// spend on its non-2xx attempts and its duplicate completions.
func (j *Job) wasted(o Outcome) Pico {
	if o == OutcomeFailed || o == OutcomeDeadLettered {
		return j.Spend
	}
	return j.spendNon2xx.Add(j.spendDuplicates) // saturating: a wrapped sum read −$8.4M
}

// HasFinding reports whether the job is involved in a finding of kind k.
func (j *Job) HasFinding(k FindingKind) bool { return j.findings&(1<<k) != 0 }

// evArmedViolation is the bit of Job.evidence (counts.go keeps the
// others) that says the job's assumption_violated rests on a declaration
// of the operator. The Job has no byte to spare (TestJobFitsItsSizeClass):
// it moved out of Job.findings when the sixteenth kind took that bit.
const evArmedViolation uint8 = 1 << 5

// Job.findings holds a bit per kind; the constant stops the build when
// a kind has no bit.
const _ = uint(16) - uint(NumFindingKinds)

// FindingArmed reports whether the job's finding of kind k may arm a
// kill (kill_on finding:…). A finding that rests on a declaration does
// only when the operator declared it (the assumptions file, ingest.
// IsOperatorAssumption): a declaration read from the log (an [assumptions]
// line, an assumptions record, assumption.* OTLP attributes) may be a
// model's output echoed there, so its finding is shown and alerted, never
// a kill. Any other finding the job has is armed.
func (j *Job) FindingArmed(k FindingKind) bool {
	switch k {
	case AssumptionViolated:
		return j.evidence&evArmedViolation != 0 && j.HasFinding(k)
	case AssumptionChanged, AssumptionMissing, UndeclaredRetryLayer:
		return false // declarations, or their absence: no job's kill
	}
	return j.HasFinding(k)
}

// armViolation marks the job's assumption_violated the operator's
// (FindingArmed): only when the job has it (flag skips a finding whose
// severity is off).
func (j *Job) armViolation() {
	if j.HasFinding(AssumptionViolated) {
		j.evidence |= evArmedViolation
	}
}

// Findings lists the kinds the job is involved in.
func (j *Job) Findings() []FindingKind {
	var out []FindingKind
	for k := FindingKind(0); k < NumFindingKinds; k++ {
		if j.HasFinding(k) {
			out = append(out, k)
		}
	}
	return out
}

// statusClass sorts HTTP statuses the way seed 001's allowlist does.
type statusClass uint8

const (
	classUnknown statusClass = iota
	classSuccess
	classRetryable
	classTerminal
)

func classify(status int16) statusClass {
	switch {
	case status < 0:
		return classUnknown
	case status >= 200 && status < 300:
		return classSuccess
	case status == 0, status == 408, status == 409, status == 429, status >= 500:
		return classRetryable
	case status >= 400:
		return classTerminal
	}
	return classUnknown // 1xx and 3xx are not outcomes of a call
}
