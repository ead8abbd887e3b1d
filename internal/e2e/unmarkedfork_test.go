package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestUnmarkedForkIsSaidInTheHints (issue 35's leftover): a third-party
// fork that copies a Claude Code session under a new sessionId and leaves
// no mark (no forkedFrom) reads as a resume: its parent's responses are
// billed to whichever session stopped first — the fork, when it stopped
// before its parent went on. Nothing in the records tells a resume from
// such a fork; the report says how many responses two sessions share and
// what that billing assumes. A lone session's report says nothing.
func TestUnmarkedForkIsSaidInTheHints(t *testing.T) {
	// The resumed pair's shape: the "resumed" session is the fork, its
	// copies unmarked; the parent goes on after it (its own responses,
	// later), so the fork stopped first.
	fork, parent := resumedPair("22222222-aaaa-4aaa-8aaa-000000000002", "33333333-bbbb-4bbb-8bbb-000000000003", 3)
	hints := func(files ...string) []string {
		dir := t.TempDir()
		for i, f := range files {
			testutil.WriteFile(t, filepath.Join(dir, string(rune('a'+i))+".jsonl"), f)
		}
		out, err := run(t, "report", "--format", "json", dir)
		if err != nil && err != errCritical {
			t.Fatalf("report: %v", err)
		}
		var r struct {
			Source struct {
				Hints []string `json:"hints"`
			} `json:"source"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Source.Hints
	}
	h := strings.Join(hints(fork, parent), "\n")
	if !strings.Contains(h, "4 response(s) are in the records of two or more agent sessions") || !strings.Contains(h, "left no mark") {
		t.Errorf("hints %q: want the 4 shared responses said", h)
	}
	if h := hints(parent); len(h) != 0 {
		t.Errorf("a lone session: hints %q", h)
	}
}
