package otlp

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// sdkSpans is one export of openai-go's calls as the HTTP semantic
// conventions capture them: a GenAI span per attempt, with the request
// headers the Stainless SDKs send (x-stainless-retry-count "0" on the
// first attempt, -lang, -package-version) as string arrays, and a
// resource declaring assumption.* attributes.
func sdkSpans(start time.Time, version string, retries int, declare map[string]any) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "nightly-summaries")
	for k, v := range declare {
		if err := rs.Resource().Attributes().PutEmpty(k).FromRaw(v); err != nil {
			panic(err)
		}
	}
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	trace := pcommon.TraceID([16]byte{1, 2, 3, byte(retries), byte(start.Day())})
	for i := 0; i <= retries; i++ {
		sp := spans.AppendEmpty()
		sp.SetTraceID(trace)
		sp.SetSpanID(pcommon.SpanID([8]byte{byte(i + 1)}))
		sp.SetName("chat gpt-4o-mini")
		sp.SetKind(ptrace.SpanKindClient)
		t0 := start.Add(time.Duration(i) * 2 * time.Second)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(900 * time.Millisecond)))
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.system", "openai")
		a.PutStr("gen_ai.request.model", "gpt-4o-mini")
		a.PutStr("job.id", "summarize-"+start.Format("0102"))
		a.PutStr("job.type", "summarize")
		status := int64(429)
		if i == retries {
			status = 200
			a.PutInt("gen_ai.usage.input_tokens", 1200)
			a.PutInt("gen_ai.usage.output_tokens", 80)
		}
		a.PutInt("http.response.status_code", status)
		a.PutEmptySlice("http.request.header.x-stainless-retry-count").AppendEmpty().SetStr(strconv.Itoa(i))
		a.PutEmptySlice("http.request.header.x-stainless-lang").AppendEmpty().SetStr("go")
		a.PutEmptySlice("http.request.header.x-stainless-package-version").AppendEmpty().SetStr(version)
	}
	return td
}

// TestOTLPObservedAssumptions: x-stainless-retry-count and the package
// version on the spans give the observed keys; assumption.* on the
// resource declares; a later export with a new version is a change.
func TestOTLPObservedAssumptions(t *testing.T) {
	mp := NewMapper()
	st := correlate.New(correlate.DefaultConfig())
	night1 := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	night2 := time.Date(2026, 7, 1, 1, 0, 0, 0, time.UTC)
	for _, td := range []ptrace.Traces{
		sdkSpans(night1, "3.10.0", 2, map[string]any{"assumption.openai-go.maxRetries": int64(2), "assumption.retry.owner": "sdk"}),
		sdkSpans(night2, "3.52.0", 1, nil),
	} {
		events, rejected, reason := mp.MapTraces(td)
		if rejected > 0 {
			t.Fatal(reason)
		}
		st.Consume(append(ingest.NewBatch()[:0], events...))
	}
	r := st.Report()
	get := func(key string) correlate.AssumptionReport {
		for _, a := range r.Assumptions {
			if a.Key == key && a.JobType == "" {
				return a
			}
		}
		t.Fatalf("no %s in %+v", key, r.Assumptions)
		return correlate.AssumptionReport{}
	}
	if a := get("openai-sdk.maxRetries"); a.Observed != "2" {
		t.Errorf("retries from x-stainless-retry-count: %+v", a)
	}
	if a := get("openai-go.maxRetries"); a.Declared != "2" || a.DeclaredFrom != "otlp resource" || a.FirstAt != "2026-06-30T01:00:00Z" {
		t.Errorf("declared on the resource: %+v", a)
	}
	v := get("openai-go.version")
	if v.Observed != "3.52.0" || v.Previous != "3.10.0" || v.ChangedAt != "2026-07-01T01:00:00Z" || !strings.Contains(v.Evidence, "x-stainless-package-version") {
		t.Errorf("version: %+v", v)
	}
}

// TestOTLPHostileAssumptions: 10,000 assumption.* attributes, escape
// characters in keys and values, a huge value and a deep kvlist are
// bounded and inert.
func TestOTLPHostileAssumptions(t *testing.T) {
	td := sdkSpans(time.Date(2026, 7, 1, 1, 0, 0, 0, time.UTC), "1.0.0\x1b[2J", 0, nil)
	res := td.ResourceSpans().At(0).Resource().Attributes()
	for i := range 10000 {
		res.PutStr("assumption.k"+strconv.Itoa(i), "v")
	}
	res.PutStr("assumption.evil\x1b]0;pwned\x07\u202ekey", strings.Repeat("\x1b[31m", 100000))
	deep := res.PutEmptyMap("assumption.deep")
	for range 300 {
		deep = deep.PutEmptyMap("d")
	}
	events, _, _ := NewMapper().MapTraces(td)
	n := 0
	for _, e := range events {
		if e.Kind != ingest.KindAssumption {
			continue
		}
		n++
		_, k, v, ok := e.AssumptionParts()
		if !ok || len(k) > ingest.MaxAssumptionKeyBytes || len(v) > ingest.MaxAssumptionValueBytes {
			t.Fatalf("unbounded or unpackable: %q", e.Tool)
		}
		if strings.ContainsAny(k+v, "\x1b\x07\u202e\x1f") {
			t.Errorf("raw control text: %q = %q", k, v)
		}
	}
	// 64 declarations and one observed version.
	if n != ingest.MaxAssumptionsPerRecord+1 {
		t.Errorf("%d assumption events, want %d", n, ingest.MaxAssumptionsPerRecord+1)
	}
}
