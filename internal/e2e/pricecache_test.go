package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedPriceCacheFallsBack: issue 36 — a cached price table (from
// `burnrate prices update`) damaged since made every report exit 2. Nobody
// named that file: the run is priced from the embedded table, with one
// warning naming the file and what to do. A damaged table the user named
// (--prices FILE) still exits 2.
func TestDamagedPriceCacheFallsBack(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	cached := filepath.Join(cache, "burnrate", "model_prices_and_context_window.json")
	os.MkdirAll(filepath.Dir(cached), 0o755)
	log := filepath.Join(dir, "night.jsonl")
	night(t, log, "2026-03-10", 3)
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+dir)
	runIt := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}
	for name, damage := range map[string]string{
		"truncated": `{"claude-sonnet-4-6": {"input_cost_per_token": 3e-06, "output_cost`,
		"empty":     "",
		"no models": `{"sample_spec": {}}`,
	} {
		os.WriteFile(cached, []byte(damage), 0o644)
		code, out, stderr := runIt("report", log)
		if code != 0 {
			t.Errorf("%s cache: report exit %d, want 0 (priced from the embedded table); stderr:\n%s", name, code, stderr)
		}
		if !strings.Contains(out, "claude-sonnet-4-6") {
			t.Errorf("%s cache: no report on stdout:\n%s", name, out)
		}
		warn := "burnrate: the cached price table " + cached + " cannot be read"
		if strings.Count(stderr, warn) != 1 || !strings.Contains(stderr, "burnrate prices update again, or delete the file") {
			t.Errorf("%s cache: want one warning naming %s and what to do; stderr:\n%s", name, cached, stderr)
		}
		code, out, _ = runIt("prices")
		if code != 0 || !strings.HasPrefix(out, "source  LiteLLM model_prices_and_context_window.json\n") || strings.Contains(out, cached) {
			t.Errorf("%s cache: prices exit %d, want the embedded table:\n%s", name, code, out)
		}
		// Named by the user: their file, their error.
		named := filepath.Join(dir, "mine.json")
		os.WriteFile(named, []byte(damage), 0o644)
		if code, _, stderr := runIt("report", "--prices", named, log); code != 2 || !strings.Contains(stderr, named) {
			t.Errorf("%s --prices FILE: exit %d, want 2 naming the file; stderr:\n%s", name, code, stderr)
		}
		os.WriteFile(filepath.Join(dir, "burnrate.toml"), []byte("prices = \""+named+"\"\n"), 0o644)
		if code, _, _ := runIt("report", log); code != 2 {
			t.Errorf("%s prices = FILE in the config: exit %d, want 2", name, code)
		}
		os.Remove(filepath.Join(dir, "burnrate.toml"))
	}
}
