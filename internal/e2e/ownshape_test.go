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

// TestAFirstLineDoesNotDecideTheFile (red team R6-17): a record's own
// shape decides how it is read, not the first line's. An application's
// log whose first line logged an export payload (a "resourceSpans" key)
// was read whole as OTLP requests — 2,000 calls, 0 events, exit 2; one
// whose first line was "[" (or "[{…},") was read as a JSON array that
// broke off at the second record — 1 of 2,000 calls, exit 0. Each now
// gives the calls its lines hold, as the same lines without that first
// one do.
func TestAFirstLineDoesNotDecideTheFile(t *testing.T) {
	var calls strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&calls, `{"ts":"2026-03-10T01:%02d:%02d.000Z","event":"llm_call","job_id":"j%d","attempt":1,"model":"gpt-4o","status":200,"input_tokens":1000,"output_tokens":100}`+"\n", i/60%60, i%60, i%50)
	}
	dir := t.TempDir()
	for name, first := range map[string]string{
		"payload": `{"ts":"2026-03-10T00:59:59.000Z","msg":"exporter payload","resourceSpans":[{"resource":{},"scopeSpans":[]}]}` + "\n",
		"bracket": "[\n",
		"element": `[{"note":"x"},` + "\n",
		"none":    "",
	} {
		path := filepath.Join(dir, name+".jsonl")
		os.WriteFile(path, []byte(first+calls.String()), 0o644)
		out, err := exec.Command(burnrate(t), "report", "--format", "json", path).Output()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var rep struct {
			Totals struct {
				Attempts int `json:"attempts"`
			} `json:"totals"`
		}
		json.Unmarshal(out, &rep)
		if rep.Totals.Attempts != 2000 {
			t.Errorf("%s first: %d attempts, want the 2,000 calls of its lines", name, rep.Totals.Attempts)
		}
	}
}
