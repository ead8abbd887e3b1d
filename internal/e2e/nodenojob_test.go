package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nodeRT8 holds red team 8's recordings (testdata/node-rt8/README.md).
const nodeRT8 = "testdata/node-rt8/"

// appOnlyPath writes the app's JSON lines of a recording to a file of
// their own.
func appOnlyPath(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var app strings.Builder
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if strings.HasPrefix(l, "{") {
			app.WriteString(l)
		}
	}
	p := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(p, []byte(app.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNodeSDKNoJobHeaderNoRequestID: red team 8's R8-4. The Node SDK's
// debug output (ANTHROPIC_LOG=debug) and an app's pino lines in one
// stream, the job only in the body's metadata (printed "[Object]") and
// the app's "turn done" lines naming no request ID, as most apps log: 16
// jobs, 4 in flight, 66 HTTP requests on the wire (the ledger). Each
// answered call was counted twice — the SDK's chain and the app's line —
// 121 calls and $0.576 for the wire's $0.327, exact-looking, and a run
// ceiling of $0.45 killed an innocent run. The app's line is the chain's
// last attempt: the run's calls and spend are the wire's, and a job
// whose chain was picked by timing is marked, never exact-looking.
func TestNodeSDKNoJobHeaderNoRequestID(t *testing.T) {
	// debug-noreq-c4: the same app with an x-job-id header on each
	// request (the chains are placed exactly), its lines still naming no
	// request ID: 125 calls for the wire's 69 before.
	// debug-timeout-c4: a call whose first attempt timed out (no request
	// ID for it) and whose retry answered (R8-32). debug-both-c4: both
	// SDKs in one process, no "calling model" lines, the app's lines
	// naming no request ID (R8-4c: 79 calls for 46); its OpenAI lines give
	// prompt tokens without the cached part, so its spend is the wire's
	// or above (R8-2, left), never below. jobsum-c4: each job's end line
	// carries its model and token totals (R8-37: billed as one more call,
	// 79 for 66, and 13 jobs killed). rawlog-c4: the app logs only its
	// raw fetch calls, none of the SDK's: no app line is an SDK chain's
	// (R8b-1: 27 for 51; its lines leave the cache out, so its spend is
	// a floor). sdkonly-c4: the SDK's calls alone and the job's totals at
	// its end (R8b-4: a call re-priced at the job's totals).
	for _, c := range []struct {
		name       string
		spendExact spendCheck
	}{{"debug-nojob-c4", exact}, {"debug-noreq-c4", exact}, {"debug-timeout-c4", exact}, {"debug-both-c4", atLeast}, {"jobsum-c4", exact}, {"rawlog-c4", nospend}, {"sdkonly-c4", exact}} {
		t.Run(c.name, func(t *testing.T) { nodeNoRequestID(t, c.name, c.spendExact) })
	}
}

// spendCheck is what a recording's spend is held to: the wire's, at
// least the wire's, or nothing (the app's lines leave out what the wire
// billed, the raw calls' cache tokens, and nothing else shows it).
type spendCheck int

const (
	exact spendCheck = iota
	atLeast
	nospend
)

func nodeNoRequestID(t *testing.T, name string, spendExact spendCheck) {
	c := nodeRT8 + name
	want := ledgerCalls(t, c+".ledger.jsonl")
	f, err := os.Open(c + ".ledger.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wireCalls int
	var wirePico int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			CostPico int64 `json:"cost_pico"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		wireCalls++
		wirePico += l.CostPico
	}
	got, total, r := reportCalls(t, c+".log")
	if total != wireCalls || r.Totals.Attempts != int64(wireCalls) {
		t.Errorf("report: %d calls (totals %d), the wire %d", total, r.Totals.Attempts, wireCalls)
	}
	if d := r.Totals.SpendUSD - float64(wirePico)/1e12; spendExact != nospend && d < -1e-6 || spendExact == exact && math.Abs(d) > 1e-6 {
		t.Errorf("report: spend $%.6f, the wire's $%.6f", r.Totals.SpendUSD, float64(wirePico)/1e12)
	}
	for _, j := range r.Jobs {
		if got[j.JobID] != want[j.JobID] && j.Count == "exact" {
			t.Errorf("%s: %d calls shown exact, the wire %d", j.JobID, got[j.JobID], want[j.JobID])
		}
	}
	// The app's lines alone: each call once, as the app logged it (its
	// lines leave the cache reads out, so less than the wire's spend).
	_, appTotal, ar := reportCalls(t, appOnlyPath(t, c+".log"))
	if appTotal > wireCalls || ar.Totals.SpendUSD > r.Totals.SpendUSD+1e-6 {
		t.Errorf("the app's lines alone: %d calls, $%.6f; with the SDK's: $%.6f", appTotal, ar.Totals.SpendUSD, r.Totals.SpendUSD)
	}
}

// TestResponseObjectsBesideTheAppsLines: red team R8-25 — an app that
// prints the provider's response object (`console.log(JSON.stringify(msg))`)
// beside its own line of each call: the object names no job and its id is
// the message's, so each answered call was counted twice, the copy
// "(unattributed)" (107 calls and $0.576 for the wire's 66 and $0.327, a
// run ceiling firing at half the spend). The object is the app line's
// call: it adds what the line left out (the cache tokens), no call.
// Alone, the objects are the calls.
func TestResponseObjectsBesideTheAppsLines(t *testing.T) {
	const c = nodeRT8 + "respobj-c4"
	f, err := os.Open(c + ".ledger.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wirePico int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			CostPico int64 `json:"cost_pico"`
		}
		json.Unmarshal(sc.Bytes(), &l)
		wirePico += l.CostPico
	}
	raw, err := os.ReadFile(c + ".log")
	if err != nil {
		t.Fatal(err)
	}
	appCalls := strings.Count(string(raw), `"msg":"turn done"`) + strings.Count(string(raw), `"msg":"job failed"`) // a failed job's line names its last call's status
	objects := strings.Count(string(raw), `"type":"message"`)
	_, total, r := reportCalls(t, c+".log")
	if total != appCalls {
		t.Errorf("%d calls, the app logged %d (and printed %d response objects beside them)", total, appCalls, objects)
	}
	if d := math.Abs(r.Totals.SpendUSD - float64(wirePico)/1e12); d > 1e-6 {
		t.Errorf("spend $%.6f, the wire's $%.6f", r.Totals.SpendUSD, float64(wirePico)/1e12)
	}
	for _, j := range r.Jobs {
		if j.JobID == "(unattributed)" {
			t.Errorf("%d calls unattributed: the objects' copies", j.Attempts)
		}
	}
	// The objects alone: each one call.
	var only strings.Builder
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if strings.Contains(l, `"type":"message"`) {
			only.WriteString(l)
		}
	}
	p := filepath.Join(t.TempDir(), "objects.log")
	if err := os.WriteFile(p, []byte(only.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := reportCalls(t, p); n != objects {
		t.Errorf("the response objects alone: %d calls, want %d", n, objects)
	}
}

// TestLineRulesHoldInTheParallelReader: a file of 8 MiB or more is parsed
// on both cores, and a timestamped line that reads alone is taken from
// the worker that parsed it, not decoded again in order — so a rule the
// decoder applies in order (a call line that ends its job, R8-1; a call
// line that a held response object is the record of, R8-25) held in a
// small file and not in a big one. Both hold behind 9 MiB of other lines.
func TestLineRulesHoldInTheParallelReader(t *testing.T) {
	var pad strings.Builder
	for i := 0; pad.Len() < 9<<20; i++ {
		fmt.Fprintf(&pad, `{"ts":"2026-12-07T20:00:00Z","event":"job_started","job_id":"pad-%d","note":"%s"}`+"\n", i, strings.Repeat("x", 100))
	}
	raw, err := os.ReadFile(nodeRT8 + "respobj-c4.log")
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.jsonl")
	ends := `{"time":1796687158599,"job_id":"j1","outcome":"failed","status":529,"request_id":"req_011CLab945e1b79a7b2c0a5","msg":"job failed"}` + "\n"
	if err := os.WriteFile(big, []byte(pad.String()+string(raw)+ends), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, r := reportCalls(t, big)
	_, alone, _ := reportCalls(t, nodeRT8+"respobj-c4.log")
	var calls int64
	for _, j := range r.Jobs {
		switch {
		case j.JobID == "(unattributed)":
			t.Errorf("%d calls unattributed behind 9 MiB: the response objects' copies", j.Attempts)
		case j.JobID == "j1" && j.Outcome != "failed":
			t.Errorf("j1 behind 9 MiB: %s, its line ends it failed", j.Outcome)
		}
		if !strings.HasPrefix(j.JobID, "pad-") && j.JobID != "j1" {
			calls += int64(j.Attempts)
		}
	}
	if calls != int64(alone) {
		t.Errorf("behind 9 MiB: %d calls, the recording alone %d", calls, alone)
	}
}
