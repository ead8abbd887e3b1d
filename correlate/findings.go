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
	NumFindingKinds
)

var findingNames = [NumFindingKinds]string{
	"terminal_error_retried", "hidden_retry_layer", "retry_amplification",
	"retry_after_ignored", "retry_after_too_short", "synchronized_retries",
	"duplicate_completion", "breaker_open", "stream_repaid", "deadline_exceeded",
}

func (k FindingKind) String() string {
	if k < NumFindingKinds {
		return findingNames[k]
	}
	return "unknown"
}

// ParseFindingKind maps a name such as "breaker_open" to its kind.
func ParseFindingKind(s string) (FindingKind, error) {
	for i, n := range findingNames {
		if n == s {
			return FindingKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown finding kind %q: use one of %s", s, strings.Join(findingNames[:], ", "))
}

// Advice is what the seeds say to do about each kind.
var Advice = [NumFindingKinds]string{
	TerminalErrorRetried: "4xx (other than 408/429) is terminal: stop retrying it. Make the retryable set an allowlist (408, 409, 429, 5xx, 529, connection errors) and fail fast on everything else.",
	HiddenRetryLayer:     "Calls per job exceed the configured attempt count: a retry layer you do not know about is active. Grep for maxRetries|max_retries|retries:|attempts:|retry|backoff and pick one retry owner.",
	RetryAmplification:   "Retry layers multiply, they don't add. Pick one retry owner, set the other layers to zero, and bound the whole path with an absolute deadline.",
	RetryAfterIgnored:    "Honour Retry-After: the server said how long to wait, and retrying sooner only meets another 429.",
	RetryAfterTooShort:   "Retry-After lands on the rate-limit window's edge: add positive jitter, waiting Retry-After × (1.2 + random(0, 0.3)).",
	SynchronizedRetries:  "Retries from many jobs fire together: add independent random jitter (full jitter) per call so retry rounds do not arrive as a burst.",
	DuplicateCompletion:  "A retried call succeeded twice: make the job idempotent before making it retryable (stable job ID, upsert, check for a completion record before redoing work).",
	BreakerOpen:          "The endpoint failed wholesale: a circuit breaker would have stopped calling it instead of backing off into every retry.",
	StreamRepaid:         "A dropped stream was retried from scratch and its output paid twice: price retries in output tokens, and prefer resuming over regenerating.",
	DeadlineExceeded:     "Give the job an absolute deadline, not an attempt count: attempt counts lie about wall clock.",
}

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

// DefaultSeverity is each kind's severity unless configured otherwise.
var DefaultSeverity = [NumFindingKinds]Severity{
	TerminalErrorRetried: SeverityCritical,
	HiddenRetryLayer:     SeverityWarning,
	RetryAmplification:   SeverityWarning,
	RetryAfterIgnored:    SeverityWarning,
	RetryAfterTooShort:   SeverityInfo,
	SynchronizedRetries:  SeverityWarning,
	DuplicateCompletion:  SeverityCritical,
	BreakerOpen:          SeverityWarning,
	StreamRepaid:         SeverityWarning,
	DeadlineExceeded:     SeverityWarning,
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
}
