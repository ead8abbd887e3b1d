package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDrainWindowFromTheConfig: issue 34 — "[actions] drain_window" in
// the config was ignored (the flag's default won): a stop with a kill
// under way at a hung receiver waited the default 10 s. With 1 s in the
// config, the stop takes about that, and the kill stays requested for the
// next start.
func TestDrainWindowFromTheConfig(t *testing.T) {
	hung := newReceiver(t, true)
	dir := t.TempDir()
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	cfg := actionsConfig(t, dir, "drain_window = \"1s\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", hung.URL, "--journal", journal, logPath)
	waitUntil(t, "the kill under way", 10*time.Second, func() bool { k, _ := hung.snapshot(); return len(k) >= 1 })
	begin := time.Now()
	d.stop(syscall.SIGTERM)
	took := time.Since(begin)
	t.Logf("the stop took %s", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the stop took %s: the config's drain_window (1s) was not honoured", took)
	}
	b, _ := os.ReadFile(journal)
	if !strings.Contains(d.out(), "the next start sends it") || !strings.Contains(string(b), `"state":"requested"`) {
		t.Errorf("the interrupted kill is not left requested:\n%s\n%s", d.out(), b)
	}
}
