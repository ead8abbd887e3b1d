package declared

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/layers"
)

// Derived names each layer an audit (of report --audit's roots,
// scanned as `burnrate audit` does) found in the assumptions log's words: a provider SDK's
// retries as PROVIDER-sdk.maxRetries (the key runs declare, seed 003's
// anthropic-sdk.maxRetries), every other layer as ID.maxAttempts. Two
// layers of one key keep the larger (the worst case).
func Derived(res *audit.Result) map[string]correlate.DerivedAssumption {
	out := map[string]correlate.DerivedAssumption{}
	best := map[string]int{}
	for _, l := range res.Layers {
		if l.Unbounded || l.Attempts < 1 {
			continue
		}
		key, n := layers.Key(l.DefaultID, layers.MaxAttempts), l.Attempts
		if l.Kind == audit.KindSDK {
			if p, _, ok := strings.Cut(l.DefaultID, "-"); ok {
				key, n = layers.Key(layers.SDKLayer(p), layers.MaxRetries), l.Attempts-1
			}
		}
		if old, seen := best[key]; seen && old >= n {
			continue
		}
		best[key] = n
		how := "default"
		if l.Configured {
			how = "configured"
		}
		from := fmt.Sprintf("audit: %s %s at %s:%d", how, l.Setting, l.File, l.Line)
		if l.Version != "" {
			from += ", version " + l.Version
		}
		out[key] = correlate.DerivedAssumption{Value: strconv.Itoa(n), From: display.Text(from)}
	}
	return out
}
