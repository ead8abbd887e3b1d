package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// call is one model-call attempt, written both as OTel telemetry and as a
// canonical JSON line; the two must give the same report.
type call struct {
	job, key           string
	attempt, status    int
	in, cacheRead, out int // in excludes the cache (canonical meaning)
	retryAfter         string
	startMs, durMs     int64
}

var base = time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)

var calls = []call{
	{job: "job-1", key: "k1", attempt: 1, status: 529, startMs: 0, durMs: 250},
	{job: "job-1", key: "k1", attempt: 2, status: 200, in: 1000, cacheRead: 500, out: 200, startMs: 800, durMs: 4000},
	{job: "job-2", key: "k2", attempt: 1, status: 200, in: 3000, out: 700, startMs: 1000, durMs: 5000},
	{job: "job-3", key: "k3", attempt: 1, status: 429, retryAfter: "2", startMs: 2000, durMs: 100},
	{job: "job-3", key: "k3", attempt: 2, status: 200, in: 800, out: 100, startMs: 4200, durMs: 3000},
	{job: "job-4", key: "k4", attempt: 1, status: 400, startMs: 3000, durMs: 90},
	{job: "job-4", key: "k4", attempt: 2, status: 400, startMs: 3500, durMs: 90},
}

func jsonLines() string {
	var b strings.Builder
	for _, c := range calls {
		ra := ""
		if c.retryAfter != "" {
			ra = `,"retry_after_s":` + c.retryAfter
		}
		fmt.Fprintf(&b, `{"ts":"%s","event":"llm_call","job_id":"%s","job_type":"report","idempotency_key":"%s","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-6","status":%d,"input_tokens":%d,"cache_read_tokens":%d,"output_tokens":%d,"latency_ms":%d%s}`+"\n",
			base.Add(time.Duration(c.startMs)*time.Millisecond).Format(time.RFC3339Nano), c.job, c.key, c.attempt, c.status, c.in, c.cacheRead, c.out, c.durMs, ra)
	}
	return b.String()
}

// summary is the part of a report both inputs must agree on.
func summary(r *correlate.Report) string {
	var b strings.Builder
	// How far the counts go may differ, and only that: a span's
	// x-stainless-retry-count / resend_count is the SDK's own count (each
	// call an HTTP attempt: exact) where the JSON line's attempt field is
	// the application's (the SDK below it unseen: a lower bound).
	r.Totals.LowerBoundJobs = 0
	fmt.Fprintf(&b, "totals %+v\nstatus %v\ncalls/job %+v dups %d retry_after %+v recovery %+v\n", r.Totals, r.Status, r.CallsPerJob, r.Duplicates, r.RetryAfter, r.Recovery)
	for _, j := range r.Jobs {
		fmt.Fprintf(&b, "job %s %s %s calls %d layers %v spend %v wasted %v findings %v\n", j.JobID, j.JobType, j.Outcome, j.Attempts, j.Layers, j.SpendUSD, j.WastedUSD, j.Findings)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "finding %s %d %v\n", f.Kind, f.Count, f.Jobs)
	}
	return b.String()
}

func reportOfEvents(evs []ingest.Event) *correlate.Report {
	st := correlate.New(correlate.DefaultConfig())
	for i := range evs {
		st.Apply(&evs[i])
	}
	r := st.Report()
	r.Totals.Operations = 0 // keyed differently: trace IDs are not in the JSON lines
	return r
}

func canonical(t *testing.T) *correlate.Report {
	it := file.NewIter(strings.NewReader(jsonLines()), "canonical", 0, decode.Options{})
	var evs []ingest.Event
	var ev ingest.Event
	for it.Next(&ev) {
		evs = append(evs, ev)
	}
	if len(evs) != len(calls) {
		t.Fatalf("canonical log parsed to %d events", len(evs))
	}
	return reportOfEvents(evs)
}

// receiver starts a receiver on free loopback ports and collects events.
type testReceiver struct {
	r      *Receiver
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	events []ingest.Event
}

func startReceiver(t *testing.T, cfg Config, queue int) *testReceiver {
	if cfg.GRPCAddr == "" {
		cfg.GRPCAddr = "127.0.0.1:0"
	}
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	tr := &testReceiver{r: New(cfg), done: make(chan struct{})}
	out := make(chan ingest.Batch, queue)
	ctx, cancel := context.WithCancel(context.Background())
	tr.cancel = cancel
	go func() {
		tr.r.Run(ctx, out)
		close(out)
	}()
	go func() {
		defer close(tr.done)
		for b := range out {
			tr.mu.Lock()
			tr.events = append(tr.events, b...)
			tr.mu.Unlock()
		}
	}()
	<-tr.r.Ready()
	t.Cleanup(tr.stop)
	return tr
}

func (tr *testReceiver) stop() { tr.cancel(); <-tr.done }

