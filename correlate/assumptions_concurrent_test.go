package correlate_test

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestAmbiguousChainsRaiseNoViolation: two concurrent anthropic-python
// requests whose retry lines fit either chain. Read one way a chain made 3
// retries, past the declared 2; read the other way none did. The count is
// shown, marked ambiguous, and no critical is raised from it.
func TestAmbiguousChainsRaiseNoViolation(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"concurrent-ambiguous.log")
	a := assumption(r, "", "anthropic-sdk.maxRetries")
	if a == nil || a.Declared != "2" || a.Observed != "3" || !strings.Contains(a.Evidence, "ambiguous") {
		t.Errorf("row: %+v", a)
	}
	if f := finding(r, "assumption_violated"); f != nil || r.HasCritical() {
		t.Errorf("an ambiguous count held against the declaration: %+v", f)
	}
}

// TestConcurrentChainsStillViolate: two concurrent requests each retried
// twice, every retry fitting one chain only: declared 1, the violation is
// certain and critical.
func TestConcurrentChainsStillViolate(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), assumeDir+"concurrent-certain.log")
	a := assumption(r, "", "anthropic-sdk.maxRetries")
	if a == nil || a.Declared != "1" || a.Observed != "2" || strings.Contains(a.Evidence, "ambiguous") {
		t.Fatalf("row: %+v", a)
	}
	f := finding(r, "assumption_violated")
	if f == nil || !r.HasCritical() || len(f.Jobs) != 2 {
		t.Fatalf("assumption_violated: %+v", f)
	}
}
