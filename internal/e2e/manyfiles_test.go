package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// underFileLimit runs burnrate with its open-files limit, soft and hard, at
// n (a limit Go cannot raise); 0: as it is.
func underFileLimit(t *testing.T, n int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(burnrate(t), args...)
	if n > 0 {
		cmd = exec.Command("/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -Sn %d && ulimit -Hn %d && exec "$0" "$@"`, n, n), burnrate(t)}, args...)...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestReportReadsMoreFilesThanTheOpenFilesLimit: R6-15 — report opened
// every input at once, so 300 logs under a limit of 64 open files failed
// whole ("too many open files", exit 2, no report). They are read a few
// at a time, in the same order: the report is the one an unlimited run
// writes. A file that cannot be opened (a dangling link) costs itself
// only: the report is written without it, the file named, exit 2.
func TestReportReadsMoreFilesThanTheOpenFilesLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	os.Mkdir(dir, 0o755)
	const files = 300
	for i := range files {
		var b strings.Builder
		// Every file spans the night: all 300 are in flight at once.
		for k := range 3 {
			fmt.Fprintf(&b, `{"ts":"2026-06-02T01:%02d:%02d.%03dZ","event":"llm_call","job_id":"job-%03d","attempt":%d,"model":"claude-haiku-4-5","status":%d,"input_tokens":1000,"output_tokens":100}`+"\n",
				k*20, i%60, i, i/2, k+1, []int{529, 529, 200}[k])
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("worker-%03d.jsonl", i)), []byte(b.String()), 0o644)
	}
	free, ferr, code := underFileLimit(t, 0, "report", "--format", "json", dir)
	if code != 0 && code != 1 {
		t.Fatalf("no limit: exit %d\n%s", code, ferr)
	}
	out, errs, code := underFileLimit(t, 64, "report", "--format", "json", dir)
	if code != 0 && code != 1 {
		t.Fatalf("under 64 open files: exit %d, want a report\n%s", code, errs)
	}
	if out != free {
		t.Fatalf("under 64 open files the report differs from an unlimited run's")
	}
	var r struct {
		Totals struct {
			Attempts int64 `json:"attempts"`
		} `json:"totals"`
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Jobs) != files/2 {
		t.Errorf("%d jobs, want %d", len(r.Jobs), files/2)
	}

	// replay reads them the same way: its report is the report's jobs.
	rep := filepath.Join(t.TempDir(), "replay.json")
	_, errs, code = underFileLimit(t, 64, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(t.TempDir(), "j.jsonl"), "--report-out", rep, dir)
	b, _ := os.ReadFile(rep)
	var rr struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(b, &rr); err != nil || len(rr.Jobs) != files/2 || code != 0 && code != 1 {
		t.Fatalf("replay under 64 open files: exit %d, %d jobs (%v)\n%s", code, len(rr.Jobs), err, errs)
	}

	os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "dangling.jsonl"))
	out, errs, code = underFileLimit(t, 64, "report", "--format", "json", dir)
	if code != 2 || !strings.Contains(errs, "1 of 301 input files could not be opened") || !strings.Contains(errs, "dangling.jsonl") {
		t.Fatalf("a dangling link among 300 logs: exit %d, want 2 with the file named and counted\n%s", code, errs)
	}
	var r2 struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &r2); err != nil || len(r2.Jobs) != files/2 {
		t.Errorf("a dangling link cost more than itself: %d jobs (%v)", len(r2.Jobs), err)
	}
}
