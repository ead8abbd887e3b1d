package correlate

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// The layers a run's declarations set, read one way for both their users:
// `budget layers --from-assumptions` (the worst case before tonight's run)
// and the live check that no job makes more calls than they multiply to
// (assumption_violated, "calls per job above the declared product").

// AssumedLayer is one retry layer read from an assumption.
type AssumedLayer struct {
	Key, Value string
	// Name is the layer: the key without its knob ("anthropic-sdk" of
	// anthropic-sdk.maxRetries), the whole key for a watchdog.
	Name     string
	Knob     string
	Attempts int // the most attempts it makes of one call
	Watchdog bool
}

// AssumedLayers is what a set of assumptions says about the retry layers.
type AssumedLayers struct {
	Layers []AssumedLayer
	// Owner is the declared retry.owner, OwnerCounted whether a layer
	// read here is it (its own attempts declared, e.g.
	// wrapper.withSingleOwnerRetry.maxAttempts).
	Owner        string
	OwnerCounted bool
	// Unread are keys about retries or attempts that are no known knob:
	// layers whose bound is not read.
	Unread []AssumedLayer
}

// Errors of a retry knob whose value is no count; never left out, which
// would understate the worst case.
var (
	ErrNotRetryCount   = errors.New("not a count of retries (0 to 999)")
	ErrNotAttemptCount = errors.New("not a count of attempts (1 to 1,000)")
)

// ReadAssumedLayers reads key → value pairs, in the order given (the
// first of two keys naming one layer wins): NAME.maxRetries, retries,
// rerunsOnFailure or reruns (n retries: n+1 attempts), NAME.maxAttempts
// or attempts (n attempts), and a key naming a watchdog whose value turns
// it on (abort and regenerate: 2 attempts). A retry knob whose value is
// no count is an error naming the key (AssumedLayerError).
func ReadAssumedLayers(kv [][2]string) (AssumedLayers, error) {
	var out AssumedLayers
	seen := map[string]bool{}
	for _, p := range kv {
		key, value := p[0], p[1]
		name, knob, ok := cutKnob(key)
		if value == "" || !ok || seen[name] {
			continue
		}
		attempts, watchdog := 0, false
		switch k := strings.ToLower(knob); {
		case k == "maxretries" || k == "max_retries" || k == "retries" || k == "rerunsonfailure" || k == "reruns":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n >= 1000 {
				return out, &AssumedLayerError{Key: key, Value: value, Err: ErrNotRetryCount}
			}
			attempts = n + 1
		case k == "maxattempts" || k == "max_attempts" || k == "attempts":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > 1000 {
				return out, &AssumedLayerError{Key: key, Value: value, Err: ErrNotAttemptCount}
			}
			attempts = n
		case strings.Contains(k, "watchdog"):
			watchdog = true
			v := strings.ToLower(value)
			if strings.HasPrefix(v, "on") || strings.HasPrefix(v, "default-on") || strings.Contains(v, "retry") && !strings.HasPrefix(v, "off") {
				attempts, name = 2, key
			}
		}
		if attempts == 0 && key == "retry.owner" {
			out.Owner = value
			continue
		}
		if attempts == 0 {
			if l := strings.ToLower(key); !watchdog && (strings.Contains(l, "retr") || strings.Contains(l, "attempt")) {
				out.Unread = append(out.Unread, AssumedLayer{Key: key, Value: value, Name: name, Knob: knob})
			}
			continue
		}
		seen[name] = true
		out.Layers = append(out.Layers, AssumedLayer{Key: key, Value: value, Name: name, Knob: knob, Attempts: attempts, Watchdog: watchdog})
	}
	for _, l := range out.Layers {
		if out.Owner != "" && (l.Name == out.Owner || strings.HasPrefix(out.Owner, l.Name+".")) {
			out.OwnerCounted = true
		}
	}
	return out, nil
}

// Product is the most model calls one job can make as declared: the
// layers' attempts multiplied. ok is false when the declarations bound
// no product: no layer, a key about retries that is no known knob, or a
// retry.owner whose own attempts no key gives (it may retry any number
// of times). It saturates: past MaxInt64 no job can go.
func (l AssumedLayers) Product() (int64, bool) {
	if len(l.Layers) == 0 || len(l.Unread) > 0 || l.Owner != "" && !l.OwnerCounted {
		return 0, false
	}
	p := int64(1)
	for _, x := range l.Layers {
		if p > math.MaxInt64/int64(x.Attempts) {
			return math.MaxInt64, true
		}
		p *= int64(x.Attempts)
	}
	return p, true
}

// AssumedLayerError is a retry knob whose value is no count.
type AssumedLayerError struct {
	Key, Value string
	Err        error
}

func (e *AssumedLayerError) Error() string { return e.Key + " = " + e.Value + ": " + e.Err.Error() }
func (e *AssumedLayerError) Unwrap() error { return e.Err }

// cutKnob splits "anthropic-sdk.maxRetries" into its layer and knob.
func cutKnob(key string) (name, knob string, ok bool) {
	i := strings.LastIndexByte(key, '.')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}
