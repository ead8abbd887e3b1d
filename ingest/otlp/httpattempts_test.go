package otlp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/burnrate-dev/burnrate/ingest"
)

// spanSpec is one span of a test request.
type spanSpec struct {
	id, parent byte
	name       string
	kind       ptrace.SpanKind
	start, end time.Duration // from base
	attrs      map[string]any
}

func tracesOf(specs ...spanSpec) ptrace.Traces {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for _, s := range specs {
		sp := spans.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{7, 7})
		sp.SetSpanID(pcommon.SpanID{s.id})
		if s.parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s.parent})
		}
		sp.SetName(s.name)
		sp.SetKind(s.kind)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(base.Add(s.start)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(base.Add(s.end)))
		sp.Attributes().FromRaw(s.attrs)
	}
	return td
}

func sdkCall(id, parent byte, start, end time.Duration, resend int, status int, out int) spanSpec {
	return spanSpec{id: id, parent: parent, name: "anthropic.messages.create", kind: ptrace.SpanKindClient, start: start, end: end,
		attrs: map[string]any{"gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5",
			"http.request.resend_count": resend, "http.response.status_code": status,
			"gen_ai.usage.input_tokens": 100 * min(out, 1), "gen_ai.usage.output_tokens": out}}
}

func undiciPost(id, parent byte, start, end time.Duration, status int) spanSpec {
	return spanSpec{id: id, parent: parent, name: "POST", kind: ptrace.SpanKindClient, start: start, end: end,
		attrs: map[string]any{"http.request.method": "POST", "url.full": "http://127.0.0.1:8080/v1/messages", "url.path": "/v1/messages",
			"server.address": "127.0.0.1", "user_agent.original": "Anthropic/JS 1.17.0", "http.response.status_code": status}}
}

func root(id byte, job string) spanSpec {
	return spanSpec{id: id, name: "process-job", kind: ptrace.SpanKindInternal, end: time.Minute, attrs: map[string]any{"job.id": job}}
}

// count maps requests in order and counts attempts, tool calls, usage
// growths, output tokens and links.
func count(t *testing.T, reqs ...ptrace.Traces) (attempts, tools, growths int, output int64, links []ingest.Event) {
	t.Helper()
	mp := NewMapper()
	for _, td := range reqs {
		evs, rejected, reason := mp.MapTraces(td)
		if rejected != 0 {
			t.Fatalf("rejected %d: %s", rejected, reason)
		}
		for _, ev := range evs {
			switch ev.Kind {
			case ingest.KindLLMCall:
				attempts++
			case ingest.KindToolCall:
				tools++
			case ingest.KindUsageGrowth:
				growths++
			case ingest.KindTraceJob:
				links = append(links, ev)
			}
			output += ev.OutputTokens
		}
	}
	return
}

// TestSameNameSpansAreDistinctCalls: issue 39 — a wrapper's two SDK call
// spans of one name under one parent were merged into one call: the first
// with resend_count 2 (3 attempts, failed), the second with resend_count 1
// (2 attempts, succeeded) gave 3 for 5, and the job read failed. Spans are
// distinct by span ID; only a span that ended before the one that implied
// its attempt can be that attempt (TestAttemptSpansOutOfOrder).
func TestSameNameSpansAreDistinctCalls(t *testing.T) {
	s := time.Second
	for name, reqs := range map[string][]ptrace.Traces{
		"one request": {tracesOf(sdkCall(2, 1, 0, 3*s, 2, 529, 0), sdkCall(3, 1, 4*s, 6*s, 1, 200, 10), root(1, "job-3"))},
		"three":       {tracesOf(sdkCall(2, 1, 0, 3*s, 2, 529, 0)), tracesOf(sdkCall(3, 1, 4*s, 6*s, 1, 200, 10)), tracesOf(root(1, "job-3"))},
	} {
		attempts, _, _, output, _ := count(t, reqs...)
		if attempts != 5 || output != 10 {
			t.Errorf("%s: %d attempts, %d output tokens; want 5, 10", name, attempts, output)
		}
	}
}

