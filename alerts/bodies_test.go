package alerts

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden webhook bodies")

// goldenAlert has every field a body carries, with values that need
// escaping.
var goldenAlert = Alert{Rule: RuleJobCeiling, Severity: correlate.SeverityCritical, Scope: "job", RunID: "nightly-2026-03-10", JobID: "rec-00001",
	JobType: "enrich", Reason: "job rec-00001 spent $0.3120, over its ceiling of $0.3000 after 13 model calls and 60 tool calls <\"quoted\">",
	SpendUSD: 0.312, CeilingUSD: 0.3, Attempts: 73, At: time.Date(2026, 4, 14, 1, 5, 27, 0, time.UTC).UnixNano(), Kill: true}

// TestWebhookBodiesAreByteExact: issue 20 — the tests decoded webhook
// bodies into the struct the code encodes with, so a renamed JSON tag
// passed. Both bodies are held to golden bytes (go test ./alerts -update
// rewrites them; review the diff: receivers parse these names).
func TestWebhookBodiesAreByteExact(t *testing.T) {
	for name, body := range map[string][]byte{"kill_body.json": killBody(goldenAlert), "notify_body.json": notifyBody(goldenAlert)} {
		path := "testdata/" + name
		if *updateGolden {
			os.WriteFile(path, append(body, '\n'), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != string(body)+"\n" {
			t.Errorf("%s changed:\nwant %s\ngot  %s", path, want, body)
		}
	}
}
