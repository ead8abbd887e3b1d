package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestPricesHostileTable (issue 36): a price table's keys and its file's
// name are shown through display.Text — "PRICED AS" printed a key's ESC
// bytes raw.
func TestPricesHostileTable(t *testing.T) {
	table := map[string]any{}
	for _, s := range testutil.HostileCorpus {
		table[s] = map[string]any{"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "litellm_provider": "openai", "mode": "chat"}
	}
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "prices\x1b]0;pwned\x07.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, append([]string{"prices", "--prices", p}, testutil.HostileCorpus...)...)
	if u := testutil.TerminalUnsafe(out); u != "" {
		t.Errorf("prices printed %q raw (%v):\n%s", u, err, out)
	}
	out, _ = run(t, "prices", "--prices", p)
	if u := testutil.TerminalUnsafe(out); u != "" {
		t.Errorf("prices printed %q raw:\n%s", u, out)
	}
}
