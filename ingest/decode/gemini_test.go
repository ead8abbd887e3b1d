package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestGeminiPromptLogNeedsItsShape: only a record of gemini-cli's Logger
// (LogEntry {sessionId, messageId: number, timestamp, type, message:
// string}, packages/core/src/core/logger.ts) is a prompt of logs.json; a
// Claude Code file-history-snapshot record (a string messageId, an
// object message) read as gemini-cli was called one.
func TestGeminiPromptLogNeedsItsShape(t *testing.T) {
	d := NewDecoder(FormatGemini, nil, Options{})
	emit := func(*ingest.Event) {}
	d.Decode([]byte(`{"type":"file-history-snapshot","sessionId":"6a1f0000-0000-4000-8000-000000000001","messageId":"6b2e0000-0000-4000-8000-000000000002","snapshot":{"messageId":"6b2e0000-0000-4000-8000-000000000002","trackedFileBackups":{},"timestamp":"2026-03-10T01:00:00.000Z"},"isSnapshotUpdate":false}`), emit)
	d.Decode([]byte(`{"type":"user","sessionId":"6a1f0000-0000-4000-8000-000000000001","messageId":"x","message":{"role":"user","content":"hi"}}`), emit)
	if h := d.(Hinter).Hint(0); h != "" {
		t.Errorf("a Claude Code transcript read as gemini-cli: hint %q", h)
	}
	d = NewDecoder(FormatGemini, nil, Options{})
	d.Decode([]byte(`{"sessionId":"5b959dae-8655-4cd1-b10f-720b8c336ea2","messageId":0,"type":"user","message":"hi","timestamp":"2025-12-01T21:45:34.356Z"}`), emit)
	if h := d.(Hinter).Hint(0); h == "" {
		t.Error("a logs.json prompt is not said to be one")
	}
}
