package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
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

// TestWatchFollowsABoundedSetOfADirectory: R6-15 — watch followed every
// file of a directory, each holding a descriptor: under a limit of 64 open
// files, 100 logs made every open past it fail. It follows at most half
// the limit, the most recently written, and says how many it does not
// follow and why; its report holds the files it followed.
func TestWatchFollowsABoundedSetOfADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	os.Mkdir(dir, 0o755)
	base := time.Now().Add(-time.Hour)
	for i := range 100 {
		p := filepath.Join(dir, fmt.Sprintf("worker-%03d.jsonl", i))
		os.WriteFile(p, []byte(fmt.Sprintf(`{"ts":"2026-06-02T01:00:%02dZ","event":"llm_call","job_id":"job-%03d","model":"claude-haiku-4-5","status":200,"input_tokens":1000,"output_tokens":100}`+"\n", i%60, i)), 0o644)
		mt := base.Add(time.Duration(i) * time.Second)
		os.Chtimes(p, mt, mt)
	}
	state := t.TempDir()
	report := filepath.Join(state, "report.json")
	d := &daemon{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	rc := newReceiver(t, false)
	d.cmd = exec.Command("/bin/sh", "-c", `ulimit -Sn 64 && ulimit -Hn 64 && exec "$0" "$@"`, burnrate(t),
		"watch", "--headless", "--journal", filepath.Join(state, "journal.jsonl"), "--report-out", report, "--poll-interval", "20ms",
		"--job-ceiling", "0.5", "--kill-webhook", rc.URL, dir)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill(); d.cmd.Wait() })
	testutil.WaitFor(t, "the files not followed said", 10*time.Second, func() bool { return strings.Contains(d.err(), "68 files not followed") })
	// R7-13: the set froze at its first look, so a new job's log, the
	// newest file of all, was never followed and its runaway spend never
	// killed. It is followed at the next look, in place of the file
	// written longest ago.
	var runaway strings.Builder
	for i := range 30 {
		fmt.Fprintf(&runaway, `{"ts":"2026-06-02T02:00:%02dZ","event":"llm_call","job_id":"new-job","model":"gpt-4o","status":200,"input_tokens":20000,"output_tokens":2000}`+"\n", i)
	}
	testutil.WriteFile(t, filepath.Join(dir, "worker-999.jsonl"), runaway.String())
	testutil.WaitFor(t, "the new job's kill", 20*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1 })
	if _, kills := rc.snapshot(); fmt.Sprint(kills[0]["job_id"]) != "new-job" {
		t.Errorf("kill of %v, want new-job", kills[0]["job_id"])
	}
	time.Sleep(500 * time.Millisecond)
	d.stop(syscall.SIGTERM)
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d, want a clean stop\n%s", code, d.err())
	}
	if !strings.Contains(d.err(), "at most 32 files are followed at once") || strings.Contains(d.err(), "too many open files") {
		t.Errorf("stderr does not say why, or an open failed:\n%s", d.err())
	}
	var rep struct {
		Jobs []struct {
			JobID string `json:"job_id"`
		} `json:"jobs"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v\n%s", err, d.err())
	}
	// The 32 most recently written first, the new job's next; the others,
	// whose bytes no follower has read, are taken in turn as followers
	// idle at their ends are let go (R7b-5): how many by the stop depends
	// on the time, never more than 101.
	seen := map[string]bool{}
	for _, j := range rep.Jobs {
		seen[j.JobID] = true
	}
	for _, want := range []string{"new-job", "job-068", "job-099"} {
		if !seen[want] {
			t.Errorf("%s not read (%d jobs)", want, len(rep.Jobs))
		}
	}
	if len(rep.Jobs) < 33 || len(rep.Jobs) > 101 {
		t.Errorf("%d jobs, want the 32 newest and the new job's at least", len(rep.Jobs))
	}
}
