//go:build realdata

package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeed003SingleOwnerIsFour: seed 003's own fix, read from the seed
// (../shared/seeds/003_*.txt): the SDK silenced (maxRetries: 0) and one
// owner, a loop bounded by `const MAX_ATTEMPTS = 4` — the path is 4 × 1 =
// 4. Before bounds were values, the loop was no layer and the path read 1.
// (The seed's 36 — CronJob × watchdog × wrapper × SDK — is its
// calculator's declared stack, not code: no code in the seed holds it.)
func TestSeed003SingleOwnerIsFour(t *testing.T) {
	seeds, _ := filepath.Glob("../../shared/seeds/003_*.txt")
	if len(seeds) == 0 {
		t.Skip("seed 003 is not beside the repository")
	}
	b, err := os.ReadFile(seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "import Anthropic from \"@anthropic-ai/sdk\";")
	end := strings.Index(s, "throw new Error(\"unreachable\");\n}")
	if start < 0 || end < start {
		t.Fatal("seed 003 no longer holds its single-owner code")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), []byte(`{"dependencies": {"@anthropic-ai/sdk": "^0.39.0"}}`))
	write(t, filepath.Join(dir, "src/owner.ts"), []byte(s[start:end]+"throw new Error(\"unreachable\");\n}\n"))
	r := scan(t, dir)
	byID := map[string]Layer{}
	for _, l := range r.Layers {
		byID[l.DefaultID] = l
	}
	loop, sdk := byID["hand-rolled"], byID["anthropic-ts"]
	if loop.Attempts != 4 || !strings.Contains(loop.Setting, "MAX_ATTEMPTS = 4, constant") || sdk.Attempts != 1 {
		t.Fatalf("layers %+v", r.Layers)
	}
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 4 {
		t.Errorf("stacks %+v, want 4 × 1 = 4", r.Stacks)
	}
}
