package correlate

import (
	"fmt"
	"strings"
)

// FindingKind names a retry mistake burnrate detects.
type FindingKind uint8

const (
	TerminalErrorRetried FindingKind = iota
	HiddenRetryLayer
	RetryAmplification
	RetryAfterIgnored
	RetryAfterTooShort
	SynchronizedRetries
	DuplicateCompletion
	BreakerOpen
	StreamRepaid
	DeadlineExceeded
	// The assumptions log's (assumptions.go): run-level, on no job —
	// but for AssumptionViolated, which assumptionCall also flags on the
	// job at the attempt that broke the declaration (kill_on may name it).
	AssumptionViolated
	AssumptionChanged
	AssumptionMissing
	DefaultChangedUpstream
	// Static meets dynamic (declared.go): run-level, on no job's bits.
	UndeclaredRetryLayer
	// RecordedCostDiffers: a job's records carried their producer's own
	// cost, and the table prices the same calls more than 1% apart
	// (dimensions.go).
	RecordedCostDiffers
	NumFindingKinds
)

// FindingInfo is one row of the finding vocabulary: everything said about a
// kind, in one place. Adding a finding is one row here plus its detector.
type FindingInfo struct {
	Name     string   // in reports, config keys and alerts
	Severity Severity // unless configured otherwise
	Advice   string   // what the seeds say to do about it
}

// FindingKinds is the vocabulary, by kind.
var FindingKinds = [NumFindingKinds]FindingInfo{
	TerminalErrorRetried: {Name: "terminal_error_retried", Severity: SeverityCritical,
		Advice: "4xx (other than 408/429) is terminal: stop retrying it. Make the retryable set an allowlist (408, 409, 429, 5xx, 529, connection errors) and fail fast on everything else."},
	HiddenRetryLayer: {Name: "hidden_retry_layer", Severity: SeverityWarning,
		Advice: "One call was tried more often than the configured attempt count: a retry layer you do not know about is active. Grep for maxRetries|max_retries|retries:|attempts:|retry|backoff and pick one retry owner."},
	RetryAmplification: {Name: "retry_amplification", Severity: SeverityWarning,
		Advice: "Retry layers multiply, they don't add. Pick one retry owner, set the other layers to zero, and bound the whole path with an absolute deadline."},
	RetryAfterIgnored: {Name: "retry_after_ignored", Severity: SeverityWarning,
		Advice: "Honour Retry-After: the server said how long to wait, and retrying sooner only meets another 429."},
	RetryAfterTooShort: {Name: "retry_after_too_short", Severity: SeverityInfo,
		Advice: "Retry-After lands on the rate-limit window's edge: add positive jitter, waiting Retry-After × (1.2 + random(0, 0.3))."},
	SynchronizedRetries: {Name: "synchronized_retries", Severity: SeverityWarning,
		Advice: "Retries from many jobs fire together: add independent random jitter (full jitter) per call so retry rounds do not arrive as a burst."},
	DuplicateCompletion: {Name: "duplicate_completion", Severity: SeverityCritical,
		Advice: "A retried call succeeded twice: make the job idempotent before making it retryable (stable job ID, upsert, check for a completion record before redoing work)."},
	BreakerOpen: {Name: "breaker_open", Severity: SeverityWarning,
		Advice: "The endpoint failed wholesale: a circuit breaker would have stopped calling it instead of backing off into every retry."},
	StreamRepaid: {Name: "stream_repaid", Severity: SeverityWarning,
		Advice: "A dropped stream was retried from scratch and its output paid twice: price retries in output tokens, and prefer resuming over regenerating."},
	DeadlineExceeded: {Name: "deadline_exceeded", Severity: SeverityWarning,
		Advice: "Give the job an absolute deadline, not an attempt count: attempt counts lie about wall clock."},
	AssumptionViolated: {Name: "assumption_violated", Severity: SeverityCritical,
		Advice: "The traffic contradicts a premise the run declared: a layer retried that was declared silent, or not the declared owner. Find the layer (burnrate audit), set it to what the declaration says, or correct the declaration."},
	AssumptionChanged: {Name: "assumption_changed", Severity: SeverityWarning,
		Advice: "A premise changed since the last run: confirm it was meant, and recompute the worst case (burnrate budget layers --from-assumptions) before tonight's run."},
	AssumptionMissing: {Name: "assumption_missing", Severity: SeverityInfo,
		Advice: "A layer retried that the run declares nothing about: add it to the assumptions line (or burnrate.assumptions.toml), so the next change to it shows up in the log."},
	DefaultChangedUpstream: {Name: "default_changed_upstream", Severity: SeverityWarning,
		Advice: "A package version moved across a change of its retry default (burnrate defaults): re-read the new behaviour and update the assumption that depends on it."},
	RecordedCostDiffers: {Name: "recorded_cost_differs", Severity: SeverityInfo,
		Advice: "The producer's own cost (its records' cost field) and the price table's price of the same calls differ by more than 1%. burnrate bills the recorded cost (the producer priced the call as it was made); check which one your invoice matches — an old price table in the producer, a tier, region or fast mode the record does not show — and set --cost-mode calculate (Claude Code) or update the table."},
	UndeclaredRetryLayer: {Name: "undeclared_retry_layer", Severity: SeverityCritical,
		Advice: "One operation made more calls than the declared layers multiply to: a retry layer the stack does not list is active (a proxy or gateway, the SDK inside a framework, a queue re-run, a default nobody set). Run burnrate audit on the code that makes these calls, add the layer to the stack or set it to one attempt, and keep one retry owner."},
}

