package e2e

import (
	"strings"
	"testing"
)

// TestAnsweredCallWithNothingToPriceIsUnpriced: the Node SDK's info lines
// (sample-logs/formats/node-sdk.log) name no model and no tokens, as an
// undici CLIENT span does for the OpenAI SDK over OTLP (issue 39's lab:
// every job $0 on nights that cost dollars). An answered call whose cost
// nothing says is unpriced — counted per job, the job's spend shown as a
// lower bound — never $0 that reads whole. A failed one still costs 0.
func TestAnsweredCallWithNothingToPriceIsUnpriced(t *testing.T) {
	r, err := declaredReport(t, "../../sample-logs/formats/node-sdk.log")
	if err != nil && err != errCritical {
		t.Fatalf("report: %v", err)
	}
	if r.Totals.UnpricedAttempts == 0 {
		t.Fatalf("no unpriced attempt: %+v", r.Totals)
	}
	var n int64
	for _, j := range r.Jobs {
		n += int64(j.UnpricedCalls)
		if j.Outcome == "succeeded" && j.UnpricedCalls == 0 {
			t.Errorf("%s succeeded with no call priced, and no unpriced call named", j.JobID)
		}
	}
	if n != r.Totals.UnpricedAttempts {
		t.Errorf("jobs' unpriced calls %d, the run's %d", n, r.Totals.UnpricedAttempts)
	}
	out, _ := run(t, "report", "../../sample-logs/formats/node-sdk.log")
	if !strings.Contains(out, "unpriced)") {
		t.Errorf("the Markdown report shows no job's spend as unpriced:\n%.2000s", out)
	}
}
