package e2e

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// Issue 39's lab (docs/lab.md): a night of seed 000's stack (the real
// @anthropic-ai/sdk × p-retry × BullMQ on Redis) on a mixed seed at
// concurrency 4, against the mock provider whose ledger is the truth. The
// app logs "calling model" before each call and "model call ok"/"model
// call failed" after it; ANTHROPIC_LOG=debug writes the SDK's blocks to
// another file. Before the fixes: the app's log alone read 1 call per
// announcement with its failure lines dropped; the SDK's output alone
// billed $0; the two files together counted 107 calls for 47.

const labNight = "testdata/lab-anthropic-c4-s002/"

type wireJob struct {
	calls, sdkCalls int
	pico            int64
	ok              bool
}

func labLedger(t *testing.T) map[string]*wireJob {
	t.Helper()
	return labLedgerAt(t, labNight+"ledger.jsonl")
}

// labLedgerAt folds a lab ledger per job.
func labLedgerAt(t *testing.T, path string) map[string]*wireJob {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*wireJob{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Job        string `json:"job"`
			Status     int    `json:"status"`
			RetryCount string `json:"retry_count"`
			CostPico   int64  `json:"cost_pico"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		j := out[l.Job]
		if j == nil {
			j = &wireJob{}
			out[l.Job] = j
		}
		j.calls++
		if l.RetryCount == "0" {
			j.sdkCalls++
		}
		j.pico += l.CostPico
		j.ok = j.ok || l.Status == 200
	}
	return out
}

func TestLabNightMatchesTheWire(t *testing.T) {
	wire := labLedger(t)
	for _, c := range []struct {
		name  string
		files []string
		// appLog: the app's log alone — its calls (the SDK's first
		// attempts) exact, each job's count a lower bound.
		appLog bool
	}{
		{"app log alone", []string{"app.log"}, true},
		{"SDK debug alone", []string{"sdk.log"}, false},
		{"both files", []string{"app.log", "sdk.log"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			for _, f := range c.files {
				args = append(args, labNight+f)
			}
			r, err := declaredReport(t, args...)
			if err != nil && err != errCritical {
				t.Fatalf("report: %v", err)
			}
			if len(r.Jobs) != len(wire) {
				t.Fatalf("%d jobs, the wire %d", len(r.Jobs), len(wire))
			}
			if c.appLog && len(r.UnseenLayers) == 0 {
				t.Errorf("the app's log alone names no layer below it")
			}
			for _, j := range r.Jobs {
				w := wire[j.JobID]
				if w == nil {
					t.Errorf("job %s is not on the wire", j.JobID)
					continue
				}
				want, kind := w.calls, "exact"
				if c.appLog {
					want, kind = w.sdkCalls, "lower_bound"
				}
				if int(j.Attempts) != want || j.Count != kind {
					t.Errorf("%s: %d calls (%s), want %d (%s)", j.JobID, j.Attempts, j.Count, want, kind)
				}
				if math.Abs(j.SpendUSD-float64(w.pico)/1e12) > 1e-9 {
					t.Errorf("%s: spend $%.9f, wire $%.9f", j.JobID, j.SpendUSD, float64(w.pico)/1e12)
				}
				if got := j.Outcome == "succeeded"; got != w.ok {
					t.Errorf("%s: outcome %s, wire answered 200: %v", j.JobID, j.Outcome, w.ok)
				}
			}
		})
	}
}
