package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/config"
)

// TestPricesUpdate: `prices update` fetches a table into the user cache,
// refuses one that does not parse (keeping the old), and later runs price
// from it, saying so.
func TestPricesUpdate(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	good := `{"last_updated":"2026-11-30T00:00:00Z","claude-sonnet-4-6":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}}`
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(good)) }))
	defer other.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bad":
			w.Write([]byte(`<html>rate limited</html>`))
		case "/elsewhere":
			http.Redirect(w, r, other.URL+"/good", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/good", http.StatusFound)
		case "/free":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":0,"output_cost_per_token":0}}`))
		case "/negative":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":-3e-06,"output_cost_per_token":1.5e-05}}`))
		case "/tiny":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":1e-30,"output_cost_per_token":1.5e-05}}`))
		case "/shadow":
			w.Write([]byte(`{"anthropic/claude-sonnet-4-6":{"input_cost_per_token":0,"output_cost_per_token":0}}`))
		case "/negative-cache":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":3e-06,"output_cost_per_token":1.5e-05,"cache_read_input_token_cost":-1}}`))
		case "/huge":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":3,"output_cost_per_token":1.5e-05}}`))
		case "/dear":
			w.Write([]byte(`{"claude-sonnet-4-6":{"input_cost_per_token":0.5,"output_cost_per_token":1.5e-05}}`))
		default:
			w.Write([]byte(good))
		}
	}))
	defer srv.Close()
	defer func(tr http.RoundTripper) { pricesTransport = tr }(pricesTransport)
	pricesTransport = srv.Client().Transport // trusts the test servers' certificate
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
	// Issue 29: plain http, a redirect to another host, and tables that
	// would blind every ceiling are refused, and the table in use stays.
	for path, want := range map[string]string{"/elsewhere": "another host", "/free": "becomes free", "/negative": "input_cost_per_token is -3e-06", "/huge": "claude-sonnet-4-6 input_cost_per_token is 3, past $1 per token", "/dear": "$0.5 per token (was $3e-06)",
		"/tiny": "becomes free", "/shadow": "anthropic/claude-sonnet-4-6 becomes free", "/negative-cache": "cache_read_input_token_cost is -1"} {
		if _, err := run(t, "prices", "update", "--url", srv.URL+path); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: %v, want a refusal saying %q", path, err, want)
		}
	}
	if _, err := run(t, "prices", "update", "--url", strings.Replace(srv.URL, "https://", "http://", 1)+"/good"); err == nil || !strings.Contains(err.Error(), "only over HTTPS") {
		t.Errorf("plain http: %v", err)
	}
	if _, err := run(t, "prices", "update", "--url", srv.URL+"/here"); err != nil {
		t.Errorf("a redirect on the same host is followed: %v", err)
	}
	if b, _ := os.ReadFile(config.UpdatedPricesPath()); string(b) != good {
		t.Error("a refused update replaced the table")
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

// TestSpecialFilesAreRefusedAsConfigAndPrices: issue 29 — "--config
// /dev/zero" grew to the OOM killer and "--prices /dev/zero" hashed for
// ever. Both are refused at once, as is a FIFO.
func TestSpecialFilesAreRefusedAsConfigAndPrices(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--config", "/dev/zero"}, {"--prices", "/dev/zero"}, {"--config", "/tmp"}, {"--config", fifo}, {"--prices", fifo}} {
		done := make(chan error, 1)
		go func() {
			_, err := run(t, append([]string{"report"}, append(args, "../sample-logs/healthy-night.jsonl")...)...)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%v: %v", args, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still reading after 10 s", args)
		}
	}
}

// TestPricesNoteNamesAMissingCacheReadRate: issue 25 — an entry without a
// cache-read rate (gemini-3-pro-image-preview in LiteLLM's table) prices
// cache reads at the input rate, and the report says so; the prices table
// must say so too, beside the other notes, and not for an entry that has one.
func TestPricesNoteNamesAMissingCacheReadRate(t *testing.T) {
	out, err := run(t, "prices", "gemini-3-pro-image-preview", "claude-opus-4-6", "gemini-2.5-pro")
	if err != nil {
		t.Fatal(err, out)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	if r := rows["gemini-3-pro-image-preview"]; !strings.Contains(r, "no cache-read rate: cache reads priced at the input rate") {
		t.Errorf("an entry without a cache-read rate must say so:\n%s", out)
	}
	for _, m := range []string{"claude-opus-4-6", "gemini-2.5-pro"} {
		if strings.Contains(rows[m], "no cache-read rate") {
			t.Errorf("%s has a cache-read rate:\n%s", m, out)
		}
	}
	if r := rows["gemini-2.5-pro"]; !strings.Contains(r, "  above 200k input: $2.5 / $15") {
		t.Errorf("the tier note, after the column gap with no stray prefix:\n%s", out)
	}
}
