package e2e

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Exit codes of the process (cli's): scripts gate on them.
const (
	exitCritical = 1 // a critical finding exists
	exitUsage    = 2 // bad usage or unreadable input
)

// errCritical is run's error for exit 1: a critical finding, said by the
// exit code alone.
var errCritical = errors.New("critical finding")

// run runs the binary with args and returns its standard output: nil
// for exit 0, errCritical for exit 1, and otherwise an error whose text is
// what the process said on stderr, each line without its "burnrate: ".
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(burnrate(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), nil
	case errors.As(err, &ee) && ee.ExitCode() == exitCritical:
		return stdout.String(), errCritical
	case errors.As(err, &ee):
		var said []string
		for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
			said = append(said, strings.TrimPrefix(l, "burnrate: "))
		}
		return stdout.String(), errors.New(strings.Join(said, "\n"))
	default:
		t.Fatal(err)
		return "", err
	}
}
