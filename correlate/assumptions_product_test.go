package correlate_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// productNight writes a night whose first line is decl and whose jobs
// (jobType, count) each make calls model calls (six 529s, then a 200 for
// seven), under one idempotency key per job and no attempt numbers: the
// calls per job are the only evidence.
func productNight(t *testing.T, decl []string, jobs map[string]int, calls int) string {
	t.Helper()
	var b strings.Builder
	for _, d := range decl {
		b.WriteString(d + "\n")
	}
	sec := 0
	for _, jt := range []string{"nightly-article", "backfill"} {
		for i := range jobs[jt] {
			id := fmt.Sprintf("%s-%d", jt, i)
			fmt.Fprintf(&b, `{"ts":"2026-03-10T02:%02d:%02d.100Z","event":"job_started","job_id":%q,"job_type":%q}`+"\n", sec/60, sec%60, id, jt)
			for c := range calls {
				status := 529
				if c == calls-1 {
					status = 200
				}
				sec++
				fmt.Fprintf(&b, `{"ts":"2026-03-10T02:%02d:%02d.000Z","event":"llm_call","job_id":%q,"job_type":%q,"idempotency_key":"idem-%s","provider":"anthropic","model":"claude-sonnet-4-5","status":%d,"latency_ms":900}`+"\n",
					sec/60, sec%60, id, jt, id, status)
			}
			sec++
		}
	}
	p := filepath.Join(t.TempDir(), "night.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// seed003Owned is seed 003's line with the owner's own attempts declared:
// scheduler 2 × watchdog 2 × wrapper 1 × SDK 1 = 4 (budget layers
// --from-assumptions prints 4).
var seed003Owned = `{"ts":"2026-03-10T02:00:00.000Z","level":"info","msg":"[assumptions] {\"anthropic-sdk.maxRetries\":0,\"claude-code.streaming-idle-watchdog\":\"default-on / 300s idle -> abort+retry\",\"scheduler.rerunsOnFailure\":1,\"retry.owner\":\"wrapper.withSingleOwnerRetry\",\"wrapper.withSingleOwnerRetry.maxAttempts\":1}"}`

// TestCallsPerJobAboveTheDeclaredProduct: issue 27 — a run whose layers
// multiply to 4 and whose jobs each make 7 calls had no violation. Each
// job is now flagged, live, at its fifth call, and the report names the
// worst job at its final count.
func TestCallsPerJobAboveTheDeclaredProduct(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), productNight(t, []string{seed003Owned}, map[string]int{"nightly-article": 3}, 7))
	f := finding(r, "assumption_violated")
	if f == nil {
		t.Fatalf("no assumption_violated: %+v", r.Findings)
	}
	if f.Count != 3 || f.JobsTotal != 3 || f.Example != "calls per job above the declared product (4): job nightly-article-0 made 7 calls of one operation (declared in: log line)" {
		t.Errorf("%d occurrence(s) in %d job(s): %q", f.Count, f.JobsTotal, f.Example)
	}
	if f.FirstAt != "2026-03-10T02:00:05Z" {
		t.Errorf("first at %s, want the fifth call's time 2026-03-10T02:00:05Z", f.FirstAt)
	}
	// Four calls each: within the product, nothing.
	r = reportOf(t, correlate.DefaultConfig(), productNight(t, []string{seed003Owned}, map[string]int{"nightly-article": 3}, 4))
	if f := finding(r, "assumption_violated"); f != nil {
		t.Errorf("4 calls per job under a product of 4: %+v", f)
	}
}

// TestManyAnsweredCallsBreakNoProduct: a job (or an agent session) that
// makes ten calls, each its own operation answered at once, or keyless
// calls each answered, is within a product of 4: the layers bound the
// tries of one call, not the calls of a job.
func TestManyAnsweredCallsBreakNoProduct(t *testing.T) {
	for _, key := range []string{`"idempotency_key":"op-%d",`, ``} {
		var b strings.Builder
		b.WriteString(seed003Owned + "\n")
		for c := range 10 {
			k := key
			if k != "" {
				k = fmt.Sprintf(key, c)
			}
			fmt.Fprintf(&b, `{"ts":"2026-03-10T02:00:%02d.000Z","event":"llm_call","job_id":"session-1","job_type":"nightly-article",%s"provider":"anthropic","model":"claude-sonnet-4-5","status":200}`+"\n", c+1, k)
		}
		p := filepath.Join(t.TempDir(), "night.jsonl")
		os.WriteFile(p, []byte(b.String()), 0o600)
		if f := finding(reportOf(t, correlate.DefaultConfig(), p), "assumption_violated"); f != nil {
			t.Errorf("keyed=%v: ten answered calls broke a product of 4: %s", key != "", f.Example)
		}
	}
}

