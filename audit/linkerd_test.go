package audit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestLinkerdRetries: a ServiceProfile's retryable route is bounded only
// by its budget's reserve (minRetriesPerSecond 2 × ttl 5s = 10 retries: 11
// attempts); the 2.16 annotations retry once unless a limit says (3: 4
// attempts, and 400-404 is a client error sent again; "0" reads as unset:
// still 2); a Service without retry annotations, and an Istio
// DestinationRule's outlier detection and connection-pool maxRetries, are
// not layers. The mesh is innermost on the path: 2 × 11 = 22.
func TestLinkerdRetries(t *testing.T) {
	r := scan(t, "testdata/linkerd")
	sameLayers(t, r, []want{
		{"deploy/routes.yaml:7", "linkerd-retry-annotations", 2, false},
		{"deploy/routes.yaml:22", "linkerd-retry-annotations", 4, true},
		{"deploy/routes.yaml:42", "linkerd-retry-annotations", 2, true},
		{"deploy/serviceprofile.yaml:19", "linkerd-serviceprofile", 11, true},
		{"src/summarize.ts:5", "openai-node", 2, true},
	})
	byLine := map[int]Layer{}
	for _, l := range r.Layers {
		byLine[l.Line] = l
	}
	if !byLine[22].Retries4xx || byLine[7].Retries4xx || !strings.Contains(byLine[42].Setting, "read as unset") {
		t.Errorf("layers %+v", r.Layers)
	}
	if len(r.Stacks) != 1 || r.Stacks[0].Product != "2 × 11 = 22" {
		t.Errorf("stacks %+v", r.Stacks)
	}
}

// TestLinkerdProfileDefaults: a ServiceProfile with a retryable route and
// no retryBudget takes Linkerd's default budget (10/s × 10 s: 101
// attempts); one with no retryable route is no layer.
func TestLinkerdProfileDefaults(t *testing.T) {
	dir := t.TempDir()
	sp := "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: api.default.svc.cluster.local\nspec:\n  routes:\n    - name: POST /v1/messages\n      condition:\n        method: POST\n        pathRegex: /v1/messages\n"
	write(t, filepath.Join(dir, "a.yaml"), []byte(sp+"      isRetryable: true\n"))
	write(t, filepath.Join(dir, "b.yaml"), []byte(sp+"      isRetryable: false\n"))
	write(t, filepath.Join(dir, "c.yaml"), []byte(sp+"      isRetryable: true\n  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: lots\n    ttl: 10s\n"))
	r := scan(t, dir)
	sameLayers(t, r, []want{
		{"a.yaml:11", "linkerd-serviceprofile", 101, false},
		{"c.yaml:11", "linkerd-serviceprofile", 101, true},
	})
	if r.Layers[1].Confidence != ConfidenceLow {
		t.Errorf("an unreadable budget is the default at low confidence: %+v", r.Layers[1])
	}
}

// TestLinkerdHostileValues: an annotation or budget value carrying
// terminal escapes and bidi controls reaches no output raw; a budget of
// absurd size saturates (the ttl held to the proxy's 60 s), a negative or
// unparsable one is the default at low confidence, and an alias where a
// value belongs is not followed.
func TestLinkerdHostileValues(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "svc.yaml"), []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations:\n    retry.linkerd.io/http: \"5xx\\e[2J\\u202e\"\n    retry.linkerd.io/limit: \"99999999999\"\n"))
	write(t, filepath.Join(dir, "sp.yaml"), []byte("apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: a\nspec:\n  routes:\n    - name: r\n      isRetryable: true\n  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: 1000000\n    ttl: 100000h\n---\napiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata:\n  name: b\nspec:\n  routes:\n    - name: r\n      isRetryable: true\n  retryBudget:\n    retryRatio: 0.2\n    minRetriesPerSecond: -3\n    ttl: 10s\n"))
	r := scan(t, dir)
	got := map[string]Layer{}
	for _, l := range r.Layers {
		got[l.File+":"+itoa(l.Line)] = l
	}
	// 60,000,001 tries is over rt5 F4's 1,000: unbounded, the count kept
	// in the setting (R6-9's rule, for every layer).
	if l := got["sp.yaml:10"]; !l.Unbounded || !strings.Contains(l.Setting, "60000001 tries") {
		t.Errorf("a huge budget: %+v", l)
	}
	if l := got["sp.yaml:21"]; l.Attempts != 101 || l.Confidence != ConfidenceLow {
		t.Errorf("a negative budget: %+v", l)
	}
	if l := got["svc.yaml:7"]; l.Attempts != 2 || l.Confidence != ConfidenceLow {
		t.Errorf("an unreadable limit: %+v", l)
	}
	var md, text, js, sarif bytes.Buffer
	for _, err := range []error{r.WriteMarkdown(&md), r.WriteText(&text), r.WriteJSON(&js), r.WriteSARIF(&sarif, "t")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for what, out := range map[string]string{"markdown": md.String(), "text": text.String(), "json": js.String(), "sarif": sarif.String()} {
		if u := testutil.TerminalUnsafe(out); u != "" {
			t.Errorf("%s carries %q raw", what, u)
		}
	}
}
