package correlate

import (
	"fmt"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAReSendAcrossAFullResponseTable: a record delivered again (an OTLP
// span re-sent by a Collector: its identity is its ResponseID) is billed
// once even when the table filled between the two deliveries — a full
// table forgot every response at once, and the re-send was billed again —
// and the table stays bounded.
func TestAReSendAcrossAFullResponseTable(t *testing.T) {
	st := New(DefaultConfig())
	call := func(id string, i int) ingest.Event {
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model = 1_796_180_270_000_000_000+int64(i), ingest.KindLLMCall, 200, "job", "claude-sonnet-4-5"
		ev.ResponseID, ev.CostUSD, ev.HasCost = id, 0.01, true
		return ev
	}
	for i := range maxResponses + 1 {
		ev := call(fmt.Sprintf("otlp-span:%d", i), i)
		st.Apply(&ev)
	}
	before := st.Spend()
	// Delivered two records ago: the same span, its start (the event's
	// time) the same — another start under its IDs is another span.
	again := call(fmt.Sprintf("otlp-span:%d", maxResponses-1), maxResponses-1)
	st.Apply(&again)
	if st.Spend() != before {
		t.Fatalf("the re-send was billed again: %v → %v", before, st.Spend())
	}
	if n := len(st.responses) + len(st.responsesOld); n > maxResponses {
		t.Fatalf("%d responses kept, the bound is %d", n, maxResponses)
	}
}

// TestSpanIDsReusedAcrossARestart: R7b-12 — a forked worker pool's spans
// share trace and span IDs; the mapper tells them apart by their starts,
// but its memory is gone after a restart, and the first such span after
// it took the spooled one's key and was dropped as its re-send. The state
// (rebuilt by the replay) tells them apart by the start too.
func TestSpanIDsReusedAcrossARestart(t *testing.T) {
	st := New(DefaultConfig())
	for i, ts := range []int64{1e18, 1e18 + 5e9, 1e18} { // the third is the first sent again
		var ev ingest.Event
		ev.Reset()
		ev.TS, ev.Kind, ev.Status, ev.JobID, ev.Model = ts, ingest.KindLLMCall, 200, fmt.Sprint("job-", i), "gpt-4o"
		ev.ResponseID, ev.CostUSD, ev.HasCost = ingest.OTLPSpanPrefix+"eeee", 0.01, true
		st.Apply(&ev)
	}
	if n := st.AttemptCount(); n != 2 {
		t.Errorf("%d calls, want 2: the second span under the same IDs, not the first one's re-send", n)
	}
}
