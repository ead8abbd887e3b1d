package decode

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// clineTask is a task of Cline's documented shape (ui_messages.json's
// messages, written here, not copied): two answered requests, a failed
// stream retried twice after error_retry notices, the give-up, a
// cancelled request, and a request whose text does not read.
var clineTask = []string{
	`{"ts":1770000000000,"type":"say","say":"text","text":"hi","modelInfo":{"providerId":"anthropic","modelId":"claude-sonnet-4-5","mode":"act"}}`,
	`{"ts":1770000001000,"type":"say","say":"api_req_started","text":"{\"request\":\"<task>hi</task>\",\"tokensIn\":12,\"tokensOut\":30,\"cacheWrites\":1000,\"cacheReads\":0,\"cost\":0.00429}","modelInfo":{"providerId":"anthropic","modelId":"claude-sonnet-4-5","mode":"act"}}`,
	`{"ts":1770000002000,"type":"say","say":"api_req_started","text":"{\"request\":\"x\",\"tokensIn\":0,\"tokensOut\":0,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0,\"cancelReason\":\"streaming_failed\",\"streamingFailedMessage\":\"{\\\"message\\\":\\\"request failed with status 429: rate limited\\\"}\"}"}`,
	`{"ts":1770000002100,"type":"say","say":"error_retry","text":"{\"attempt\":1,\"maxAttempts\":3,\"delaySeconds\":2}"}`,
	`{"ts":1770000004100,"type":"say","say":"api_req_retried"}`,
	`{"ts":1770000004200,"type":"say","say":"error_retry","text":"{\"attempt\":2,\"maxAttempts\":3,\"delaySeconds\":4}"}`,
	`{"ts":1770000008200,"type":"say","say":"api_req_retried"}`,
	`{"ts":1770000008300,"type":"say","say":"error_retry","text":"{\"attempt\":3,\"maxAttempts\":3,\"delaySeconds\":8,\"failed\":true}"}`,
	`{"ts":1770000008400,"type":"ask","ask":"api_req_failed","text":"{\"message\":\"rate limited\"}"}`,
	`{"ts":1770000020000,"type":"say","say":"api_req_started","text":"{\"request\":\"y\",\"tokensIn\":5,\"tokensOut\":\"many\",\"cacheWrites\":0,\"cacheReads\":900,\"cost\":0.0012}"}`,
	`{"ts":1770000030000,"type":"say","say":"api_req_started","text":"{\"request\":\"z\",\"tokensIn\":0,\"tokensOut\":0,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0,\"cancelReason\":\"user_cancelled\"}"}`,
	`{"ts":1770000040000,"type":"say","say":"api_req_started","text":"not json"}`,
}

// TestClineTaskAttempts: issue 35 — a Cline task read as nothing. Every
// request and every resend is an attempt of the task's job; tokens and
// the provider's cost are the request's; error_retry and api_req_failed
// are no attempts; a token count that does not read costs that field.
func TestClineTaskAttempts(t *testing.T) {
	d := NewDetector()
	for _, l := range clineTask {
		d.Add([]byte(l))
	}
	if f := d.Result().Format; f != FormatCline {
		t.Fatalf("detected %s, want cline", f)
	}
	dec := NewDecoder(FormatCline, nil, Options{SourceName: "/x/tasks/1770000000000/ui_messages.json"})
	var evs []ingest.Event
	for _, l := range clineTask {
		dec.Decode([]byte(l), func(ev *ingest.Event) { evs = append(evs, *ev) })
	}
	if len(evs) != 7 {
		t.Fatalf("%d attempts, want 7 (5 requests, 2 resends)", len(evs))
	}
	var cost float64
	for _, ev := range evs {
		if ev.Kind != ingest.KindLLMCall || ev.JobID != "1770000000000" {
			t.Errorf("%+v: not a call of the task's job", ev)
		}
		cost += ev.CostUSD
	}
	first := evs[0]
	if first.Model != "claude-sonnet-4-5" || first.InputTokens != 12 || first.OutputTokens != 30 || first.CacheCreateTokens != 1000 ||
		!first.HasCost || first.CostUSD != 0.00429 || first.Status != 200 || first.TS != 1770000001000*1_000_000 {
		t.Errorf("first request: %+v", first)
	}
	if evs[1].Status != 429 || evs[1].ErrorType != "streaming_failed" || evs[2].Attempt != 2 || evs[3].Attempt != 3 {
		t.Errorf("the failed stream and its resends: %+v / %+v / %+v", evs[1], evs[2], evs[3])
	}
	if e := evs[4]; e.OutputTokens != 0 || e.CacheReadTokens != 900 || e.Dropped&ingest.DropWrongType == 0 || e.Attempt != 1 {
		t.Errorf("a bad tokensOut must cost that field only: %+v", e)
	}
	if evs[5].ErrorType != "user_cancelled" || evs[6].Dropped == 0 {
		t.Errorf("cancelled / unreadable: %+v / %+v", evs[5], evs[6])
	}
	if cost != 0.00429+0.0012 {
		t.Errorf("cost $%v", cost)
	}
}