// TestNoProductWithoutEveryLayerBounded: seed 003's line alone names a
// retry owner whose attempts it does not declare: no product, so no
// violation however many calls a job makes; nor from a retry key that
// is no count, nor from no layer at all.
func TestNoProductWithoutEveryLayerBounded(t *testing.T) {
	for name, decl := range map[string]string{
		"seed 003's line":      seed003Line,
		"a retry key no count": `[assumptions] {"anthropic-sdk.maxRetries":"lots"}`,
		"an unread retry knob": `[assumptions] {"anthropic-sdk.maxRetries":0,"claude-code.CLAUDE_CODE_MAX_RETRIES":"15"}`,
		"no layer":             `[assumptions] {"region":"eu-west-1"}`,
	} {
		r := reportOf(t, correlate.DefaultConfig(), productNight(t, []string{decl}, map[string]int{"nightly-article": 2}, 7))
		if f := finding(r, "assumption_violated"); f != nil && strings.Contains(f.Example, "product") {
			t.Errorf("%s: %s", name, f.Example)
		}
	}
}

// TestDeclaredProductPerJobType: a job type's own declaration replaces
// the run's key in its product (backfill re-runs 3 times: 8), the other
// type keeps the run's 4.
func TestDeclaredProductPerJobType(t *testing.T) {
	typed := `{"ts":"2026-03-10T02:00:00.050Z","event":"assumptions","job_type":"backfill","assumptions":{"scheduler.rerunsOnFailure":3}}`
	r := reportOf(t, correlate.DefaultConfig(), productNight(t, []string{seed003Owned, typed}, map[string]int{"nightly-article": 1, "backfill": 2}, 7))
	f := finding(r, "assumption_violated")
	if f == nil || f.JobsTotal != 1 || len(f.Jobs) != 1 || f.Jobs[0] != "nightly-article-0" {
		t.Fatalf("want only the nightly-article job past its product of 4: %+v", f)
	}
	r = reportOf(t, correlate.DefaultConfig(), productNight(t, []string{seed003Owned, typed}, map[string]int{"backfill": 1}, 9))
	if f := finding(r, "assumption_violated"); f == nil || f.Example != "calls per job of type backfill above the declared product (8): job backfill-0 made 9 calls of one operation (declared in: log line)" {
		t.Errorf("backfill past its own product: %+v", f)
	}
}

// TestAssumedLayersSaturate: 1,000 attempts in each of 64 layers is no
// overflow: the product saturates.
func TestAssumedLayersSaturate(t *testing.T) {
	var kv [][2]string
	for i := range 64 {
		kv = append(kv, [2]string{fmt.Sprintf("layer%02d.maxAttempts", i), "1000"})
	}
	l, err := correlate.ReadAssumedLayers(kv)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := l.Product(); !ok || p != math.MaxInt64 {
		t.Errorf("product %d %v, want saturated", p, ok)
	}
}

// TestAChangeWithinTheRunAndAgainstTheBaselineIsOne: issue 27 — a night
// whose line went from 0 to 2, against a baseline of 0, counted "2
// occurrence(s)": the same change twice. Against a baseline of 1 there
// are two changes (1 → 0 before the night, 0 → 2 in it).
func TestAChangeWithinTheRunAndAgainstTheBaselineIsOne(t *testing.T) {
	p := filepath.Join(t.TempDir(), "night.log")
	os.WriteFile(p, []byte(`2026-03-11 02:00:00,001 - nightly - INFO - [assumptions] {"anthropic-sdk.maxRetries":0}
2026-03-11 02:00:04,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"
2026-03-11 03:00:00,001 - nightly - INFO - [assumptions] {"anthropic-sdk.maxRetries":2}
2026-03-11 03:00:04,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"
`), 0o600)
	cfg := correlate.DefaultConfig()
	for baseline, want := range map[string]int64{"0": 1, "1": 2, "2": 1} {
		r := reportOf(t, cfg, p)
		correlate.CompareAssumptions(r, []correlate.AssumptionReport{{Key: "anthropic-sdk.maxRetries", Declared: baseline}}, cfg.SeverityOf)
		f := finding(r, "assumption_changed")
		if f == nil || f.Count != want {
			t.Errorf("baseline %s: %+v, want %d occurrence(s)", baseline, f, want)
		}
	}
}
