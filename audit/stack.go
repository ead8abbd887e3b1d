package audit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/budget"
)

// assumedTimeout stands in for a per-attempt timeout the library leaves
// unset, so the wall clock can be folded; the TOML output says so.
const assumedTimeout = 600 * time.Second

// buildStacks groups layers into likely call paths. A static audit cannot
// see which handler calls which client, so the grouping is a stated
// heuristic: one path per language of the code (JavaScript, Python, Go,
// Ruby), holding, for each kind, its worst layer — the kinds nest as Kinds
// orders them (client → proxy → queue → agent → wrapper → framework → SDK);
// configuration layers (Kubernetes Jobs, nginx) join every code path of
// their root; a coding agent's settings are a path of their own.
// `--format toml` writes the worst path for the user to correct and feed to
// `budget layers --file`.
func buildStacks(res *Result) {
	type key struct{ root, group string }
	groups := map[key][]int{}
	var order []key
	config := map[string][]int{}
	for i, l := range res.Layers {
		if l.group == "config" {
			config[l.Root] = append(config[l.Root], i)
			continue
		}
		k := key{l.Root, l.group}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	codeRoots := map[string]bool{}
	for _, k := range order {
		if k.group != "agent" {
			codeRoots[k.root] = true
		}
	}
	for _, root := range res.Roots { // in the order given: deterministic output
		if _, ok := config[root]; ok && !codeRoots[root] {
			k := key{root, "config"}
			order = append(order, k)
			groups[k] = nil
		}
	}
	for _, k := range order {
		members := groups[k]
		if k.group != "agent" {
			members = append(slices.Clone(members), config[k.root]...)
		}
		st := Stack{Group: k.group}
		for _, kind := range Kinds {
			best := -1
			for _, i := range members {
				l := res.Layers[i]
				if l.Kind != kind {
					continue
				}
				if best < 0 || worse(l, res.Layers[best]) {
					best = i
				}
			}
			if best >= 0 {
				st.Layers = append(st.Layers, best)
			}
		}
		if len(st.Layers) == 0 {
			continue
		}
		st.Layers, st.Note = wrapTargets(st.Layers, members, res.Layers)
		fold(&st, res.Layers, res.AttemptTime)
		res.Stacks = append(res.Stacks, st)
	}
}

// wrapTargets: a wrapper that names the model it wraps (LangChain's
// model.with_retry(…) on a chat model bound in the same file) multiplies
// that model, not the worst SDK of the path: the wrapped layer takes its
// kind's place (or follows the wrapper when both are frameworks). A
// framework wrapper whose model is not known keeps the worst SDK, and the
// path says so.
func wrapTargets(path, members []int, layers []Layer) ([]int, string) {
	for pi, i := range path {
		l := layers[i]
		if l.DefaultID != "langchain-with-retry" {
			continue
		}
		target := -1
		if l.wraps > 0 {
			for _, j := range members {
				if m := layers[j]; j != i && m.File == l.File && m.Line == l.wraps {
					target = j
					break
				}
			}
		}
		if target < 0 {
			return path, fmt.Sprintf("the model %s (%s:%d) wraps is not known here: the path assumes the worst SDK of the %s code", l.Library, l.File, l.Line, l.group)
		}
		t := layers[target]
		out := slices.Clone(path[:pi+1])
		rest := path[pi+1:]
		placed := false
		if t.Kind == l.Kind {
			out, placed = append(out, target), true
		}
		for _, j := range rest {
			switch {
			case j == target:
				// already placed, or placed now
			case layers[j].Kind == t.Kind && !placed:
				out, placed = append(out, target), true // the wrapped model replaces the worst of its kind
			case layers[j].Kind == t.Kind:
				// the worst of the wrapped model's kind is not on this path
			default:
				out = append(out, j)
			}
		}
		if !placed {
			out = append(out, target)
		}
		return out, fmt.Sprintf("%s (%s:%d) wraps %s (%s:%d): the path multiplies that model", l.Library, l.File, l.Line, t.Library, t.File, t.Line)
	}
	return path, ""
}

// worse: unbounded beats any count, then more attempts, then a configured
// value over a default (what the code says over what it inherits).
func worse(a, b Layer) bool {
	switch {
	case a.Unbounded != b.Unbounded:
		return a.Unbounded
	case a.Attempts != b.Attempts:
		return a.Attempts > b.Attempts
	}
	return a.Configured && !b.Configured
}

// fold multiplies the attempts and, through budget.Stack (the code behind
// `budget layers`), folds the wall clock from the inside out.
func fold(st *Stack, layers []Layer, attemptS float64) {
	var parts []string
	product := 1
	var bs budget.Stack
	for _, i := range st.Layers {
		l := layers[i]
		if l.Unbounded {
			st.Unbounded = true
			parts = append(parts, "∞")
			continue
		}
		parts = append(parts, strconv.Itoa(l.Attempts))
		if product <= 1_000_000_000/max(l.Attempts, 1) {
			product *= l.Attempts
		} else {
			product = 1_000_000_000 // saturate: never wrap
		}
		bl, err := budgetLayer(l)
		if err == nil {
			bs = append(bs, bl)
		}
	}
	if st.Unbounded {
		st.Product = strings.Join(parts, " × ") + " = unbounded"
		return
	}
	st.Attempts = product
	st.Product = strings.Join(parts, " × ") + " = " + strconv.Itoa(product)
	if len(bs) == len(st.Layers) && bs.Validate() == nil {
		st.WallClockS = bs.WorstCaseWallClock().Seconds()
		if attemptS > 0 {
			fast := slices.Clone(bs)
			fast[len(fast)-1].Timeout = time.Duration(attemptS * float64(time.Second))
			st.FailFastS = fast.WorstCaseWallClock().Seconds()
		}
	}
}

// budgetLayer is the layer as `budget layers` takes it.
func budgetLayer(l Layer) (budget.Layer, error) {
	timeout := assumedTimeout
	if d, ok := Lookup(l.DefaultID); ok && d.Timeout > 0 {
		timeout = d.Timeout
	}
	backoff := l.Backoff
	if backoff == "" {
		backoff = "none"
	}
	return budget.ParseLayer(fmt.Sprintf("%s:attempts=%d,timeout=%s,backoff=%s", l.DefaultID, l.Attempts, timeout, backoff))
}

// writeFindings: critical for an unbounded layer and for a layer that
// retries a non-retryable 4xx; warning for a path over the threshold or
// with two layers retrying the same failure domain; info for a default
// nobody set. Each says what to change and where.
func writeFindings(res *Result) {
	// A layer that retries every error is critical when another layer of
	// its path retries too (the 400 is multiplied); alone, it is the
	// path's one owner and only needs its errors classified.
	shared := map[int]bool{}
	for _, st := range res.Stacks {
		var retrying []int
		for _, i := range st.Layers {
			if res.Layers[i].Unbounded || res.Layers[i].Attempts > 1 {
				retrying = append(retrying, i)
			}
		}
		if len(retrying) > 1 {
			for _, i := range retrying {
				shared[i] = true
			}
		}
	}
	for li, l := range res.Layers {
		at := func(sev Severity, kind FindingKind, msg string) {
			res.Findings = append(res.Findings, Finding{Severity: sev, Kind: kind, Root: l.Root, File: l.File, Line: l.Line, Message: msg, Stack: -1})
		}
		switch {
		case l.Unbounded:
			at(SeverityCritical, FindingUnbounded, fmt.Sprintf("%s retries without an attempt limit (%s): set a limit and an absolute deadline, or set it to one attempt and let one layer own retries", l.Library, l.Setting))
		case l.Retries4xx && l.Attempts > 1 && !shared[li]:
			at(SeverityWarning, FindingRetries4xx, fmt.Sprintf("%s retries every error, a 400 included, %d times (%s): have it retry only 408, 429, 5xx and connection errors — a 400 fails identically each time", l.Library, l.Attempts, l.Setting))
		case l.Retries4xx && l.Attempts > 1:
			at(SeverityCritical, FindingRetries4xx, fmt.Sprintf("%s retries every error, a 400 included, %d times (%s): a bad request fails identically each time — retry only 408, 429, 5xx and connection errors, or set it to one attempt", l.Library, l.Attempts, l.Setting))
		}
		if !l.Configured && (l.Unbounded || l.Attempts > 1) {
			at(SeverityInfo, FindingUnsetDefault, fmt.Sprintf("%s retries by default (%s) and nothing here sets it: the one you never set — set %s explicitly (0 retries if another layer owns them)", l.Library, attemptsText(l), knobOf(l)))
		}
	}
	for si, st := range res.Stacks {
		inner := res.Layers[st.Layers[len(st.Layers)-1]]
		at := func(sev Severity, kind FindingKind, msg string) {
			res.Findings = append(res.Findings, Finding{Severity: sev, Kind: kind, Root: inner.Root, File: inner.File, Line: inner.Line, Message: msg, Stack: si})
		}
		if !st.Unbounded && st.Attempts > res.Threshold {
			owner, rest := ownerOf(st, res.Layers)
			advice := fmt.Sprintf("keep retries in %s only, set %s to one attempt, and bound the path with an absolute deadline", owner, strings.Join(rest, ", "))
			if len(rest) == 0 {
				advice = fmt.Sprintf("lower %s's attempts, and bound the path with an absolute deadline", owner)
			}
			at(SeverityWarning, FindingOverBudget, fmt.Sprintf("this call is retried %s times (%s path, over %d): %s", st.Product, st.Group, res.Threshold, advice))
		}
		var domain []string
		for _, i := range st.Layers {
			l := res.Layers[i]
			if (l.Kind == KindWrapper || l.Kind == KindFramework || l.Kind == KindSDK) && (l.Unbounded || l.Attempts > 1) {
				domain = append(domain, fmt.Sprintf("%s (%s:%d)", l.Library, l.File, l.Line))
			}
		}
		if len(domain) > 1 {
			at(SeverityWarning, FindingSameDomain, fmt.Sprintf("%d layers retry the same API failures: %s — one retry layer per failure domain; set the inner ones to 0 retries", len(domain), strings.Join(domain, ", ")))
		}
	}
}

// ownerOf names the layer to keep — the outermost that retries, as
// budget.Stack.Silence chooses: it can hold the idempotency key — and the
// layers to silence, with where each is set.
func ownerOf(st Stack, layers []Layer) (string, []string) {
	owner := ""
	var rest []string
	for _, i := range st.Layers {
		l := layers[i]
		if !l.Unbounded && l.Attempts <= 1 {
			continue
		}
		where := fmt.Sprintf("%s (%s:%d)", l.Library, l.File, l.Line)
		if owner == "" {
			owner = where
			continue
		}
		rest = append(rest, where)
	}
	return owner, rest
}

func knobOf(l Layer) string {
	if d, ok := Lookup(l.DefaultID); ok {
		return d.Knob
	}
	return "its limit"
}