// TestRooSubtaskHistoryItem: a Roo Code subtask's history_item.json names
// its root task (rootTaskId, else parentTaskId), whose job its calls are;
// none (Cline, a root task) leaves the task its own job; one that does not
// read, or is another task's, leaves it too and counts the field on each
// call. The file is asked for by its own name, bounded.
func TestRooSubtaskHistoryItem(t *testing.T) {
	const msg = `{"ts":1770000001000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":1,\"tokensOut\":1,\"cost\":0.001}"}`
	for _, c := range []struct {
		name, item string
		err        error
		job        string
		dropped    bool
	}{
		{"root and parent", `{"id":"c","rootTaskId":"r","parentTaskId":"p","number":3,"ts":1,"task":"t","tokensIn":0,"tokensOut":0,"totalCost":0}`, nil, "r", false},
		{"parent only", `{"id":"c","parentTaskId":"p"}`, nil, "p", false},
		{"a root task", `{"id":"c","number":1,"ts":1,"task":"t","status":"delegated","childIds":["x"]}`, nil, "c", false},
		{"null links", `{"id":"c","rootTaskId":null,"parentTaskId":null}`, nil, "c", false},
		{"no file", "", fs.ErrNotExist, "c", false},
		{"cut short", `{"id":"c","rootTaskId":"r`, nil, "c", true},
		{"binary", "\x00\xff\xfe{", nil, "c", true},
		{"a number", `{"id":"c","rootTaskId":7}`, nil, "c", true},
		{"another task's", `{"id":"d","rootTaskId":"r"}`, nil, "c", true},
		{"over the bound", "", errors.New("over 1048576 bytes"), "c", true},
		{"a hostile root", `{"id":"c","rootTaskId":"\u001b[31m` + strings.Repeat("r", 5000) + `"}`, nil, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked := ""
			dec := NewDecoder(FormatCline, nil, Options{SourceName: "/x/tasks/c/ui_messages.json", Sidecar: func(name string, limit int64) ([]byte, error) {
				asked = fmt.Sprint(name, limit)
				return []byte(c.item), c.err
			}})
			var evs []ingest.Event
			dec.Decode([]byte(msg), func(ev *ingest.Event) { evs = append(evs, *ev) })
			if len(evs) != 1 || asked != fmt.Sprint("history_item.json", historyItemLimit) {
				t.Fatalf("%d events, asked %q", len(evs), asked)
			}
			ev := evs[0]
			if c.job == "" {
				// Capped, as any ID from the input (the display sanitizes it).
				if ev.JobID != CleanID("\x1b[31m"+strings.Repeat("r", 5000)) || len(ev.JobID) > 2*ingest.MaxIDBytes {
					t.Errorf("job %q", ev.JobID)
				}
				return
			}
			if ev.JobID != c.job || (ev.Dropped&ingest.DropWrongType != 0) != c.dropped || ev.CostUSD != 0.001 {
				t.Errorf("job %q dropped %v cost %v; want %q, %v", ev.JobID, ev.Dropped, ev.CostUSD, c.job, c.dropped)
			}
		})
	}
}
