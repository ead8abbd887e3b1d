package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpResource adds to td one resource (service on host) with a model-call
// span per job at ts, each of 10,000 input and output tokens of
// claude-sonnet-4-5 ($0.18), or 10 of each when small.
func otlpResource(td ptrace.Traces, service, host string, ts time.Time, jobs []string, small bool, seq *int) {
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", service)
	rs.Resource().Attributes().PutStr("host.name", host)
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	tokens := int64(10000)
	if small {
		tokens = 10
	}
	for _, job := range jobs {
		*seq++
		sp := spans.AppendEmpty()
		var tid [16]byte
		var sid [8]byte
		copy(tid[:], fmt.Sprintf("%016x", *seq))
		copy(sid[:], fmt.Sprintf("%08x", *seq))
		sp.SetTraceID(pcommon.TraceID(tid))
		sp.SetSpanID(pcommon.SpanID(sid))
		sp.SetName("chat claude-sonnet-4-5")
		sp.SetKind(ptrace.SpanKindClient)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(ts))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(ts.Add(2 * time.Second)))
		a := sp.Attributes()
		a.PutStr("job.id", job)
		a.PutStr("gen_ai.system", "anthropic")
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "claude-sonnet-4-5")
		a.PutStr("gen_ai.response.model", "claude-sonnet-4-5")
		a.PutInt("gen_ai.usage.input_tokens", tokens)
		a.PutInt("gen_ai.usage.output_tokens", tokens)
	}
}

// TestACollectorBatchIsJudgedPerResource: a Collector batches many
// services into one export request. The receiver numbered a request's
// events by its first resource alone: a batch whose first resource was
// the honest api and whose second a service 10 h ahead (local time
// written as UTC) on another host put the skewed calls on the api's
// clock, which they moved 10 h on: the api's 1,100 jobs, $0.18 then $0.18
// against a $0.30 ceiling with a 1 h retention, were retired between
// their calls and never crossed. Each resource is now its
// own sender, over OTLP/HTTP in protobuf and in JSON.
func TestACollectorBatchIsJudgedPerResource(t *testing.T) {
	for _, enc := range []string{"protobuf", "json"} {
		t.Run(enc, func(t *testing.T) {
			dir := t.TempDir()
			p := startSpoolProc(t, filepath.Join(dir, "journal.jsonl"), "--job-ceiling", "0.3", "--job-retention", "1h")
			// Past 1,024 retirable jobs a sweep compacts the state.
			jobs := make([]string, 1100)
			for i := range jobs {
				jobs[i] = fmt.Sprintf("job-%04d", i)
			}
			night := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
			seq := 0
			post := func(td ptrace.Traces) {
				t.Helper()
				req := ptraceotlp.NewExportRequestFromTraces(td)
				body, ctype := []byte(nil), "application/x-protobuf"
				var err error
				if enc == "json" {
					body, err = req.MarshalJSON()
					ctype = "application/json"
				} else {
					body, err = req.MarshalProto()
				}
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.Post("http://"+p.addr+"/v1/traces", ctype, bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("OTLP post: %s", resp.Status)
				}
			}
			first := ptrace.NewTraces()
			otlpResource(first, "api", "host-a", night, jobs, false, &seq)
			post(first)
			p.settle()
			// The Collector's batch: the api's health check, then a batch
			// service's 100 calls from a clock 10 h ahead.
			batch := ptrace.NewTraces()
			otlpResource(batch, "api", "host-a", night.Add(time.Minute), []string{"api-ping"}, true, &seq)
			workers := make([]string, 100)
			for i := range workers {
				workers[i] = fmt.Sprintf("worker-%d", i%5)
			}
			otlpResource(batch, "batch", "host-b", night.Add(10*time.Hour), workers, true, &seq)
			post(batch)
			p.settle()
			second := ptrace.NewTraces()
			otlpResource(second, "api", "host-a", night.Add(2*time.Minute), jobs, false, &seq)
			post(second)
			waitUntil(t, "a job-ceiling alert per api job", 10*time.Second, func() bool { return len(p.alerts("job_ceiling")) >= len(jobs) })
			p.settle()
			p.stop(syscall.SIGTERM)
			got := map[string]float64{}
			for _, a := range p.alerts("job_ceiling") {
				got[fmt.Sprint(a["job_id"])] = a["spend_usd"].(float64)
			}
			bad := 0
			for _, j := range jobs {
				if got[j] != 0.36 {
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d api jobs without their job_ceiling at $0.36 (two calls in one job)", bad, len(jobs))
			}
			if len(got) != len(jobs) {
				t.Errorf("job_ceiling alerts for %d jobs, want the %d api jobs", len(got), len(jobs))
			}
		})
	}
}

// postTraces posts td to a receiver over OTLP/HTTP in protobuf.
func postTraces(t *testing.T, addr string, td ptrace.Traces) {
	t.Helper()
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+addr+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("OTLP post: %s", resp.Status)
	}
}

