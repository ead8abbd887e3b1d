package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnnamedProducersKeepTheirFailures (red team R7-18): the generic
// reader read a Bedrock invocation log's 20 calls and skipped its 5
// ThrottlingException records (no output, an errorCode) as no_event, and
// Helicone's response_status 429 was read as an unknown status: the
// failures — what burnrate exists to count — were what was lost. Now the
// throttled records are failed calls of status 429, said in the hint,
// and response_status is a status.
func TestUnnamedProducersKeepTheirFailures(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var bed, hel strings.Builder
	for i := range 6 {
		fmt.Fprintf(&bed, `{"schemaType":"ModelInvocationLog","schemaVersion":"1.0","timestamp":"2026-06-02T00:%02d:00Z","requestId":"ok-%d","operation":"InvokeModel","modelId":"anthropic.claude-3-haiku-20240307-v1:0","input":{"inputTokenCount":1200},"output":{"outputBodyJson":{"model":"claude-3-haiku-20240307","usage":{"input_tokens":1200,"output_tokens":300}},"outputTokenCount":300}}`+"\n", i, i)
		fmt.Fprintf(&bed, `{"schemaType":"ModelInvocationLog","schemaVersion":"1.0","timestamp":"2026-06-02T00:%02d:30Z","requestId":"thr-%d","operation":"Converse","modelId":"anthropic.claude-3-haiku-20240307-v1:0","errorCode":"ThrottlingException","input":{"inputTokenCount":900}}`+"\n", i, i)
		status, tokens := 200, 1500
		if i%2 == 0 {
			status, tokens = 429, 0
		}
		fmt.Fprintf(&hel, `{"request_id":"r%d","request_created_at":"2026-06-02T02:%02d:00.000Z","model":"gpt-4o","provider":"OPENAI","response_status":%d,"prompt_tokens":%d,"completion_tokens":%d}`+"\n", i, i, status, tokens, tokens/10)
	}
	for name, c := range map[string]struct {
		body, status string
		failed       int
	}{
		"bedrock.jsonl":  {bed.String(), "200×6 429×6", 6},
		"helicone.jsonl": {hel.String(), "200×3 429×3", 3},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.body), 0o644)
		cmd := exec.Command(bin, "report", p)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		md, err := cmd.Output()
		if err != nil && len(md) == 0 {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		if !strings.Contains(string(md), "| Status of model calls | "+c.status+" |") {
			t.Errorf("%s: want statuses %s; report:\n%.1500s\nstderr: %s", name, c.status, md, stderr.String())
		}
		if name == "bedrock.jsonl" && !strings.Contains(stderr.String(), "6 failed call(s) read from an errorCode") {
			t.Errorf("%s: the hint does not say the failed calls read: %s", name, stderr.String())
		}
	}
}

// TestAnExportDocumentIsReadRecordByRecord (red team R7-20): an API
// export — {"data":[…records…],"meta":{…}}, Langfuse's observations page
// — was read as ONE call, its first record with usage: a quarter of the
// spend reported as the whole, exit 0. Its records are read one by one,
// as the same records one per line are: the two reports agree.
func TestAnExportDocumentIsReadRecordByRecord(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var recs []string
	for i := range 12 {
		if i%3 == 2 {
			recs = append(recs, fmt.Sprintf(`{"id":"obs-%d","traceId":"trace-%d","type":"GENERATION","startTime":"2026-06-02T00:00:%02d.000Z","model":"gpt-4o","level":"DEFAULT","usageDetails":{"input":1000,"output":100,"total":1100}}`, i, i/3, i))
		} else {
			recs = append(recs, fmt.Sprintf(`{"id":"obs-%d","traceId":"trace-%d","type":"GENERATION","startTime":"2026-06-02T00:00:%02d.000Z","model":"gpt-4o","level":"ERROR","statusMessage":"Error code: 429","usageDetails":{"input":1000,"output":100}}`, i, i/3, i))
		}
	}
	doc := filepath.Join(dir, "observations.json")
	lines := filepath.Join(dir, "observations.jsonl")
	os.WriteFile(doc, []byte(`{"data":[`+strings.Join(recs, ",\n  ")+`],"meta":{"page":1,"limit":50,"totalItems":12,"totalPages":1}}`), 0o644)
	os.WriteFile(lines, []byte(strings.Join(recs, "\n")+"\n"), 0o644)
	totals := func(p string) string {
		out, err := exec.Command(bin, "report", "--format", "json", p).Output()
		if err != nil && len(out) == 0 {
			t.Fatal(err)
		}
		var r struct {
			Totals struct {
				Attempts int     `json:"attempts"`
				Spend    float64 `json:"spend_usd"`
			} `json:"totals"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return fmt.Sprintf("%d attempts, $%g", r.Totals.Attempts, r.Totals.Spend)
	}
	if d, l := totals(doc), totals(lines); d != l || !strings.HasPrefix(d, "12 attempts") {
		t.Errorf("the document reads %s, its records one per line %s: want the same, 12 attempts", d, l)
	}
	// One call whose messages are an array stays one call, read whole.
	one := filepath.Join(dir, "one.json")
	os.WriteFile(one, []byte(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"response":{"model":"gpt-4o","usage":{"prompt_tokens":1000,"completion_tokens":100}}}`), 0o644)
	if got := totals(one); !strings.HasPrefix(got, "1 attempts") {
		t.Errorf("a call with a messages array reads %s, want 1 attempt", got)
	}
	cmd := exec.Command(bin, "report", one)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	if strings.Contains(stderr.String(), "read one by one") {
		t.Errorf("a call's messages are said to be a document's records: %s", stderr.String())
	}
}
