package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// genAITraces builds an export request of GenAI spans of about size bytes;
// jobIDBytes > 0 gives every span its own job.id of that length.
func genAITraces(size, jobIDBytes int, seed int) []byte {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := 0; ; i++ {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("chat claude-sonnet-4-6")
		var tid [16]byte
		copy(tid[:], fmt.Sprintf("%08d%08d", seed, i))
		sp.SetTraceID(tid)
		sp.SetSpanID([8]byte{byte(i), byte(i >> 8), byte(i >> 16), 1})
		sp.SetKind(ptrace.SpanKindClient)
		sp.SetStartTimestamp(1773104400000000000)
		sp.SetEndTimestamp(1773104401000000000)
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "claude-sonnet-4-6")
		a.PutStr("gen_ai.provider.name", "anthropic")
		a.PutInt("gen_ai.usage.input_tokens", 1200)
		a.PutInt("gen_ai.usage.output_tokens", 300)
		if jobIDBytes > 0 {
			a.PutStr("job.id", fmt.Sprintf("%d-%d-", seed, i)+strings.Repeat("j", jobIDBytes))
		} else {
			a.PutStr("job.id", "job-"+strconv.Itoa(i%500))
		}
		if i%256 == 0 {
			b, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
			if len(b) >= size {
				return b
			}
		}
	}
}

// startReceiver runs `burnrate watch --headless` with an OTLP receiver and
// returns its addresses and a function reading its peak RSS (VmHWM).
func startReceiver(t *testing.T, extra ...string) (grpcAddr, httpAddr string, peak func() int64) {
	t.Helper()
	free := func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		defer ln.Close()
		return ln.Addr().String()
	}
	grpcAddr, httpAddr = free(), free()
	args := append([]string{"watch", "--headless", "--journal", t.TempDir() + "/j.jsonl", "--otlp-grpc", grpcAddr, "--otlp-http", httpAddr}, extra...)
	cmd := exec.Command(burnrate(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitUntil(t, "the receiver to listen", 10*time.Second, func() bool {
		c, err := net.Dial("tcp", httpAddr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	peak = func() int64 {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
				return kb << 10
			}
		}
		return -1
	}
	return grpcAddr, httpAddr, peak
}

// rssBound is the documented bound on the whole process under an OTLP
// flood with the default limits (256 MiB in flight).
const rssBound = 600 << 20

// TestOTLPFloods: issue 12 — 48 concurrent 15 MB OTLP/HTTP requests drove
// the process to 5.5 GB with not one 429; unauthenticated gRPC clients to
// 3.5 GB; distinct 2 MB job.ids grew memory with no plateau. Bounded in
// count and time, on loopback only.
func TestOTLPFloods(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("sends about 2 GB over loopback: runs in the plain pass, without -short or -race")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the receiver's peak RSS")
	}
	t.Run("http", func(t *testing.T) {
		_, httpAddr, peak := startReceiver(t)
		body := genAITraces(15<<20, 0, 1)
		var ok, refused, other atomic.Int64
		for round := range 3 {
			var wg sync.WaitGroup
			for range 48 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := http.Post("http://"+httpAddr+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
					if err != nil {
						other.Add(1)
						return
					}
					resp.Body.Close()
					switch resp.StatusCode {
					case 200:
						ok.Add(1)
					case 429:
						if resp.Header.Get("Retry-After") == "" {
							t.Error("a 429 without Retry-After")
						}
						refused.Add(1)
					default:
						other.Add(1)
					}
				}()
			}
			wg.Wait()
			_ = round
		}
		t.Logf("HTTP flood, 3 × 48 concurrent %d MB requests: %d accepted, %d refused (429), %d other; peak RSS %d MiB",
			len(body)>>20, ok.Load(), refused.Load(), other.Load(), peak()>>20)
		if refused.Load() == 0 || ok.Load() == 0 {
			t.Errorf("want both accepted and refused requests under the flood")
		}
		if p := peak(); p > rssBound {
			t.Errorf("peak RSS %d MiB, over the %d MiB bound", p>>20, rssBound>>20)
		}
	})
	t.Run("grpc-unauthenticated", func(t *testing.T) {
		grpcAddr, _, peak := startReceiver(t, "--otlp-token", "s3cret")
		conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		client := ptraceotlp.NewGRPCClient(conn)
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalProto(genAITraces(15<<20, 0, 2)); err != nil {
			t.Fatal(err)
		}
		var unauth atomic.Int64
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					_, err := client.Export(ctx, req)
					cancel()
					if status.Code(err) == codes.Unauthenticated {
						unauth.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("unauthenticated gRPC, 32 × 3 messages of 15 MB: %d Unauthenticated; peak RSS %d MiB", unauth.Load(), peak()>>20)
		if unauth.Load() != 96 {
			t.Errorf("%d of 96 refused as Unauthenticated", unauth.Load())
		}
		if p := peak(); p > 200<<20 {
			t.Errorf("unauthenticated clients drove RSS to %d MiB: the token must be checked before the message is read", p>>20)
		}
	})
	t.Run("grpc-oversized", func(t *testing.T) {
		grpcAddr, _, _ := startReceiver(t, "--otlp-max-bytes", "1000000", "--otlp-max-inflight-bytes", "8000000")
		conn, _ := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
		defer conn.Close()
		req := ptraceotlp.NewExportRequest()
		req.UnmarshalProto(genAITraces(1500_000, 0, 3))
		_, err := ptraceotlp.NewGRPCClient(conn).Export(context.Background(), req)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("an oversized message: %v, want InvalidArgument (a permanent error exporters drop)", err)
		}
		// Past twice the limit gRPC refuses it unread: RESOURCE_EXHAUSTED
		// with no RetryInfo, which OTLP exporters do not retry either.
		req.UnmarshalProto(genAITraces(2500_000, 0, 4))
		_, err = ptraceotlp.NewGRPCClient(conn).Export(context.Background(), req)
		if st, _ := status.FromError(err); st.Code() != codes.ResourceExhausted || len(st.Details()) != 0 {
			t.Errorf("a message past twice the limit: %v", err)
		}
	})
	t.Run("distinct-2MB-job-ids", func(t *testing.T) {
		var after []int64
		_, httpAddr2, peak := startReceiver(t)
		for round := range 60 {
			body := genAITraces(6<<20, 2<<20, 100+round) // three spans, each with its own 2 MB job.id
			resp, err := http.Post("http://"+httpAddr2+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
			}
			if round == 19 || round == 59 {
				after = append(after, peak())
			}
		}
		t.Logf("60 requests of distinct 2 MB job.ids: peak RSS %d MiB after 20, %d MiB after 60", after[0]>>20, after[1]>>20)
		if after[1]-after[0] > 64<<20 {
			t.Errorf("memory kept growing with distinct job IDs: %d → %d MiB", after[0]>>20, after[1]>>20)
		}
	})
}
