package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// ageJournal moves every record of the journal d back by the clock (its
// "time"): the night before, as the next night's run reads it.
func ageJournal(t *testing.T, journal string, d time.Duration) {
	t.Helper()
	j, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`"time":"([^"]+)"`)
	moved := re.ReplaceAllFunc(j, func(m []byte) []byte {
		at, err := time.Parse(time.RFC3339Nano, string(re.FindSubmatch(m)[1]))
		if err != nil {
			return m
		}
		return []byte(`"time":"` + at.Add(-d).Format(time.RFC3339Nano) + `"`)
	})
	if err := os.WriteFile(journal, moved, 0o600); err != nil {
		t.Fatal(err)
	}
}

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
	ageJournal(t, journal, 24*time.Hour) // night 2 comes a day later
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

// TestATimelessLogReadAgainLaterIsNotKilledTwice: R7b-6 — a log whose
// lines carry no time takes the clock's when read; read again after a
// restart more than an hour later, its kill looked like another night's
// and was sent again. Only a time the record carried starts a new kill of
// the same key.
func TestATimelessLogReadAgainLaterIsNotKilledTwice(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, `{"event":"llm_call","job_id":"summarize-0001","job_type":"summarize","run_id":"nightly-batch","idempotency_key":"c%d","model":"gpt-4o","status":200,"input_tokens":20000,"output_tokens":2000}`+"\n", i)
	}
	logPath := filepath.Join(dir, "nots.jsonl")
	testutil.WriteFile(t, logPath, b.String())
	kills, journal := filepath.Join(dir, "kills"), filepath.Join(dir, "st", "journal.jsonl")
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo \"$1\" >> "+kills+"\n")
	count := func() int { b, _ := os.ReadFile(kills); return strings.Count(string(b), "summarize-0001") }
	// Followed live: a line with no time takes the clock's when read.
	run := func(want int) {
		cmd := exec.Command(bin, "watch", "--headless", "--journal", journal, "--job-ceiling", "0.5",
			"--kill-exec", "sh "+killSh+" {job_id}", logPath)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if want > 0 {
			testutil.WaitFor(t, "the kill", 20*time.Second, func() bool { return count() >= want })
		}
		time.Sleep(2 * time.Second) // the whole file is read well within this
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
	}
	run(1)
	if n := count(); n != 1 {
		t.Fatalf("first read: %d kill(s), want 1", n)
	}
	// The clock moves on 3 hours: the journal's log times, taken from the
	// clock, are moved back as much.
	j, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	moved := regexp.MustCompile(`"log_at":"([0-9T:.+-]+)Z?"`).ReplaceAllFunc(j, func(m []byte) []byte {
		s := regexp.MustCompile(`"log_at":"([^"]+)"`).FindSubmatch(m)
		at, err := time.Parse(time.RFC3339Nano, string(s[1]))
		if err != nil {
			return m
		}
		return []byte(`"log_at":"` + at.Add(-3*time.Hour).Format(time.RFC3339Nano) + `"`)
	})
	if string(moved) == string(j) {
		t.Fatalf("no log_at moved in the journal:\n%s", j)
	}
	if err := os.WriteFile(journal, moved, 0o600); err != nil {
		t.Fatal(err)
	}
	run(0)
	if n := count(); n != 1 {
		t.Errorf("read again 3 hours later: %d kill(s) in all, want 1", n)
	}
}

