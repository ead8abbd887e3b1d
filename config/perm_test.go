package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAFileInADirectoryAnyoneMayWriteIsRefused: red team R8-31 — the
// refusal read the config's own mode only: a 0644 file in a 0777
// directory (no sticky bit) was accepted, though any user could rename a
// file of their own over it and arm kills. Such a directory is refused;
// the sticky bit (as /tmp has) makes it safe.
func TestAFileInADirectoryAnyoneMayWriteIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "everyones")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "burnrate.toml")
	if err := os.WriteFile(path, []byte("[actions]\nkill_on = [\"job_ceiling\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "sticky") {
		t.Errorf("a config in a 0777 directory: %v, want a refusal", err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("a config in a 1777 directory: %v, want it read", err)
	}
}
