package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// nodeStack is the real spans of a Node app (OTel Node SDK,
// instrumentation-undici, the Anthropic SDK's own span, OpenLLMetry), and
// the mock provider's ledger of every HTTP request: see its README.
const nodeStack = "../../ingest/otlp/testdata/nodestack"

// wire is the mock provider's ledger: HTTP requests per job, and each
// job's outcome (its last request's status).
type wire struct {
	calls   map[string]int
	outcome map[string]string
}

func readLedger(t *testing.T, name string) wire {
	t.Helper()
	f, err := os.Open(filepath.Join(nodeStack, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := wire{calls: map[string]int{}, outcome: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Job    string
			Status int
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		w.calls[r.Job]++
		w.outcome[r.Job] = "failed"
		if r.Status/100 == 2 {
			w.outcome[r.Job] = "succeeded"
		}
	}
	return w
}

type nodeReport struct {
	Totals struct {
		Attempts  int64 `json:"attempts"`
		ToolCalls int64 `json:"tool_calls"`
	} `json:"totals"`
	Jobs []struct {
		ID        string  `json:"job_id"`
		Attempts  int     `json:"attempts"`
		ToolCalls int     `json:"tool_calls"`
		Outcome   string  `json:"outcome"`
		Spend     float64 `json:"spend_usd"`
	} `json:"jobs"`
	Findings []struct {
		Example string   `json:"example"`
		Jobs    []string `json:"jobs"`
	} `json:"findings"`
}

var traceIDLike = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

// checkAgainstWire holds a report to the ledger: every job's calls are the
// HTTP requests the provider saw, none is a tool call, every job is named
// by its job.id (never a trace ID) and ended as its last request did.
func checkAgainstWire(t *testing.T, raw []byte, w wire) {
	t.Helper()
	var r nodeReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, raw)
	}
	total := 0
	for _, n := range w.calls {
		total += n
	}
	if r.Totals.Attempts != int64(total) || r.Totals.ToolCalls != 0 {
		t.Errorf("%d model attempts and %d tool calls; the wire had %d model calls", r.Totals.Attempts, r.Totals.ToolCalls, total)
	}
	got := map[string]int{}
	for _, j := range r.Jobs {
		got[j.ID] = j.Attempts
		if traceIDLike.MatchString(j.ID) {
			t.Errorf("job %s (%d calls) is a trace ID: its calls were not moved to the job its root span named", j.ID, j.Attempts)
		}
		if j.Outcome != w.outcome[j.ID] {
			t.Errorf("job %s is %s; on the wire it %s", j.ID, j.Outcome, w.outcome[j.ID])
		}
	}
	for job, n := range w.calls {
		if got[job] != n {
			t.Errorf("job %s: %d calls, the wire had %d", job, got[job], n)
		}
	}
	for _, f := range r.Findings {
		if traceIDLike.MatchString(f.Example) {
			t.Errorf("a finding names a trace ID: %s", f.Example)
		}
	}
}

// TestOTLPNodeStackMatchesTheWire: issue 39 — a Node app instrumented as
// apps are today sends one undici POST span per HTTP attempt under the
// SDK's call span, exports children before the root span that carries
// job.id, and a wrapper's two SDK calls are two spans of one name. The
// attempts were tool calls (13 model attempts and 15 tool calls for 15 on
// the wire), three jobs were trace IDs, job-3 showed 2 calls for 5. Seed
// 000's stack in a 529 storm (SDK 3 × wrapper 3 × queue 7, a trace per
// queue attempt) showed 126 model attempts and 126 tool calls, 16 jobs of
// which 14 trace IDs, and 24 and 21 calls for 63 each. Read from the file
// and received live, burnrate's calls per job are the provider's ledger.
func TestOTLPNodeStackMatchesTheWire(t *testing.T) {
	for capture, ledger := range map[string]string{"capture-openllmetry.jsonl": "ledger.jsonl", "capture-sdkspan.jsonl": "ledger.jsonl",
		"capture-undici-only.jsonl": "ledger.jsonl", "capture-storm.jsonl": "ledger-storm.jsonl"} {
		wire := readLedger(t, ledger)
		path := filepath.Join(nodeStack, capture)
		t.Run("report/"+capture, func(t *testing.T) {
			out, err := exec.Command(burnrate(t), "report", "--format", "json", path).Output()
			if err != nil {
				t.Fatalf("report: %v", err)
			}
			checkAgainstWire(t, out, wire)
		})
		t.Run("live/"+capture, func(t *testing.T) {
			checkAgainstWire(t, receiveLive(t, path), wire)
		})
	}
}

// receiveLive runs `burnrate watch --headless` with an OTLP/HTTP receiver,
// POSTs the capture's export requests in the order they were captured,
// stops it with SIGTERM and returns the report it wrote.
func receiveLive(t *testing.T, capture string) []byte {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	cmd := exec.Command(burnrate(t), "watch", "--headless", "--journal", filepath.Join(dir, "j.jsonl"),
		"--otlp-http", addr, "--report-out", report)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitUntil(t, "the receiver to listen", 10*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	raw, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		resp, err := http.Post("http://"+addr+"/v1/traces", "application/json", bytes.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("export refused: %s", resp.Status)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit 20 s after SIGTERM; stderr:\n%s", stderr.String())
	}
	out, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report: %v; stderr:\n%s", err, stderr.String())
	}
	return out
}
