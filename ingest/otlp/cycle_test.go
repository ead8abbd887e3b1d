package otlp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spanChain is n model-call spans of one trace, each the parent of the
// next (span i+1's parent is span i), with a job ID on the root; parentOf0
// makes the root's parent a span of the chain, for a cycle.
func spanChain(n int, parentOf0 int) ptrace.Traces {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	id := func(i int) pcommon.SpanID {
		var s pcommon.SpanID
		binary.BigEndian.PutUint64(s[:], uint64(i+1))
		return s
	}
	for i := range n {
		sp := spans.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{7})
		sp.SetSpanID(id(i))
		switch {
		case i > 0:
			sp.SetParentSpanID(id(i - 1))
		case parentOf0 >= 0:
			sp.SetParentSpanID(id(parentOf0))
		default:
			sp.Attributes().PutStr("job.id", "chain-job")
		}
		sp.SetName("chat")
		sp.SetStartTimestamp(pcommon.Timestamp(time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).UnixNano() + int64(i)))
		sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
		sp.Attributes().PutInt("gen_ai.usage.input_tokens", 10)
		sp.Attributes().PutInt("gen_ai.usage.output_tokens", 5)
	}
	return td
}

// mapWithin maps td, failing the test instead of hanging.
func mapWithin(t *testing.T, td ptrace.Traces, within time.Duration) int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		evs, _, _ := NewMapper().MapTraces(td)
		done <- len(evs)
	}()
	select {
	case n := <-done:
		return n
	case <-time.After(within):
		t.Fatalf("mapping did not end within %s: a parent walk loops", within)
		return 0
	}
}

// TestSpanCyclesCannotStopIngest: issue 22 — a span whose parent is itself,
// or an A → B → A cycle, looped for ever: report hung, and over OTLP/HTTP
// one 600-byte request pinned a core and held the mapper. Cycles are cut
// where they close; the innermost model span of a chain still counts once.
func TestSpanCyclesCannotStopIngest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, parent int
	}{{"self-parent", 1, 0}, {"A→B→A", 2, 1}, {"a ring of 100", 100, 99}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mapWithin(t, spanChain(tc.n, tc.parent), 10*time.Second); got != 1 {
				t.Errorf("%d events from a ring of %d model spans, want 1 (the innermost)", got, tc.n)
			}
		})
	}
}

// TestLongParentChainIsLinear: a 16,000-span chain took 13.5 s (every span
// walked its ancestors); now each span is resolved from its parent's
// answer. The job named on the root reaches the innermost span.
func TestLongParentChainIsLinear(t *testing.T) {
	td := spanChain(16000, -1)
	evs, _, _ := NewMapper().MapTraces(td)
	if len(evs) != 1 || evs[0].JobID != "chain-job" {
		t.Fatalf("%d events, job %q; want 1 of chain-job", len(evs), evs[0].JobID)
	}
}

// BenchmarkParentChain16k is the 16,000-span chain (it was 13.5 s).
func BenchmarkParentChain16k(b *testing.B) {
	td := spanChain(16000, -1)
	for range b.N {
		NewMapper().MapTraces(td)
	}
}

// TestNeverEndingBodiesStarveNoOne: issue 22 — a chunked body reserved the
// largest request's memory (64 MiB of the 256 MiB in flight) before a byte
// was read, so four bodies that never end made every exporter get 429.
// A body now reserves as it is read: four of them hold a few MiB, and a
// normal export beside them is answered 200.
func TestNeverEndingBodiesStarveNoOne(t *testing.T) {
	tr := startReceiver(t, Config{}, 8)
	_, h := tr.r.Addrs()
	var conns []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", h)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n")
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	time.Sleep(200 * time.Millisecond) // the four are being read
	req, _ := http.NewRequest(http.MethodPost, "http://"+h+"/v1/traces", bytes.NewReader(exampleModelTrace()))
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an export beside four never-ending bodies got HTTP %d, want 200", resp.StatusCode)
	}
	if held := tr.r.budget.used.Load(); held > 8<<20 {
		t.Errorf("four slow bodies hold %d bytes of the in-flight budget", held)
	}
}

// TestASlowBodyIsAnswered408: issue 22 — a body still arriving at the read
// timeout was answered 400 ("reading the body: i/o timeout"), which tells
// an exporter the batch is malformed and to drop it. It is 408 now, in the
// request's encoding, for a chunked body, a Content-Length one and a
// gzip'd one whose header never comes; a body that arrives in time is
// answered 200 on the same receiver.
func TestASlowBodyIsAnswered408(t *testing.T) {
	tr := startReceiver(t, Config{HTTPReadTimeout: 700 * time.Millisecond}, 8)
	_, h := tr.r.Addrs()
	slow := func(head string, drip string) (status string, body string) {
		c, err := net.Dial("tcp", h)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		// A byte every 100 ms, as a client on a starved link sends it,
		// until the server answers (or 10 s, far past the timeout).
		stop := make(chan struct{})
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := io.WriteString(c, drip); err != nil {
					return
				}
			}
		}()
		defer close(stop)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer to a slow body: %v", err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return resp.Status, string(b)
	}
	for _, tc := range []struct{ name, head, drip, want string }{
		{"chunked JSON", "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", "1\r\n \r\n", `"code":4`},
		{"Content-Length protobuf", "POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100000\r\n\r\n", "\x00", "did not arrive within the read timeout"},
		{"gzip header never complete", "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 100000\r\n\r\n\x1f", "", `"code":4`},
	} {
		status, body := slow(tc.head, tc.drip)
		if !strings.HasPrefix(status, "408") || !strings.Contains(body, tc.want) || !strings.Contains(body, "read timeout") {
			t.Errorf("%s: %s %q, want 408 saying the body was too slow", tc.name, status, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+h+"/v1/traces", bytes.NewReader(exampleModelTrace()))
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an export in time after the slow ones: HTTP %d, want 200", resp.StatusCode)
	}
}
