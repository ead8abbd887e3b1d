package cli

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/burnrate-dev/burnrate/alerts"
)

// TestMetricsAssumptions: /metrics carries the run's assumptions log as an
// info metric and its open findings by kind, so an alert can be written on
// a premise the traffic broke; keys from a hostile log stay bounded and
// the scrape whole.
func TestMetricsAssumptions(t *testing.T) {
	_, body := scrapeReplay(t, []string{assumeFixtures + "violated-records-2026-07-01.log"}, alerts.Config{}, "r1")
	for _, want := range []string{
		`burnrate_assumption_info{declared="0",derived="",job_type="",key="anthropic-sdk.maxRetries",observed="2",replica="r1",run_id=`,
		`burnrate_assumption_findings{kind="assumption_violated",replica="r1",run_id=`,
		`burnrate_assumption_findings{kind="assumption_changed",replica="r1",run_id=`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if !regexp.MustCompile(`burnrate_assumption_findings\{kind="assumption_violated",[^}]*\} 2\n`).Match(body) {
		t.Errorf("assumption_violated is not the report's 2 (two retries past the declared 0):\n%s", grepLines(body, "burnrate_assumption"))
	}
	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}

	// 500 keys sharing a 300-byte prefix: one series per key at most 100,
	// labels cut at 128 bytes, and the cut ones never a duplicate series
	// (which fails the whole scrape).
	dir := t.TempDir()
	var b strings.Builder
	prefix := strings.Repeat("k", 300)
	for i := range 500 {
		fmt.Fprintf(&b, `[assumptions] {"%s%d.maxRetries":%d, "v\u202e%d":"%s"}`+"\n", prefix, i, i, i, strings.Repeat("x", 1000))
	}
	b.WriteString(`{"ts":"2026-07-01T01:00:00Z","event":"llm_call","job_id":"j","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":1}` + "\n")
	os.WriteFile(dir+"/hostile.log", []byte(b.String()), 0o600)
	_, body = scrapeReplay(t, []string{dir + "/hostile.log"}, alerts.Config{}, "r1")
	n := 0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "burnrate_assumption_info{") {
			continue
		}
		n++
		for _, v := range regexp.MustCompile(`="([^"]*)"`).FindAllStringSubmatch(line, -1) {
			if len(v[1]) > 128 || strings.ContainsRune(v[1], '\u202e') {
				t.Fatalf("label value not bounded or not escaped: %q", v[1])
			}
		}
	}
	if n == 0 || n > 100 {
		t.Errorf("%d assumption series, want 1–100", n)
	}
}

func grepLines(b []byte, sub string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsAssumptionFindingsSkipAmbiguousRows: job-x broke the log's
// declared anthropic-sdk.maxRetries 0 (its retry 1 and 2), and a later line
// of job-y named the request ID of its retry 1: job-x's own finding is
// withdrawn (an ambiguous row, its 3 flags). The gauge counts the open
// finding — the run's: the SDK's own retry counts broke the declaration,
// whoever's job the request was — not the withdrawn ones.
func TestMetricsAssumptionFindingsSkipAmbiguousRows(t *testing.T) {
	call := func(sec int, job string, status, retry int, req string) string {
		return fmt.Sprintf(`{"ts":"2026-07-01T01:00:%02d.000Z","event":"llm_call","job_id":%q,"model":"claude-sonnet-4-5","status":%d,"request_id":%q,"headers":{"x-stainless-retry-count":"%d"},"input_tokens":100,"output_tokens":10}`, sec, job, status, req, retry)
	}
	log := strings.Join([]string{`[assumptions] {"anthropic-sdk.maxRetries":0}`,
		call(1, "job-x", 529, 0, "req_000001xx"), call(3, "job-x", 529, 1, "req_000002xx"), call(5, "job-x", 200, 2, "req_000003xx"),
		call(7, "job-y", 200, 0, "req_000002xx")}, "\n") + "\n"
	p := t.TempDir() + "/night.log"
	if err := os.WriteFile(p, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	_, body := scrapeReplay(t, []string{p}, alerts.Config{}, "r1")
	if !regexp.MustCompile(`burnrate_assumption_findings\{kind="assumption_violated",[^}]*\} 1\n`).Match(body) {
		t.Errorf("assumption_violated gauge is not the 1 open finding:\n%s", grepLines(body, "burnrate_assumption_findings"))
	}
}
