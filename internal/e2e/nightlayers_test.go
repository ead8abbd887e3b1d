package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestNightLayersAreTheStack: issue 39 — on seed 000's night read in one
// stream (the app's pino lines and ANTHROPIC_LOG=debug, as 2>&1), every
// call was right but the layers read 1×21×3 for a stack of BullMQ
// attempts: 7 × p-retry 3 × the SDK's 3: the app's "calling model" line
// names the queue's attempt (queue_attempt, BullMQ's attemptsMade + 1), and
// nothing read it, so the wrapper's rounds ran on across the queue's
// attempts. Two jobs of the lab's night at concurrency 4 (the real SDK,
// p-retry and BullMQ on Redis against the mock provider;
// testdata/lab-night-c4, its ledger beside it): report-4100 dead-lettered
// at 63 calls, report-4115 got through at its 6th queue attempt (49).
func TestNightLayersAreTheStack(t *testing.T) {
	const dir = "testdata/lab-night-c4/"
	wire := labLedgerAt(t, dir+"ledger.jsonl")
	out, err := run(t, "report", "--format", "json", dir+"stream.log")
	if err != nil && err != errCritical {
		t.Fatalf("report: %v\n%.500s", err, out)
	}
	var rep struct {
		Jobs []struct {
			JobID    string `json:"job_id"`
			Attempts int    `json:"attempts"`
			Layers   []int  `json:"layers"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report json: %v", err)
	}
	want := map[string][]int{"report-4100": {7, 3, 3}, "report-4115": {6, 3, 3}}
	if len(rep.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(rep.Jobs), len(want))
	}
	for _, j := range rep.Jobs {
		if w := wire[j.JobID]; w == nil || j.Attempts != w.calls {
			t.Errorf("%s: %d calls, the wire %v", j.JobID, j.Attempts, w)
		}
		if l, ok := want[j.JobID]; !ok || !slices.Equal(j.Layers, l) {
			t.Errorf("%s: layers %v, want %v (queue × wrapper × SDK)", j.JobID, j.Layers, l)
		}
	}
	// The Markdown report's rows say the same.
	md, err := run(t, "report", dir+"stream.log")
	if err != nil && err != errCritical {
		t.Fatalf("report: %v", err)
	}
	if !strings.Contains(md, "| 7×3×3 |") || strings.Contains(md, "×21×") {
		t.Errorf("the report's layers are not the stack's 7×3×3:\n%s", md)
	}
}
