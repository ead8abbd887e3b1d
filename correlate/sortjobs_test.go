package correlate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortJobsHalvesMatchOneSort: the two-halves sort of a big job list
// gives the order of one sort, ties on spend and calls included.
func TestSortJobsHalvesMatchOneSort(t *testing.T) {
	s := &State{}
	rng := rand.New(rand.NewPCG(1, 2))
	var order []jobOrder
	for i := range 100_000 {
		order = append(order, jobOrder{usd: float64(rng.IntN(50)) / 100, calls: int32(rng.IntN(4)), idx: uint32(i), id: fmt.Sprintf("job-%d", rng.IntN(1<<40))})
	}
	want := slices.Clone(order)
	slices.SortFunc(want, s.compareJobs)
	if got := s.sortJobs(order); !slices.Equal(got, want) {
		t.Fatal("the halves' merge differs from one sort")
	}
}
