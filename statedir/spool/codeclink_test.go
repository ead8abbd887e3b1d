package spool

import (
	"encoding/binary"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestASpanLinkIsReadByEveryBuild: R8-18 — a KindSpanLink written with
// its own kind byte made an older build's reader take the record for
// "not events" and cut the rest of the segment (every later event lost
// at a rollback). It is written as an unknown event out of range, which
// every build reads whole and an older one skips (counted) and reads on,
// and this one reads back as the link it was.
func TestASpanLinkIsReadByEveryBuild(t *testing.T) {
	var link ingest.Event
	link.Reset()
	link.Kind, link.TS, link.CorrelationID, link.Tool, link.JobID = ingest.KindSpanLink, 1_796_180_290_000_000_000, "0001", "r", "job-1"
	b := appendEvent(nil, &link)
	if ts, n := binary.Varint(b); n <= 0 || ts != linkTS {
		t.Fatalf("written at time %d, want %d (out of range for any reader)", ts, linkTS)
	}
	var d decoder
	var got ingest.Event
	rest, err := d.event(b, &got)
	if err != nil || len(rest) != 0 {
		t.Fatalf("read back: %v (%d bytes left)", err, len(rest))
	}
	if got != link {
		t.Fatalf("read back %+v\nwant %+v", got, link)
	}
	// What an older build's reader sees: an unknown event at time -1,
	// which Check refuses (skipped, counted, the segment read on).
	old := got
	old.Kind, old.TS = ingest.KindUnknown, linkTS
	if old.Check() == ingest.Accepted {
		t.Fatal("an older reader would apply the link as an event")
	}
	// A record claiming the link kind itself is no burnrate's.
	forged := link
	forged.TS = 5
	enc := appendEventRaw(nil, &forged)
	if _, err := d.event(enc, &got); err != errCorrupt {
		t.Fatalf("a record with the link's kind byte: %v, want errCorrupt", err)
	}
}

// appendEventRaw writes ev as it is, kind byte included (a forged record).
func appendEventRaw(b []byte, ev *ingest.Event) []byte {
	e := *ev
	e.Kind = ingest.KindTraceJob
	b = appendEvent(b, &e)
	// The kind byte is the fourth byte from the flags' block end: find it
	// by encoding the same event with another kind and diffing.
	e2 := e
	e2.Kind = ingest.KindLLMCall
	b2 := appendEvent(nil, &e2)
	for i := range b {
		if b[i] != b2[i] {
			b[i] = byte(ingest.KindSpanLink)
			break
		}
	}
	return b
}
