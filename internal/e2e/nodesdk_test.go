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
