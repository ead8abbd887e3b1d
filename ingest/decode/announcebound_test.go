package decode

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAnnouncedPastTheBoundCountsOnce (F8): announcements past the bound
// held in full — by count, and by bytes (long job IDs, 3 KB each, hold a
// few thousand) — are kept packed, and their answers complete them as
// any answer does: n announced and answered 200 are n calls of status
// 200, the announcement's model where the answer names none. Past the
// packed ones' bound too (the bytes case) the oldest are let go as calls
// of unknown outcome and their answers complete them as usage. The hint
// counts both.
func TestAnnouncedPastTheBoundCountsOnce(t *testing.T) {
	for _, c := range []struct {
		name     string
		n        int
		pad      int
		overflow bool
	}{{"count", maxAnnounced + 500, 0, false}, {"bytes", 12000, 3000, true}} {
		t.Run(c.name, func(t *testing.T) {
			d := NewDecoder(FormatAuto, nil, Options{})
			calls, ok200, growths, unmodeled := 0, 0, 0, 0
			emit := func(e *ingest.Event) {
				switch e.Kind {
				case ingest.KindLLMCall:
					calls++
					if e.Status == 200 {
						ok200++
					}
					if e.Model == "" {
						unmodeled++
					}
				case ingest.KindUsageGrowth:
					growths++
				}
			}
			pad := strings.Repeat("x", c.pad)
			for i := range c.n {
				d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":"%s%d","model":"claude-sonnet-4-5","msg":"calling model"}`, 1796642058118+i, pad, i), emit)
			}
			for i := range c.n {
				// The answer names no model: the announcement's is the call's.
				d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":"%s%d","request_id":"req_%08d","status":200,"input_tokens":10,"output_tokens":5,"msg":"model call ok"}`, 1796642158118+i, pad, i, i), emit)
			}
			d.(Flusher).Flush(emit)
			if calls != c.n || ok200 != c.n-growths || unmodeled != 0 || (growths > 0) != c.overflow {
				t.Errorf("%d announced and answered 200: %d calls, %d of status 200, %d without a model, %d usage growths; want %d calls, all 200 but those past the packed bound, all of the announced model",
					c.n, calls, ok200, unmodeled, growths, c.n)
			}
			h := d.(Hinter).Hint(int64(calls))
			paired := min(c.n, c.n-maxAnnounced)
			if c.overflow {
				paired = -1
			}
			if !strings.Contains(h, "waited past the bound") || paired >= 0 && !strings.Contains(h, fmt.Sprintf("%d answer(s) completed them as any answer does", paired)) ||
				c.overflow != strings.Contains(h, fmt.Sprintf("%d answer(s) that came later completed them", growths)) || strings.Contains(h, "counted twice") {
				t.Errorf("hint %q", h)
			}
		})
	}
}

// TestPackCallKeepsEveryField: a packed announcement unpacks to the very
// event that was packed, every field of ingest.Event.
func TestPackCallKeepsEveryField(t *testing.T) {
	if n := reflect.TypeOf(ingest.Event{}).NumField(); n != 38 {
		t.Fatalf("ingest.Event has %d fields, packCall writes 38: add the new one to packCall and unpackCall", n)
	}
	ev := ingest.Event{TS: -1, JobID: "a", JobType: "b", RunID: "c", CorrelationID: "d", IdempotencyKey: "e", ResponseID: "f", Provider: "g", Model: "h", ErrorType: "i", Tool: "j",
		CostUSD: 1.5, InputTokens: 2, OutputTokens: 3, CacheReadTokens: 4, CacheCreateTokens: 5, CacheCreate1hTokens: 6, PromptTokens: 7, RetryAfterMs: -1, RateLimitTokens: 9, RateLimitRequests: 10,
		LatencyMs: 11, Status: -1, Attempt: 13, QueueAttempt: 32767, Kind: ingest.KindTraceJob, AttemptBy: ingest.AttemptByLineAmbiguous, Dropped: ingest.DropWrongType | ingest.DropTimeNoZone, HasCost: true, StreamDropped: true, Batch: true, TSCarried: true, AgentSession: true, UsageUnseen: true, ForkCopy: true, Held: true, Source: 65535,
		Bill: ingest.BillFast | ingest.BillGeoUS | ingest.BillFlex | ingest.BillPriority | ingest.BillCompaction}
	var back ingest.Event
	unpackCall(packCall(nil, &ev), &back)
	if back != ev {
		t.Fatalf("\n%+v\n%+v", back, ev)
	}
	back.Model = "x"
	unpackCall(packCall(nil, &ingest.Event{}), &back)
	if back != (ingest.Event{}) {
		t.Fatalf("%+v", back)
	}
}

// TestPackedAnnouncementAnnouncedAgain: a job whose announcement waits
// packed, announced again (a new call, the first never answered), lets
// the first go as a call of unknown outcome; the answer after is the
// second call's. Another record of a packed job (its end) lets it go too.
func TestPackedAnnouncementAnnouncedAgain(t *testing.T) {
	d := NewDecoder(FormatAuto, nil, Options{})
	var calls []ingest.Event
	emit := func(e *ingest.Event) {
		if e.Kind == ingest.KindLLMCall {
			calls = append(calls, *e)
		}
	}
	announce := func(job string, ts int) {
		d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":%q,"model":"claude-sonnet-4-5","msg":"calling model"}`, 1796642058118+ts, job), emit)
	}
	announce("a", 0)
	announce("b", 1)
	for i := range maxAnnounced {
		announce(fmt.Sprint("x", i), 2+i) // a and b are packed
	}
	if len(calls) != 0 {
		t.Fatalf("%d calls while all wait", len(calls))
	}
	announce("a", maxAnnounced+2) // a's second call: the first let go
	if len(calls) != 1 || calls[0].JobID != "a" || calls[0].Status != ingest.StatusUnknown {
		t.Fatalf("a announced again: %+v", calls)
	}
	d.Decode([]byte(`{"time":1796642158118,"job_id":"a","request_id":"req_1","status":200,"input_tokens":10,"output_tokens":5,"msg":"model call ok"}`), emit)
	d.Decode([]byte(`{"time":1796642158119,"job_id":"b","event":"job_failed","msg":"job failed"}`), emit)
	if len(calls) != 3 || calls[1].JobID != "a" || calls[1].Status != 200 || calls[2].JobID != "b" || calls[2].Status != ingest.StatusUnknown {
		t.Fatalf("a's answer, b's end: %+v", calls[1:])
	}
}