// TestABatchOverTheSpoolCap: one export request whose batch is larger
// than --spool-max-bytes, into an empty spool, is taken whole and said so
// (refusing it bounded nothing and left a restart without it); the next
// request is refused by the spool loudly (stderr, the stop's status,
// /metrics) and still counted live; a restart replays the batch kept,
// and says that the refused events are not in it. Nothing is lost
// silently.
func TestABatchOverTheSpoolCap(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	metricsAddr := freeAddr(t)
	args := []string{"--spool-max-bytes", "1000", "--run-id", "night-cap", "--job-ceiling", "100", "--kill-exec", "true"}
	rep1, rep2 := filepath.Join(dir, "r1.json"), filepath.Join(dir, "r2.json")
	p := startSpoolProc(t, journal, append(args, "--report-out", rep1, "--metrics-addr", metricsAddr)...)
	night := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	jobs := make([]string, 40)
	for i := range jobs {
		jobs[i] = fmt.Sprintf("job-%02d", i)
	}
	seq := 0
	big := ptrace.NewTraces()
	otlpResource(big, "api", "host-a", night, jobs, false, &seq)
	postTraces(t, p.addr, big)
	waitUntil(t, "the over-cap batch said", 10*time.Second, func() bool {
		return strings.Contains(p.errText(), "took one batch of") && strings.Contains(p.errText(), "because it held nothing else")
	})
	next := ptrace.NewTraces()
	otlpResource(next, "api", "host-a", night.Add(time.Minute), []string{"job-late"}, false, &seq)
	postTraces(t, p.addr, next)
	refused := func() string {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, "burnrate_spool_refused_events_total{") {
				return l[strings.LastIndexByte(l, ' ')+1:]
			}
		}
		return ""
	}
	waitUntil(t, "/metrics to count the refused event", 10*time.Second, func() bool { return refused() == "1" })
	p.stop(syscall.SIGTERM)
	if !strings.Contains(p.errText(), "not spooled") {
		t.Errorf("the refused batch is not said on stderr:\n%s", p.errText())
	}
	var r1 correlate.Report
	if b, err := os.ReadFile(rep1); err != nil || json.Unmarshal(b, &r1) != nil {
		t.Fatalf("report at the stop: %v\n%s", err, p.errText())
	}
	if r1.Totals.Attempts != 41 {
		t.Errorf("the report at the stop has %d calls, want 41 (the refused batch is applied live)", r1.Totals.Attempts)
	}

	p2 := startSpoolProc(t, journal, append(args, "--report-out", rep2)...)
	p2.settle()
	p2.stop(syscall.SIGTERM)
	if !strings.Contains(p2.errText(), "replayed 40 event(s) from the spool") {
		t.Errorf("the restart does not replay the batch kept:\n%s", p2.errText())
	}
	var r2 correlate.Report
	if b, err := os.ReadFile(rep2); err != nil || json.Unmarshal(b, &r2) != nil {
		t.Fatalf("report after the restart: %v\n%s", err, p2.errText())
	}
	if r2.Totals.Attempts != 40 || len(r2.Jobs) != 40 {
		t.Errorf("after the restart: %d calls of %d jobs, want the 40 kept", r2.Totals.Attempts, len(r2.Jobs))
	}
}
