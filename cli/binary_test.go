package cli

import (
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// burnrate is the binary, for the README's examples (readme_test.go); the
// process-level tests are internal/e2e's.
func burnrate(t *testing.T) string { return testutil.Binary(t) }
