package budget

import (
	"math"
	"testing"
)

// TestWorstCaseNeverWraps: red team of issue 27 — forty layers of 999
// attempts (a hostile --from-assumptions report) multiplied to 0, "under
// the threshold", and the running product printed wrapped.
func TestWorstCaseNeverWraps(t *testing.T) {
	var st Stack
	for range 40 {
		st = append(st, Layer{Name: "l", Attempts: 999})
	}
	if got := st.WorstCaseAttempts(); got != math.MaxInt64 {
		t.Errorf("40 × 999 attempts: %d, want the saturated maximum", got)
	}
	if SatMul(7, 9) != 63 || SatMul(math.MaxInt64/2, 3) != math.MaxInt64 {
		t.Error("SatMul")
	}
}
