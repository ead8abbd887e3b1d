package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// burningHistory writes a log that spends $0.60/min (a call of $0.05
// every 5 s) for ten minutes from start, against a limit of $0.50/min.
func burningHistory(t *testing.T, path, job string, start time.Time) {
	t.Helper()
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, `{"ts": %q, "event": "llm_call", "job_id": "%s-%d", "model": "gpt-4o", "status": 200, "input_tokens": 10, "output_tokens": 10, "cost_usd": 0.05}`+"\n",
			start.Add(time.Duration(i)*5*time.Second).Format(time.RFC3339), job, i/12)
	}
	testutil.WriteFile(t, path, b.String())
}

// burnAlerts runs `watch --headless` over files with history until it has
// read them, and returns its burn_rate alerts' times.
func burnAlerts(t *testing.T, files ...string) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(burnrate(t), append([]string{"watch", "--headless", "--burn-rate", "0.5", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", filepath.Join(dir, "r.json")}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The report written at the stop says every file was read whole.
	time.Sleep(2 * time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	var at []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "alert" && m["rule"] == "burn_rate" {
			at = append(at, fmt.Sprint(m["at"]))
		}
	}
	if len(at) == 0 {
		t.Logf("no burn_rate alert from %v:\n%s\n%s", files, stdout.String(), stderr.String())
	}
	return at
}

// TestTwoHistoriesBurnEachInItsOwnHour: `watch` of two files read from
// their start takes one's history and then the other's. Each burns
// $0.60/min over a $0.50/min limit in its own hour (01:00 and 05:00):
// each must fire exactly as when watched alone — the second file's burn
// window must not start where the first file's ended.
func TestTwoHistoriesBurnEachInItsOwnHour(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	burningHistory(t, a, "a", time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC))
	burningHistory(t, b, "b", time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC))
	alone := append(burnAlerts(t, a), burnAlerts(t, b)...)
	both := burnAlerts(t, a, b)
	slices.Sort(alone)
	slices.Sort(both)
	if len(alone) != 2 || !slices.Equal(alone, both) {
		t.Errorf("burn_rate alerts of the two files watched together %v, want each as alone: %v", both, alone)
	}
}
