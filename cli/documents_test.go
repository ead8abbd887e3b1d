package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpJSON is one OTLP/JSON trace export request of n GenAI spans.
func otlpJSON(t *testing.T, seed, n int) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "enricher")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetName("chat claude-sonnet-4-6")
		sp.SetTraceID(pcommon.TraceID{byte(seed), byte(i), 1})
		sp.SetSpanID(pcommon.SpanID{byte(seed), byte(i), 2})
		sp.SetKind(ptrace.SpanKindClient)
		sp.SetStartTimestamp(pcommon.Timestamp(1773104400_000000000 + int64(seed*100+i)*1e9))
		sp.SetEndTimestamp(pcommon.Timestamp(1773104401_000000000 + int64(seed*100+i)*1e9))
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "claude-sonnet-4-6")
		a.PutStr("gen_ai.system", "anthropic")
		a.PutInt("gen_ai.usage.input_tokens", 1000)
		a.PutInt("gen_ai.usage.output_tokens", 100)
		a.PutStr("job.id", fmt.Sprintf("job-%d-%d", seed, i))
	}
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type reportJSON struct {
	Source struct {
		Lines           int64            `json:"lines"`
		Events          int64            `json:"events"`
		SkippedByReason map[string]int64 `json:"skipped_by_reason"`
	} `json:"source"`
	Totals struct {
		Attempts int64   `json:"attempts"`
		Spend    float64 `json:"spend_usd"`
	} `json:"totals"`
}

func reportOf(t *testing.T, path string) reportJSON {
	t.Helper()
	out, err := run(t, "report", "--format", "json", path)
	if err != nil && !strings.Contains(err.Error(), "critical") {
		t.Fatalf("%s: %v", path, err)
	}
	var r reportJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
	return r
}

// TestOTLPAndJSONDocumentFiles: issue 13 — OTLP/JSON files (the
// Collector's file exporter, or one pretty-printed request) and JSON
// documents (a pretty object, an array) gave 0 events and invalid_json
// skips. They are read record by record through the same mapping as the
// receiver.
func TestOTLPAndJSONDocumentFiles(t *testing.T) {
	dir := t.TempDir()
	perLine := filepath.Join(dir, "collector-file-exporter.json")
	testutil.WriteFile(t, perLine, string(otlpJSON(t, 1, 3))+"\n"+string(otlpJSON(t, 2, 4))+"\n")
	var pretty bytes.Buffer
	json.Indent(&pretty, otlpJSON(t, 3, 5), "", "  ")
	prettyPath := filepath.Join(dir, "export.json")
	testutil.WriteFile(t, prettyPath, pretty.String())
	for path, want := range map[string]int64{perLine: 7, prettyPath: 5} {
		r := reportOf(t, path)
		if r.Totals.Attempts != want || len(r.Source.SkippedByReason) != 0 {
			t.Errorf("%s: %d attempts (want %d), skipped %v", filepath.Base(path), r.Totals.Attempts, want, r.Source.SkippedByReason)
		}
		if r.Totals.Spend != float64(want)*0.0045 {
			t.Errorf("%s: spend %v, want %v", filepath.Base(path), r.Totals.Spend, float64(want)*0.0045)
		}
	}

	rec := func(i int) string {
		return fmt.Sprintf(`{"ts":"2026-03-10T01:00:%02dZ","event":"llm_call","job_id":"j%d","model":"claude-sonnet-4-6","status":200,"input_tokens":1000,"output_tokens":100}`, i, i)
	}
	var arr, objs strings.Builder
	arr.WriteString("[\n")
	for i := range 50 {
		if i > 0 {
			arr.WriteString(",\n")
		}
		var p bytes.Buffer
		json.Indent(&p, []byte(rec(i)), "  ", "  ")
		arr.WriteString("  " + p.String())
		objs.WriteString(p.String() + "\n")
	}
	arr.WriteString("\n]\n")
	arrPath, objPath := filepath.Join(dir, "array.json"), filepath.Join(dir, "pretty.json")
	testutil.WriteFile(t, arrPath, arr.String())
	testutil.WriteFile(t, objPath, objs.String())
	for _, path := range []string{arrPath, objPath} {
		r := reportOf(t, path)
		if r.Totals.Attempts != 50 || len(r.Source.SkippedByReason) != 0 || r.Source.Lines != 50 {
			t.Errorf("%s: %d attempts, %d records, skipped %v; want 50 records, 50 attempts", filepath.Base(path), r.Totals.Attempts, r.Source.Lines, r.Source.SkippedByReason)
		}
	}
	out, _ := run(t, "formats", "--detect", arrPath, "--detect", perLine)
	if !strings.Contains(out, "perline") && (!strings.Contains(out, "otlp-json, a JSON document") || !strings.Contains(out, "jsonl, a JSON document")) {
		t.Errorf("formats --detect must name the document formats:\n%s", out)
	}
}

// TestDocumentShapesReadLikeLines: LiteLLM publishes its payloads as
// pretty-printed JSON (its tests' fixtures); the same records as a JSON
// array, as pretty objects one after another and as JSON lines give the
// same report.
func TestDocumentShapesReadLikeLines(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, "../sample-logs/formats/litellm-payload.jsonl"))), "\n")
	dir := t.TempDir()
	var arr, objs strings.Builder
	arr.WriteString("[\n")
	for i, l := range lines {
		var p bytes.Buffer
		json.Indent(&p, []byte(l), "  ", "    ")
		if i > 0 {
			arr.WriteString(",\n")
		}
		arr.WriteString("  " + p.String())
		objs.WriteString(p.String() + "\n")
	}
	arr.WriteString("\n]\n")
	testutil.WriteFile(t, dir+"/payloads.jsonl", strings.Join(lines, "\n")+"\n")
	testutil.WriteFile(t, dir+"/payloads-array.json", arr.String())
	testutil.WriteFile(t, dir+"/payloads-pretty.json", objs.String())
	base := reportOf(t, dir+"/payloads.jsonl")
	for _, name := range []string{"payloads-array.json", "payloads-pretty.json"} {
		got := reportOf(t, dir+"/"+name)
		if got.Totals != base.Totals || got.Source.Events != base.Source.Events || len(got.Source.SkippedByReason) != 0 {
			t.Errorf("%s: %+v %+v, want the JSON lines' %+v", name, got.Totals, got.Source, base.Totals)
		}
	}
	if base.Totals.Attempts == 0 || base.Totals.Spend == 0 {
		t.Fatalf("the fixture gave nothing: %+v", base.Totals)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
