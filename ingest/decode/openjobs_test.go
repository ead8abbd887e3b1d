package decode

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// mapOpen is noteOpen as it was with a map (before issue 38's table): the
// reference the table must agree with line for line.
type mapOpen struct {
	open          map[string]int64
	last          string
	interleavedAt int64
	interleaved   bool
}

func (m *mapOpen) note(id string, ts int64) {
	last, seen := m.open[id]
	if seen && id != m.last && (ts == 0 || last == 0 || ts-last <= interleaveFor) {
		m.interleavedAt, m.interleaved = ts, true
	}
	if m.open == nil || len(m.open) >= openMax {
		m.open = map[string]int64{}
	}
	m.open[id] = ts
	m.last = id
}

// TestOpenJobsAgreeWithAMap feeds the same job lines to noteOpen and to
// the map it replaced — short and long IDs, untimed lines, far more jobs
// than the table holds (so it starts over, on a seen job's line as well
// as a new one's) — and compares what each says after every line.
func TestOpenJobsAgreeWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	st := newSDKText(nil)
	var ref mapOpen
	ts := int64(1e18)
	for line := range 400_000 {
		var n int
		switch {
		case line%1000 < 5:
			n = rng.IntN(3) // a few jobs, lines interleaved
		case line < 150_000:
			n = line // a new job each line: passes openMax
		default:
			n = rng.IntN(120_000)
		}
		id := fmt.Sprintf("job-%d", n)
		if n%7 == 0 {
			id = strings.Repeat("x", 20) + id // kept as a string, not inline
		}
		ts += int64(rng.IntN(int(interleaveFor / 1000)))
		if rng.IntN(50) == 0 {
			ts += 2 * interleaveFor
		}
		ev := ingest.Event{JobID: id, TS: ts, TSCarried: rng.IntN(20) == 0}
		var h uint64
		if line%2 == 1 {
			// Hashed ahead, as the parse workers do (JSONLines.OpenSeed).
			h = OpenHash(st.openSeed(), id)
		}
		st.noteOpen(&ev, h)
		st.lastJob.JobID = id
		evTS := ts
		if ev.TSCarried {
			evTS = 0
		}
		ref.note(id, evTS)
		if st.interleaved != ref.interleaved || st.interleavedAt != ref.interleavedAt {
			t.Fatalf("line %d (%s): table says interleaved %v at %d, the map %v at %d", line, id, st.interleaved, st.interleavedAt, ref.interleaved, ref.interleavedAt)
		}
		if st.open.n != len(ref.open) {
			t.Fatalf("line %d: table holds %d jobs, the map %d", line, st.open.n, len(ref.open))
		}
	}
	if len(st.open.slots) > 1<<17 {
		t.Errorf("table grew to %d slots for at most %d jobs", len(st.open.slots), openMax)
	}
}

// TestOpenJobsKeepCollidingIDsApart puts IDs of one hash in the table:
// each is found as itself, never as another.
func TestOpenJobsKeepCollidingIDsApart(t *testing.T) {
	var o openJobs
	o.reset()
	ids := []string{"a", "b", "job-1", "job-10", strings.Repeat("y", 40), strings.Repeat("y", 39) + "z", "", "123456789012345", "1234567890123456"}
	const h = 42 // every ID the same hash
	for i, id := range ids {
		s, ok := o.find(id, h)
		if ok {
			t.Fatalf("%q found before it was put", id)
		}
		o.put(s, id, h, int64(i))
	}
	for i, id := range ids {
		s, ok := o.find(id, h)
		if !ok || s.ts != int64(i) {
			t.Fatalf("%q: found %v with time %d, want %d", id, ok, s.ts, i)
		}
	}
	if _, ok := o.find("job-100", h); ok {
		t.Fatal("an ID never put was found")
	}
}
