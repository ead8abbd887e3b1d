package e2e

import (
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// burnrate is the binary the tests run, built once per test process.
func burnrate(t *testing.T) string { return testutil.Binary(t) }
