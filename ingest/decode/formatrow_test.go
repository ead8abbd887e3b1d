package decode

import "testing"

// TestAFormatIsItsRow: what was spread over ingest/file (a path rule),
// follow (a skip) and cli (a refusal) when Gemini CLI was added is read
// from the rows now.
func TestAFormatIsItsRow(t *testing.T) {
	for _, tc := range []struct {
		path string
		want Format
	}{
		{"/home/me/.gemini/tmp/ab12/chats/session-2025-12-01T21-45-5b959dae.json", FormatGemini},
		{"chats/session-1.json", FormatGemini},
		{"/home/me/.gemini/tmp/ab12/chats/session-1.jsonl", ""}, // lines: followed
		{"/home/me/.gemini/tmp/ab12/logs.json", ""},
		{"/tmp/session-1.json", ""}, // not in a chats directory
	} {
		got := Format("")
		if r := DocumentOf(tc.path); r != nil {
			got = r.Name
			if r.Rewritten == "" {
				t.Errorf("%s: a Gemini chat document must say why it cannot be followed", tc.path)
			}
		}
		if got != tc.want {
			t.Errorf("DocumentOf(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if w := Row(FormatClaudeCode).Home.Where(); w != "${CLAUDE_CONFIG_DIR:-~/.claude}/projects and ~/.config/claude/projects" {
		t.Errorf("Claude Code's home: %s", w)
	}
	if w := Row(FormatCodex).Home.Where(); w != "${CODEX_HOME:-~/.codex}/sessions" {
		t.Errorf("Codex's home: %s", w)
	}
}

// TestDetectionOrderIsTheTableOrder: the keyed rows are tried in the order
// they are written (the numbers each row carried had to be renumbered by
// hand in five rows when one was added); a line with the keys of two rows
// is the first's.
func TestDetectionOrderIsTheTableOrder(t *testing.T) {
	var names []Format
	for _, f := range keyed {
		names = append(names, f.Name)
	}
	want := []Format{FormatGemini, FormatQwen, FormatClaudeCode, FormatCodex, FormatCopilot, FormatPi, FormatContinue, FormatOpenCode, FormatAnthropicBatch, FormatOpenAIBatch, FormatLiteLLM, FormatCline, FormatLangfuse, FormatJaeger, FormatOTelConsole, FormatBedrockBatch, FormatPortkey, FormatAmp, FormatOTLPJSON}
	if len(names) != len(want) {
		t.Fatalf("keyed rows %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("keyed rows %v, want %v", names, want)
		}
	}
	// A Claude Code record that also has Codex's keys is Claude Code's, as
	// it was when both rows carried Detect 2 and Claude Code came first.
	both := []byte(`{"timestamp":"2026-02-23T12:19:52.689Z","type":"event_msg","payload":{},"sessionId":"s"}`)
	if d := Detect([][]byte{both}); d.Format != FormatClaudeCode {
		t.Errorf("a line with both rows' keys read as %s, want claude-code", d.Format)
	}
}
