package e2e

import (
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

// TestStdinThatIsAFileIsNotSpooledAndReadAgain: red team R8-17 — `watch
// -` whose stdin is a regular file (`< app.log`, systemd's
// StandardInput=file:) was spooled as an input that cannot be read again,
// and the next start replayed the spool and read the file again from its
// start: 40 calls, then 80, then 120, and a job killed at half its
// ceiling. Such a stdin is a file: read again, never replayed beside it.
func TestStdinThatIsAFileIsNotSpooledAndReadAgain(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 { // $0.03 each, $1.20 in all: under the $2 ceiling
		fmt.Fprintf(&b, `{"ts":"2026-06-02T01:%02d:00Z","event":"llm_call","job_id":"job-K","model":"gpt-4o","status":200,"input_tokens":10000,"output_tokens":500}`+"\n", i)
	}
	logPath := filepath.Join(dir, "k.jsonl")
	testutil.WriteFile(t, logPath, b.String())
	journal, kills := filepath.Join(dir, "st", "journal.jsonl"), filepath.Join(dir, "kills")
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo \"$1\" >> "+kills+"\n")
	for start := 1; start <= 3; start++ {
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", start))
		in, err := os.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "watch", "--headless", "--journal", journal, "--job-ceiling", "2",
			"--kill-exec", "sh "+killSh+" {job_id}", "--report-out", out, "-")
		var stderr strings.Builder
		cmd.Stdin, cmd.Stderr = in, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second) // the whole file is read well within this
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("start %d: %v\n%s", start, err, stderr.String())
		}
		in.Close()
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Totals struct{ Attempts int64 } `json:"totals"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if r.Totals.Attempts != 40 {
			t.Errorf("start %d: %d calls, the file holds 40\n%s", start, r.Totals.Attempts, stderr.String())
		}
		if !strings.Contains(stderr.String(), "stdin is a regular file") {
			t.Errorf("start %d: nothing says stdin is read as a file:\n%s", start, stderr.String())
		}
	}
	if k, _ := os.ReadFile(kills); len(k) != 0 {
		t.Errorf("killed on a file read again: %s", k)
	}
}
