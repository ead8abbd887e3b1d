package cli

import (
	"strings"
	"testing"
)

// TestBudgetIssue36: budget model refuses NaN for its float flags naming
// the flag; budget layers prints the product of layers without a timeout
// and exits 0.
func TestBudgetIssue36(t *testing.T) {
	for _, args := range [][]string{{"--multiplier", "NaN"}, {"--target", "NaN"}, {"--p", "NaN"}, {"--cost-per-call", "NaN"}, {"--multiplier", "+Inf"}} {
		_, err := run(t, append([]string{"budget", "model"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" ") {
			t.Errorf("%v: %v", args, err)
		}
	}
	out, err := run(t, "budget", "layers", "--layer", "queue:attempts=3", "--layer", "sdk:attempts=4")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "worst-case attempts: 12") || !strings.Contains(out, "worst-case wall clock: no timeout") {
		t.Errorf("budget layers:\n%s", out)
	}
}
