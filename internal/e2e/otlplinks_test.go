package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// otlpLine is one OTLP/JSON export request of chat spans of trace 5
// (spans: id, parent, job.id or "", input tokens), as the Collector's file
// exporter writes a request a line.
func otlpLine(t *testing.T, spans ...[4]any) string {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for _, s := range spans {
		sp := ss.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{5})
		sp.SetSpanID(pcommon.SpanID{s[0].(byte)})
		if p := s[1].(byte); p != 0 {
			sp.SetParentSpanID(pcommon.SpanID{p})
		}
		sp.SetStartTimestamp(pcommon.Timestamp(1_780_000_000_000_000_000 + int64(s[0].(byte))*1e9))
		sp.SetEndTimestamp(sp.StartTimestamp() + 1e9)
		sp.SetName("batch")
		if n := s[3].(int); n > 0 {
			sp.SetName("chat gpt-4o")
			sp.Attributes().PutStr("gen_ai.system", "openai")
			sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
			sp.Attributes().PutInt("gen_ai.usage.input_tokens", int64(n))
			sp.Attributes().PutInt("gen_ai.usage.output_tokens", 0)
		}
		if j := s[2].(string); j != "" {
			sp.Attributes().PutStr("job.id", j)
		}
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestOTLPCallBesideAJobIsNotItsJob: R7-14 on the real binary — a batch
// run's one trace: job A's call names job-A, 30 calls beside it name no
// job. They were all billed to job-A (31 calls, a kill at its ceiling);
// they are the trace's, job-A has its one call.
func TestOTLPCallBesideAJobIsNotItsJob(t *testing.T) {
	spans := [][4]any{{byte(1), byte(0), "", 0}, {byte(2), byte(1), "job-A", 1000}}
	for i := byte(10); i < 40; i++ {
		spans = append(spans, [4]any{i, byte(1), "", 100_000})
	}
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	testutil.WriteFile(t, path, otlpLine(t, spans[1:]...)+otlpLine(t, spans[0]))
	out, err := run(t, "report", "--format", "json", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep struct {
		Jobs []struct {
			JobID    string `json:"job_id"`
			Attempts int    `json:"attempts"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, j := range rep.Jobs {
		got[j.JobID] = j.Attempts
	}
	if got["job-A"] != 1 || got["05000000000000000000000000000000"] != 30 {
		t.Errorf("jobs %v: want job-A 1 call, the trace's 30", got)
	}
}

// TestNodeDebugUsageWithNoJobHeader: R7-23 — the Node SDK's debug blocks
// of an app that sets no job header (most): the response block's usage
// came before its attempt, which waited for a job, and was dropped — the
// calls billed an exact $0, neither priced nor unpriced. The same log with
// its job headers is the reference: the same tokens and spend.
func TestNodeDebugUsageWithNoJobHeader(t *testing.T) {
	raw, err := os.ReadFile("testdata/node-sdk/debug-c4.log")
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's lines alone, after one app line: the app's own lines
	// (which name request IDs and usage) would bill the calls anyway.
	var header, stripped strings.Builder
	for i, line := range strings.SplitAfter(string(raw), "\n") {
		if i > 0 && strings.HasPrefix(line, "{") {
			continue
		}
		header.WriteString(line)
		if !strings.Contains(line, "'x-job-id'") {
			stripped.WriteString(line)
		}
	}
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with.log"), filepath.Join(dir, "without.log")
	testutil.WriteFile(t, with, header.String())
	testutil.WriteFile(t, without, stripped.String())
	a, err := reportJSON(t, with)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reportJSON(t, without)
	if err != nil {
		t.Fatal(err)
	}
	if a.Totals.InputTokens == 0 || b.Totals.InputTokens != a.Totals.InputTokens || b.Totals.OutputTokens != a.Totals.OutputTokens || b.Totals.SpendUSD != a.Totals.SpendUSD || b.Totals.Attempts != a.Totals.Attempts {
		t.Errorf("no job header: %d calls, %d/%d tokens, $%v; with: %d calls, %d/%d tokens, $%v",
			b.Totals.Attempts, b.Totals.InputTokens, b.Totals.OutputTokens, b.Totals.SpendUSD, a.Totals.Attempts, a.Totals.InputTokens, a.Totals.OutputTokens, a.Totals.SpendUSD)
	}
}
