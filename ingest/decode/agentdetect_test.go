package decode

import "testing"

// TestAgentKeysAloneDoNotMakeAnAgentsLine: issue 35's red team — app
// records carrying an agent's key set were detected as the agent's and
// lost; each row's own example line is still its format.
func TestAgentKeysAloneDoNotMakeAnAgentsLine(t *testing.T) {
	for _, l := range []string{
		`{"type":"llm_call","id":"evt-1","parentId":null,"timestamp":"2026-12-07T01:00:00Z","data":{"step":1},"job_id":"j1","model":"gpt-4o","status":200,"input_tokens":100000,"output_tokens":1000}`,
		`{"type":"message","timestamp":"2026-12-07T01:00:00Z","message":{"text":"model call ok","level":"info"},"job_id":"j1","model":"gpt-4o","status":200,"input_tokens":100000,"output_tokens":1000}`,
		`{"type":"llm_call","timestamp":"2026-12-07T01:00:00Z","sessionID":"s1","part":"intro","job_id":"j1","model":"gpt-4o","status":200,"input_tokens":100000,"output_tokens":1000}`,
		`{"ts":"2026-12-07T01:00:00Z","event":"llm_call","job_id":"j1","attempt":1,"model":"gpt-4o","provider":"openai","status":529,"promptTokens":1000,"generatedTokens":0}`,
	} {
		if f := Detect([][]byte{[]byte(l)}).Format; f != FormatJSONL {
			t.Errorf("%s: detected %s, want jsonl", l, f)
		}
	}
	for _, f := range []Format{FormatCopilot, FormatPi, FormatContinue, FormatOpenCode} {
		if got := Detect([][]byte{[]byte(Row(f).Example)}).Format; got != f {
			t.Errorf("%s's example detected as %s", f, got)
		}
	}
}
