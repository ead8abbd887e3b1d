package correlate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestObservedByTypeMatchesItsMaxima: a job type's maximum is written only
// when a call passes it (assumptionLog.call); with twenty types called in
// any order, after every call each type's maximum is still the largest
// attempt its calls made. (A cache of the last eight types' entries was
// tried and dropped: its scan cost what the map read did.)
func TestObservedByTypeMatchesItsMaxima(t *testing.T) {
	var a assumptionLog
	want := map[string]int16{}
	rng := rand.New(rand.NewPCG(1, 2))
	types := min(maxObservedLayers, 20)
	for i := range 20_000 {
		typ := fmt.Sprintf("type-%d", rng.IntN(types))
		n := int16(1 + rng.IntN(9))
		if i%997 == 0 {
			n = int16(10 + i/997) // now and then a new record
		}
		a.call(&ingest.Event{Kind: ingest.KindLLMCall, Provider: "anthropic", Attempt: n}, &Job{ID: "j", Type: typ})
		want[typ] = max(want[typ], n)
		for _, r := range a.retries {
			if r.byType[typ] != want[typ] {
				t.Fatalf("call %d: %s's maximum %d, want %d", i, typ, r.byType[typ], want[typ])
			}
		}
	}
	if len(a.retries) != 1 {
		t.Fatalf("%d layers, want 1", len(a.retries))
	}
	for _, r := range a.retries {
		if fmt.Sprint(r.byType) != fmt.Sprint(want) {
			t.Errorf("byType %v\nwant   %v", r.byType, want)
		}
	}
}
