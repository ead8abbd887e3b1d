package decode

import (
	"strings"
	"testing"
)

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

// TestAnIDShapedLikeACappedOneIsNotThatID: red team of issue 22 — a
// 512-byte ID written as another, longer ID's capped form (its first bytes,
// "…#" and its digest) merged with it. An ID of that shape is digested too.
func TestAnIDShapedLikeACappedOneIsNotThatID(t *testing.T) {
	long := strings.Repeat("a", 600)
	capped := CleanID(long)
	if capped == long || len(capped) > maxFieldBytes {
		t.Fatalf("a 600-byte ID: %d bytes", len(capped))
	}
	if forged := CleanID(capped); forged == capped {
		t.Error("an ID logged in another's capped form is taken for it")
	}
	short := "job…#" + strings.Repeat("0", 32)
	if got := CleanID(short); got == short || len(got) > maxFieldBytes {
		t.Errorf("a short ID of the capped shape: %q", got)
	}
	if got := CleanID("plain-id"); got != "plain-id" {
		t.Errorf("a plain ID changed: %q", got)
	}
}
