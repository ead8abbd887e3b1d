// Package testutil holds what several packages' tests share.
package testutil

import (
	"testing"
	"time"
)

// WaitFor polls cond every few milliseconds until it holds, failing the
// test if it does not within the time given.
func WaitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
