package otlp

import (
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func genAIAttrs(a pcommon.Map, job string) {
	a.PutStr("job.id", job)
	a.PutStr("gen_ai.system", "anthropic")
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.request.model", "claude-sonnet-4-5")
	a.PutInt("gen_ai.usage.input_tokens", 10)
	a.PutInt("gen_ai.usage.output_tokens", 10)
}

// TestEachResourceIsItsOwnSender: a request of several resources (a
// Collector batching services) numbers each event by its own resource's
// sender, not the request's first — spans and log records alike; the
// resource's declarations too.
func TestEachResourceIsItsOwnSender(t *testing.T) {
	at := pcommon.NewTimestampFromTime(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	senders := [][2]string{{"api", "host-a"}, {"batch", "host-b"}, {"api", "host-a"}}
	td := ptrace.NewTraces()
	ld := plog.NewLogs()
	for i, s := range senders {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", s[0])
		rs.Resource().Attributes().PutStr("host.name", s[1])
		rs.Resource().Attributes().PutStr("assumption.max_retries", "2")
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{byte(i + 1)})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetName("chat claude-sonnet-4-5")
		sp.SetKind(ptrace.SpanKindClient)
		sp.SetStartTimestamp(at)
		sp.SetEndTimestamp(at + 1e9)
		genAIAttrs(sp.Attributes(), s[0]+"-job")
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", s[0])
		rl.Resource().Attributes().PutStr("host.name", s[1])
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(at + pcommon.Timestamp(i))
		genAIAttrs(lr.Attributes(), s[0]+"-job")
	}
	want := map[string]uint16{}
	for _, s := range senders {
		res := pcommon.NewMap()
		res.PutStr("service.name", s[0])
		res.PutStr("host.name", s[1])
		want[s[0]+"-job"] = sourceOf(res)
	}
	if want["api-job"] == want["batch-job"] {
		t.Fatalf("two senders share a number: pick other names")
	}
	spans, _, _ := NewMapper().MapTraces(td)
	logs, _, _ := NewMapper().MapLogs(ld)
	calls := 0
	for name, list := range map[string][]ingest.Event{"spans": spans, "logs": logs} {
		for _, ev := range list {
			if ev.JobID == "" {
				continue
			}
			calls++
			if ev.Source != want[ev.JobID] {
				t.Errorf("%s: %s's event numbered %d, want its resource's %d", name, ev.JobID, ev.Source, want[ev.JobID])
			}
		}
	}
	if calls != 2*len(senders) {
		t.Errorf("%d calls mapped, want %d", calls, 2*len(senders))
	}
}
