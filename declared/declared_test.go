package declared

import (
	"errors"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/correlate"
)

// TestDeclaredFromAuditRule: of several likely paths, the one compared is
// the largest bounded one among those calling the logs' provider; a path
// calling another provider is not it, however large; an unbounded path is
// named as left out.
func TestDeclaredFromAuditRule(t *testing.T) {
	res := &audit.Result{Roots: []string{"."}, Layers: []audit.Layer{
		{Root: ".", File: "a.py", Line: 1, DefaultID: "openai-python", Library: "OpenAI Python SDK", Attempts: 3},
		{Root: ".", File: "q.py", Line: 2, DefaultID: "celery", Library: "Celery", Attempts: 100},
		{Root: ".", File: "b.ts", Line: 3, DefaultID: "anthropic-ts", Library: "Anthropic TypeScript SDK", Attempts: 3},
		{Root: ".", File: "w.ts", Line: 4, DefaultID: "p-retry", Library: "p-retry", Attempts: 3},
		{Root: ".", File: "c.go", Line: 5, DefaultID: "anthropic-go", Library: "Anthropic Go SDK", Attempts: 3},
		{Root: ".", File: "r.go", Line: 6, DefaultID: "cenkalti-backoff", Library: "cenkalti/backoff", Unbounded: true},
	}, Stacks: []audit.Stack{
		{Group: "python", Layers: []int{1, 0}, Attempts: 300},
		{Group: "javascript", Layers: []int{3, 2}, Attempts: 9},
		{Group: "go", Layers: []int{5, 4}, Unbounded: true},
	}}
	r := &correlate.Report{Models: []correlate.ModelReport{{Model: "claude-sonnet-4-6"}}}
	d, rule, others, err := FromAudit(res, r)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Product(); n != 9 || d.Layers[1].Source != "b.ts:3" || !strings.Contains(d.From, "javascript path") {
		t.Fatalf("chose %+v", d)
	}
	for _, want := range []string{"the javascript path", "2 of 3 likely call paths that call anthropic", "left out, unbounded: go (cenkalti/backoff at r.go:6: unbounded"} {
		if !strings.Contains(rule, want) {
			t.Errorf("rule %q lacks %q", rule, want)
		}
	}
	if len(others) != 2 || !strings.Contains(others[0], "100 × 3 = 300 (calls no provider of these logs)") {
		t.Errorf("others %q", others)
	}
	// A log that names no provider the code calls: every path is a
	// candidate, and the largest bounded one is compared.
	r.Models = []correlate.ModelReport{{Model: "mistral-large"}}
	if d, _, _, _ = FromAudit(res, r); !strings.Contains(d.From, "python path") {
		t.Errorf("no provider in common: %s", d.From)
	}
	if _, _, _, err := FromAudit(&audit.Result{}, r); !errors.Is(err, ErrNoAuditStack) {
		t.Errorf("no stack: %v", err)
	}
}

// TestDeclaredWatchdogSitsWhereAuditPutsIt: a declared watchdog is ranked
// by audit.Kinds like an audited one — after the agent that runs the job,
// before the wrapper around the call — whatever order the keys came in.
func TestDeclaredWatchdogSitsWhereAuditPutsIt(t *testing.T) {
	as := []correlate.AssumptionReport{
		{Key: "call-wrapper.maxAttempts", Declared: "3"},
		{Key: "stream.watchdog", Declared: "on (abort after 90s, regenerate once)"},
		{Key: "night-agent.maxRetries", Declared: "1"},
		{Key: "anthropic-sdk.maxRetries", Declared: "2"},
	}
	st, _, err := LayersFromAssumptions(as)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range st {
		names = append(names, l.Name)
	}
	want := "night-agent, stream.watchdog, call-wrapper, anthropic-sdk"
	if got := strings.Join(names, ", "); got != want {
		t.Fatalf("stack %s, want %s", got, want)
	}
	for _, c := range []struct {
		name string
		kind audit.Kind
	}{{"stall-watchdog", audit.KindWatchdog}, {"agent-watchdog", audit.KindWatchdog}, {"night-agent", audit.KindAgent}, {"retry-wrapper", audit.KindWrapper}} {
		if got := audit.Kinds[kindRank(c.name)]; got != c.kind {
			t.Errorf("kindRank(%s) is %s, want %s", c.name, got, c.kind)
		}
	}
}
