package e2e

import (
	"math"
	"strings"
	"testing"
)

// Issue 39's lab, the OpenAI app (lab/node/summarize.mjs on the real
// openai 6 SDK): per job a streamed Chat Completion and a Responses call,
// both naming the job in an x-job-id header, at concurrency 4 on mixed
// seed 001 (429s, 500s, 503s, a timeout, a reset). OPENAI_LOG=debug wrote
// sdk.log, the app its pino lines to app.log; ledger.jsonl is the wire.
//
// The SDK's debug output never prints a stream's chunks, so a streamed
// call's usage is not in it, and it prints the Responses usage's
// input_tokens_details as "[Object]", so the cached part of the prompt
// (billed at a tenth) is unseen: alone, it read the stream at $0 and the
// Responses call at the uncached price — sums that looked whole and were
// not. Alone it now counts every call exactly and bills what it shows,
// each job's spend a lower bound with its unpriced calls counted; with the
// app's file beside it, which names each call's requestId and its tokens
// with the cached ones, every job is exact: calls, spend and outcome.
func TestLabOpenAINightMatchesTheWire(t *testing.T) {
	const night = "testdata/lab-openai-c4-s001/"
	wire := labLedgerAt(t, night+"ledger.jsonl")
	for _, c := range []struct {
		name  string
		files []string
		// sdkAlone: spend a lower bound, its unpriced calls named.
		sdkAlone bool
	}{
		{"SDK debug alone", []string{"sdk.log"}, true},
		{"both files", []string{"app.log", "sdk.log"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			for _, f := range c.files {
				args = append(args, night+f)
			}
			r, err := declaredReport(t, args...)
			if err != nil && err != errCritical {
				t.Fatalf("report: %v", err)
			}
			if len(r.Jobs) != len(wire) {
				t.Fatalf("%d jobs, the wire %d", len(r.Jobs), len(wire))
			}
			for _, j := range r.Jobs {
				w := wire[j.JobID]
				if w == nil {
					t.Errorf("job %s is not on the wire", j.JobID)
					continue
				}
				if int(j.Attempts) != w.calls || j.Count != "exact" {
					t.Errorf("%s: %d calls (%s), want %d (exact)", j.JobID, j.Attempts, j.Count, w.calls)
				}
				if got := j.Outcome == "succeeded"; got != w.ok {
					t.Errorf("%s: outcome %s, wire answered 200: %v", j.JobID, j.Outcome, w.ok)
				}
				spend, wireSpend := j.SpendUSD, float64(w.pico)/1e12
				switch {
				case !c.sdkAlone && (math.Abs(spend-wireSpend) > 1e-9 || j.UnpricedCalls != 0):
					t.Errorf("%s: spend $%.9f (%d unpriced), wire $%.9f", j.JobID, spend, j.UnpricedCalls, wireSpend)
				case c.sdkAlone && w.ok && (j.UnpricedCalls == 0 || spend >= wireSpend):
					t.Errorf("%s: spend $%.9f with %d unpriced calls, wire $%.9f: want a lower bound, marked", j.JobID, spend, j.UnpricedCalls, wireSpend)
				}
			}
			if c.sdkAlone {
				out, _ := run(t, append([]string{"report"}, args...)...)
				if !strings.Contains(out, "unpriced)") {
					t.Errorf("the Markdown report shows no job's spend as a lower bound:\n%.1500s", out)
				}
			}
		})
	}
}
