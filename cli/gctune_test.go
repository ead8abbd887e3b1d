package cli

import "testing"

func TestGCPercentFallsAsTheHeapGrows(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {255 << 20, 100}, {256 << 20, 50}, {(1 << 30) - 1, 50}, {1 << 30, 25}, {64 << 30, 25}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}
