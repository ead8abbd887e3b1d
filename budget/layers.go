// Package budget is the retry-budget calculator: seed 003's layer stack
// (multiply the attempts, fold the wall clock from the inside out) and
// seed 004's probability model (success odds, expected and worst-case
// time, deadline risk, and their inversions). Pure functions only.
package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// BackoffKind names a backoff schedule.
type BackoffKind string

const (
	BackoffNone   BackoffKind = "none"
	BackoffFixed  BackoffKind = "fixed"  // D before every retry
	BackoffExp    BackoffKind = "exp"    // D·2^i before the i-th retry
	BackoffLinear BackoffKind = "linear" // D + S·i
)

// Backoff is the wait before the i-th retry (i from 0).
type Backoff struct {
	Kind  BackoffKind
	Base  time.Duration
	Step  time.Duration // linear only
	Label string        // as written
}

// Delay is the wait before retry i.
func (b Backoff) Delay(i int) time.Duration {
	switch b.Kind {
	case BackoffFixed:
		return b.Base
	case BackoffExp:
		sh := min(max(i, 0), 40)
		if b.Base > math.MaxInt64>>sh {
			return math.MaxInt64 // saturated: a shift past int64 wrapped negative
		}
		return b.Base << sh
	case BackoffLinear:
		return SatAddDur(b.Base, SatMulDur(b.Step, i))
	}
	return 0
}

// SatAddDur adds durations (each at least 0) without wrapping: a sum past
// what a time.Duration holds (about 292 years) stays there, so a worst
// case can read "more than any wall clock", never a negative one.
func SatAddDur(a, b time.Duration) time.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// SatMulDur multiplies a duration by a count, saturating as SatAddDur.
func SatMulDur(d time.Duration, n int) time.Duration {
	if d <= 0 || n <= 0 {
		return 0
	}
	if d > time.Duration(math.MaxInt64/int64(n)) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}

// ParseBackoff reads "none", "fixed:D", "exp:D" or "linear:D+S"; durations
// are Go syntax or plain seconds.
func ParseBackoff(s string) (Backoff, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	b := Backoff{Kind: BackoffKind(kind), Label: s}
	var err error
	switch b.Kind {
	case BackoffNone:
		if arg != "" {
			return b, fmt.Errorf("backoff %q: none takes no value", s)
		}
	case BackoffFixed, BackoffExp:
		b.Base, err = ParseSeconds(arg)
	case BackoffLinear:
		d, st, ok := strings.Cut(arg, "+")
		if !ok {
			return b, fmt.Errorf("backoff %q: linear needs D+S, e.g. linear:1s+1s", s)
		}
		if b.Base, err = ParseSeconds(d); err == nil {
			b.Step, err = ParseSeconds(st)
		}
	default:
		return b, fmt.Errorf("backoff %q: use none, fixed:D, exp:D or linear:D+S", s)
	}
	if err != nil {
		return b, fmt.Errorf("backoff %q: %w", s, err)
	}
	return b, nil
}

// ParseSeconds accepts Go syntax ("1s", "250ms") or plain seconds ("2.5").
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < 1e9 {
		return time.Duration(f * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("invalid duration %q: use 1s, 250ms, 2m or plain seconds", s)
}

// Layer is one retry layer: attempts including the first, how long one
// attempt may take (0: no timeout), and the wait between attempts.
type Layer struct {
	Name     string
	Attempts int
	Timeout  time.Duration
	Backoff  Backoff
}

// ParseLayer reads "sdk:attempts=3,timeout=120s,backoff=linear:1s+1s".
func ParseLayer(s string) (Layer, error) {
	name, spec, ok := strings.Cut(s, ":")
	l := Layer{Name: strings.TrimSpace(name), Backoff: Backoff{Kind: BackoffNone, Label: "none"}}
	if !ok || l.Name == "" {
		return l, fmt.Errorf("layer %q: use NAME:attempts=N,timeout=D,backoff=B", s)
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return l, fmt.Errorf("layer %q: %q is not key=value", s, kv)
		}
		var err error
		switch strings.TrimSpace(k) {
		case "attempts":
			l.Attempts, err = strconv.Atoi(strings.TrimSpace(v))
		case "timeout":
			l.Timeout, err = ParseSeconds(v)
		case "backoff":
			l.Backoff, err = ParseBackoff(v)
		default:
			err = fmt.Errorf("unknown key %q (use attempts, timeout, backoff)", k)
		}
		if err != nil {
			return l, fmt.Errorf("layer %q: %w", s, err)
		}
	}
	return l, l.Validate()
}

