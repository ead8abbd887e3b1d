//go:build realdata

package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest/decode"
)

const realdata2 = "../../../shared/realdata/round2"

// forcedRead reads path with the format forced, as --input-format does.
func forcedRead(t *testing.T, path string, f decode.Format) (events int64, hint string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v (../shared must sit beside the repository)", err)
	}
	it, err := OpenFile(path, 0, decode.Options{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	_, st, _, hint, _ := readAll(t, it)
	return st.Events, hint
}

// TestAForcedFormatNamesWhatTheFileIs: a format forced on a file that is
// recognisably another said the wrong thing — a Codex rollout forced as
// jsonl got the generic --map hint, a Claude Code transcript forced as
// gemini-cli was called "Gemini CLI's prompt log (logs.json)", and
// logs.json forced as claude-code got no hint at all. The forced format's
// hint names the format the file is, first.
func TestAForcedFormatNamesWhatTheFileIs(t *testing.T) {
	rollouts, _ := filepath.Glob(filepath.Join(realdata2, "codex", "localpush-2026-02-23", "rollout-*.jsonl"))
	transcripts, _ := filepath.Glob(filepath.Join(realdata2, "claude", "codemie-v2.0.76", "session-*.jsonl"))
	if len(rollouts) == 0 || len(transcripts) == 0 {
		t.Fatal("the real rollouts and transcripts are missing (../shared must sit beside the repository)")
	}
	for _, c := range []struct {
		path         string
		forced, real decode.Format
	}{
		{rollouts[0], decode.FormatJSONL, decode.FormatCodex},
		{transcripts[0], decode.FormatGemini, decode.FormatClaudeCode},
		{filepath.Join(realdata2, "gemini", "logs.json"), decode.FormatClaudeCode, decode.FormatGemini},
		{filepath.Join(realdata2, "gemini", "logs.json"), decode.FormatSDKText, decode.FormatGemini},
	} {
		events, hint := forcedRead(t, c.path, c.forced)
		if events != 0 || !strings.Contains(hint, "pass --input-format "+string(c.real)) || strings.Contains(hint, "prompt log") {
			t.Errorf("%s forced as %s: %d events, hint %q; want it named %s", filepath.Base(c.path), c.forced, events, hint, c.real)
		}
	}
}

// TestAForcedRecordFormatReadsItsDocument: a Gemini CLI session .json
// (one pretty-printed document) forced as gemini-cli was read line by
// line, its fragments as nothing; the prompt log forced as gemini-cli is
// still said to be one.
func TestAForcedRecordFormatReadsItsDocument(t *testing.T) {
	if events, hint := forcedRead(t, filepath.Join(realdata2, "gemini", "session-2025-12-01T21-45-5b959dae.json"), decode.FormatGemini); events != 11 || hint != "" {
		t.Errorf("a session forced as gemini-cli: %d events (hint %q), want its 11 calls", events, hint)
	}
	if events, hint := forcedRead(t, filepath.Join(realdata2, "gemini", "logs.json"), decode.FormatGemini); events != 0 || !strings.Contains(hint, "prompt log") {
		t.Errorf("logs.json forced as gemini-cli: %d events, hint %q", events, hint)
	}
}
