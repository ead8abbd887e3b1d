package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestASkewedSourceAgesNoJobOfAnother: issue 34 — one followed log's clock
// 10 h ahead (local time written as UTC), logging more than the honest
// one, moved the one log clock: the honest log's 1,100 jobs in flight
// were idle by it and retired, each began again from $0 at its second
// call, and their job-ceiling alerts never fired. Each job is judged on
// its own source's clock: all 1,100 fire.
func TestASkewedSourceAgesNoJobOfAnother(t *testing.T) {
	dir := t.TempDir()
	honest, skewed := filepath.Join(dir, "honest.jsonl"), filepath.Join(dir, "skewed.jsonl")
	at := func(h, m, s, ms int) string {
		return time.Date(2026, 12, 1, h, m, s, ms*int(time.Millisecond), time.UTC).Format(time.RFC3339Nano)
	}
	const jobs = 1100
	round := func(min int) []byte {
		var b bytes.Buffer
		for i := range jobs {
			fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":"job-%d","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", at(1, min, i/1000, i%1000), i)
		}
		return b.Bytes()
	}
	appendTo := func(path string, b []byte) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
		f.Close()
	}
	appendTo(honest, round(0))
	appendTo(skewed, nil)
	p := &spoolProc{t: t, done: make(chan struct{})}
	p.cmd = exec.Command(burnrate(t), "watch", "--headless", "--journal", filepath.Join(dir, "journal.jsonl"),
		"--job-ceiling", "0.3", "--job-retention", "1h", "--poll-interval", "50ms", honest, skewed)
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	p.start(t)
	defer p.stop(syscall.SIGTERM)
	time.Sleep(1500 * time.Millisecond)
	var b bytes.Buffer
	for i := range 3 * jobs {
		fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":"worker-%d","model":"claude-sonnet-4-5","status":200,"cost_usd":0.0001}`+"\n", at(11, 0, i/1000, i%1000), i%5)
	}
	appendTo(skewed, b.Bytes())
	time.Sleep(1500 * time.Millisecond)
	appendTo(honest, round(2))
	waitUntil(t, "1,100 job-ceiling alerts", 20*time.Second, func() bool { return len(p.alerts("job_ceiling")) >= jobs })
	time.Sleep(300 * time.Millisecond)
	if n := len(p.alerts("job_ceiling")); n != jobs {
		t.Errorf("%d job-ceiling alerts, want %d", n, jobs)
	}
}
