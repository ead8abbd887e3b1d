package file

import (
	"slices"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

type sliceIter []ingest.Event

func (s *sliceIter) Next(ev *ingest.Event) bool {
	if len(*s) == 0 {
		return false
	}
	*ev = (*s)[0]
	*s = (*s)[1:]
	return true
}

// TestMergeTiesGoByJobNotByFileOrder: issue 35 — a resumed session's
// copies of its parent's records carry the parent's times; a tie went to
// the file named first, so the same two transcripts under swapped names
// were billed differently. Ties between jobs go by job ID; one job's
// events keep their file's order.
func TestMergeTiesGoByJobNotByFileOrder(t *testing.T) {
	ev := func(job string, ts int64, tool string) ingest.Event {
		return ingest.Event{TS: ts, JobID: job, Tool: tool}
	}
	a := []ingest.Event{ev("orig", 1, "a1"), ev("orig", 2, "a2"), ev("orig", 2, "a3")}
	b := []ingest.Event{ev("copy", 1, "b1"), ev("copy", 2, "b2"), ev("copy", 3, "b3")}
	read := func(first, second []ingest.Event) []string {
		x, y := sliceIter(slices.Clone(first)), sliceIter(slices.Clone(second))
		it := Merge(&x, &y)
		var out []string
		var e ingest.Event
		for it.Next(&e) {
			out = append(out, e.Tool)
		}
		return out
	}
	ab, ba := read(a, b), read(b, a)
	if !slices.Equal(ab, ba) {
		t.Fatalf("a then b: %v; b then a: %v", ab, ba)
	}
	if want := []string{"b1", "a1", "b2", "a2", "a3", "b3"}; !slices.Equal(ab, want) {
		t.Errorf("order %v, want %v", ab, want)
	}
}