// emitSpans writes the calls as a tracer would: a root job span and one
// client span per attempt, with the GenAI conventions (input tokens
// include the cache) and captured HTTP headers.
func emitSpans(ctx context.Context, tp *sdktrace.TracerProvider) {
	tr := tp.Tracer("test")
	byJob := map[string][]call{}
	var order []string
	for _, c := range calls {
		if _, ok := byJob[c.job]; !ok {
			order = append(order, c.job)
		}
		byJob[c.job] = append(byJob[c.job], c)
	}
	for _, job := range order {
		cs := byJob[job]
		start := base.Add(time.Duration(cs[0].startMs) * time.Millisecond)
		jctx, root := tr.Start(ctx, "report", trace.WithTimestamp(start), trace.WithAttributes(attribute.String("job.id", job)))
		var end time.Time
		for _, c := range cs {
			s := base.Add(time.Duration(c.startMs) * time.Millisecond)
			end = s.Add(time.Duration(c.durMs) * time.Millisecond)
			attrs := []attribute.KeyValue{
				attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "anthropic"),
				attribute.String("gen_ai.request.model", "claude-sonnet-4-6"), attribute.Int("http.response.status_code", c.status),
				attribute.Int("http.request.resend_count", c.attempt-1), attribute.StringSlice("http.request.header.idempotency-key", []string{c.key}),
			}
			if c.status == 200 {
				attrs = append(attrs, attribute.Int("gen_ai.usage.input_tokens", c.in+c.cacheRead), attribute.Int("gen_ai.usage.output_tokens", c.out),
					attribute.Int("gen_ai.usage.cache_read.input_tokens", c.cacheRead))
			}
			if c.retryAfter != "" {
				attrs = append(attrs, attribute.StringSlice("http.response.header.retry-after", []string{c.retryAfter}))
			}
			_, sp := tr.Start(jctx, "anthropic.messages.create", trace.WithTimestamp(s), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			sp.End(trace.WithTimestamp(end))
		}
		root.End(trace.WithTimestamp(end))
	}
}

func emitLogs(ctx context.Context, lp *sdklog.LoggerProvider) {
	lg := lp.Logger("test")
	for _, c := range calls {
		var rec otellog.Record
		rec.SetTimestamp(base.Add(time.Duration(c.startMs) * time.Millisecond))
		rec.SetEventName("gen_ai.client.inference.operation.details")
		rec.AddAttributes(attribute.String("job.id", c.job), attribute.String("job.type", "report"), attribute.String("gen_ai.provider.name", "anthropic"),
			attribute.String("gen_ai.request.model", "claude-sonnet-4-6"), attribute.Int("http.response.status_code", c.status))
		if c.status == 200 {
			rec.AddAttributes(attribute.Int("gen_ai.usage.input_tokens", c.in+c.cacheRead), attribute.Int("gen_ai.usage.output_tokens", c.out),
				attribute.Int("gen_ai.usage.cache_read.input_tokens", c.cacheRead))
		}
		lg.Emit(ctx, rec)
	}
}

// TestSDKExportersMatchJSONLines: the real OpenTelemetry Go SDK exporters,
// over gRPC and HTTP, for traces and for logs, give the same report as the
// same calls written as JSON lines.
func TestSDKExportersMatchJSONLines(t *testing.T) {
	want := summary(canonical(t))
	ctx := context.Background()
	auth := map[string]string{"Authorization": "Bearer t0ken"}
	for _, tc := range []struct {
		name string
		emit func(t *testing.T, grpcAddr, httpAddr string)
	}{
		{"traces over gRPC", func(t *testing.T, g, h string) {
			exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(g), otlptracegrpc.WithInsecure(), otlptracegrpc.WithHeaders(auth))
			if err != nil {
				t.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp)) // the SDK default: a trace travels together
			emitSpans(ctx, tp)
			if err := tp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{"traces over HTTP, gzip", func(t *testing.T, g, h string) {
			exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(h), otlptracehttp.WithInsecure(), otlptracehttp.WithHeaders(auth), otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
			if err != nil {
				t.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp)) // the SDK default: a trace travels together
			emitSpans(ctx, tp)
			if err := tp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{"logs over gRPC", func(t *testing.T, g, h string) {
			exp, err := otlploggrpc.New(ctx, otlploggrpc.WithEndpoint(g), otlploggrpc.WithInsecure(), otlploggrpc.WithHeaders(auth))
			if err != nil {
				t.Fatal(err)
			}
			lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)))
			emitLogs(ctx, lp)
			if err := lp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{"logs over HTTP", func(t *testing.T, g, h string) {
			exp, err := otlploghttp.New(ctx, otlploghttp.WithEndpoint(h), otlploghttp.WithInsecure(), otlploghttp.WithHeaders(auth))
			if err != nil {
				t.Fatal(err)
			}
			lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)))
			emitLogs(ctx, lp)
			if err := lp.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := startReceiver(t, Config{Token: "t0ken"}, 64)
			g, h := tr.r.Addrs()
			tc.emit(t, g, h)
			tr.stop()
			got := reportOfEvents(tr.events)
			if strings.HasPrefix(tc.name, "logs") {
				// Log records carry no latency or idempotency key; compare what they carry.
				if got.Totals.Attempts != int64(len(calls)) || got.Totals.SpendUSD != canonical(t).Totals.SpendUSD || got.Totals.CacheReadTokens != 500 {
					t.Errorf("logs: %+v", got.Totals)
				}
				return
			}
			if s := summary(got); s != want {
				t.Errorf("OTLP report differs from the JSON-lines one:\n--- JSON lines\n%s--- OTLP\n%s", want, s)
			}
		})
	}
}

// TestOneSpanManyAttempts: the Anthropic TypeScript SDK's single span after
// 529 → 429 → 200 carries resend_count=2: three attempts, the first two of
// unknown status, never successes.
func TestOneSpanManyAttempts(t *testing.T) {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{1})
	sp.SetName("anthropic.messages.create")
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(base))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(base.Add(time.Second)))
	a := sp.Attributes()
	a.PutStr("gen_ai.request.model", "claude-sonnet-4-6")
	a.PutInt("http.request.resend_count", 2)
	a.PutInt("http.response.status_code", 200)
	a.PutInt("gen_ai.usage.input_tokens", 100)
	a.PutInt("gen_ai.usage.output_tokens", 10)
	evs, _, _ := NewMapper().MapTraces(td)
	if len(evs) != 3 {
		t.Fatalf("%d attempts, want 3", len(evs))
	}
	for i, ev := range evs[:2] {
		if ev.Status != ingest.StatusUnknown || ev.ErrorType != StatusUnknownRetried || ev.OutputTokens != 0 || ev.Attempt != int16(i+1) {
			t.Errorf("attempt %d: %+v", i+1, ev)
		}
	}
	if evs[2].Status != 200 || evs[2].Attempt != 3 || evs[2].OutputTokens != 10 {
		t.Errorf("final attempt %+v", evs[2])
	}
}