// TestTwoClocksReadAgainInAnotherOrderAreNotKilledTwice: red team R8-3 —
// a job logged by two workers whose clocks are 3 hours apart (or one
// writing naive local time) crossed its ceiling, live, at a record of the
// second worker's, as the lines arrived; a restart read both files merged
// by time, crossed at a record of the other worker's, 3 hours "later" by
// log time, and took that for another night's kill (R7-21's generations):
// a second kill under another key. A generation is measured from the
// latest record the run had read when it killed, not the crossing record
// alone. (Arrival order is one file here: the order a live watch read the
// two workers' lines in.)
func TestTwoClocksReadAgainInAnotherOrderAreNotKilledTwice(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	worker := func(day string, hour int) string {
		var b strings.Builder
		for i := range 20 { // $0.03 each: $0.60 a worker, the job over $1 only with both
			fmt.Fprintf(&b, `{"ts":"%sT%02d:%02d:00Z","event":"llm_call","job_id":"job-X","run_id":"nightly-2026-12-08","model":"gpt-4o","status":200,"input_tokens":10000,"output_tokens":500}`+"\n", day, hour, i)
		}
		return b.String()
	}
	a, b := worker("2026-12-08", 0), worker("2026-12-07", 21)
	arrived, aLog, bLog := filepath.Join(dir, "arrived.log"), filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	testutil.WriteFile(t, arrived, a+b)
	testutil.WriteFile(t, aLog, a)
	testutil.WriteFile(t, bLog, b)
	kills, journal := filepath.Join(dir, "kills"), filepath.Join(dir, "st", "journal.jsonl")
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo \"$1\" >> "+kills+"\n")
	count := func() int { b, _ := os.ReadFile(kills); return strings.Count(string(b), "job-X") }
	run := func(logs ...string) string {
		out, err := exec.Command(bin, append([]string{"replay", "--headless", "--speed", "max", "--journal", journal, "--job-ceiling", "1",
			"--kill-exec", "sh " + killSh + " {job_id}"}, logs...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	run(arrived)
	if n := count(); n != 1 {
		t.Fatalf("as the lines arrived: %d kill(s), want 1", n)
	}
	j, _ := os.ReadFile(journal)
	if !strings.Contains(string(j), `"log_at":"2026-12-07T21:13:00Z"`) {
		t.Fatalf("the kill was not at the second worker's record (21:13): the case does not hold\n%s", j)
	}
	// Read again, the two workers' files merged by time: the crossing is
	// now at 00:13 of the first worker's clock.
	out := run(aLog, bLog)
	if n := count(); n != 1 {
		t.Errorf("read again in another order: %d kill(s) of job-X, want 1:\n%s", n, out)
	}
	// R8b-6: the job's records past the kill, read first after a restart
	// (two files followed apart): it crosses at 00:13 hours after the
	// 21:13 it was killed at; finished minutes ago by the clock, the kill
	// is the same.
	reversed := filepath.Join(dir, "reversed.log")
	testutil.WriteFile(t, reversed, b+a)
	run(arrived)
	testutil.WriteFile(t, arrived, a)
	if out := run(reversed); count() != 1 {
		t.Errorf("read again, the later worker first: %d kill(s) of job-X, want 1:\n%s", count(), out)
	}
}

// TestAStrayFutureLineDoesNotBlockTomorrowsKill: red team R8-33 — R8-3's
// first fix counted a key's generation from the run's latest record time:
// one line of another worker stamped days ahead in night 1 moved it, and
// night 2's runaway of the same static run_id was "already acknowledged"
// again (R7-21 back). The generation counts from the killed job's own
// records only.
func TestAStrayFutureLineDoesNotBlockTomorrowsKill(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	night := func(name, day, stray string) string {
		var b strings.Builder
		b.WriteString(stray)
		for i := range 12 { // $0.07 each: over $0.50 at the 8th
			fmt.Fprintf(&b, `{"ts":"%sT01:00:%02dZ","event":"llm_call","job_id":"summarize-0001","job_type":"summarize","run_id":"nightly-batch","idempotency_key":"c%d","model":"gpt-4o","status":200,"input_tokens":20000,"output_tokens":2000}`+"\n", day, i, i)
		}
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, b.String())
		return p
	}
	day1 := night("day1.jsonl", "2026-06-02", `{"ts":"2026-06-05T01:00:00Z","event":"job_started","job_id":"heartbeat","run_id":"nightly-batch"}`+"\n")
	day2 := night("day2.jsonl", "2026-06-03", "")
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
	ageJournal(t, journal, 24*time.Hour)
	out := run(day2)
	if n := count(); n != 2 {
		t.Errorf("night 1 with a line stamped 3 days ahead, then night 2: %d kill(s), want 2:\n%s", n, out)
	}
}