// TestHTTPSpansAreAttemptsOfTheirCall: issue 39 — with
// instrumentation-undici each HTTP attempt is a POST CLIENT span under the
// SDK's call span; they were counted as tool calls beside the call (59
// attempts seen for 70 on the wire). They are the call's attempts, and the
// call's span adds its usage only — whichever arrives first.
func TestHTTPSpansAreAttemptsOfTheirCall(t *testing.T) {
	s := time.Second
	call := sdkCall(2, 1, 0, 3*s, 2, 200, 10)
	kids := []spanSpec{undiciPost(3, 2, 0, s, 529), undiciPost(4, 2, s, 2*s, 529), undiciPost(5, 2, 2*s, 3*s, 200)}
	for name, reqs := range map[string][]ptrace.Traces{
		"one request":          {tracesOf(append(kids, call, root(1, "j"))...)},
		"attempts first":       {tracesOf(kids[:2]...), tracesOf(kids[2], call), tracesOf(root(1, "j"))},
		"call first":           {tracesOf(call), tracesOf(kids...), tracesOf(root(1, "j"))},
		"no call span at all":  {tracesOf(kids[0]), tracesOf(kids[1:]...), tracesOf(root(1, "j"))},
		"call after root link": {tracesOf(kids...), tracesOf(root(1, "j")), tracesOf(call)},
	} {
		attempts, tools, _, output, _ := count(t, reqs...)
		wantOut := int64(10)
		if name == "no call span at all" {
			wantOut = 0
		}
		if attempts != 3 || tools != 0 || output != wantOut {
			t.Errorf("%s: %d model attempts, %d tool calls, %d output tokens; want 3, 0, %d", name, attempts, tools, output, wantOut)
		}
	}
	// A request to some other service stays a tool call.
	other := undiciPost(3, 1, 0, s, 200)
	other.attrs = map[string]any{"http.request.method": "GET", "url.full": "http://inventory:8080/items", "url.path": "/items", "http.response.status_code": 200}
	if attempts, tools, _, _, _ := count(t, tracesOf(other, root(1, "j"))); attempts != 0 || tools != 1 {
		t.Errorf("a GET to an internal service: %d model attempts, %d tool calls; want 0, 1", attempts, tools)
	}
}

// TestRootAfterChildrenLinksTheTrace: the calls of a trace whose root span
// (job.id) comes in a later request go out under the trace ID, and the
// root's request says which job they are (a KindTraceJob, once); a trace
// whose job was named first needs none.
func TestRootAfterChildrenLinksTheTrace(t *testing.T) {
	s := time.Second
	_, _, _, _, links := count(t, tracesOf(undiciPost(3, 2, 0, s, 200), sdkCall(2, 1, 0, s, 0, 200, 5)), tracesOf(root(1, "job-9")), tracesOf(root(1, "job-9")))
	if len(links) != 1 || links[0].JobID != "job-9" || links[0].CorrelationID != (pcommon.TraceID{7, 7}).String() || links[0].JobType != "process-job" {
		t.Errorf("links %+v; want one: job-9 (type process-job) for the trace", links)
	}
	if _, _, _, _, links := count(t, tracesOf(root(1, "job-9"), sdkCall(2, 1, 0, s, 0, 200, 5))); len(links) != 0 {
		t.Errorf("a trace named in its own request was linked: %+v", links)
	}
}