// TestInnermostModelSpanOnly: the Vercel AI SDK puts usage on
// ai.generateText and its child ai.generateText.doGenerate; one call.
func TestInnermostModelSpanOnly(t *testing.T) {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	outer := spans.AppendEmpty()
	outer.SetTraceID(pcommon.TraceID{2})
	outer.SetSpanID(pcommon.SpanID{1})
	outer.SetName("ai.generateText")
	inner := spans.AppendEmpty()
	inner.SetTraceID(pcommon.TraceID{2})
	inner.SetSpanID(pcommon.SpanID{2})
	inner.SetParentSpanID(pcommon.SpanID{1})
	inner.SetName("ai.generateText.doGenerate")
	for _, s := range []ptrace.Span{outer, inner} {
		s.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		s.Attributes().PutInt("gen_ai.usage.input_tokens", 500)
		s.Attributes().PutInt("gen_ai.usage.prompt_tokens", 500) // older spelling on the same span: not added
		s.Attributes().PutInt("gen_ai.usage.output_tokens", 50)
	}
	evs, _, _ := NewMapper().MapTraces(td)
	if len(evs) != 1 || evs[0].InputTokens != 500 || evs[0].JobType != "ai.generateText" {
		t.Errorf("%+v", evs)
	}
}

// TestVercelAISDKCacheTokens: issue 13 — a Vercel AI SDK span's cached
// input was billed as fresh input (3.2× over): ai.usage.* and the
// Anthropic cache write were not read. The inclusive input, minus cache
// reads and writes, is counted once, from the first spelling present.
func TestVercelAISDKCacheTokens(t *testing.T) {
	for _, c := range []struct {
		name  string
		attrs map[string]any
	}{
		{"v5 with inputTokenDetails", map[string]any{
			"ai.model.id": "claude-sonnet-4-5", "ai.model.provider": "anthropic.messages", "operation.name": "ai.generateText.doGenerate",
			"ai.usage.inputTokens": 12000, "ai.usage.outputTokens": 300, "ai.usage.cachedInputTokens": 8000,
			"ai.usage.inputTokenDetails.cacheReadTokens": 8000, "ai.usage.inputTokenDetails.cacheWriteTokens": 1500,
			"gen_ai.system": "anthropic.messages", "gen_ai.request.model": "claude-sonnet-4-5",
			"gen_ai.usage.input_tokens": 12000, "gen_ai.usage.output_tokens": 300}},
		{"v4 with providerMetadata", map[string]any{
			"ai.model.id": "claude-sonnet-4-5", "ai.model.provider": "anthropic.messages",
			"ai.usage.promptTokens": 12000, "ai.usage.completionTokens": 300, "ai.usage.cachedInputTokens": 8000,
			"ai.response.providerMetadata": `{"anthropic":{"cacheCreationInputTokens":1500,"cacheReadInputTokens":8000}}`}},
	} {
		td := ptrace.NewTraces()
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{9})
		sp.SetSpanID(pcommon.SpanID{9})
		sp.SetName("ai.generateText.doGenerate")
		sp.Attributes().FromRaw(c.attrs)
		evs, rejected, _ := NewMapper().MapTraces(td)
		if len(evs) != 1 || rejected != 0 {
			t.Fatalf("%s: %d events, %d rejected", c.name, len(evs), rejected)
		}
		ev := evs[0]
		if ev.InputTokens != 2500 || ev.CacheReadTokens != 8000 || ev.CacheCreateTokens != 1500 || ev.OutputTokens != 300 ||
			ev.Model != "claude-sonnet-4-5" || !strings.HasPrefix(ev.Provider, "anthropic") {
			t.Errorf("%s: %+v; want 2,500 fresh + 8,000 read + 1,500 written, counted once", c.name, ev)
		}
	}
}

// TestModelCallWithoutModelIsKept: issue 13 — OpenInference LLM spans
// without llm.model_name were dropped with no count: 50,000 tokens
// vanished. They are calls of model "" — "(unknown)", unpriced, with
// their tokens.
func TestModelCallWithoutModelIsKept(t *testing.T) {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{8})
	sp.SetSpanID(pcommon.SpanID{8})
	sp.SetName("ChatCompletion")
	sp.Attributes().FromRaw(map[string]any{"openinference.span.kind": "LLM", "llm.token_count.prompt": 40000, "llm.token_count.completion": 10000})
	evs, _, _ := NewMapper().MapTraces(td)
	if len(evs) != 1 || evs[0].InputTokens != 40000 || evs[0].OutputTokens != 10000 || evs[0].Model != "" {
		t.Errorf("%+v", evs)
	}
}

