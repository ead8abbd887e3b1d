package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestADroppedCacheCountIsAFloorInEveryReader: R7b-3 made a token count
// that does not read a floor — in the JSON lines reader, for input and
// output. A cache count that did not read still gave an exact price
// ("cache_read_tokens":"" → an exact $0.35), and other readers lost the
// call whole (a Bedrock or Claude Code record with "n/a" or 1e999 in its
// usage: skipped, $0). In every reader the field is now dropped and
// counted, the call kept, and its spend a floor (counted unpriced, ≥).
func TestADroppedCacheCountIsAFloorInEveryReader(t *testing.T) {
	cc, err := os.ReadFile("../../sample-logs/claude-code/projects/-home-dev-api/9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cc), `"cache_creation_input_tokens":31000,`) {
		t.Fatal("the Claude Code fixture moved")
	}
	for _, c := range []struct {
		name, file, body string
		calls            int64
	}{
		{"json lines", "app.jsonl", `{"ts":"2026-06-02T00:00:04Z","event":"llm_call","job_id":"j4","model":"gpt-4o","status":200,"input_tokens":100000,"output_tokens":10000,"cache_read_tokens":""}` + "\n", 1},
		{"claude code", "9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f.jsonl", strings.Replace(string(cc), `"cache_creation_input_tokens":31000,`, `"cache_creation_input_tokens":1e999,`, 1), 12},
		{"bedrock", "batch.jsonl.out", `{"recordId":"r1","modelInput":{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[]},"modelOutput":{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-sonnet-20240620","content":[],"stop_reason":"end_turn","usage":{"input_tokens":100000,"output_tokens":10000,"cache_read_input_tokens":"n/a"}}}` + "\n", 1},
		{"otlp", "traces.json", `{"resourceSpans":[{"resource":{"attributes":[{"key":"job.id","value":{"stringValue":"j1"}}]},"scopeSpans":[{"scope":{"name":"m"},"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000001","name":"chat claude-sonnet-4-5","kind":3,"startTimeUnixNano":"1796180270000000000","endTimeUnixNano":"1796180271000000000","attributes":[{"key":"gen_ai.system","value":{"stringValue":"anthropic"}},{"key":"gen_ai.request.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"10000"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"1000"}},{"key":"gen_ai.usage.cache_read.input_tokens","value":{"stringValue":"n/a"}}]}]}]}]}` + "\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), c.file)
			os.WriteFile(p, []byte(c.body), 0o600)
			out, err := run(t, "report", "--format", "json", p)
			if err != nil && err != errCritical {
				t.Fatal(err)
			}
			var r struct {
				Source struct {
					Skipped map[string]int64 `json:"skipped_by_reason"`
					Dropped map[string]int64 `json:"fields_dropped"`
				} `json:"source"`
				Totals struct {
					Attempts int64 `json:"attempts"`
					Unpriced int64 `json:"unpriced_attempts"`
				} `json:"totals"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if r.Totals.Attempts != c.calls || len(r.Source.Skipped) != 0 {
				t.Errorf("attempts %d, skipped %v: want %d, none (the call kept)", r.Totals.Attempts, r.Source.Skipped, c.calls)
			}
			if r.Totals.Unpriced != 1 || r.Source.Dropped["wrong_type_field"] != 1 {
				t.Errorf("unpriced %d, dropped %v: want 1 unpriced (its spend a floor) and the field counted", r.Totals.Unpriced, r.Source.Dropped)
			}
			md, _ := run(t, "report", p)
			if !strings.Contains(md, "| Spend | ≥$") {
				t.Errorf("the headline spend is not a floor:\n%s", md)
			}
		})
	}
}
