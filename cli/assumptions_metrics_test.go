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
