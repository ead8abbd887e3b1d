package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/budget"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
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

// layersFromAssumptions turns declared (else derived) keys into a stack:
// NAME.maxRetries (retries: attempts = n+1), NAME.maxAttempts or
// NAME.attempts (attempts), NAME.rerunsOnFailure (reruns: attempts =
// n+1), and a key naming a watchdog whose value turns it on (abort and
// regenerate: two attempts). notes say what was read, and what could not be.
func layersFromAssumptions(as []correlate.AssumptionReport) (budget.Stack, []string, error) {
	var got []assumedLayer
	var notes []string
	seen := map[string]bool{}
	for _, a := range as {
		value, from := a.Declared, "declared"
		if value == "" {
			value, from = a.Derived, "derived"
		}
		if value == "" || a.JobType != "" {
			continue
		}
		name, knob, ok := cutLast(a.Key)
		if !ok || seen[name] {
			continue
		}
		attempts := 0
		switch k := strings.ToLower(knob); {
		case k == "maxretries" || k == "max_retries" || k == "retries" || k == "rerunsonfailure" || k == "reruns":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n >= 1000 {
				// Left out, the worst case would be understated: refused.
				return nil, notes, fmt.Errorf("%s = %s: not a count of retries (0 to 999): fix the declaration, or give the layer with --layer", display.Text(a.Key), display.Text(value))
			}
			attempts = n + 1
		case k == "maxattempts" || k == "max_attempts" || k == "attempts":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > 1000 {
				return nil, notes, fmt.Errorf("%s = %s: not a count of attempts (1 to 1,000): fix the declaration, or give the layer with --layer", display.Text(a.Key), display.Text(value))
			}
			attempts = n
		case strings.Contains(k, "watchdog"):
			v := strings.ToLower(value)
			if strings.HasPrefix(v, "on") || strings.HasPrefix(v, "default-on") || strings.Contains(v, "retry") && !strings.HasPrefix(v, "off") {
				attempts, name = 2, a.Key
			}
		}
		if attempts == 0 && a.Key == "retry.owner" {
			notes = append(notes, fmt.Sprintf("retry.owner = %s: the owner's own attempts are not declared; declare %s.maxAttempts to count it", display.Text(value), display.Text(value)))
			continue
		}
		if attempts == 0 {
			if strings.Contains(strings.ToLower(a.Key), "retr") || strings.Contains(strings.ToLower(a.Key), "attempt") {
				notes = append(notes, fmt.Sprintf("%s = %s: not a count of retries or attempts; not a layer", display.Text(a.Key), display.Text(value)))
			}
			continue
		}
		seen[name] = true
		l := budget.Layer{Name: display.Text(name), Attempts: attempts, Timeout: defaultLayerTimeout, Backoff: budget.Backoff{Kind: budget.BackoffNone, Label: "none"}}
		rank := len(audit.Kinds) - 1
		watchdog := strings.Contains(strings.ToLower(knob), "watchdog")
		if d, ok := defaultFor(name); ok && !watchdog {
			if d.Timeout > 0 {
				l.Timeout = d.Timeout
			}
			if b, err := budget.ParseBackoff(d.BudgetBackoff); err == nil && d.BudgetBackoff != "" {
				l.Backoff = b
			}
			rank = slices.Index(audit.Kinds, d.Kind)
		} else {
			rank = kindRank(name)
		}
		if m := durationIn.FindStringSubmatch(value); m != nil && watchdog {
			// The watchdog aborts after this long without a token: the
			// longest a stalled attempt lasts.
			if d, err := time.ParseDuration(m[1] + m[2]); err == nil && d > 0 {
				l.Timeout = d
			}
		}
		got = append(got, assumedLayer{layer: l, rank: rank, from: fmt.Sprintf("%s = %s (%s)", display.Text(a.Key), display.Text(value), from)})
	}
	if len(got) == 0 {
		return nil, notes, fmt.Errorf("the report's assumptions declare no retry layer (no NAME.maxRetries, NAME.maxAttempts or NAME.rerunsOnFailure): declare them (README: Assumptions), or give --layer")
	}
	slices.SortStableFunc(got, func(a, b assumedLayer) int { return a.rank - b.rank })
	var st budget.Stack
	for _, g := range got {
		st = append(st, g.layer)
		notes = append(notes, g.from)
	}
	return st, notes, nil
}

// cutLast splits "anthropic-sdk.maxRetries" into its layer and knob.
func cutLast(key string) (name, knob string, ok bool) {
	i := strings.LastIndexByte(key, '.')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// defaultFor finds the defaults row of a declared layer: its ID
// (openai-go), or a provider's SDK (anthropic-sdk: the first row of
// anthropic).
func defaultFor(name string) (audit.Default, bool) {
	if d, ok := audit.Lookup(name); ok {
		return d, true
	}
	if p, ok := strings.CutSuffix(name, "-sdk"); ok {
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

// kindRank places a layer no row names by the words in its name.
func kindRank(name string) int {
	n := strings.ToLower(name)
	for _, w := range []struct {
		word string
		kind audit.Kind
	}{{"scheduler", audit.KindQueue}, {"queue", audit.KindQueue}, {"cron", audit.KindQueue}, {"job", audit.KindQueue},
		{"watchdog", audit.KindAgent}, {"agent", audit.KindAgent}, {"wrapper", audit.KindWrapper}, {"retry", audit.KindWrapper},
		{"framework", audit.KindFramework}, {"sdk", audit.KindSDK}} {
		if strings.Contains(n, w.word) {
			return slices.Index(audit.Kinds, w.kind)
		}
	}
	return slices.Index(audit.Kinds, audit.KindWrapper)
}

// readAssumptionsReport reads a report's assumptions (report --format json).
func readAssumptionsReport(path string) ([]correlate.AssumptionReport, error) {
	b, err := readReportFile(path)
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
