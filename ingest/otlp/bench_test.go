package otlp

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// genAITraces builds n model-call spans under n/10 job roots, each with
// the attributes a GenAI instrumentation sets.
func genAITraces(n, seed int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "worker")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	start := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)
	for i := range n {
		var tid pcommon.TraceID
		copy(tid[:], fmt.Sprintf("t%07d%08d", seed, i/10))
		sp := spans.AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(pcommon.SpanID{byte(i), byte(i >> 8), byte(i >> 16), 1})
		sp.SetParentSpanID(pcommon.SpanID{9, 9})
		sp.SetName("chat claude-sonnet-4-6")
		sp.SetKind(ptrace.SpanKindClient)
		ts := start.Add(time.Duration(seed*n+i) * time.Millisecond)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(ts))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(ts.Add(800 * time.Millisecond)))
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.provider.name", "anthropic")
		a.PutStr("gen_ai.request.model", "claude-sonnet-4-6")
		a.PutStr("job.id", fmt.Sprintf("job-%d-%d", seed, i/10))
		a.PutInt("http.response.status_code", 200)
		a.PutInt("http.request.resend_count", int64(i%10%3))
		a.PutInt("gen_ai.usage.input_tokens", 1200)
		a.PutInt("gen_ai.usage.output_tokens", 300)
	}
	return td
}

// BenchmarkGRPCSpansIntoCorrelate: spans per second accepted over loopback
// gRPC, mapped, and applied to correlate. Target: 100,000 spans/s on 2 cores.
func BenchmarkGRPCSpansIntoCorrelate(b *testing.B) {
	const perRequest, senders = 1000, 4
	r := New(Config{GRPCAddr: "127.0.0.1:0"})
	out := make(chan ingest.Batch, 64)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r.Run(ctx, out)
		close(out) // the receiver has returned: nothing else will be sent
	}()
	<-r.Ready()
	st := correlate.New(correlate.DefaultConfig())
	applied := make(chan struct{})
	go func() {
		for batch := range out {
			st.Consume(batch)
		}
		close(applied)
	}()
	g, _ := r.Addrs()
	cc, err := grpc.NewClient(g, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	client := ptraceotlp.NewGRPCClient(cc)
	reqs := make([]ptraceotlp.ExportRequest, 16)
	for i := range reqs {
		reqs[i] = ptraceotlp.NewExportRequestFromTraces(genAITraces(perRequest, i))
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	next := make(chan int)
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// Each request under trace IDs of its own: the same 16
				// sent again are re-sends, billed once, and the count
				// below failed past 16 iterations. The copy is timed: the
				// figure is a floor.
				req := ptraceotlp.NewExportRequest()
				reqs[i%len(reqs)].Traces().CopyTo(req.Traces())
				retrace(req.Traces(), i)
				if _, err := client.Export(context.Background(), req); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := range b.N {
		next <- i
	}
	close(next)
	wg.Wait()
	cancel()
	<-applied
	b.StopTimer()
	b.ReportMetric(float64(b.N*perRequest)/b.Elapsed().Seconds(), "spans/s")
	if got := st.AttemptCount(); got != int64(b.N*perRequest) {
		b.Errorf("applied %d attempts, sent %d spans", got, b.N*perRequest)
	}
}

// BenchmarkMapTraces is the mapper alone on the genAI requests (1,000
// spans each), one fresh mapper per 16 requests: its CPU per span, apart
// from gRPC and correlate.
func BenchmarkMapTraces(b *testing.B) {
	reqs := make([]ptrace.Traces, 16)
	for i := range reqs {
		reqs[i] = genAITraces(1000, i)
	}
	b.ResetTimer()
	for n := range b.N {
		mp := NewMapper()
		for _, td := range reqs {
			mp.MapTraces(td)
		}
		_ = n
	}
	b.ReportMetric(float64(b.N*16*1000)/b.Elapsed().Seconds(), "spans/s")
}

// retrace gives every span of td a trace ID of iteration i's own.
func retrace(td ptrace.Traces, i int) {
	rss := td.ResourceSpans()
	for r := range rss.Len() {
		sss := rss.At(r).ScopeSpans()
		for k := range sss.Len() {
			spans := sss.At(k).Spans()
			for n := range spans.Len() {
				sp := spans.At(n)
				id := sp.TraceID()
				binary.BigEndian.PutUint64(id[8:], uint64(i)+1)
				sp.SetTraceID(id)
			}
		}
	}
}