// TestHTTPAttemptsNumbered: the HTTP attempts of a call whose span is in
// the request are the SDK's attempts 1, 2, 3 (in the order they ended),
// after those of it that came in an earlier request; attempts whose call
// span has not come are unnumbered (their parent may be the job).
func TestHTTPAttemptsNumbered(t *testing.T) {
	s := time.Second
	call := sdkCall(2, 1, 0, 3*s, 2, 200, 10)
	kids := []spanSpec{undiciPost(3, 2, 0, s, 529), undiciPost(4, 2, s, 2*s, 529), undiciPost(5, 2, 2*s, 3*s, 200)}
	for name, c := range map[string]struct {
		reqs []ptrace.Traces
		want []int16
	}{
		"one request":    {[]ptrace.Traces{tracesOf(append(kids, call)...)}, []int16{1, 2, 3}},
		"attempts first": {[]ptrace.Traces{tracesOf(kids[0]), tracesOf(kids[1], kids[2], call)}, []int16{0, 2, 3}},
	} {
		mp := NewMapper()
		var got []int16
		for _, td := range c.reqs {
			evs, _, _ := mp.MapTraces(td)
			for _, ev := range evs {
				if ev.Kind == ingest.KindLLMCall {
					got = append(got, ev.Attempt)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: attempts numbered %v, want %v", name, got, c.want)
		}
	}
}

// TestCallMemoryIsBounded: red team of issue 39's memory of call spans —
// a client sending many model-call spans with 512-byte model names and
// HTTP spans under parents never sent fills the memory to its bound and
// starts over; it never grows past it.
func TestCallMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("maps 100,000 spans")
	}
	mp := NewMapper()
	model := strings.Repeat("m", 600)
	for r := range 20 {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		for i := range 5000 {
			sp := spans.AppendEmpty()
			sp.SetTraceID(pcommon.TraceID{byte(r), byte(r >> 8), byte(i), byte(i >> 8), 1})
			sp.SetSpanID(pcommon.SpanID{byte(i), byte(i >> 8), 1})
			sp.SetParentSpanID(pcommon.SpanID{byte(i), byte(i >> 8), 2})
			sp.SetKind(ptrace.SpanKindClient)
			if i%2 == 0 {
				sp.Attributes().PutStr("gen_ai.request.model", model)
			} else {
				sp.Attributes().PutStr("http.request.method", "POST")
				sp.Attributes().PutStr("url.full", "https://api.anthropic.com/v1/messages")
			}
		}
		mp.MapTraces(td)
		if len(mp.calls) > maxRemembered+5000 || len(mp.kids) > maxRemembered+5000 || mp.callBytes > maxRememberedBytes/2+5000*1200 {
			t.Fatalf("request %d: %d calls, %d kids, %d bytes remembered", r, len(mp.calls), len(mp.kids), mp.callBytes)
		}
	}
}

// TestToolFetchUnderAnOuterCallSpan: red team of issue 39's HTTP attempts
// — the Vercel AI SDK's ai.generateText is a call span whose doGenerate
// child is the call; a tool's fetch under ai.generateText (via
// ai.toolCall) is a tool call, not an attempt of the model call, and the
// model request under doGenerate is its attempt.
func TestToolFetchUnderAnOuterCallSpan(t *testing.T) {
	s := time.Second
	vercel := func(id, parent byte, name string) spanSpec {
		return spanSpec{id: id, parent: parent, name: name, kind: ptrace.SpanKindInternal, end: 3 * s,
			attrs: map[string]any{"ai.model.id": "claude-sonnet-4-5", "ai.usage.inputTokens": 100, "ai.usage.outputTokens": 10, "gen_ai.request.model": "claude-sonnet-4-5"}}
	}
	tool := spanSpec{id: 5, parent: 4, name: "GET", kind: ptrace.SpanKindClient, start: 2 * s, end: 3 * s,
		attrs: map[string]any{"http.request.method": "GET", "url.full": "http://inventory:8080/items", "http.response.status_code": 200}}
	model := undiciPost(6, 3, 0, s, 200)
	model.attrs["url.full"], model.attrs["server.address"] = "https://api.anthropic.com/v1/messages", "api.anthropic.com"
	toolCall := spanSpec{id: 4, parent: 2, name: "ai.toolCall", kind: ptrace.SpanKindInternal, start: 2 * s, end: 3 * s, attrs: map[string]any{"ai.toolCall.name": "inventory"}}
	attempts, tools, _, _, _ := count(t, tracesOf(root(1, "j"), vercel(2, 1, "ai.generateText"), vercel(3, 2, "ai.generateText.doGenerate"), toolCall, tool, model))
	if attempts != 1 || tools != 1 {
		t.Errorf("%d model attempts, %d tool calls; want 1 (the request under doGenerate) and 1 (the tool's fetch)", attempts, tools)
	}
}
