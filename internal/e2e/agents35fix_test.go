package e2e

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The red team's cases of issue 35 (round 4), trimmed: testdata/rt4.
const rt4 = "testdata/rt4"

type rt4Report struct {
	Source struct {
		Events  int64             `json:"events"`
		Formats map[string]string `json:"formats"`
		Dropped map[string]int64  `json:"fields_dropped"`
	} `json:"source"`
	Totals struct {
		Attempts   int64   `json:"attempts"`
		SpendUSD   float64 `json:"spend_usd"`
		FailedJobs int     `json:"failed_jobs"`
	} `json:"totals"`
	Status   map[string]int64 `json:"status"`
	Findings []struct {
		Rule string `json:"kind"`
	} `json:"findings"`
	Jobs []struct {
		ID string `json:"job_id"`
	} `json:"jobs"`
}

func rt4Run(t *testing.T, args ...string) (rt4Report, string) {
	t.Helper()
	out, err := run(t, append([]string{"report", "--format", "json"}, args...)...)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	var r rt4Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r, out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9+1e-6*math.Abs(b) }

// TestCopilotUsageCostIsNotDollars: assistant.usage's data.cost is the
// call's premium-request multiplier (3 for claude-opus-4.5, 0.33 for a mini
// model); billed as dollars it made $3.33 of $0.0132 and a job ceiling of
// $2 killed an innocent session.
func TestCopilotUsageCostIsNotDollars(t *testing.T) {
	f := filepath.Join(rt4, "copilot_usage.jsonl")
	r, _ := rt4Run(t, f)
	if r.Totals.Attempts != 2 || !near(r.Totals.SpendUSD, 0.0132) {
		t.Errorf("%d calls, $%v; want 2 calls priced by their tokens, $0.0132", r.Totals.Attempts, r.Totals.SpendUSD)
	}
	out, err := run(t, "replay", "--headless", "--speed", "max", "--job-ceiling", "2", "--dry-run", f)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	if strings.Contains(out, "job_ceiling") {
		t.Errorf("a $0.0132 session passed a $2 job ceiling:\n%s", out)
	}
}

// TestAppLogOfAnAgentsKeysStaysAppLog: application records that merely
// carry an agent's key set ({type,data,id,timestamp,parentId}; Pi's
// type=message; OpenCode's part; Continue's four fields beside job_id and
// status) were read as that agent's and vanished or lost their job and
// status. Each is the app's: 2 calls of job j1, $0.52; Continue's 529s
// stay 529s of job j1.
func TestAppLogOfAnAgentsKeysStaysAppLog(t *testing.T) {
	for _, f := range []string{"bus.jsonl", "pi_steal.jsonl", "oc_steal.jsonl"} {
		r, _ := rt4Run(t, filepath.Join(rt4, f))
		if r.Totals.Attempts != 2 || !near(r.Totals.SpendUSD, 0.52) || len(r.Jobs) != 1 || r.Jobs[0].ID != "j1" {
			t.Errorf("%s: %d calls $%v jobs %v, want 2 calls $0.52 of job j1", f, r.Totals.Attempts, r.Totals.SpendUSD, r.Jobs)
		}
	}
	// Inside a Copilot file, the app's two records are still its calls
	// (they were passed over as Copilot's own records of no call).
	r, _ := rt4Run(t, filepath.Join(rt4, "copilot_mixed.jsonl"))
	if r.Totals.Attempts != 4 || !near(r.Totals.SpendUSD, 0.5332) || r.Source.Formats[filepath.Join(rt4, "copilot_mixed.jsonl")] != "copilot-cli" {
		t.Errorf("copilot_mixed: %d calls $%v formats %v, want 4 calls $0.5332 read as copilot-cli", r.Totals.Attempts, r.Totals.SpendUSD, r.Source.Formats)
	}
	r, _ = rt4Run(t, filepath.Join(rt4, "cont_steal.jsonl"))
	if r.Totals.Attempts != 3 || len(r.Jobs) != 1 || r.Jobs[0].ID != "j1" || r.Status["529"] != 2 {
		t.Errorf("cont_steal: %d calls jobs %v status %v, want 3 calls of j1, two 529s", r.Totals.Attempts, r.Jobs, r.Status)
	}
}

