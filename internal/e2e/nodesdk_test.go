package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// Issue 39: a Node batch on the official SDKs, recorded against a mock
// provider that kept a ledger of every HTTP request
// (testdata/node-sdk/README.md). Each HTTP attempt is logged twice — the
// SDK's response line and the app's line with the same req_… — and with
// 4 to 16 jobs in flight the last JSON line is another job's.

const nodeSDK = "testdata/node-sdk/"

// ledgerCalls is the mock's count of HTTP requests per job.
func ledgerCalls(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct{ Job string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out[l.Job]++
	}
	return out
}

// reportCalls is a report's calls per job and in all.
func reportCalls(t *testing.T, args ...string) (map[string]int, int, *correlate.Report) {
	t.Helper()
	r, err := declaredReport(t, args...)
	if err != nil && err != errCritical {
		t.Fatalf("report %v: %v", args, err)
	}
	got, total := map[string]int{}, 0
	for _, j := range r.Jobs {
		got[j.JobID] = int(j.Attempts)
		total += int(j.Attempts)
	}
	return got, total, r
}

func compareLedger(t *testing.T, what string, got, want map[string]int) {
	t.Helper()
	wrong := 0
	for job, n := range want {
		if got[job] != n {
			wrong++
			if wrong <= 5 {
				t.Errorf("%s: %s made %d calls on the wire, report says %d", what, job, n, got[job])
			}
		}
	}
	if wrong > 5 {
		t.Errorf("%s: %d jobs of %d wrong", what, wrong, len(want))
	}
}

