package e2e

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestAnAppLogRestartedAtEveryStep: the app's log of inflightNight cut by
// a SIGTERM (then a SIGKILL) after each line gives the report of the
// stream read once, byte for byte: a restart is a replay wherever it
// falls between an announcement and its answer.
func TestAnAppLogRestartedAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("18 restarts")
	}
	lines := inflightNight()
	once := func() string {
		dir := t.TempDir()
		journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
		w := startWatchStdin(t, journal, rep)
		w.write(lines)
		w.stop(t, syscall.SIGTERM)
		return reportOf(t, rep)
	}
	want := once()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		for cut := 1; cut < len(lines); cut++ {
			dir := t.TempDir()
			journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
			w := startWatchStdin(t, journal, rep)
			w.write(lines[:cut])
			w.stop(t, sig)
			w = startWatchStdin(t, journal, rep)
			w.write(lines[cut:])
			w.stop(t, syscall.SIGTERM)
			if got := reportOf(t, rep); got != want {
				t.Errorf("a restart (%v) after line %d changed the report:\n%s\nwant\n%s", sig, cut, got, want)
			}
		}
	}
}