func TestClaudeCodeEvents(t *testing.T) {
	tr := startReceiver(t, Config{}, 8)
	_, h := tr.r.Addrs()
	body := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},"scopeLogs":[{"logRecords":[
{"observedTimeUnixNano":"1773104400000000000","body":{"stringValue":"claude_code.api_error"},"attributes":[{"key":"session.id","value":{"stringValue":"sess-1"}},{"key":"model","value":{"stringValue":"claude-sonnet-4-6"}},{"key":"status_code","value":{"stringValue":"529"}},{"key":"attempt","value":{"intValue":"1"}},{"key":"error","value":{"stringValue":"overloaded_error"}}]},
{"timeUnixNano":"1773104402000000000","body":{"stringValue":"claude_code.api_request"},"attributes":[{"key":"session.id","value":{"stringValue":"sess-1"}},{"key":"model","value":{"stringValue":"claude-sonnet-4-6"}},{"key":"cost_usd","value":{"stringValue":"0.0123"}},{"key":"input_tokens","value":{"intValue":"100"}},{"key":"output_tokens","value":{"intValue":"50"}},{"key":"cache_read_tokens","value":{"intValue":"1000"}},{"key":"duration_ms","value":{"intValue":"2100"}}]}]}]}]}`
	resp, err := http.Post("http://"+h+"/v1/logs", "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	tr.stop()
	if len(tr.events) != 2 {
		t.Fatalf("%d events", len(tr.events))
	}
	e0, e1 := tr.events[0], tr.events[1]
	if e0.JobID != "sess-1" || e0.Status != 529 || e0.Attempt != 1 || e0.TS != 1773104400000000000 {
		t.Errorf("api_error %+v (observedTimeUnixNano alone must do)", e0)
	}
	if e1.Status != 200 || !e1.HasCost || e1.CostUSD != 0.0123 || e1.CacheReadTokens != 1000 || e1.LatencyMs != 2100 {
		t.Errorf("api_request %+v", e1)
	}
}

func post(t *testing.T, url, ctype, enc, token string, body []byte) *http.Response {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// exampleTrace is a small OTLP/JSON trace built with pdata, with the
// trace ID of the official example so tests can corrupt it.
func exampleTrace(t *testing.T) []byte {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	var tid pcommon.TraceID
	copy(tid[:], []byte{0x5B, 0x8E, 0xFF, 0xF7, 0x98, 0x03, 0x81, 0x03, 0xD2, 0x69, 0xB6, 0x33, 0x81, 0x3F, 0xC6, 0x0C})
	sp.SetTraceID(tid)
	sp.SetSpanID(pcommon.SpanID{0xEE, 0xE1, 0x9B, 0x7E, 0xC3, 0xC1, 0xB1, 0x74})
	sp.SetName("I'm a server span")
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b, []byte("5b8efff798038103d269b633813fc60c"), []byte("5B8EFFF798038103D269B633813FC60C"))
}

func TestHTTPRefusals(t *testing.T) {
	tr := startReceiver(t, Config{Token: "secret", MaxBytes: 4096}, 8)
	_, h := tr.r.Addrs()
	url := "http://" + h + "/v1/traces"
	ex := exampleTrace(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(ex)
	zw.Close()
	bomb := bytes.Repeat([]byte(" "), 1<<20)
	var gzBomb bytes.Buffer
	zw = gzip.NewWriter(&gzBomb)
	zw.Write(bomb)
	zw.Close()
	badID := bytes.Replace(ex, []byte("5B8EFFF798038103D269B633813FC60C"), []byte("5B8EFFF798038103D269B633813FC6"), 1)
	for _, c := range []struct {
		name, ctype, enc, token string
		body                    []byte
		want                    int
	}{
		{"good JSON", "application/json", "", "secret", ex, 200},
		{"gzip body", "application/json", "gzip", "secret", gz.Bytes(), 200},
		{"wrong token", "application/json", "", "guess", ex, 401},
		{"no token", "application/json", "", "", ex, 401},
		{"oversized", "application/json", "", "secret", bytes.Repeat([]byte("x"), 5000), 413},
		{"gzip bomb", "application/json", "gzip", "secret", gzBomb.Bytes(), 413},
		{"garbage protobuf", "application/x-protobuf", "", "secret", []byte{0xff, 0xff, 0xff, 0x01, 0x02}, 400},
		{"invalid JSON", "application/json", "", "secret", []byte(`{"resourceSpans": [`), 400},
		{"15-byte trace ID", "application/json", "", "secret", badID, 400},
		{"bad gzip", "application/json", "gzip", "secret", []byte("not gzip"), 400},
		{"wrong type", "text/plain", "", "secret", ex, 415},
	} {
		if resp := post(t, url, c.ctype, c.enc, c.token, c.body); resp.StatusCode != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	if st := tr.r.Stats(); st.BadRequests != 9 {
		t.Errorf("bad requests counted %d, want 9", st.BadRequests)
	}
}

func TestGRPCRefusals(t *testing.T) {
	tr := startReceiver(t, Config{Token: "secret"}, 8)
	g, _ := tr.r.Addrs()
	cc, err := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	client := ptraceotlp.NewGRPCClient(cc)
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(exampleTrace(t)); err != nil {
		t.Fatal(err)
	}
	_, err = client.Export(context.Background(), req)
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("no token: %v", err)
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer secret")
	if _, err := client.Export(ctx, req); err != nil {
		t.Errorf("with token: %v", err)
	}
}

// TestSlowConsumerIsRefusedNotQueued: when the engine is behind, requests
// get 429 / RESOURCE_EXHAUSTED with a retry delay instead of growing memory.
func TestSlowConsumerIsRefusedNotQueued(t *testing.T) {
	r := New(Config{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"})
	out := make(chan ingest.Batch) // nobody reads: saturated
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx, out)
	<-r.Ready()
	g, h := r.Addrs()
	body := exampleModelTrace()
	resp := post(t, "http://"+h+"/v1/traces", "application/x-protobuf", "", "", body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("HTTP %d Retry-After %q, want 429 with a delay", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	cc, _ := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer cc.Close()
	req := ptraceotlp.NewExportRequest()
	req.UnmarshalProto(body)
	_, err := ptraceotlp.NewGRPCClient(cc).Export(context.Background(), req)
	st, _ := status.FromError(err)
	if st.Code() != codes.ResourceExhausted || len(st.Details()) == 0 {
		t.Errorf("gRPC: %v, want RESOURCE_EXHAUSTED with RetryInfo", err)
	}
	if r.Stats().Refused != 2 {
		t.Errorf("refused %d", r.Stats().Refused)
	}
}

func exampleModelTrace() []byte { return exampleModelTraceN(9) }

// exampleModelTraceN is one model-call span of its own span ID: the same
// span sent twice is billed once (TestASpanDeliveredTwiceIsBilledOnce).
func exampleModelTraceN(n int) []byte {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{9})
	sp.SetSpanID(pcommon.SpanID{byte(n), byte(n >> 8), 1})
	sp.Attributes().PutStr("gen_ai.request.model", "claude-haiku-4-5")
	b, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	return b
}

// TestShutdownDrainsAcceptedData: everything acknowledged before shutdown
// reaches the consumer.
func TestShutdownDrainsAcceptedData(t *testing.T) {
	tr := startReceiver(t, Config{}, 1024)
	_, h := tr.r.Addrs()
	var wg sync.WaitGroup
	var ok sync.Map
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if post(t, "http://"+h+"/v1/traces", "application/x-protobuf", "", "", exampleModelTraceN(i)).StatusCode == 200 {
				ok.Store(i, true)
			}
		}()
	}
	wg.Wait()
	tr.stop()
	n := 0
	ok.Range(func(any, any) bool { n++; return true })
	if n != 50 || len(tr.events) != n {
		t.Errorf("%d requests acknowledged, %d events delivered", n, len(tr.events))
	}
}

func TestValidateRefusesOpenListenerWithoutToken(t *testing.T) {
	if err := (Config{GRPCAddr: "0.0.0.0:4317"}).Validate(); err == nil {
		t.Error("0.0.0.0 without a token must be refused")
	}
	if err := (Config{GRPCAddr: "0.0.0.0:4317", Token: "x"}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Config{HTTPAddr: "0.0.0.0:4318", InsecureListen: true}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Config{HTTPAddr: "[::1]:4318"}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestChunkedBody: the JavaScript exporter sends bodies with no
// Content-Length.
func TestChunkedBody(t *testing.T) {
	tr := startReceiver(t, Config{}, 8)
	_, h := tr.r.Addrs()
	body := exampleModelTrace()
	req, _ := http.NewRequest(http.MethodPost, "http://"+h+"/v1/traces", io.MultiReader(bytes.NewReader(body[:3]), bytes.NewReader(body[3:])))
	req.Header.Set("Content-Type", "application/x-protobuf")
	if req.ContentLength != 0 {
		t.Fatal("the request must be chunked")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	tr.stop()
	if len(tr.events) != 1 {
		t.Errorf("%d events", len(tr.events))
	}
}

// TestPartialSuccess: a model-call span whose token count cannot be read
// is kept, that count dropped and the call unpriced (R7-25: it cost the
// whole span, counted nowhere in a report); the sender is told in the
// partial success's message, with nothing rejected.
func TestPartialSuccess(t *testing.T) {
	tr := startReceiver(t, Config{}, 8)
	g, _ := tr.r.Addrs()
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i, tokens := range []string{"120", "lots"} {
		sp := spans.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{7})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetName(fmt.Sprintf("call-%d", i))
		sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		sp.Attributes().PutStr("gen_ai.usage.input_tokens", tokens)
	}
	cc, _ := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer cc.Close()
	resp, err := ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td))
	if err != nil {
		t.Fatal(err)
	}
	if resp.PartialSuccess().RejectedSpans() != 0 || resp.PartialSuccess().ErrorMessage() == "" {
		t.Errorf("partial success %d %q", resp.PartialSuccess().RejectedSpans(), resp.PartialSuccess().ErrorMessage())
	}
	tr.stop()
	if len(tr.events) != 2 || tr.events[0].InputTokens != 120 || !tr.events[1].UsageUnseen || tr.events[1].Dropped&ingest.DropWrongType == 0 {
		t.Errorf("events %+v", tr.events)
	}
}

// TestAttemptSpansOutOfOrder: found by the fleet check of issue 28 — a
// Collector with several export consumers delivered the resend_count 2
// span before 0 and 1, in separate requests; the two attempts it implied
// were added, and then the real spans counted again: 5 attempts for 3.
// The late spans take their placeholders' place, adding only their cost.
func TestAttemptSpansOutOfOrder(t *testing.T) {
	mp := NewMapper()
	span := func(resend int64, status int64, out int64) ptrace.Traces {
		td := ptrace.NewTraces()
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{9})
		sp.SetSpanID(pcommon.SpanID{byte(10 + resend)})
		sp.SetParentSpanID(pcommon.SpanID{1})
		sp.SetName("chat claude-sonnet-4-6")
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(base.Add(time.Duration(resend) * time.Second)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(base.Add(time.Duration(resend)*time.Second + 500*time.Millisecond)))
		a := sp.Attributes()
		a.PutStr("gen_ai.request.model", "claude-sonnet-4-6")
		a.PutStr("job.id", "j")
		a.PutInt("http.request.resend_count", resend)
		a.PutInt("http.response.status_code", status)
		a.PutInt("gen_ai.usage.input_tokens", 100)
		a.PutInt("gen_ai.usage.output_tokens", out)
		return td
	}
	var attempts, growth int
	var output int64
	for _, td := range []ptrace.Traces{span(2, 200, 10), span(0, 529, 0), span(1, 429, 0)} {
		evs, _, _ := mp.MapTraces(td)
		for _, ev := range evs {
			switch ev.Kind {
			case ingest.KindLLMCall:
				attempts++
			case ingest.KindUsageGrowth:
				growth++
			}
			output += ev.OutputTokens
		}
	}
	if attempts != 3 || output != 10 {
		t.Errorf("%d attempts (%d late spans as their placeholders' cost), %d output tokens; want 3 attempts, 10 output", attempts, growth, output)
	}
}

// TestASpanDeliveredTwiceIsBilledOnce: red team of issue 28 — the same
// export request POSTed twice (an exporter that retries a batch the
// receiver took: a timeout after the 200, the Collector's
// retry_on_failure) doubled calls and spend, and could fire kills. A span
// (trace and span ID) is mapped once.
func TestASpanDeliveredTwiceIsBilledOnce(t *testing.T) {
	mp := NewMapper()
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(exampleModelTraceN(3)); err != nil {
		t.Fatal(err)
	}
	a, _, _ := mp.MapTraces(req.Traces())
	b, _, _ := mp.MapTraces(req.Traces())
	if len(a) != 1 || len(b) != 0 || mp.Repeats != 1 {
		t.Errorf("first delivery %d event(s), second %d, repeats %d: want 1, 0, 1", len(a), len(b), mp.Repeats)
	}
	// A request the receiver refused (429: the engine was behind) is sent
	// again, and must be taken then: its spans are forgotten.
	req.UnmarshalProto(exampleModelTraceN(4))
	_, _, _, keys := mp.MapTracesOnce(req.Traces())
	mp.Forget(keys)
	if again, _, _ := mp.MapTraces(req.Traces()); len(again) != 1 {
		t.Errorf("the retry of a refused request gave %d events, want 1", len(again))
	}
}

// vercelSpan is a Vercel AI SDK span of trace 7: the outer ai.generateText
// (span 1) or one of its ai.generateText.doGenerate steps.
func vercelSpan(spans ptrace.SpanSlice, id, parent byte, op string, in, out int64) {
	sp := spans.AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{7})
	sp.SetSpanID(pcommon.SpanID{id})
	if parent != 0 {
		sp.SetParentSpanID(pcommon.SpanID{parent})
	}
	sp.SetName(op)
	a := sp.Attributes()
	a.PutStr("ai.operationId", op)
	a.PutStr("ai.model.id", "gpt-4o")
	a.PutStr("ai.model.provider", "openai.chat")
	a.PutInt("ai.usage.promptTokens", in)
	a.PutInt("ai.usage.completionTokens", out)
	if parent != 0 {
		a.PutStr("gen_ai.request.model", "gpt-4o")
		a.PutInt("gen_ai.usage.input_tokens", in)
		a.PutInt("gen_ai.usage.output_tokens", out)
	}
}

// TestWrapperSpanInAnotherRequestIsNotBilledAgain: R7-6 — a multi-step
// generateText's doGenerate spans end, and are exported, before their
// ai.generateText parent; the parent alone in a later request was billed
// as a fourth call with the steps' summed usage (spend doubled). Either
// order, and a generic wrapper span whose model-call child came first.
func TestWrapperSpanInAnotherRequestIsNotBilledAgain(t *testing.T) {
	kids := func() ptrace.Traces {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		for i := byte(2); i <= 4; i++ {
			vercelSpan(spans, i, 1, "ai.generateText.doGenerate", 10_000, 1_000)
		}
		return td
	}
	outer := func() ptrace.Traces {
		td := ptrace.NewTraces()
		vercelSpan(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans(), 1, 0, "ai.generateText", 30_000, 3_000)
		return td
	}
	sum := llmCalls
	for name, order := range map[string][]ptrace.Traces{
		"children first": {kids(), outer()},
		"wrapper first":  {outer(), kids()},
	} {
		if calls, in := sum(order...); calls != 3 || in != 30_000 {
			t.Errorf("%s: %d calls, %d input tokens; want 3 calls, 30000", name, calls, in)
		}
	}
	// A wrapper of no known shape (gen_ai attributes on both levels):
	// its child in an earlier request makes it a wrapper, through a plain
	// span between them that came in a third request.
	td1, td2, td3 := ptrace.NewTraces(), ptrace.NewTraces(), ptrace.NewTraces()
	mk := func(td ptrace.Traces, id, parent byte, model bool) {
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{9})
		sp.SetSpanID(pcommon.SpanID{id})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{parent})
		}
		sp.SetName("chain")
		if model {
			sp.SetName("chat gpt-4o")
			sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
			sp.Attributes().PutInt("gen_ai.usage.input_tokens", 100)
		}
	}
	mk(td1, 3, 2, true)  // the call
	mk(td2, 2, 1, false) // a plain span between
	mk(td3, 1, 0, true)  // the wrapper, with the summed usage
	if calls, in := sum(td1, td2, td3); calls != 1 || in != 100 {
		t.Errorf("generic wrapper: %d calls, %d input tokens; want 1, 100", calls, in)
	}
}

// jobSpan appends a span of trace 5: a chat call when model, else a plain
// span; job names job.id on it.
func jobSpan(td ptrace.Traces, id, parent byte, model bool, job string) {
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{5})
	sp.SetSpanID(pcommon.SpanID{id})
	if parent != 0 {
		sp.SetParentSpanID(pcommon.SpanID{parent})
	}
	sp.SetName("step")
	if model {
		sp.SetName("chat gpt-4o")
		sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		sp.Attributes().PutInt("gen_ai.usage.input_tokens", 1000)
	}
	if job != "" {
		sp.Attributes().PutStr("job.id", job)
	}
}

// callsByJob maps the requests in order and counts the calls of each job
// after the trace-job moves (a KindTraceJob moves the trace-ID job's calls).
func callsByJob(batches ...ptrace.Traces) map[string]int {
	mp := NewMapper()
	by := map[string]int{}
	for _, td := range batches {
		evs, _, _ := mp.MapTraces(td)
		for _, e := range evs {
			switch e.Kind {
			case ingest.KindLLMCall:
				by[e.JobID]++
			case ingest.KindTraceJob:
				by[e.JobID] += by[e.CorrelationID]
				delete(by, e.CorrelationID)
			}
		}
	}
	return by
}

// TestJobIsNamedFromAboveNotBeside: R7-14 — one trace per batch run (a
// scheduler's root span) holds many jobs; job A's span named job-A, and
// 30 calls beside it (another job's, naming none) were filed under job-A
// and killed it. A span below the root names the job of the spans under
// it only, in one request or across several; the root's job is the
// trace's.
func TestJobIsNamedFromAboveNotBeside(t *testing.T) {
	const trace = "05000000000000000000000000000000"
	// One request: the root, job A's call naming job-A, 30 siblings.
	td := ptrace.NewTraces()
	jobSpan(td, 1, 0, false, "")
	jobSpan(td, 2, 1, true, "job-A")
	for i := byte(10); i < 40; i++ {
		jobSpan(td, i, 1, true, "")
	}
	if by := callsByJob(td); by["job-A"] != 1 || by[trace] != 30 {
		t.Errorf("siblings in one request: %v; want job-A 1, the trace 30", by)
	}
	// Across requests: job A's call first, the siblings later.
	a, b := ptrace.NewTraces(), ptrace.NewTraces()
	jobSpan(a, 2, 1, true, "job-A")
	for i := byte(10); i < 40; i++ {
		jobSpan(b, i, 1, true, "")
	}
	jobSpan(b, 1, 0, false, "")
	if by := callsByJob(a, b); by["job-A"] != 1 || by[trace] != 30 {
		t.Errorf("siblings in a later request: %v; want job-A 1, the trace 30", by)
	}
	// The siblings first, then job A's span: they are not under it.
	if by := callsByJob(b, a); by["job-A"] != 1 || by[trace] != 30 {
		t.Errorf("siblings in an earlier request: %v; want job-A 1, the trace 30", by)
	}
	// The usual order: a job's span (below the batch root) ends after
	// its calls, which went out first — under a step between them.
	c1, c2, c3 := ptrace.NewTraces(), ptrace.NewTraces(), ptrace.NewTraces()
	jobSpan(c1, 30, 20, true, "")
	jobSpan(c1, 31, 20, true, "")
	jobSpan(c2, 20, 3, false, "")
	jobSpan(c3, 3, 1, false, "job-B")
	jobSpan(c3, 32, 3, true, "") // and one more after it, under it
	if by := callsByJob(c1, c2, c3); by["job-B"] != 3 || len(by) != 1 {
		t.Errorf("a job's calls before its span: %v; want job-B 3", by)
	}
	// The root names the job: the whole trace is it, whatever came first.
	r1, r2 := ptrace.NewTraces(), ptrace.NewTraces()
	jobSpan(r1, 30, 20, true, "")
	jobSpan(r1, 31, 1, true, "")
	jobSpan(r2, 1, 0, false, "job-R")
	if by := callsByJob(r1, r2); by["job-R"] != 2 || len(by) != 1 {
		t.Errorf("root names the job: %v; want job-R 2", by)
	}
}

// TestSameIDsOtherSpanIsAnotherCall: R7-16 — a forked worker pool whose
// ID generator's state was copied at fork gives every worker's spans the
// same trace and span IDs; all but the first were dropped as re-sends (29
// of 30 calls). A re-send is the same span: the same IDs and the same
// start and end. Another span under the same IDs is its own call, in one
// request or across requests, and counted as a collision.
func TestSameIDsOtherSpanIsAnotherCall(t *testing.T) {
	span := func(td ptrace.Traces, start int64) {
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{0xee})
		sp.SetSpanID(pcommon.SpanID{0xff})
		sp.SetStartTimestamp(pcommon.Timestamp(start))
		sp.SetEndTimestamp(pcommon.Timestamp(start + 1e9))
		sp.SetName("chat gpt-4o")
		sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		sp.Attributes().PutInt("gen_ai.usage.input_tokens", 1000)
	}
	mp := NewMapper()
	calls := 0
	ids := map[string]bool{}
	feed := func(td ptrace.Traces) {
		evs, _, _ := mp.MapTraces(td)
		for _, e := range evs {
			if e.Kind == ingest.KindLLMCall {
				calls++
				ids[e.ResponseID] = true
			}
		}
	}
	one := ptrace.NewTraces()
	span(one, 1e18)
	span(one, 1e18+5e9) // the same IDs in one request, another span
	feed(one)
	for i := range int64(3) {
		td := ptrace.NewTraces()
		span(td, 1e18+int64(10+i)*1e9)
		feed(td)
	}
	again := ptrace.NewTraces()
	span(again, 1e18) // the first span sent again
	feed(again)
	// The re-send of the first is known by its response ID (correlate
	// bills a response once); the mapper remembers the last span of IDs.
	if len(ids) != 5 || mp.Collisions < 4 {
		t.Errorf("%d calls, %d response IDs, %d collisions; want 5 response IDs, at least 4 collisions", calls, len(ids), mp.Collisions)
	}
}

// TestUnreadableUsageCostsTheField: R7-25 — one attribute's int64 past its
// range failed the whole OTLP/JSON request (a 400 an exporter does not
// retry: every other span lost); a negative, NaN or huge count cost its
// span, counted nowhere; a cost of $1e9 the same. Each costs its field:
// the call is kept, unpriced where a count is unread, priced by its
// tokens where the cost is implausible, and the drop counted.
func TestUnreadableUsageCostsTheField(t *testing.T) {
	span := func(id int, attrs string) string {
		return fmt.Sprintf(`{"traceId":"0000000000000000000000000000000a","spanId":"%016x","name":"chat gpt-4o","startTimeUnixNano":"1780000000000000000","endTimeUnixNano":"1780000001000000000","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"100"}}%s]}`, id, attrs)
	}
	body := `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join([]string{
		span(1, `,{"key":"gen_ai.usage.input_tokens","value":{"intValue": "99999999999999999999"}}`),
		span(2, `,{"key":"gen_ai.usage.input_tokens","value":{"intValue":"-5000"}}`),
		span(3, `,{"key":"gen_ai.usage.input_tokens","value":{"doubleValue":1e300}}`),
		span(4, `,{"key":"gen_ai.usage.input_tokens","value":{"stringValue":"NaN"}}`),
		span(5, `,{"key":"gen_ai.usage.cost","value":{"doubleValue":1000000000}}`),
		span(6, `,{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1000"}}`),
	}, ",") + `]}]}]}`
	var calls, unseen, implausible int
	rejected, err := NewFileDecoder()([]byte(body), func(e *ingest.Event) {
		if e.Kind != ingest.KindLLMCall {
			return
		}
		calls++
		if e.UsageUnseen && e.Dropped&ingest.DropWrongType != 0 && e.InputTokens == 0 && e.OutputTokens == 100 {
			unseen++
		}
		if e.Dropped&ingest.DropImplausible != 0 && !e.HasCost {
			implausible++
		}
	})
	if err != nil || rejected != 0 || calls != 6 || unseen != 4 || implausible != 1 {
		t.Errorf("err %v, %d rejected, %d calls, %d with the count dropped, %d with the cost dropped; want 0, 6, 4, 1", err, rejected, calls, unseen, implausible)
	}
	// The live receiver takes the same body: 200, not 400.
	tr := startReceiver(t, Config{}, 8)
	_, h := tr.r.Addrs()
	resp, err := http.Post("http://"+h+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tr.stop()
	if resp.StatusCode != http.StatusOK || len(tr.events) != 6 {
		t.Errorf("HTTP %d, %d events; want 200, 6", resp.StatusCode, len(tr.events))
	}
}

// TestManyCallsUnderAJobSpanBelowTheRoot: R7b-10 — the calls filed under
// a trace's ID were kept one by one, at most 256: past them a job span
// below the root (an HTTP server's or a queue's span is the root of most
// real traces) never took them, and a long agent run's 300 calls stayed
// under the trace ID, its ceiling blind.
func TestManyCallsUnderAJobSpanBelowTheRoot(t *testing.T) {
	var batches []ptrace.Traces
	for i := range 300 {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		step, call := spans.AppendEmpty(), spans.AppendEmpty()
		for k, sp := range []ptrace.Span{step, call} {
			sp.SetTraceID(pcommon.TraceID{5})
			var id pcommon.SpanID
			id[0], id[1], id[2] = byte(10+k), byte(i>>8), byte(i)
			sp.SetSpanID(id)
		}
		step.SetParentSpanID(pcommon.SpanID{2}) // the job span
		step.SetName("agent.step")
		call.SetParentSpanID(step.SpanID())
		call.SetName("chat gpt-4o")
		call.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		call.Attributes().PutInt("gen_ai.usage.input_tokens", 1000)
		batches = append(batches, td)
	}
	job, root := ptrace.NewTraces(), ptrace.NewTraces()
	jobSpan(job, 2, 1, false, "job-1")
	jobSpan(root, 1, 0, false, "")
	if by := callsByJob(append(batches, job, root)...); by["job-1"] != 300 || len(by) != 1 {
		t.Errorf("calls by job %v, want job-1's 300", by)
	}
}

// TestEmbeddingBelowAChatIsItsOwnCall: R7b-8 — a chat span whose child is
// an embedding call (its retrieval step) was taken for a wrapper of it,
// and the chat's tokens dropped, in one request and across two.
func TestEmbeddingBelowAChatIsItsOwnCall(t *testing.T) {
	mk := func(td ptrace.Traces, id, parent byte, op string, in int64) {
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{6})
		sp.SetSpanID(pcommon.SpanID{id})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{parent})
		}
		sp.SetName(op + " m")
		sp.Attributes().PutStr("gen_ai.operation.name", op)
		sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		sp.Attributes().PutInt("gen_ai.usage.input_tokens", in)
	}
	count := llmCalls
	one := ptrace.NewTraces()
	mk(one, 1, 0, "chat", 10_000)
	mk(one, 2, 1, "embeddings", 1_000)
	kid, chat := ptrace.NewTraces(), ptrace.NewTraces()
	mk(kid, 2, 1, "embeddings", 1_000)
	mk(chat, 1, 0, "chat", 10_000)
	for name, got := range map[string][2]int64{
		"one request":  func() [2]int64 { c, i := count(one); return [2]int64{int64(c), i} }(),
		"two requests": func() [2]int64 { c, i := count(kid, chat); return [2]int64{int64(c), i} }(),
	} {
		if got != [2]int64{2, 11_000} {
			t.Errorf("%s: %d calls, %d input tokens; want 2, 11000", name, got[0], got[1])
		}
	}
}

// llmCalls maps the requests in order through one mapper and counts the
// model calls and their input tokens.
func llmCalls(batches ...ptrace.Traces) (calls int, in int64) {
	mp := NewMapper()
	for _, td := range batches {
		evs, _, _ := mp.MapTraces(td)
		for _, e := range evs {
			if e.Kind == ingest.KindLLMCall {
				calls++
				in += e.InputTokens
			}
		}
	}
	return calls, in
}
