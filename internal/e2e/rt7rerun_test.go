package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestTomorrowsRunawayIsKilledUnderAStaticRunID (red team R7-21): with a
// run_id that does not change between nights (a scheduler's
// "nightly-batch"), the kill key of a recurring job was the same every
// night, and the second night's kill was "already acknowledged before a
// restart: not sent again" — the runaway burned on. A trigger more than
// the resend horizon (1 h of log time) after the finished kill is another
// kill; the same night's log read again is still not killed twice.
func TestTomorrowsRunawayIsKilledUnderAStaticRunID(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	night := func(name, day string) string {
		var b strings.Builder
		for i := range 12 { // $0.07 each: over $0.50 at the 8th
			fmt.Fprintf(&b, `{"ts":"%sT01:00:%02dZ","event":"llm_call","job_id":"summarize-0001","job_type":"summarize","run_id":"nightly-batch","idempotency_key":"c%d","model":"gpt-4o","status":200,"input_tokens":20000,"output_tokens":2000}`+"\n", day, i, i)
		}
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, b.String())
		return p
	}
	day1, day2 := night("day1.jsonl", "2026-06-02"), night("day2.jsonl", "2026-06-03")
	kills, journal := filepath.Join(dir, "kills"), filepath.Join(dir, "st", "journal.jsonl")
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo \"$1\" >> "+kills+"\n")
	run := func(log string) string {
		out, err := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", journal, "--job-ceiling", "0.5",
			"--kill-exec", "sh "+killSh+" {job_id}", log).CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	count := func() int { b, _ := os.ReadFile(kills); return strings.Count(string(b), "summarize-0001") }
	run(day1)
	if n := count(); n != 1 {
		t.Fatalf("night 1: %d kill(s), want 1", n)
	}
	out := run(day2)
	if n := count(); n != 2 {
		t.Errorf("night 2, same run_id a day later: %d kill(s) in all, want 2 (tomorrow's runaway killed):\n%s", n, out)
	}
	// Night 2 read again (a restart): the same kill, not a third.
	out = run(day2)
	run(day1)
	if n := count(); n != 2 {
		t.Errorf("nights read again: %d kill(s) in all, want 2:\n%s", n, out)
	}
}
