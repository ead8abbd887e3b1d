package e2e

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestWatchOnlyGzipExitsNonZero: issue 12 — `watch --headless x.jsonl.gz`
// printed an empty status line every minute forever and exited 0.
func TestWatchOnlyGzipExitsNonZero(t *testing.T) {
	cmd := exec.Command(burnrate(t), "watch", "--headless", "../../sample-logs/seed001-poisoned-400.jsonl.gz")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitUsage {
			t.Errorf("exit: %v, want %d", err, exitUsage)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("watch on a gzip file did not exit")
	}
	if msg := stderr.String(); !strings.Contains(msg, "burnrate replay") || !strings.Contains(msg, "burnrate report") {
		t.Errorf("the message must name replay and report:\n%s", msg)
	}
}

// TestHostileTextInTheReport: bidi overrides, zero-width characters and
// Markdown/HTML in fields reached the Markdown report raw.
func TestHostileTextInTheReport(t *testing.T) {
	dir := t.TempDir()
	log := dir + "/hostile.jsonl"
	lines := []string{
		`{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"job\u202eexe.txt","job_type":"<img src=x onerror=alert(1)>","model":"claude-sonnet-4-6","status":400,"error_type":"invalid_request_error"}`,
		`{"ts":"2026-03-10T01:00:01Z","event":"llm_call","job_id":"job\u202eexe.txt","job_type":"<img src=x onerror=alert(1)>","model":"claude-sonnet-4-6","status":400,"error_type":"invalid_request_error"}`,
		`{"ts":"2026-03-10T01:00:02Z","event":"llm_call","job_id":"[x](javascript:alert(1))\u200b","job_type":"t|x","model":"claude-sonnet-4-6","status":200,"input_tokens":10}`,
	}
	testutil.WriteFile(t, log, strings.Join(lines, "\n")+"\n")
	md, _ := run(t, "report", log)
	for _, bad := range []string{"\u202e", "\u200b", "<img", "[x](", "| t|x"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown report holds %q raw", bad)
		}
	}
	if !strings.Contains(md, `job\\u202eexe.txt`) {
		t.Errorf("the bidi override must be shown escaped:\n%s", md)
	}
	js, _ := run(t, "report", "--format", "json", log)
	// The ID as logged (issue 22: identity is the bytes), written as a
	// JSON \u escape: a program decodes the real character, a terminal
	// shows the escape.
	if !strings.Contains(js, `"job\u202eexe.txt"`) || strings.Contains(js, "\u202e") {
		t.Errorf("JSON must hold the exact ID as a \\u escape and no raw bidi control:\n%s", js)
	}
}
