package otlp

import (
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/burnrate-dev/burnrate/ingest"
)

// memoRequest is one export request of spans {trace, id, parent, job, call}.
func memoRequest(spans ...[5]any) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for _, s := range spans {
		sp := ss.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{s[0].(byte)})
		sp.SetSpanID(pcommon.SpanID{s[1].(byte)})
		if p := s[2].(byte); p != 0 {
			sp.SetParentSpanID(pcommon.SpanID{p})
		}
		sp.SetStartTimestamp(pcommon.Timestamp(1_780_000_000_000_000_000 + int64(s[1].(byte))*1e9))
		sp.SetEndTimestamp(sp.StartTimestamp() + 1e9)
		sp.SetName("item")
		if j := s[3].(string); j != "" {
			sp.Attributes().PutStr("job.id", j)
		}
		if s[4].(bool) {
			sp.SetName("chat gpt-4o")
			sp.Attributes().PutStr("gen_ai.system", "openai")
			sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
			sp.Attributes().PutInt("gen_ai.usage.input_tokens", 100)
		}
	}
	return td
}

func splitLinks(evs []ingest.Event) (out []ingest.Event, links []ingest.Event) {
	for _, ev := range evs {
		if ev.Kind == ingest.KindSpanLink {
			links = append(links, ev)
		} else {
			out = append(out, ev)
		}
	}
	return out, links
}

// TestRememberRebuildsTheMemory: a mapper made anew before each request,
// given the changes the ones before spooled, maps every request as one
// mapper that saw them all — the jobs of spans whose job span, root or
// filed siblings came in earlier requests.
func TestRememberRebuildsTheMemory(t *testing.T) {
	reqs := []ptrace.Traces{
		memoRequest([5]any{byte(1), byte(11), byte(2), "", true}),
		memoRequest([5]any{byte(1), byte(2), byte(1), "job-P", false}),
		memoRequest([5]any{byte(1), byte(12), byte(2), "", true}),
		memoRequest([5]any{byte(1), byte(13), byte(3), "", true}),
		memoRequest([5]any{byte(1), byte(3), byte(1), "job-Q", false}),
		memoRequest([5]any{byte(2), byte(21), byte(0), "job-R", false}),
		memoRequest([5]any{byte(2), byte(22), byte(21), "", true}),
	}
	one := NewMapper()
	one.spoolMemory = true
	var spooled []ingest.Event
	for i, td := range reqs {
		want, links := splitLinks(func() []ingest.Event { evs, _, _ := one.MapTraces(td); return evs }())
		fresh := NewMapper()
		fresh.spoolMemory = true
		fresh.Remember(spooled)
		got, _ := splitLinks(func() []ingest.Event { evs, _, _ := fresh.MapTraces(td); return evs }())
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d after a restart:\n%+v\nwant\n%+v", i, got, want)
		}
		spooled = append(spooled, links...)
		if fresh.BadLinks != 0 {
			t.Fatalf("request %d: %d links not read back", i, fresh.BadLinks)
		}
	}
	// Without the memory, the same last request maps otherwise: the test
	// can fail.
	blind := NewMapper()
	got, _ := splitLinks(func() []ingest.Event { evs, _, _ := blind.MapTraces(reqs[len(reqs)-1]); return evs }())
	if len(got) == 0 || got[0].JobID == "job-R" {
		t.Fatalf("a mapper with no memory found job-R: %+v", got)
	}
}

// TestRememberRefusesWhatItCannotRead: a spooled change of another build
// or a forged record is counted and skipped, never a panic.
func TestRememberRefusesWhatItCannotRead(t *testing.T) {
	mp := NewMapper()
	var bad []ingest.Event
	for _, c := range []struct{ corr, tool string }{
		{"", ""}, {"zz", "r"}, {"0102", "r"}, {"00000000000000000000000000000001", "s"}, {"00000000000000000000000000000001", "s1 2 3 4 5 6"},
		{"00000000000000000000000000000001", "sxx  1 2 3 4"}, {"00000000000000000000000000000001", "s0000000000000001  1 2 3 -4"},
		{"00000000000000000000000000000001", "n123"}, {"00000000000000000000000000000001", "o" + string(make([]byte, 1<<16))}, {"00000000000000000000000000000001", "?"},
	} {
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.CorrelationID, ev.Tool = ingest.KindSpanLink, c.corr, c.tool
		bad = append(bad, ev)
	}
	var call ingest.Event
	call.Reset()
	call.Kind = ingest.KindLLMCall
	bad = append(bad, call)
	mp.Remember(bad)
	if mp.BadLinks != int64(len(bad)) {
		t.Errorf("BadLinks %d, want %d", mp.BadLinks, len(bad))
	}
	if len(mp.jobs)+len(mp.named)+len(mp.orphans)+len(mp.seen) != 0 {
		t.Errorf("unreadable links changed the memory: %d jobs, %d named, %d orphans, %d seen", len(mp.jobs), len(mp.named), len(mp.orphans), len(mp.seen))
	}

}

// TestARememberedSpanIsMappedAgain: the replay gives back parents, not
// "mapped already": a request refused half-way at a stop (its first
// batch spooled, the rest not) is sent again by the exporter and mapped
// whole — correlate, whose state the replay rebuilt, bills the spooled
// half once; the other half is not dropped as a repeat.
func TestARememberedSpanIsMappedAgain(t *testing.T) {
	td := memoRequest([5]any{byte(1), byte(2), byte(1), "job-P", false}, [5]any{byte(1), byte(11), byte(2), "", true})
	one := NewMapper()
	one.spoolMemory = true
	evs, _, _ := one.MapTraces(td)
	want, links := splitLinks(evs)
	fresh := NewMapper()
	fresh.Remember(links)
	evs, _, _ = fresh.MapTraces(td)
	got, _ := splitLinks(evs)
	if !reflect.DeepEqual(got, want) || fresh.Repeats != 0 {
		t.Fatalf("mapped again after a replay: %+v (%d repeats)\nwant %+v", got, fresh.Repeats, want)
	}
}
