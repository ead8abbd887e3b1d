package declared

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/budget"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/layers"
	"github.com/burnrate-dev/burnrate/report"
)

// budget layers --from-assumptions REPORT.json: seed 003's number "before
// tonight's run", from the same record the report keeps — the declared
// (else derived) layers, multiplied.

// assumedLayer is one layer read from the assumptions, with where it sits.
type assumedLayer struct {
	layer budget.Layer
	rank  int    // audit.Kinds order: outermost first
	from  string // the key and value it was read from
}

var durationIn = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(ms|s|m|h)\b`)

// defaultLayerTimeout is the per-attempt timeout assumed where neither the
// declaration nor the defaults table gives one (as audit assumes).
const defaultLayerTimeout = 600 * time.Second

// LayersFromAssumptions turns declared (else derived) keys into a stack:
// NAME.maxRetries (retries: attempts = n+1), NAME.maxAttempts or
// NAME.attempts (attempts), NAME.rerunsOnFailure (reruns: attempts =
// n+1), and a key naming a watchdog whose value turns it on (abort and
// regenerate: two attempts). notes say what was read, and what could not be.
func LayersFromAssumptions(as []correlate.AssumptionReport) (budget.Stack, []string, error) {
	var got []assumedLayer
	var notes []string
	// The run-wide keys, declared else derived, in the report's order:
	// read by the same correlate.ReadAssumedLayers the live check of
	// calls per job multiplies.
	var kv [][2]string
	from := map[string]string{}
	for _, a := range as {
		value, src := a.Declared, "declared"
		if value == "" {
			value, src = a.Derived, "derived"
		}
		if value == "" || a.JobType != "" {
			continue
		}
		kv = append(kv, [2]string{a.Key, value})
		from[a.Key] = src
	}
	read, err := correlate.ReadAssumedLayers(kv)
	var bad *correlate.AssumedLayerError
	if errors.As(err, &bad) {
		// Left out, the worst case would be understated: refused.
		return nil, notes, fmt.Errorf("%s = %s: %v: fix the declaration, or give the layer with --layer", display.Text(bad.Key), display.Text(bad.Value), bad.Err)
	} else if err != nil {
		return nil, notes, err
	}
	if read.Owner != "" && !read.OwnerCounted {
		notes = append(notes, fmt.Sprintf("retry.owner = %s: the owner's own attempts are not declared; declare %s.maxAttempts to count it", display.Text(read.Owner), display.Text(read.Owner)))
	}
	for _, u := range read.Unread {
		notes = append(notes, fmt.Sprintf("%s = %s: not a count of retries or attempts; not a layer", display.Text(u.Key), display.Text(u.Value)))
	}
	for _, r := range read.Layers {
		l := budget.Layer{Name: display.Text(r.Name), Attempts: r.Attempts, Timeout: defaultLayerTimeout, Backoff: budget.Backoff{Kind: budget.BackoffNone, Label: "none"}}
		rank := len(audit.Kinds) - 1
		if d, ok := defaultFor(r.Name); ok && !r.Watchdog {
			if d.Timeout > 0 {
				l.Timeout = d.Timeout
			}
			if b, err := budget.ParseBackoff(d.BudgetBackoff); err == nil && d.BudgetBackoff != "" {
				l.Backoff = b
			}
			rank = slices.Index(audit.Kinds, d.Kind)
		} else if r.Watchdog {
			rank = slices.Index(audit.Kinds, audit.KindWatchdog)
		} else {
			rank = kindRank(r.Name)
		}
		if m := durationIn.FindStringSubmatch(r.Value); m != nil && r.Watchdog {
			// The watchdog aborts after this long without a token: the
			// longest a stalled attempt lasts.
			if d, err := time.ParseDuration(m[1] + m[2]); err == nil && d > 0 {
				l.Timeout = d
			}
		}
		got = append(got, assumedLayer{layer: l, rank: rank, from: fmt.Sprintf("%s = %s (%s)", display.Text(r.Key), display.Text(r.Value), from[r.Key])})
	}
	if len(got) == 0 {
		return nil, notes, fmt.Errorf("the report's assumptions declare no retry layer (no NAME.maxRetries, NAME.maxAttempts or NAME.rerunsOnFailure): declare them (docs/assumptions.md), or give --layer")
	}
	slices.SortStableFunc(got, func(a, b assumedLayer) int { return a.rank - b.rank })
	var st budget.Stack
	for _, g := range got {
		st = append(st, g.layer)
		notes = append(notes, g.from)
	}
	return st, notes, nil
}

// defaultFor finds the defaults row of a declared layer: its ID
// (openai-go), or a provider's SDK (anthropic-sdk: the first row of
// anthropic).
func defaultFor(name string) (audit.Default, bool) {
	if d, ok := audit.Lookup(name); ok {
		return d, true
	}
	if p, ok := layers.ProviderOfSDKLayer(name); ok {
		for _, d := range audit.Defaults {
			if strings.HasPrefix(d.ID, p+"-") && d.Kind == audit.KindSDK {
				return d, true
			}
		}
	}
	if strings.HasPrefix(name, "claude-code") {
		return audit.Lookup("claude-code")
	}
	return audit.Default{}, false
}

// kindRank places a layer no row names by the words in its name, in
// audit.Kinds' order (one vocabulary with audit: a watchdog sits between
// the agent that runs the job and the wrapper around the call).
func kindRank(name string) int {
	n := strings.ToLower(name)
	for _, w := range []struct {
		word string
		kind audit.Kind
	}{{"scheduler", audit.KindQueue}, {"queue", audit.KindQueue}, {"cron", audit.KindQueue}, {"job", audit.KindQueue},
		{"watchdog", audit.KindWatchdog}, {"agent", audit.KindAgent}, {"wrapper", audit.KindWrapper}, {"retry", audit.KindWrapper},
		{"framework", audit.KindFramework}, {"sdk", audit.KindSDK}} {
		if strings.Contains(n, w.word) {
			return slices.Index(audit.Kinds, w.kind)
		}
	}
	return slices.Index(audit.Kinds, audit.KindWrapper)
}

// ReadAssumptionsReport reads a report's assumptions (report --format json).
func ReadAssumptionsReport(path string) ([]correlate.AssumptionReport, error) {
	b, err := report.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--from-assumptions: %w", err)
	}
	var r struct {
		Source      *json.RawMessage             `json:"source"`
		Assumptions []correlate.AssumptionReport `json:"assumptions"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Source == nil {
		return nil, fmt.Errorf("--from-assumptions %s: not a burnrate report JSON (write one with burnrate report --format json)", path)
	}
	return r.Assumptions, nil
}
