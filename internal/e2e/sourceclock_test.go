package e2e

import (
	"bytes"
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

// skewedOneFile writes one file two loggers wrote into, one of them 10 h
// ahead (local time written as UTC): every 5 s the first logs a call of
// $0.025, and the second one too unless skip(i) — $0.60/min together, or
// a little less.
func skewedOneFile(t *testing.T, path string, ahead time.Duration, skip func(i int) bool) {
	t.Helper()
	start := time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)
	var b strings.Builder
	line := func(ts time.Time, job string) {
		fmt.Fprintf(&b, `{"ts": %q, "event": "llm_call", "job_id": %q, "model": "gpt-4o", "status": 200, "input_tokens": 10, "output_tokens": 10, "cost_usd": 0.025}`+"\n",
			ts.Format(time.RFC3339), job)
	}
	for i := range 240 {
		at := start.Add(time.Duration(i) * 5 * time.Second)
		line(at, fmt.Sprintf("job-%d-0", i))
		if !skip(i) {
			line(at.Add(ahead), fmt.Sprintf("job-%d-1", i))
		}
	}
	testutil.WriteFile(t, path, b.String())
}

// TestASecondLoggerAheadInTheSameFileHidesNoBurn: issue 34's red team —
// a second logger 10 h ahead in the same file (one source) stepped the
// burn window 10 h at each of its lines (and the source's clock flipped
// 10 h forward and back at every pair), so $0.60/min against a limit of
// $0.50/min raised nothing; with no skew it fires at 01:04:05. Also when
// the ahead logger writes a little less or more than half of the lines.
func TestASecondLoggerAheadInTheSameFileHidesNoBurn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		skip func(i int) bool
	}{
		{"every line", func(int) bool { return false }},
		{"9 in 10", func(i int) bool { return i%10 == 9 }},
	} {
		for _, ahead := range []time.Duration{0, 10 * time.Hour} {
			p := filepath.Join(dir, fmt.Sprintf("%s-%v.jsonl", c.name, ahead))
			skewedOneFile(t, p, ahead, c.skip)
			out, _ := run(t, "replay", "--headless", "--speed", "max", "--burn-rate", "0.5", "--dry-run", p)
			i := strings.Index(out, `"rule":"burn_rate"`)
			if i < 0 {
				t.Errorf("%s, %v ahead: no burn_rate alert at $0.60/min over a limit of $0.50/min:\n%s", c.name, ahead, out)
				continue
			}
			at := out[strings.LastIndex(out[:i], `"at":"`)+6:]
			// At is the time of the line it fired on: either logger's.
			ts, err := time.Parse(time.RFC3339, at[:20])
			if ts.Sub(time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)) >= ahead {
				ts = ts.Add(-ahead)
			}
			if err != nil || ts.After(time.Date(2026, 12, 7, 1, 6, 0, 0, time.UTC)) {
				t.Errorf("%s, %v ahead: burn_rate fired at %s, want by 01:06:00 in the first logger's time (01:04:05 without skew)", c.name, ahead, at[:20])
			}
		}
	}
}
