package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary is burnrate built from this module's main package, once per test
// process: the process-level tests (internal/e2e) run it as a user does.
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
		if err != nil {
			binErr = fmt.Errorf("go list -m: %v", err)
			return
		}
		dir, err := os.MkdirTemp("", "burnrate-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "burnrate")
		build := exec.Command("go", "build", "-o", binPath, ".")
		build.Dir = strings.TrimSpace(string(root))
		if out, err := build.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// WriteFile writes s to path (0644), failing the test if it cannot.
func WriteFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