// Validate reports a layer that cannot be computed. A layer without a
// timeout is accepted (issue 36: budget layers refused it even when only
// the product was wanted): its attempts multiply as any layer's, and the
// wall clock is unbounded unless a layer outside it has a timeout (Stack.WallClock).
func (l Layer) Validate() error {
	switch {
	case l.Attempts < 1 || l.Attempts > 1000:
		return fmt.Errorf("layer %s: attempts %d: use 1..1000 (attempts include the first)", l.Name, l.Attempts)
	case l.Timeout < 0:
		return fmt.Errorf("layer %s: timeout %s: use a positive per-attempt timeout, or none", l.Name, l.Timeout)
	}
	return nil
}

// Stack is a list of layers, outermost first.
type Stack []Layer

// WorstCaseAttempts is the product of the layers' attempts: retry layers
// multiply, they don't add.
func (s Stack) WorstCaseAttempts() int {
	n := 1
	for _, l := range s {
		n = SatMul(n, l.Attempts)
	}
	return n
}

// SatMul multiplies attempt counts without wrapping: forty layers of 999
// attempts are "more than any count", never 0 or a negative number.
func SatMul(a, b int) int {
	if a <= 0 || b <= 0 {
		return a * b
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// WorstCaseWallClock is WallClock's duration: math.MaxInt64 (about 292
// years, "more than any wall clock") when no timeout bounds the stack.
func (s Stack) WorstCaseWallClock() time.Duration {
	d, ok := s.WallClock()
	if !ok {
		return math.MaxInt64
	}
	return d
}

// WallClock folds from the inside out exactly as seed 003's
// worstCaseWallClockSec does: one outer attempt costs min(inner total,
// its own timeout), plus the backoffs between its attempts. A layer
// without a timeout costs what is inside it; bounded is false when no
// timeout bounds the innermost attempt's path (the innermost layer has
// none and no layer outside it has one either). Sums saturate
// (SatAddDur): never negative, however many layers and attempts.
func (s Stack) WallClock() (d time.Duration, bounded bool) {
	var inner time.Duration
	innerBounded := false
	for i := len(s) - 1; i >= 0; i-- {
		l := s[i]
		var per time.Duration
		switch {
		case innerBounded && l.Timeout > 0:
			per = min(inner, l.Timeout)
		case innerBounded:
			per = inner
		case l.Timeout > 0:
			per, innerBounded = l.Timeout, true
		}
		if !innerBounded {
			continue // unbounded so far: an outer timeout may bound it
		}
		var total time.Duration
		for a := range l.Attempts {
			total = SatAddDur(total, per)
			if a < l.Attempts-1 {
				total = SatAddDur(total, l.Backoff.Delay(a))
			}
		}
		inner = total
	}
	return inner, innerBounded
}

// Silence returns the layers to set to one attempt so that only one layer
// owns retries: seed 003 keeps the outermost layer that retries (it can
// hold an idempotency key for the unit of business work).
func (s Stack) Silence() (owner string, silence []string) {
	for _, l := range s {
		if l.Attempts <= 1 {
			continue
		}
		if owner == "" {
			owner = l.Name
			continue
		}
		silence = append(silence, l.Name)
	}
	return owner, silence
}

// Validate checks every layer.
func (s Stack) Validate() error {
	if len(s) == 0 {
		return errors.New("no layers: give --layer NAME:attempts=N,timeout=D,backoff=B (outermost first) or --file stack.toml")
	}
	var errs []error
	for _, l := range s {
		errs = append(errs, l.Validate())
	}
	return errors.Join(errs...)
}
