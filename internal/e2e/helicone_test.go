package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeliconeRequestTimeIsTheCallsTime: Helicone's export (docs/formats.md
// lists it) times each request as request_created_at; it was read as no
// time at all — every call "no timestamp", no timeline, the burn rate and
// the job deadline blind. It is the call's time now.
func TestHeliconeRequestTimeIsTheCallsTime(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, `{"request_id":"r%d","request_created_at":"2026-06-02T02:%02d:00.000Z","response_created_at":"2026-06-02T02:%02d:09.000Z","model":"gpt-4o","provider":"OPENAI","response_status":200,"prompt_tokens":1000,"completion_tokens":100}`+"\n", i, i, i)
	}
	p := filepath.Join(t.TempDir(), "helicone.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o600)
	out, err := run(t, "report", "--format", "json", p)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	var r struct {
		Source struct {
			First string `json:"first_ts"`
			Last  string `json:"last_ts"`
		} `json:"source"`
		Timeline []struct {
			Minute string `json:"minute"`
		} `json:"timeline"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Source.First != "2026-06-02T02:01:00Z" || r.Source.Last != "2026-06-02T02:03:00Z" || len(r.Timeline) != 3 {
		t.Errorf("times %q → %q, %d timeline minutes; want 02:01 → 02:03 (the requests' times), 3", r.Source.First, r.Source.Last, len(r.Timeline))
	}
}
