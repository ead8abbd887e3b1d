package correlate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortJobsHalvesMatchOneSort: the two-halves sort of a big job list,
// merged in place, gives the order of one sort, ties on spend and calls
// included (the ID decides them, in a second pass over each run of equal
// spend and calls), for even and odd lengths, for halves that run out
// first on either side and for a list of jobs all alike.
func TestSortJobsHalvesMatchOneSort(t *testing.T) {
	for _, n := range []int{1 << 16, 100_001, 100_000} {
		for _, skew := range []string{"mixed", "left costlier", "right costlier", "all alike"} {
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
				calls := int32(rng.IntN(4))
				if skew == "all alike" { // one run, decided by the IDs alone
					usd, calls = 0.25, 3
				}
				order = append(order, jobOrder{usd: usd, calls: calls, idx: uint32(i)})
			}
			want := slices.Clone(order)
			slices.SortFunc(want, s.compareJobs)
			if got := s.sortJobs(order); !slices.Equal(got, want) {
				t.Fatalf("%d jobs, %s: the halves' merge differs from one sort", n, skew)
			}
		}
	}
}
