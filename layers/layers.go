// Package layers is the one vocabulary of retry layers: the keys that
// declare how often a layer tries (NAME.maxRetries, NAME.maxAttempts,
// reruns, watchdogs) and the providers that layers, hosts and logs name.
// The decoders that read declarations, the OTLP mapper that observes an
// SDK, correlate's check of calls per job, audit's derived declarations
// and budget's layers all read these tables, so one spelling means one
// thing everywhere. It imports nothing of ours: every package may use it.
package layers

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Knob is what a declared key's last word says about its layer.
type Knob int

const (
	KnobNone     Knob = iota // not about how often the layer tries
	KnobRetries              // n retries: n+1 attempts (maxRetries, retries, rerunsOnFailure, reruns)
	KnobAttempts             // n attempts (maxAttempts, attempts)
	KnobWatchdog             // a watchdog that, when on, aborts and regenerates once: 2 attempts
)

// The knobs burnrate writes: a derived declaration, a key it observes.
const (
	MaxRetries  = "maxRetries"
	MaxAttempts = "maxAttempts"
	// Owner is the key naming the one layer meant to retry.
	Owner = "retry.owner"
)

// knobs are the spellings of each counting knob, lower-cased.
var knobs = map[string]Knob{
	"maxretries": KnobRetries, "max_retries": KnobRetries, "retries": KnobRetries,
	"rerunsonfailure": KnobRetries, "reruns": KnobRetries,
	"maxattempts": KnobAttempts, "max_attempts": KnobAttempts, "attempts": KnobAttempts,
}

// ParseKnob reads a key's last word.
func ParseKnob(knob string) Knob {
	k := strings.ToLower(knob)
	if n, ok := knobs[k]; ok {
		return n
	}
	if strings.Contains(k, "watchdog") {
		return KnobWatchdog
	}
	return KnobNone
}

// Key is layer's key for a knob burnrate writes: Key("anthropic-sdk",
// MaxRetries) is anthropic-sdk.maxRetries.
func Key(layer, knob string) string { return layer + "." + knob }

// CutKey splits "anthropic-sdk.maxRetries" into its layer and knob.
func CutKey(key string) (layer, knob string, ok bool) {
	i := strings.LastIndexByte(key, '.')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// LayerOf is the layer whose count key declares: "anthropic-sdk" of
// anthropic-sdk.maxRetries and of anthropic-sdk.max_attempts; ok is false
// for any other key.
func LayerOf(key string, k Knob) (layer string, ok bool) {
	l, knob, ok := CutKey(key)
	if !ok || ParseKnob(knob) != k {
		return "", false
	}
	return l, true
}

// Errors of a counting knob whose value is no count; never left out,
// which would understate the worst case.
var (
	ErrNotRetryCount   = errors.New("not a count of retries (0 to 999)")
	ErrNotAttemptCount = errors.New("not a count of attempts (1 to 1,000)")
)

// Attempts is the most attempts of one call a knob's value allows: n+1
// for n retries, n for n attempts, 2 for a watchdog whose value turns it
// on, 0 for a watchdog that is off or a knob that counts nothing.
func Attempts(k Knob, value string) (int, error) {
	switch k {
	case KnobRetries:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n >= 1000 {
			return 0, ErrNotRetryCount
		}
		return n + 1, nil
	case KnobAttempts:
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 1000 {
			return 0, ErrNotAttemptCount
		}
		return n, nil
	case KnobWatchdog:
		v := strings.ToLower(value)
		if strings.HasPrefix(v, "on") || strings.HasPrefix(v, "default-on") || strings.Contains(v, "retry") && !strings.HasPrefix(v, "off") {
			return 2, nil
		}
	}
	return 0, nil
}

// AboutRetries is a key that speaks of retries or attempts: one that is
// no known knob leaves its layer's bound unread.
func AboutRetries(key string) bool {
	l := strings.ToLower(key)
	return strings.Contains(l, "retr") || strings.Contains(l, "attempt")
}

// DeclaresCount: declared gives how many attempts layer may make.
func DeclaresCount(declared map[string]string, layer string) bool {
	_, a := declared[Key(layer, MaxAttempts)]
	_, r := declared[Key(layer, MaxRetries)]
	return a || r
}

// SDKSuffix ends the name of a provider's client SDK layer.
const SDKSuffix = "-sdk"

// SDKLayer is the layer of a provider's client SDK: "anthropic-sdk".
func SDKLayer(provider string) string { return provider + SDKSuffix }

// ProviderOfSDKLayer is the provider of "anthropic-sdk"; ok is false for
// a layer that is no provider's SDK.
func ProviderOfSDKLayer(layer string) (string, bool) { return strings.CutSuffix(layer, SDKSuffix) }

// CutRetriesKey is the layer of NAME.maxRetries: the key burnrate writes
// a layer's observed retries under, and the one declaration it holds
// them to.
func CutRetriesKey(key string) (layer string, ok bool) {
	return strings.CutSuffix(key, "."+MaxRetries)
}

// Product is the calls one unit of work can make through layers of these
// attempts, outermost first: their product, saturating at MaxInt (a
// product that wrapped would read as a small, safe stack); 0 for none.
func Product(attempts []int) int {
	if len(attempts) == 0 {
		return 0
	}
	p := 1
	for _, a := range attempts {
		if a > 0 && p > math.MaxInt/a {
			return math.MaxInt
		}
		p *= a
	}
	return p
}
