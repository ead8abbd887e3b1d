package ingest

import (
	"math"
	"testing"
)

// A producer's cost is held to its own tokens: $0.01 a token, $1 at
// least, never past MaxCostPerCallUSD; NaN and negatives never pass.
func TestPlausibleCost(t *testing.T) {
	for _, c := range []struct {
		usd    float64
		tokens int64
		ok     bool
	}{
		{0.1033855, 31_000, true}, {1, 0, true}, {1.01, 0, false}, {99999, 1200, false},
		{12, 1200, true}, {12.01, 1200, false}, {100_000, 1 << 40, true}, {100_001, 1 << 40, false},
		{math.NaN(), 10, false}, {-0.01, 10, false}, {0.5, -5, true}, {math.Inf(1), 1 << 60, false},
	} {
		if got := PlausibleCost(c.usd, c.tokens); got != c.ok {
			t.Errorf("PlausibleCost(%v, %d) = %t, want %t", c.usd, c.tokens, got, c.ok)
		}
	}
}
