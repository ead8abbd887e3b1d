package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestWatchFollowsOnWhenTheFileBecomesADirectory (F7): the one followed
// file replaced by a directory made `watch` give up on it and exit rc=2
// ("no source can be read"), its kill hooks gone for the night. It is
// refused as a FIFO is — said, followed on — and a real file that
// returns is read: its job is in the report written at the stop, and
// the stop is clean.
func TestWatchFollowsOnWhenTheFileBecomesADirectory(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "app.jsonl"), filepath.Join(dir, "report.json")
	before := `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"before","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"status":200}` + "\n"
	after := `{"ts":"2026-03-10T01:05:00Z","event":"llm_call","job_id":"after","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"status":200}` + "\n"
	os.WriteFile(log, []byte(before), 0o644)
	d := startDaemon(t, "--journal", filepath.Join(dir, "journal.jsonl"), "--poll-interval", "20ms",
		"--report-out", report, "--kill-exec", "true", "--job-ceiling", "100", log)
	time.Sleep(500 * time.Millisecond)
	os.Remove(log)
	if err := os.Mkdir(log, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	os.Remove(log)
	os.WriteFile(log, []byte(after), 0o644)
	time.Sleep(time.Second)
	d.stop(syscall.SIGTERM)
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d, want 0 (a clean stop):\n%s", code, d.err())
	}
	var rep struct {
		Jobs []struct {
			JobID string `json:"job_id"`
		} `json:"jobs"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v: %s\n%s", err, b, d.err())
	}
	got := map[string]bool{}
	for _, j := range rep.Jobs {
		got[j.JobID] = true
	}
	if !got["before"] || !got["after"] {
		t.Errorf("jobs %v: want the job before the swap and the one in the file that returned\n%s", got, d.err())
	}
}

// TestWatchADirectoryWithNoJSONLFilesSaysSo: red team R8-30 — `watch DIR`
// follows the *.jsonl files in DIR; a directory of app.log files was
// followed as nothing, in silence: no calls, no kill, exit 0 at the stop.
// It is refused, the files and a glob named.
func TestWatchADirectoryWithNoJSONLFilesSaysSo(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "app.log"), `{"ts":"2026-06-02T00:00:00Z","event":"llm_call","job_id":"j","model":"gpt-4o","status":200,"input_tokens":10,"output_tokens":5}`+"\n")
	out, err := exec.Command(bin, "watch", "--headless", dir).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "app.log") || !strings.Contains(string(out), "*.log") {
		t.Errorf("watch of a directory of .log files: %v\n%s", err, out)
	}
}
