package correlate

import (
	"errors"
	"fmt"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Defaults for the analysis; each can be changed by flag or config file.
const (
	DefaultMaxCallsPerJob         = 10
	DefaultAmplificationThreshold = 10
	DefaultJobDeadline            = 10 * time.Minute
	// DefaultIdleAfter is how long, in log time, a job without queue
	// lifecycle events may log nothing before it takes its outcome live:
	// longer than an SDK's longest backoff (openai-python and anthropic
	// cap theirs at 8 s; queues at minutes), short enough that the
	// dashboard and the projection settle during a night.
	DefaultIdleAfter            = 5 * time.Minute
	DefaultBreakerWindow        = 20
	DefaultBreakerTripRate      = 0.5
	DefaultBreakerCooldown      = 300 * time.Second
	DefaultSyncWindow           = 250 * time.Millisecond
	DefaultSyncMinJobs          = 4
	DefaultSyncMinBursts        = 3
	DefaultRetryAfterMinSample  = 5
	DefaultRetryAfterRehitShare = 0.10
	// DefaultMaxCallCostUSD flags a call whose cost burnrate computed
	// (tokens × the table's rates) above it: ingest's bound on a logged
	// cost (ingest.MaxCostPerCallUSD, $100,000), the same figure, so a
	// computed cost is held to what a logged one is. Past it a call is
	// over_cap (counted, named in the report), yet kept in spend.
	DefaultMaxCallCostUSD = ingest.MaxCostPerCallUSD
	// MaxRetainedAttemptsPerJob bounds the attempts kept for the job detail
	// view; counters and spend keep counting past it.
	MaxRetainedAttemptsPerJob = 4096
)

// BreakerConfig mirrors seed 001's ToolBreaker.
type BreakerConfig struct {
	Window   int
	TripRate float64
	Cooldown time.Duration
}

// Config tunes the correlation and the findings.
type Config struct {
	Prices *PriceTable
	// MaxCallsPerJob feeds hidden_retry_layer; 0 disables it.
	MaxCallsPerJob int
	// NoAttemptDetail keeps no per-attempt records: only the job detail
	// view reads them, and a headless report of millions of lines should
	// not pay their memory. Counters, spend and findings are unchanged.
	NoAttemptDetail bool
	// SettleResumed bills a response that several agent sessions hold (a
	// resumed session's copies of its parent's) to the session that made
	// it (resumed.go): for inputs read together in time order (report,
	// replay, budget). watch follows each file at its own pace, where a
	// transcript read in part looks like the original: there the session
	// read first keeps them.
	SettleResumed bool
	// MaxCallCost flags a call whose computed cost is above it (0: none
	// is flagged). The cost is flagged, never dropped or clipped: it stays
	// in the job's, the type's and the run's spend, so every ceiling sees
	// it — a kill on a price typo is cheaper than a night a ceiling could
	// not see. A logged cost is held to ingest.MaxCostPerCallUSD instead
	// (past it the line is skipped as implausible, at ingest).
	MaxCallCost Pico
	// MaxCallsPerJobType overrides MaxCallsPerJob for a job type.
	MaxCallsPerJobType     map[string]int
	AmplificationThreshold int
	// JobDeadline feeds deadline_exceeded; 0 disables it.
	JobDeadline time.Duration
	// JobRetention retires finished jobs this long (log time) after their
	// last event: their detail goes, their sums stay (retention.go). 0
	// keeps every job (reports).
	JobRetention time.Duration
	// IdleAfter ends a job without lifecycle events live (State.Outcome);
	// 0: only at the end of input.
	IdleAfter   time.Duration
	Breaker     BreakerConfig
	SyncWindow  time.Duration
	SyncMinJobs int
	// SyncMinBursts is how many synchronized bursts make a finding.
	SyncMinBursts        int
	RetryAfterMinSample  int
	RetryAfterRehitShare float64
	// Severity overrides a finding kind's default severity; SeverityOff
	// turns the kind off.
	Severity map[FindingKind]Severity
	// AttemptLayer names whose count a record's own attempt field is
	// (the config's [layers] attempt): "" is the application's layer (a
	// wrapper), "sdk" the provider SDK's that the record names
	// (anthropic-sdk), any other a layer of that name. A log's attempt
	// field is never taken for the SDK's count unless said so.
	AttemptLayer string
}

// DefaultConfig returns the documented defaults with built-in prices.
func DefaultConfig() Config {
	return Config{
		Prices:                 EmbeddedPrices(),
		MaxCallsPerJob:         DefaultMaxCallsPerJob,
		MaxCallCost:            PicoFromUSD(DefaultMaxCallCostUSD),
		AmplificationThreshold: DefaultAmplificationThreshold,
		JobDeadline:            DefaultJobDeadline,
		IdleAfter:              DefaultIdleAfter,
		Breaker:                BreakerConfig{Window: DefaultBreakerWindow, TripRate: DefaultBreakerTripRate, Cooldown: DefaultBreakerCooldown},
		SyncWindow:             DefaultSyncWindow,
		SyncMinJobs:            DefaultSyncMinJobs,
		SyncMinBursts:          DefaultSyncMinBursts,
		RetryAfterMinSample:    DefaultRetryAfterMinSample,
		RetryAfterRehitShare:   DefaultRetryAfterRehitShare,
	}
}

// Validate reports the first setting that cannot work, saying how to fix it.
func (c Config) Validate() error {
	var errs []error
	if c.Prices == nil {
		errs = append(errs, errors.New("no price table: use DefaultConfig or load one with --prices"))
	}
	if c.MaxCallsPerJob < 0 {
		errs = append(errs, fmt.Errorf("max calls per job is %d: use 0 to disable or a positive count", c.MaxCallsPerJob))
	}
	if c.MaxCallCost < 0 {
		errs = append(errs, fmt.Errorf("max call cost is %s: use 0 to flag none or a positive amount", USD(c.MaxCallCost.USD())))
	}
	for jt, n := range c.MaxCallsPerJobType {
		if n < 0 {
			errs = append(errs, fmt.Errorf("max calls per job for type %q is %d: use 0 to disable or a positive count", jt, n))
		}
	}
	if c.AmplificationThreshold < 2 {
		errs = append(errs, fmt.Errorf("amplification threshold is %d: it must be at least 2", c.AmplificationThreshold))
	}
	switch {
	case c.JobRetention < 0:
		errs = append(errs, fmt.Errorf("job retention is %s: use 0 to keep every job or a positive duration", c.JobRetention))
	case c.JobRetention > 0 && (c.JobRetention < MinJobRetention || c.JobRetention < c.IdleAfter):
		// Shorter, a job that only pauses between retries is retired and
		// comes back as a new job from $0: its ceiling and findings start
		// over.
		errs = append(errs, fmt.Errorf("job retention is %s: use at least %s and at least the job idle time (%s), or 0 to keep every job", c.JobRetention, MinJobRetention, c.IdleAfter))
	}
	if c.JobDeadline < 0 {
		errs = append(errs, fmt.Errorf("job deadline is %s: use 0 to disable or a positive duration", c.JobDeadline))
	}
	if c.Breaker.Window < 1 || c.Breaker.Window > 10000 {
		errs = append(errs, fmt.Errorf("breaker window is %d: use 1..10000 outcomes", c.Breaker.Window))
	}
	if c.Breaker.TripRate <= 0 || c.Breaker.TripRate > 1 {
		errs = append(errs, fmt.Errorf("breaker trip rate is %g: use a share in (0, 1]", c.Breaker.TripRate))
	}
	if c.Breaker.Cooldown <= 0 {
		errs = append(errs, fmt.Errorf("breaker cooldown is %s: use a positive duration such as 300s", c.Breaker.Cooldown))
	}
	if c.SyncWindow <= 0 || c.SyncMinJobs < 2 || c.SyncMinBursts < 1 {
		errs = append(errs, errors.New("synchronized-retry detection needs a positive window, at least 2 jobs and at least 1 burst"))
	}
	if c.RetryAfterMinSample < 1 || c.RetryAfterRehitShare <= 0 || c.RetryAfterRehitShare > 1 {
		errs = append(errs, errors.New("retry_after_too_short needs a sample of at least 1 and a share in (0, 1]"))
	}
	return errors.Join(errs...)
}

func (c Config) maxCallsFor(jobType string) int {
	if n, ok := c.MaxCallsPerJobType[jobType]; ok {
		return n
	}
	return c.MaxCallsPerJob
}
