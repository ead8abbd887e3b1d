package correlate_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentsClaudePrintJSONAloneEndsTheRun: `claude -p --output-format
// json` writes the result record alone — the last line of the same run's
// stream-json output (../shared/realdata/round2/claude-headless, read
// there). With no assistant record before it, the run never got an
// outcome: 0 calls, the job still running, a 529 give-up billed $0.0176
// and not failed. The result stands for the run's last call: 200, or the
// status its "API Error: 529 {…}" text gives; spend as before
// (modelUsage), Claude Code's own figure beside it.
func TestAgentsClaudePrintJSONAloneEndsTheRun(t *testing.T) {
	dir := filepath.Join(realdata2, "claude-headless")
	for _, tc := range []struct {
		file    string
		status  int16
		outcome string
		spend   float64
	}{
		{"vecsum-2026-01-14-12-37-51-659_req_fix_02_database-schema.stream.jsonl", 200, "succeeded", 0.15360395},
		{"vecsum-2026-01-14-12-41-05-288_req_fix_02_llm-integration.stream.jsonl", 500, "failed", 0.38886945},
		{"vecsum-2026-01-14-12-47-23-313_req_fix_05_logging.stream.jsonl", 529, "failed", 0.0176027},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var result string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, `{"type":"result"`) {
					result = l
				}
			}
			if result == "" {
				t.Fatal("the run's result record was not found")
			}
			p := filepath.Join(t.TempDir(), "run.json")
			os.WriteFile(p, []byte(result+"\n"), 0o644) // what --output-format json prints
			_, r := readAgentFiles(t, p)
			if formatsRead[p] != "claude-code" || len(r.Jobs) != 1 {
				t.Fatalf("read as %s, %d jobs; want claude-code, the one session", formatsRead[p], len(r.Jobs))
			}
			j := r.Jobs[0]
			if j.Attempts != 1 || j.LastStatus != tc.status || j.Outcome != tc.outcome || math.Abs(j.SpendUSD-tc.spend) > 1e-7 {
				t.Errorf("%d calls, last status %d, %s, $%.8f; want 1, %d, %s, $%.8f", j.Attempts, j.LastStatus, j.Outcome, j.SpendUSD, tc.status, tc.outcome, tc.spend)
			}
			if tc.status != 200 && j.WastedUSD != j.SpendUSD {
				t.Errorf("a run that ended in an API error wasted $%v of $%v", j.WastedUSD, j.SpendUSD)
			}
			if j.AgentReportedUSD == nil {
				t.Error("Claude Code's own figure is gone")
			}
			for _, f := range r.Findings {
				t.Errorf("raised %s: %s", f.Kind, f.Example)
			}
		})
	}
}

// TestAgentsClaudePrintErrorWithoutStatus: an is_error result whose text
// is no API error (claude -p's error_max_turns, written with
// "subtype":"error_max_turns" as in the same result shape) ends the run as
// failed, with no status invented.
func TestAgentsClaudePrintErrorWithoutStatus(t *testing.T) {
	r := applyClaudeLines(t, []string{`{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":1000,"num_turns":3,"session_id":"9a1b2c3d-0000-4000-8000-000000000001","total_cost_usd":0.0021052,"usage":{"input_tokens":2,"output_tokens":122},"modelUsage":{"claude-haiku-4-5-20251001":{"inputTokens":2,"outputTokens":122,"cacheReadInputTokens":14932,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.0021052}},"uuid":"7ff388b2-c9bd-4144-938d-5d69ed9ac9a7"}`})
	if len(r.Jobs) != 1 || r.Jobs[0].Attempts != 1 || r.Jobs[0].LastStatus != 0 || r.Jobs[0].Outcome != "failed" {
		t.Fatalf("jobs %+v: want one failed run, its last status unknown (0)", r.Jobs)
	}
}
