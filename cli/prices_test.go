package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/config"
)

// TestPricesUpdate: `prices update` fetches a table into the user cache,
// refuses one that does not parse (keeping the old), and later runs price
// from it, saying so.
func TestPricesUpdate(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	good := `{"last_updated":"2026-11-30T00:00:00Z","claude-sonnet-4-6":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.Write([]byte(`<html>rate limited</html>`))
			return
		}
		w.Write([]byte(good))
	}))
	defer srv.Close()
	if _, err := run(t, "prices", "update", "--url", srv.URL+"/good"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(config.UpdatedPricesPath())
	if err != nil || string(b) != good {
		t.Fatalf("cached table: %q %v", b, err)
	}
	if _, err := run(t, "prices", "update", "--url", srv.URL+"/bad"); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("a table that does not parse: %v", err)
	}
	if b, _ := os.ReadFile(config.UpdatedPricesPath()); string(b) != good {
		t.Error("a failed update replaced the table")
	}
	out, err := run(t, "prices", "claude-sonnet-4-6", "gpt-4o")
	if err != nil || !strings.Contains(out, "$1 ") || !strings.Contains(out, "gpt-4o") {
		t.Errorf("prices from the fetched table, the embedded one for the rest:\n%s %v", out, err)
	}
	out, _ = run(t, "prices")
	if !strings.Contains(out, config.UpdatedPricesPath()) || !strings.Contains(out, "2026-11-30") || !strings.Contains(out, "LiteLLM") {
		t.Errorf("the table in use must be named:\n%s", out)
	}
}
