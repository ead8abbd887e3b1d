package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestACompactTraceExportIsReadWhole: red team 2 of issue 39 — Jaeger's
// /api/traces answers with compact one-line JSON; an export over 1 MiB
// (3,000 spans) was cut as a too-long line: $0, exit 2, while the same
// trace pretty-printed read whole. A compact export is one document
// whatever its line's length.
func TestACompactTraceExportIsReadWhole(t *testing.T) {
	const trace = "5edab84350c3da3b38a026540a681652"
	var spans []string
	for i := range 3000 {
		spans = append(spans, fmt.Sprintf(`{"traceID":%q,"spanID":"s%05d","operationName":"chat claude-sonnet-4-5","references":[],"startTime":%d,"duration":1000000,"processID":"p1","tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.request.model","type":"string","value":"claude-sonnet-4-5"},{"key":"gen_ai.system","type":"string","value":"anthropic"},{"key":"gen_ai.usage.input_tokens","type":"int64","value":800},{"key":"gen_ai.usage.output_tokens","type":"int64","value":80},{"key":"span.kind","type":"string","value":"client"},{"key":"padding","type":"string","value":"%s"}]}`,
			trace, i, 1782229343000000+int64(i)*1000, strings.Repeat("x", 300)))
	}
	doc := `{"data":[{"traceID":"` + trace + `","spans":[` + strings.Join(spans, ",") + `],"processes":{"p1":{"serviceName":"svc","tags":[]}}}],"total":0,"limit":0,"offset":0,"errors":null}`
	if len(doc) < 1<<20 || strings.Contains(doc, "\n") {
		t.Fatalf("the export is %d bytes on one line: want over 1 MiB", len(doc))
	}
	p := filepath.Join(t.TempDir(), "trace.json")
	os.WriteFile(p, []byte(doc), 0o600)
	out, err := run(t, "report", "--format", "json", p)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if !strings.Contains(out, `"attempts": 3000`) {
		t.Errorf("the compact export's 3,000 spans were not read as calls:\n%.2000s", out)
	}
}
