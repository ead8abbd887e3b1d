package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBillDimensionsThroughTheBinary: issue 35 — a log whose records
// carry the bill's other dimensions (Anthropic's usage.speed and
// usage.inference_geo, OpenAI's response service_tier) is priced along
// each from the embedded table, the one the table has no figure for is
// priced at the standard rate and said, and a record's own cost is billed
// and shown beside the table's price of its tokens.
func TestBillDimensionsThroughTheBinary(t *testing.T) {
	lines := []string{
		// claude-opus-4-6 fast: 6× ($5/$25 per million) → $0.105.
		`{"ts":"2026-09-01T10:00:00Z","job_id":"fast","model":"claude-opus-4-6","status":200,"usage":{"input_tokens":1000,"output_tokens":500,"speed":"fast"}}`,
		// US-only: 1.1× → $0.01925.
		`{"ts":"2026-09-01T10:00:01Z","job_id":"us","model":"claude-opus-4-6","status":200,"usage":{"input_tokens":1000,"output_tokens":500,"inference_geo":"us"}}`,
		// claude-sonnet-4-5 has no fast multiplier in the table: standard, said.
		`{"ts":"2026-09-01T10:00:02Z","job_id":"nofast","model":"claude-sonnet-4-5","status":200,"usage":{"input_tokens":1000,"output_tokens":500,"speed":"fast"}}`,
		// gpt-5.4 flex ($1.25/$7.50) → $0.005; priority ($5/$30) → $0.02.
		`{"ts":"2026-09-01T10:00:03Z","job_id":"flex","model":"gpt-5.4","status":200,"service_tier":"flex","usage":{"prompt_tokens":1000,"completion_tokens":500}}`,
		`{"ts":"2026-09-01T10:00:04Z","job_id":"prio","model":"gpt-5.4","status":200,"service_tier":"priority","usage":{"prompt_tokens":1000,"completion_tokens":500}}`,
		// A record with its own cost: billed as recorded ($0.50), the
		// table's $0.0105 beside it.
		`{"ts":"2026-09-01T10:00:05Z","job_id":"rec","model":"claude-sonnet-4-5","status":200,"cost_usd":0.5,"usage":{"input_tokens":1000,"output_tokens":500}}`,
	}
	p := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "report", "--format", "json", p)
	if err != nil && err != errCritical {
		t.Fatalf("report: %v\n%s", err, out)
	}
	var r struct {
		Totals struct {
			SpendUSD float64 `json:"spend_usd"`
		} `json:"totals"`
		Pricing struct {
			DimensionCalls map[string]int64 `json:"dimension_calls"`
			AssumedCalls   map[string]int64 `json:"assumed_calls"`
			RecordedCost   *struct {
				Calls       int64   `json:"calls"`
				RecordedUSD float64 `json:"recorded_usd"`
				TableUSD    float64 `json:"table_usd"`
			} `json:"recorded_cost"`
		} `json:"pricing"`
		Jobs []struct {
			JobID       string   `json:"job_id"`
			SpendUSD    float64  `json:"spend_usd"`
			RecordedUSD *float64 `json:"recorded_usd"`
			TableUSD    *float64 `json:"table_usd"`
			Findings    []string `json:"findings"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%.2000s", err, out)
	}
	want := map[string]float64{"fast": 0.105, "us": 0.01925, "nofast": 0.0105, "flex": 0.005, "prio": 0.02, "rec": 0.5}
	for _, j := range r.Jobs {
		if w, ok := want[j.JobID]; !ok || math.Abs(j.SpendUSD-w) > 1e-12 {
			t.Errorf("job %s spend $%v, want $%v", j.JobID, j.SpendUSD, w)
		}
		if j.JobID == "rec" {
			if j.RecordedUSD == nil || j.TableUSD == nil || *j.RecordedUSD != 0.5 || math.Abs(*j.TableUSD-0.0105) > 1e-12 {
				t.Errorf("rec: recorded %v table %v", j.RecordedUSD, j.TableUSD)
			}
			if !strings.Contains(strings.Join(j.Findings, ","), "recorded_cost_differs") {
				t.Errorf("rec: findings %v, want recorded_cost_differs", j.Findings)
			}
		}
	}
	if math.Abs(r.Totals.SpendUSD-0.65975) > 1e-9 {
		t.Errorf("spend $%v, want $0.65975", r.Totals.SpendUSD)
	}
	if d := r.Pricing.DimensionCalls; d["fast"] != 2 || d["inference_geo_us"] != 1 || d["service_tier_flex"] != 1 || d["service_tier_priority"] != 1 {
		t.Errorf("dimension calls %v", d)
	}
	if a := r.Pricing.AssumedCalls; len(a) != 1 {
		t.Errorf("assumed calls %v, want the one fast call without a multiplier", a)
	}
	if rc := r.Pricing.RecordedCost; rc == nil || rc.Calls != 1 {
		t.Errorf("recorded cost %+v", rc)
	}
	md, err := run(t, "report", p)
	if err != nil && err != errCritical {
		t.Fatalf("report: %v", err)
	}
	for _, s := range []string{"Calls priced by assumption", "fast mode: the table has no fast multiplier", "## Producers' own cost", "| rec | $0.5000 |", "1 × fast mode"} {
		if !strings.Contains(md, s) {
			t.Errorf("the Markdown report does not say %q", s)
		}
	}
}