// TestForgedProducerCostIsPricedByTokens: a record's own cost far above
// what its tokens could cost ($99,999 for 5 tokens) is dropped and counted
// (implausible_field), the call priced by its tokens: the generic reader's
// and Pi's, and (applied beside them) Claude Code's costUSD. JSON lines'
// cost_usd is not checked so: an app logs it without tokens, and a
// night's fixtures bill $1+ calls by it alone.
func TestForgedProducerCostIsPricedByTokens(t *testing.T) {
	for _, f := range []string{"g3.jsonl", "pi_forged.jsonl", "cc_forged.jsonl"} {
		r, _ := rt4Run(t, filepath.Join(rt4, f))
		if r.Totals.Attempts != 1 || r.Totals.SpendUSD > 0.01 || r.Source.Dropped["implausible_field"] != 1 {
			t.Errorf("%s: %d calls $%v dropped %v, want 1 call priced by its tokens, one implausible_field",
				f, r.Totals.Attempts, r.Totals.SpendUSD, r.Source.Dropped)
		}
	}
}

// TestTopModelNestedUsageIsBilled: a line naming its model at the top
// level and its usage under response.usage was billed $0 with no word
// (job a); with "msg":"call ok" and no event (job c) it was held as an
// announcement and its job marked failed. Each of the four lines is a
// call of gpt-4o, 100,000 in and 10,000 out ($0.35), answered.
func TestTopModelNestedUsageIsBilled(t *testing.T) {
	r, _ := rt4Run(t, filepath.Join(rt4, "nested.jsonl"))
	if r.Totals.Attempts != 4 || !near(r.Totals.SpendUSD, 1.4) || r.Totals.FailedJobs != 0 || r.Status["200"] != 4 {
		t.Errorf("%d calls $%v, %d failed jobs, status %v; want 4 calls $1.40, none failed, all 200",
			r.Totals.Attempts, r.Totals.SpendUSD, r.Totals.FailedJobs, r.Status)
	}
}

// TestContinueFilesAlikeAreDifferentCalls: two Continue files of the
// same 0.1.0 lines (no time in them) are six calls, not three completed
// twice (a critical duplicate_completion).
func TestContinueFilesAlikeAreDifferentCalls(t *testing.T) {
	r, _ := rt4Run(t, filepath.Join(rt4, "cont"))
	if r.Totals.Attempts != 6 {
		t.Errorf("%d calls, want 6", r.Totals.Attempts)
	}
	for _, f := range r.Findings {
		if f.Rule == "duplicate_completion" {
			t.Errorf("two files' lines alike read as one call completed twice")
		}
	}
}

// TestGenericThoughtsOverTheCapCostTheField: a usage whose output and
// thoughtsTokenCount are each in range but whose sum is not lost the whole
// record (refused as implausible), while the hint still counted it: 7
// call(s) for 6 events. The thoughts field is dropped (implausible_field),
// the record kept, the hint's count the events'.
func TestGenericThoughtsOverTheCapCostTheField(t *testing.T) {
	r, out := rt4Run(t, filepath.Join(rt4, "g4.jsonl"))
	if r.Source.Events != 7 || r.Totals.Attempts != 7 || r.Source.Dropped["implausible_field"] != 1 || !strings.Contains(out, "7 call(s) whose model") {
		t.Errorf("%d events, %d calls, dropped %v; want 7 and 7, one implausible_field, a hint of 7 calls", r.Source.Events, r.Totals.Attempts, r.Source.Dropped)
	}
}

// TestOpenCodeNoModelSaidLive: an OpenCode stream of cost 0 that names no
// model (a subscription, a custom provider) can never trip a ceiling; live,
// nothing said so. It is said once on stderr.
func TestOpenCodeNoModelSaidLive(t *testing.T) {
	in, err := os.Open(filepath.Join(rt4, "oc_nomodel.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(burnrate(t), "opencode", "--headless", "--job-ceiling", "5", "--dry-run")
	cmd.Stdin = in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if n := strings.Count(errb.String(), "calls unpriced: the stream names no model; ceilings cannot see their spend"); n != 1 {
		t.Errorf("said %d times, want once:\n%s", n, errb.String())
	}
}