// TestNodeSDKCallsMatchTheWire: the app's JSON and the SDK's lines in one
// stream, in two files, at debug (request blocks name x-job-id) and at
// info level (no headers: the app's request_id claims the SDK's chain):
// every job's calls are the ledger's, each HTTP attempt once.
func TestNodeSDKCallsMatchTheWire(t *testing.T) {
	for _, c := range []string{"debug-c4", "info-c16"} {
		t.Run(c, func(t *testing.T) {
			log := nodeSDK + c + ".log"
			want := ledgerCalls(t, nodeSDK+c+".ledger.jsonl")
			got, _, _ := reportCalls(t, log)
			compareLedger(t, "one stream", got, want)

			// The same lines in two files: the app's, and the SDK's.
			raw, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			var app, sdk strings.Builder
			for _, l := range strings.SplitAfter(string(raw), "\n") {
				if strings.HasPrefix(l, "{") {
					app.WriteString(l)
				} else {
					sdk.WriteString(l)
				}
			}
			dir := t.TempDir()
			appPath, sdkPath := filepath.Join(dir, "app.log"), filepath.Join(dir, "sdk.log")
			if err := os.WriteFile(appPath, []byte(app.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(sdkPath, []byte(sdk.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			if c == "debug-c4" { // at info level the SDK's file names no job: only one stream links them
				got, _, _ = reportCalls(t, appPath, sdkPath)
				compareLedger(t, "two files", got, want)
			}
		})
	}
}

// TestNodeSDKInputFormatJSONL: --input-format jsonl reads the app's JSON
// records only — each call once, as the app logged it — and none of the
// SDK's lines, debug blocks included.
func TestNodeSDKInputFormatJSONL(t *testing.T) {
	raw, err := os.ReadFile(nodeSDK + "debug-c4.log")
	if err != nil {
		t.Fatal(err)
	}
	appCalls := strings.Count(string(raw), `"msg":"llm call`) // "llm call" and "llm call failed"
	_, total, _ := reportCalls(t, "--input-format", "jsonl", nodeSDK+"debug-c4.log")
	if total != appCalls {
		t.Errorf("--input-format jsonl: %d calls, the app logged %d", total, appCalls)
	}
}

// appOnly writes the app's JSON lines of a fixture to a file of their own:
// the log a user has when the SDK's debug output is off.
func appOnly(t *testing.T, fixture string) string {
	t.Helper()
	return appOnlyPath(t, nodeSDK+fixture)
}

func assumptionRow(r *correlate.Report, key string) *correlate.AssumptionReport {
	for i := range r.Assumptions {
		if r.Assumptions[i].Key == key && r.Assumptions[i].JobType == "" {
			return &r.Assumptions[i]
		}
	}
	return nil
}

// TestNodeSDKAppLogAloneIsALowerBound: from the app's log alone (its own
// 3-attempt wrapper's attempt field, the SDKs' default 2 retries below,
// unseen) every job that failed an attempt shows fewer calls than the
// wire, so every count is marked a lower bound, the SDK layers below are
// named (anthropic-sdk and openai-sdk, 2 retries: up to 3 HTTP calls per
// call logged), and the wrapper's attempts are the application's layer,
// never the SDK's retries. With the SDK's lines in the same stream the
// same jobs are exact. The audit's anthropic-sdk and the log meet on one
// row: the model names the family, no "llm-sdk" row of its own.
func TestNodeSDKAppLogAloneIsALowerBound(t *testing.T) {
	want := ledgerCalls(t, nodeSDK+"debug-c4.ledger.jsonl")
	got, total, r := reportCalls(t, "--audit", nodeSDK, appOnly(t, "debug-c4.log"))
	wire := 0
	for job, n := range want {
		wire += n
		if got[job] > n {
			t.Errorf("%s: %d calls from the app's log, more than the wire's %d", job, got[job], n)
		}
	}
	if total >= wire {
		t.Fatalf("the app's log gave %d calls, the wire had %d: the fixture no longer hides the SDK's retries", total, wire)
	}
	for _, j := range r.Jobs {
		if j.Count != correlate.CountLowerBound {
			t.Errorf("%s: count %q, want lower_bound (the SDK below retries unseen)", j.JobID, j.Count)
		}
	}
	if r.Totals.LowerBoundJobs != len(want) {
		t.Errorf("lower_bound_jobs %d, want %d", r.Totals.LowerBoundJobs, len(want))
	}
	layersSeen := map[string]int{}
	for _, u := range r.UnseenLayers {
		layersSeen[u.Layer] = u.AttemptsPerCall
		if !strings.Contains(u.From, "derived") {
			t.Errorf("%s unseen from %q: the audit of the app found the SDK's default", u.Layer, u.From)
		}
	}
	if layersSeen["anthropic-sdk"] != 3 || layersSeen["openai-sdk"] != 3 {
		t.Errorf("unseen layers %+v, want anthropic-sdk and openai-sdk, up to 3 HTTP calls per call", r.UnseenLayers)
	}
	if a := assumptionRow(r, "app.maxRetries"); a == nil || a.Observed != "2" {
		t.Errorf("the wrapper's attempt 3 is the application's layer: app.maxRetries row %+v", a)
	}
	if a := assumptionRow(r, "anthropic-sdk.maxRetries"); a == nil || a.Derived != "2" || a.Observed != "" {
		t.Errorf("anthropic-sdk.maxRetries: derived 2 by the audit, nothing observed from the app's attempt field: %+v", a)
	}
	for _, a := range r.Assumptions {
		if strings.HasPrefix(a.Key, "llm-sdk") {
			t.Errorf("a layer of no provider: %+v", a)
		}
	}

	// One stream with the SDK's debug lines: every HTTP attempt is seen.
	_, _, r = reportCalls(t, nodeSDK+"debug-c4.log")
	for _, j := range r.Jobs {
		if j.Count != correlate.CountExact {
			t.Errorf("one stream: %s count %q, want exact", j.JobID, j.Count)
		}
	}
	if len(r.UnseenLayers) != 0 {
		t.Errorf("one stream: unseen layers %+v", r.UnseenLayers)
	}

	// The config says the records' attempt field is the SDK's: then each
	// record is one HTTP attempt, and the counts are exact (as the
	// operator says).
	cfg := filepath.Join(t.TempDir(), "burnrate.toml")
	os.WriteFile(cfg, []byte("[layers]\nattempt = \"sdk\"\n"), 0o600)
	_, _, r = reportCalls(t, "--config", cfg, appOnly(t, "debug-c4.log"))
	if r.Totals.LowerBoundJobs != 0 || assumptionRow(r, "anthropic-sdk.maxRetries") == nil {
		t.Errorf("[layers] attempt = \"sdk\": %d lower bounds, rows %+v", r.Totals.LowerBoundJobs, r.Assumptions)
	}
}
