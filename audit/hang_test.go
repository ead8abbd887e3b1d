package audit

import (
	"testing"
	"time"
)

// hangLimit is how long a hostile-input test may run before it is called
// a hang: far beyond any normal time (each runs in well under a second
// alone, a few on a loaded machine), so a busy neighbour never fails it.
// Speed is measured by the benchmarks (BenchmarkHostile*), not here.
const hangLimit = 3 * time.Minute

// noHang runs fn and fails the test only if it has not returned within
// hangLimit: a deadline for a real hang, not a stopwatch. fn must not call
// t.FailNow (it runs on another goroutine); it reports with t.Errorf.
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangLimit):
		t.Fatalf("%s: still running after %v: a hang", what, hangLimit)
	}
}
