package decode

import (
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestCopilotShutdownBillsWhatTheMessagesDidNotShow: Copilot CLI writes
// each response's output on its assistant.message and the input only in
// session.shutdown's modelMetrics, per process (a resumed session's
// second process starts again at zero, copilot-cli #3994). The shutdown
// adds each model's input, cache and unseen output once; requests no
// message showed (or an older CLI's messages without outputTokens) are
// calls; a second segment bills only its own.
func TestCopilotShutdownBillsWhatTheMessagesDidNotShow(t *testing.T) {
	d := NewDecoder(FormatCopilot, nil, Options{Format: FormatCopilot, SourceName: "/home/me/.copilot/session-state/f27af309-ccf3-41da-8f07-b3dcbffd4c90/events.jsonl"})
	var calls, growths int
	var in, read, out int64
	emit := func(ev *ingest.Event) {
		switch ev.Kind {
		case ingest.KindLLMCall:
			calls++
		case ingest.KindUsageGrowth:
			growths++
		}
		if ev.JobID != "copilot:f27af309-ccf3-41da-8f07-b3dcbffd4c90" {
			t.Errorf("job %q", ev.JobID)
		}
		in, read, out = in+ev.InputTokens, read+ev.CacheReadTokens, out+ev.OutputTokens
	}
	for _, l := range []string{
		`{"type":"session.start","data":{"sessionId":"f27af309-ccf3-41da-8f07-b3dcbffd4c90","version":1,"producer":"copilot-agent","copilotVersion":"1.0.78"},"id":"e0","timestamp":"2026-08-05T20:39:27.767Z","parentId":null}`,
		`{"type":"assistant.message","data":{"messageId":"m1","model":"claude-sonnet-4.5","content":"…"},"id":"e1","timestamp":"2026-08-05T20:39:30.000Z","parentId":"e0"}`,
		`{"type":"assistant.message","data":{"messageId":"m2","model":"claude-sonnet-4.5","outputTokens":100,"apiCallId":"c2"},"id":"e2","timestamp":"2026-08-05T20:39:35.000Z","parentId":"e1"}`,
		`{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{"claude-sonnet-4.5":{"requests":{"count":3,"cost":1},"usage":{"inputTokens":5000,"outputTokens":300,"cacheReadTokens":1000,"cacheWriteTokens":0,"reasoningTokens":0}}}},"id":"e3","timestamp":"2026-08-05T20:40:00.000Z","parentId":"e2"}`,
		`{"type":"session.resume","data":{},"id":"e4","timestamp":"2026-08-05T21:00:00.000Z","parentId":"e3"}`,
		`{"type":"assistant.message","data":{"messageId":"m3","model":"claude-sonnet-4.5","outputTokens":50,"apiCallId":"c3"},"id":"e5","timestamp":"2026-08-05T21:00:05.000Z","parentId":"e4"}`,
		`{"type":"session.shutdown","data":{"modelMetrics":{"claude-sonnet-4.5":{"requests":{"count":1,"cost":1},"usage":{"inputTokens":700,"outputTokens":50,"cacheReadTokens":0,"cacheWriteTokens":0}}}},"id":"e6","timestamp":"2026-08-05T21:00:10.000Z","parentId":"e5"}`,
	} {
		d.Decode([]byte(l), emit)
	}
	if calls != 4 || growths != 1 || in != 4700 || read != 1000 || out != 350 {
		t.Errorf("calls %d growths %d tokens in %d read %d out %d; want 4 1, 4700 1000 350", calls, growths, in, read, out)
	}
}
