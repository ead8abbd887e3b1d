package correlate

import (
	"math"
	"testing"
)

// TestPriceCostInPlaceIsAt: billCost prices through (*Price).cost, which
// picks a long-context tier's rates without building a Price; it must
// bill what the Price that at builds bills, for every tier, a rate a tier
// leaves to the standard one, a boundary and saturating token counts.
func TestPriceCostInPlaceIsAt(t *testing.T) {
	p := Price{Input: 3_000_000, Output: 15_000_000, CacheRead: 300_000, CacheWrite: 3_750_000,
		Tiers: []Tier{
			{Above: 200_000, Input: 6_000_000, Output: 22_500_000, CacheRead: 600_000}, // no write rate: the standard one
			{Above: 1_000_000, Input: 9_000_000, CacheWrite: 11_000_000},
		}}
	counts := []int64{-5, 0, 1, 199_999, 200_000, 200_001, 999_999, 1_000_000, 1_000_001, math.MaxInt64}
	for _, in := range counts {
		for _, read := range counts {
			for _, write := range counts {
				q := p.at(in, read, write)
				want := mulTokens(in, q.Input).Add(mulTokens(77, q.Output)).Add(mulTokens(read, q.CacheRead)).Add(mulTokens(write, q.CacheWrite))
				if got := p.cost(in, 77, read, write); got != want {
					t.Fatalf("cost(%d, 77, %d, %d) = %d, at's Price bills %d", in, read, write, got, want)
				}
				if got := p.Cost(in, 77, read, write); got != want {
					t.Fatalf("Cost(%d, 77, %d, %d) = %d, at's Price bills %d", in, read, write, got, want)
				}
			}
		}
	}
}
