package decode

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A live reader's Flush (Options.Now set) keeps an announced call held
// until AnnounceHeldFor has passed by its clock, then lets it go as one
// call; a clock that goes back does not let it go sooner; the answer that
// comes meanwhile is the call, counted once.
func TestLiveFlushHoldsAnnouncement(t *testing.T) {
	now := int64(1_800_000_000e9)
	d := NewStreamDecoder(Options{Now: func() int64 { return now }})
	var calls, held []ingest.Event
	emit := func(e *ingest.Event) {
		if e.Held {
			// Its copy for the spool, at once (ingest.Event.Held): no call.
			held = append(held, *e)
			return
		}
		if e.Kind == ingest.KindLLMCall {
			calls = append(calls, *e)
		}
	}
	d.Decode([]byte(`{"time":1796642299291,"job_id":"a","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`), emit)
	d.Decode([]byte(`{"time":1796642299292,"job_id":"b","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`), emit)
	f := d.(Flusher)
	f.Flush(emit)
	now -= 3600e9 // the clock went back an hour
	f.Flush(emit)
	now += AnnounceHeldFor - 1 // its wait starts again where the clock went
	f.Flush(emit)
	if len(calls) != 0 {
		t.Fatalf("let go before AnnounceHeldFor: %d calls", len(calls))
	}
	if len(held) != 2 || held[0].JobID != "a" || held[1].JobID != "b" {
		t.Fatalf("held copies %+v, want a's and b's as they were read", held)
	}
	d.Decode([]byte(`{"time":1796642299352,"job_id":"a","attempt":1,"request_id":"req_011CLab8b5ca2ffd4be62e3","status":200,"model":"claude-sonnet-4-5","input_tokens":545,"output_tokens":262,"msg":"model call ok"}`), emit)
	if len(calls) != 1 || calls[0].JobID != "a" || calls[0].Status != 200 {
		t.Fatalf("a's answer: %+v", calls)
	}
	now += 2 * AnnounceHeldFor
	f.Flush(emit)
	if len(calls) != 2 || calls[1].JobID != "b" || calls[1].Status != ingest.StatusUnknown {
		t.Fatalf("b unanswered past AnnounceHeldFor: %+v", calls)
	}
}

// TestLivePackedAnnouncementsAreHeld (F8's leftover): live, the
// announcements past the bound held in full are kept packed as the others
// are held: a copy marked Held of each at the first Flush (for the spool),
// no call before AnnounceHeldFor — nor sooner when the clock goes back —
// their answer meanwhile the call with its status, and past their wait a
// call of unknown outcome each, the oldest first.
func TestLivePackedAnnouncementsAreHeld(t *testing.T) {
	now := int64(1_800_000_000e9)
	d := NewStreamDecoder(Options{Now: func() int64 { return now }})
	var calls []ingest.Event
	held := map[string]int{}
	emit := func(e *ingest.Event) {
		if e.Held {
			held[e.JobID]++
			return
		}
		if e.Kind == ingest.KindLLMCall {
			calls = append(calls, *e)
		}
	}
	n := maxAnnounced + 100
	for i := range n {
		d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":"j%d","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`, 1796642299291+i, i), emit)
	}
	f := d.(Flusher)
	f.Flush(emit)
	if len(held) != n || held["j0"] != 1 || held["j99"] != 1 || len(calls) != 0 {
		t.Fatalf("first flush: %d held copies (j0 %d), %d calls; want %d copies, one each, no call", len(held), held["j0"], len(calls), n)
	}
	now -= 3600e9 // the clock went back an hour
	f.Flush(emit)
	now += AnnounceHeldFor - 1
	f.Flush(emit)
	if len(calls) != 0 || held["j0"] != 1 {
		t.Fatalf("let go before AnnounceHeldFor: %d calls, j0 held %d times", len(calls), held["j0"])
	}
	// j5 is packed (among the oldest 100): its answer is the call.
	d.Decode([]byte(`{"time":1796642299352,"job_id":"j5","attempt":1,"request_id":"req_011CLab8b5ca2ffd4be62e3","status":200,"input_tokens":545,"output_tokens":262,"msg":"model call ok"}`), emit)
	if len(calls) != 1 || calls[0].JobID != "j5" || calls[0].Status != 200 || calls[0].Model != "claude-sonnet-4-5" {
		t.Fatalf("j5's answer: %+v", calls)
	}
	now += 2 * AnnounceHeldFor
	f.Flush(emit)
	if len(calls) != n || calls[1].JobID != "j0" || calls[1].Status != ingest.StatusUnknown || calls[2].JobID != "j1" {
		t.Fatalf("past AnnounceHeldFor: %d calls (want %d), then %s %d", len(calls), n, calls[1].JobID, calls[1].Status)
	}
}
