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
	again := call(fmt.Sprintf("otlp-span:%d", maxResponses-1), maxResponses+1) // delivered two records ago
	st.Apply(&again)
	if st.Spend() != before {
		t.Fatalf("the re-send was billed again: %v → %v", before, st.Spend())
	}
	if n := len(st.responses) + len(st.responsesOld); n > maxResponses {
		t.Fatalf("%d responses kept, the bound is %d", n, maxResponses)
	}
}
