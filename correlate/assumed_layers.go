package correlate

import (
	"math"
	"strings"

	"github.com/burnrate-dev/burnrate/layers"
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

// Errors of a retry knob whose value is no count (layers' own).
var (
	ErrNotRetryCount   = layers.ErrNotRetryCount
	ErrNotAttemptCount = layers.ErrNotAttemptCount
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
		name, knob, ok := layers.CutKey(key)
		if value == "" || !ok || seen[name] {
			continue
		}
		k := layers.ParseKnob(knob)
		attempts, err := layers.Attempts(k, value)
		if err != nil {
			return out, &AssumedLayerError{Key: key, Value: value, Err: err}
		}
		watchdog := k == layers.KnobWatchdog
		if watchdog && attempts > 0 {
			name = key
		}
		if attempts == 0 && key == layers.Owner {
			out.Owner = value
			continue
		}
		if attempts == 0 {
			if !watchdog && layers.AboutRetries(key) {
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
