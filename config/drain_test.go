package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
)

// TestDrainWindowFromTheConfig: issue 34 — [actions] drain_window was
// ignored, the flag's default always winning. The flag wins only when
// given; the config's comes next; then the default.
func TestDrainWindowFromTheConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "burnrate.toml")
	if err := os.WriteFile(path, []byte("[actions]\ndrain_window = \"30s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag, want time.Duration
	}{{0, 30 * time.Second}, {2 * time.Second, 2 * time.Second}} {
		acts, err := f.Alerts(ActionFlags{DrainWindow: tc.flag})
		if err != nil {
			t.Fatal(err)
		}
		if acts.DrainWindow != tc.want {
			t.Errorf("flag %s: drain window %s, want %s", tc.flag, acts.DrainWindow, tc.want)
		}
	}
	acts, err := (&File{}).Alerts(ActionFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if acts.DrainWindow != alerts.DefaultDrainWindow {
		t.Errorf("no config, no flag: %s, want %s", acts.DrainWindow, alerts.DefaultDrainWindow)
	}
}
