package file

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestLinesAfterADocumentAreRead: red team of issue 24 — everything after
// a closed JSON array on the first line, or after a pretty-printed object,
// vanished with no skip and exit 0 (JSON lines, an SDK's retry lines). The
// document is read as one, and what follows it as lines.
func TestLinesAfterADocumentAreRead(t *testing.T) {
	call := func(job string, s int) string {
		return `{"ts":"2026-01-01T00:00:0` + string(rune('0'+s)) + `Z","job_id":"` + job + `","model":"gpt-4o","status":200,"input_tokens":10,"output_tokens":10}`
	}
	for name, tc := range map[string]struct {
		text   string
		events int64
	}{
		"array then JSON lines": {"[" + call("j1", 0) + "]\n" + call("j2", 1) + "\n" + call("j3", 2) + "\n", 3},
		"array then SDK lines": {"[" + call("j1", 0) + "]\n" +
			`2026-01-01 00:00:01,000 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 429 Too Many Requests"` + "\n" +
			`2026-01-01 00:00:01,020 - openai._base_client - INFO - Retrying request to /chat/completions in 0.5 seconds` + "\n" +
			`2026-01-01 00:00:01,600 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 200 OK"` + "\n", 3},
		"pretty object then SDK lines": {"{\n  " + strings.TrimPrefix(call("j1", 0), "{") + "\n" +
			`2026-01-01 00:00:01,000 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 429 Too Many Requests"` + "\n" +
			`2026-01-01 00:00:01,020 - openai._base_client - INFO - Retrying request to /chat/completions in 0.5 seconds` + "\n" +
			`2026-01-01 00:00:01,600 - httpx - INFO - HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 200 OK"` + "\n", 3},
		"a real array alone": {"[\n" + call("j1", 0) + ",\n" + call("j2", 1) + "\n]\n", 2},
	} {
		it := NewIter(strings.NewReader(tc.text), name, 0, decode.Options{})
		var ev ingest.Event
		n := int64(0)
		for it.Next(&ev) {
			n++
		}
		if n != tc.events || it.Err != nil {
			t.Errorf("%s: %d events (err %v, stats %+v), want %d", name, n, it.Err, it.Stats, tc.events)
		}
	}
}
