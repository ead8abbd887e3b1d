package decode

import "testing"

// TestCodexDetectionNeedsCodexRecords: red team of issue 25 — "timestamp",
// "type" and "payload" alone took a canonical JSON-lines log for a Codex
// rollout: 0 events, and beside another file its calls vanished silently.
// A Codex record's type is one of Codex's own.
func TestCodexDetectionNeedsCodexRecords(t *testing.T) {
	for line, want := range map[string]Format{
		`{"timestamp":"2026-03-10T01:00:00Z","type":"llm_call","job_id":"j1","model":"gpt-4o","status":200,"payload":{"prompt":"hi"}}`: FormatJSONL,
		`{"timestamp":"2026-02-23T12:19:52.689Z","type":"event_msg","payload":{"type":"token_count","info":null}}`:                     FormatCodex,
		`{"timestamp":"2026-02-23T12:19:38.535Z","type":"session_meta","payload":{"id":"019c8a70-dda7-7f33-98ea-f30553347322"}}`:       FormatCodex,
	} {
		d := NewDetector()
		d.Add([]byte(line))
		if got := d.Result().Format; got != want {
			t.Errorf("%s: detected %s, want %s", line, got, want)
		}
	}
}