func (k FindingKind) String() string {
	if k < NumFindingKinds {
		return FindingKinds[k].Name
	}
	return "unknown"
}

// ParseFindingKind maps a name such as "breaker_open" to its kind.
func ParseFindingKind(s string) (FindingKind, error) {
	names := make([]string, NumFindingKinds)
	for i, f := range FindingKinds {
		if f.Name == s {
			return FindingKind(i), nil
		}
		names[i] = f.Name
	}
	return 0, fmt.Errorf("unknown finding kind %q: use one of %s", s, strings.Join(names, ", "))
}

// Advice and DefaultSeverity are the table's columns, by kind.
var (
	Advice = func() (a [NumFindingKinds]string) {
		for k, f := range FindingKinds {
			a[k] = f.Advice
		}
		return a
	}()
	DefaultSeverity = func() (d [NumFindingKinds]Severity) {
		for k, f := range FindingKinds {
			d[k] = f.Severity
		}
		return d
	}()
)

// Severity ranks findings; a critical one makes `report` exit 1.
type Severity uint8

const (
	SeverityOff Severity = iota
	SeverityInfo
	SeverityWarning
	SeverityCritical
)

var severityNames = [...]string{"off", "info", "warning", "critical"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// ParseSeverity maps "off", "info", "warning" or "critical" to a Severity.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if n == s {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: use off, info, warning or critical", s)
}

// MarshalText writes the severity's name, so JSON carries "critical".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name (a previous report, a config).
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

func (c Config) severity(k FindingKind) Severity {
	if s, ok := c.Severity[k]; ok {
		return s
	}
	return DefaultSeverity[k]
}

// maxFindingJobs caps the job list carried by one finding.
const maxFindingJobs = 20

// findingAcc accumulates one kind of finding as events arrive.
type findingAcc struct {
	count     int64
	wasted    Pico
	jobs      []string // first maxFindingJobs jobs involved
	jobsTotal int
	example   string
	firstTS   int64
	// exampleOf, when set, renders the example again from its job's
	// state when a report is built (see flagJob): a job's figures grow
	// after the finding's first crossing, and the example must give the
	// ones its job's row shows.
	exampleOf func() string
	// shares are the jobs' parts of a convicting kind (ambiguous.go).
	shares map[string]findingShare
}

// exampleText is the example as a report gives it.
func (f *findingAcc) exampleText() string {
	if f.exampleOf != nil {
		return f.exampleOf()
	}
	return f.example
}
