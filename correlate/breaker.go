package correlate

import "fmt"

// BreakerState is a circuit breaker's position.
type BreakerState uint8

const (
	BreakerStateClosed BreakerState = iota
	BreakerStateOpen
	BreakerStateHalfOpen
)

var breakerNames = [...]string{"closed", "open", "half_open"}

func (s BreakerState) String() string {
	if int(s) < len(breakerNames) {
		return breakerNames[s]
	}
	return "unknown"
}

// MarshalText writes the state's name, so JSON carries "half_open".
func (s BreakerState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a state's name back (a previous report).
func (s *BreakerState) UnmarshalText(b []byte) error {
	for i, n := range breakerNames {
		if n == string(b) {
			*s = BreakerState(i)
			return nil
		}
	}
	return fmt.Errorf("unknown breaker state %q: use closed, open or half_open", b)
}

// breaker is a shadow of seed 001's ToolBreaker: it computes what a
// breaker would have done, on event time, and blocks nothing.
type breaker struct {
	key       string
	outcomes  []bool // ring of "failed" over the last Window outcomes
	head, n   int
	failures  int
	state     BreakerState
	openUntil int64
	trips     int32
	tripRate  float64 // the failure rate that last opened it
	byProbe   bool    // last opened by a failed half-open probe
	// blocked counts calls that arrived while the breaker was open: the
	// calls a real breaker would have refused. blockedWaste is the spend of
	// those of them that failed: what the breaker would have saved.
	blocked      int64
	blockedWaste Pico
}

func newBreaker(key string, window int) *breaker {
	return &breaker{key: key, outcomes: make([]bool, window)}
}

// record feeds one outcome at event time ts and reports whether it tripped
// the breaker open, or arrived while it was open.
func (b *breaker) record(cfg BreakerConfig, ts int64, failed bool, cost Pico) (tripped, blocked bool) {
	if b.state == BreakerStateOpen {
		if ts < b.openUntil {
			b.blocked++
			if failed {
				b.blockedWaste = b.blockedWaste.Add(cost)
			}
			return false, true
		}
		b.state = BreakerStateHalfOpen
	}
	if b.state == BreakerStateHalfOpen {
		// The first outcome after the cooldown is the probe.
		if failed {
			b.open(cfg, ts)
			return true, false
		}
		b.state = BreakerStateClosed
		b.reset()
		return false, false
	}
	if b.n == len(b.outcomes) {
		if b.outcomes[b.head] {
			b.failures--
		}
	} else {
		b.n++
	}
	b.outcomes[b.head] = failed
	if failed {
		b.failures++
	}
	b.head = (b.head + 1) % len(b.outcomes)
	if b.n == len(b.outcomes) && float64(b.failures) >= cfg.TripRate*float64(b.n) {
		b.open(cfg, ts)
		return true, false
	}
	return false, false
}

func (b *breaker) open(cfg BreakerConfig, ts int64) {
	// The window resets below: keep what tripped it. A failed probe
	// reopens with an empty window; say so rather than "0%".
	b.byProbe = b.state == BreakerStateHalfOpen
	if !b.byProbe {
		b.tripRate = b.failureRate()
	}
	b.state = BreakerStateOpen
	b.openUntil = ts + int64(cfg.Cooldown)
	b.trips++
	b.reset()
}

func (b *breaker) reset() {
	b.head, b.n, b.failures = 0, 0, 0
	clear(b.outcomes)
}

// stateAt is the state as of time now: an open breaker whose cooldown has
// passed is half-open, waiting for its probe.
func (b *breaker) stateAt(now int64) BreakerState {
	if b.state == BreakerStateOpen && now >= b.openUntil {
		return BreakerStateHalfOpen
	}
	return b.state
}

// failureRate is the share of failures in the current window.
func (b *breaker) failureRate() float64 {
	if b.n == 0 {
		return 0
	}
	return float64(b.failures) / float64(b.n)
}
