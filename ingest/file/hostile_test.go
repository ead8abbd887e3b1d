package file

import (
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestHostileTextEdges: issue 12's edges — a BOM lost the first line,
// distinct invalid-UTF-8 IDs merged into one job, valid JSON nested past
// 512 levels was called invalid, and the "no events" hint printed JSON
// keys (terminal escapes) raw.
func TestHostileTextEdges(t *testing.T) {
	it := NewIter(strings.NewReader("\xEF\xBB\xBF"+`{"ts":"2026-03-10T01:00:00Z","job_id":"j","model":"m","status":200}`+"\n"), "bom", 0, decode.Options{})
	var ev ingest.Event
	if !it.Next(&ev) || ev.JobID != "j" {
		t.Errorf("a BOM lost the first line: %+v %+v", ev, it.Stats)
	}

	ids := map[string]bool{}
	for _, raw := range []string{"job-\xff", "job-\xfe", "job-\xfd\xfc"} {
		ev, r := parse(t, `{"job_id":"`+raw+`","model":"m","status":200}`)
		if r != ingest.Accepted {
			t.Fatalf("%q: %v", raw, r)
		}
		ids[ev.JobID] = true
	}
	if len(ids) != 3 {
		t.Errorf("distinct invalid-UTF-8 IDs merged: %v", ids)
	}

	// An ID keeps its bytes (it is escaped where shown); other text is
	// escaped at ingest.
	ev, _ = parse(t, `{"job_id":"job\u202eexe.txt","model":"m\u200b","status":200}`)
	if ev.JobID != "job\u202eexe.txt" || ev.Model != `m\u200b` {
		t.Errorf("the ID must stay exact and the model be shown escaped: %q %q", ev.JobID, ev.Model)
	}

	deep := `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`
	if _, r := parse(t, deep); r != ingest.SkipTooDeep {
		t.Errorf("valid JSON 600 levels deep: %v, want too_deep", r)
	}

	it = NewIter(strings.NewReader(`{"\u001b]0;pwned\u0007":1,"\u001b[2J":2}`+"\n"), "keys", 0, decode.Options{})
	for it.Next(&ev) {
	}
	if h := it.Hint(); h == "" || strings.ContainsAny(h, "\x1b\x07") {
		t.Errorf("the hint must show keys escaped: %q", h)
	}
}

// TestEndpointLinksRelativeRetryPaths: issue 13 — openai-python logs
// "Retrying request to /chat/completions" (relative to its base URL …/v1)
// while httpx logs the full URL, so exact matching split one request
// retried 3 times into 3 one-attempt jobs.
func TestEndpointLinksRelativeRetryPaths(t *testing.T) {
	log := strings.Join([]string{
		`{"job_id":"j1","msg":"start"}`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
		`INFO:openai._base_client:Retrying request to /chat/completions in 1.000000 seconds`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
		`INFO:openai._base_client:Retrying request to /chat/completions in 2.000000 seconds`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 200 OK"`,
	}, "\n") + "\n"
	it := NewIter(strings.NewReader(log), "py", 0, decode.Options{})
	keys := map[string]int{}
	var ev ingest.Event
	var attempts []int16
	for it.Next(&ev) {
		keys[ev.IdempotencyKey]++
		attempts = append(attempts, ev.Attempt)
	}
	if len(keys) != 1 || len(attempts) != 3 || attempts[2] != 3 {
		t.Errorf("one request retried twice: keys %v, attempts %v", keys, attempts)
	}
	if it.Stats.Lines != 6 || it.Stats.Skipped[ingest.SkipInfo] != 2 {
		t.Errorf("retry lines must count as lines: %+v", it.Stats)
	}
}

// parse decodes one line with a fresh Parser.
func parse(t *testing.T, line string) (ingest.Event, ingest.SkipReason) {
	t.Helper()
	var ev ingest.Event
	r := decode.NewParser().ParseLine([]byte(line), &ev)
	return ev, r
}
