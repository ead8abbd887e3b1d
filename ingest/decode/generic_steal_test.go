package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestGenericReaderNeverBillsARowsRecordAgain: red team of issue 35 — in a
// stream read as JSON lines, a Claude Code response's second record (the
// same message, usage already billed) is passed over by its row's decoder
// as adding nothing; the generic reader took its message.model and
// message.usage for a new call and billed the response twice.
func TestGenericReaderNeverBillsARowsRecordAgain(t *testing.T) {
	d := NewDecoder(FormatJSONL, nil, Options{})
	rec := `{"type":"assistant","sessionId":"6a1f0000-0000-4000-8000-000000000001","timestamp":"2026-03-10T01:00:00.123Z","requestId":"req_011","message":{"id":"msg_01","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":4,"output_tokens":25,"cache_read_input_tokens":12000}}}`
	calls := 0
	emit := func(ev *ingest.Event) {
		if ev.Kind == ingest.KindLLMCall {
			calls++
		}
	}
	for _, l := range []string{`{"ts":"2026-03-10T01:00:00Z","msg":"worker up"}`, rec, rec} {
		d.Decode([]byte(l), emit)
	}
	d.(Flusher).Flush(emit)
	if calls != 1 {
		t.Errorf("%d calls for one response written twice, want 1", calls)
	}
	if h := d.(Hinter).Hint(1); h != "" {
		t.Errorf("the generic reader took a Claude Code record: %s", h)
	}
}
