package engine

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestHeldCallsSettleAsTheDecoderDoes: a held call (an announcement in
// flight) is taken out of its batch; the next event of its job and input
// settles it — not an assumption, nor another input's event of the same
// job ID; those still waiting are given back as calls, once each.
func TestHeldCallsSettleAsTheDecoderDoes(t *testing.T) {
	ev := func(src uint16, job string, kind ingest.Kind, held bool) ingest.Event {
		var e ingest.Event
		e.Reset()
		e.Source, e.JobID, e.Kind, e.Held, e.TS = src, job, kind, held, 1
		return e
	}
	var h heldCalls
	b := h.sift(ingest.Batch{ev(0, "a", ingest.KindLLMCall, true), ev(0, "b", ingest.KindLLMCall, true), ev(0, "c", ingest.KindLLMCall, true), ev(0, "x", ingest.KindLLMCall, false)})
	if len(b) != 1 || b[0].JobID != "x" {
		t.Fatalf("held calls applied: %+v", b)
	}
	b = h.sift(ingest.Batch{ev(0, "a", ingest.KindLLMCall, false), ev(1, "b", ingest.KindLLMCall, false), ev(0, "b", ingest.KindAssumption, false), ev(0, "c", ingest.KindLLMCall, true)})
	if len(b) != 3 {
		t.Fatalf("batch %+v, want a's answer, the other input's b and the assumption", b)
	}
	got := h.take()
	if len(got) != 2 || got[0].JobID != "b" || got[1].JobID != "c" || got[0].Held || got[1].Held {
		t.Fatalf("still waiting %+v, want b and c once each, as calls", got)
	}
	if len(h.take()) != 0 {
		t.Fatalf("taken twice")
	}
}
