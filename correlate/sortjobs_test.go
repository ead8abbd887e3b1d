package correlate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortJobsHalvesMatchOneSort: the two-halves sort of a big job list,
// merged in place, gives the order of one sort, ties on spend and calls
// included (the ID decides them), for even and odd lengths and for halves
// that run out first on either side.
func TestSortJobsHalvesMatchOneSort(t *testing.T) {
	for _, n := range []int{1 << 16, 100_001, 100_000} {
		for _, skew := range []string{"mixed", "left costlier", "right costlier"} {
			s := &State{}
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			var order []jobOrder
			for i := range n {
				s.jobList = append(s.jobList, &Job{ID: fmt.Sprintf("job-%d", rng.IntN(1<<40))})
				usd := float64(rng.IntN(50)) / 100
				switch {
				case skew == "left costlier" && i < n/2, skew == "right costlier" && i >= n/2:
					usd += 1
				}
				order = append(order, jobOrder{usd: usd, calls: int32(rng.IntN(4)), idx: uint32(i)})
			}
			want := slices.Clone(order)
			slices.SortFunc(want, s.compareJobs)
			if got := s.sortJobs(order); !slices.Equal(got, want) {
				t.Fatalf("%d jobs, %s: the halves' merge differs from one sort", n, skew)
			}
		}
	}
}
