package decode

import (
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
