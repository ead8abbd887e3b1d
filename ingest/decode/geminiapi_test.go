package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestGeminiAPIThinkingIsOutput: issue 35 — a Gemini API response logged
// whole (generateContent's JSON, or the Python SDK's to_dict()) read as
// no call: usageMetadata was not read, and its thinking tokens, billed as
// output but reported apart from the candidates, would go unbilled.
// Written here from Gemini's documented usageMetadata.
func TestGeminiAPIThinkingIsOutput(t *testing.T) {
	for _, line := range []string{
		`{"ts":"2026-05-01T10:00:00Z","job_id":"j1","modelVersion":"gemini-2.5-flash","usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":80,"thoughtsTokenCount":400,"cachedContentTokenCount":1000,"toolUsePromptTokenCount":50,"totalTokenCount":1730}}`,
		`{"ts":"2026-05-01T10:00:00Z","job_id":"j1","model_version":"x","model":"gemini-2.5-flash","usage_metadata":{"prompt_token_count":1200,"candidates_token_count":80,"thoughts_token_count":400,"cached_content_token_count":1000,"tool_use_prompt_token_count":50}}`,
	} {
		var ev ingest.Event
		if r := NewParser().ParseLine([]byte(line), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %v", line, r)
		}
		if ev.Kind != ingest.KindLLMCall || ev.Model != "gemini-2.5-flash" || ev.InputTokens != 250 || ev.CacheReadTokens != 1000 || ev.OutputTokens != 480 {
			t.Errorf("%s: model %q fresh/cached/out %d/%d/%d, want 250/1000/480", line, ev.Model, ev.InputTokens, ev.CacheReadTokens, ev.OutputTokens)
		}
	}
}

// TestUsageServiceTierBatch: issue 35 — Anthropic's usage.service_tier
// "batch" is billed at batch rates; "standard" and "priority" are not
// batch.
func TestUsageServiceTierBatch(t *testing.T) {
	for tier, batch := range map[string]bool{"batch": true, "standard": false, "priority": false} {
		var ev ingest.Event
		line := `{"ts":"2026-05-01T10:00:00Z","model":"claude-haiku-4-5","usage":{"input_tokens":10,"output_tokens":5,"service_tier":"` + tier + `"}}`
		if r := NewParser().ParseLine([]byte(line), &ev); r != ingest.Accepted || ev.Batch != batch || ev.InputTokens != 10 {
			t.Errorf("%s: %v batch %v in %d", tier, r, ev.Batch, ev.InputTokens)
		}
	}
}
