package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestClaudeForkedFrom: a Claude Code line a fork copied from its parent
// carries forkedFrom {sessionId, messageUuid}: the event is a fork's copy
// (issue 35). Only an object says so — a string, null, a number or a
// broken value is no mark, and costs nothing else of the record.
func TestClaudeForkedFrom(t *testing.T) {
	line := func(ff string) string {
		s := `{"type":"assistant","sessionId":"fork-1","uuid":"u-1","requestId":"req_1","timestamp":"2026-12-07T01:00:00.000Z",`
		if ff != "" {
			s += `"forkedFrom":` + ff + `,`
		}
		return s + `"message":{"id":"msg_1","model":"claude-opus-4-6","usage":{"input_tokens":10,"output_tokens":100}}}`
	}
	for _, c := range []struct {
		ff   string
		want bool
	}{
		{`{"sessionId":"parent-0","messageUuid":"u-1"}`, true},
		{`{}`, true},
		{``, false},
		{`"parent-0"`, false},
		{`null`, false},
		{`42`, false},
		{`[{"sessionId":"parent-0"}]`, false},
	} {
		evs, _ := decodeAll(t, line(c.ff))
		var calls int
		for i := range evs {
			if evs[i].Kind != ingest.KindLLMCall {
				continue
			}
			calls++
			if evs[i].ForkCopy != c.want || evs[i].OutputTokens != 100 || evs[i].JobID != "fork-1" {
				t.Errorf("forkedFrom %s: ForkCopy %v, %d output tokens, job %q; want %v, 100, fork-1", c.ff, evs[i].ForkCopy, evs[i].OutputTokens, evs[i].JobID, c.want)
			}
		}
		if calls != 1 {
			t.Errorf("forkedFrom %s: %d calls, want 1", c.ff, calls)
		}
	}
}
