package correlate_test

import (
	"testing"
)

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
