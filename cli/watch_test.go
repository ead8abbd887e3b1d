package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

// TestSpoolable: files read from the start are read again at a restart,
// so only --from-end, stdin and OTLP alone are carried (the process-level
// half is internal/e2e's TestFilesReadFromTheStartAreNotCarried).
func TestSpoolable(t *testing.T) {
	if !spoolable([]string{"a.jsonl"}, true) || spoolable([]string{"a.jsonl"}, false) || !spoolable([]string{"-"}, false) || !spoolable(nil, false) {
		t.Errorf("carryable: files from the start are read again; --from-end, stdin and OTLP alone are not")
	}
}

// TestDrainWindowFlagIsUnsetByDefault: a flag default that is set always
// won over the config's [actions] drain_window (issue 34).
func TestDrainWindowFlagIsUnsetByDefault(t *testing.T) {
	for _, cmd := range []*cobra.Command{newWatchCmd(), newReplayCmd()} {
		f := cmd.Flags().Lookup("drain-window")
		if f == nil || f.DefValue != "0s" {
			t.Errorf("%s --drain-window default %v, want 0s (unset: the config's, else alerts.DefaultDrainWindow)", cmd.Name(), f)
		}
	}
}
