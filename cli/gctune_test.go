package cli

import "testing"

func TestGCPercentFallsAsTheHeapGrows(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {128 << 20, 100}, {200 << 20, 60}, {250 << 20, 50}, {256 << 20, 50}, {400 << 20, 30}, {511 << 20, 25}, {1 << 30, 25}, {64 << 30, 25}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}
