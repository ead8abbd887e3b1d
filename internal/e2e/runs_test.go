package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// nightCalls is one night of calls: each entry a job and its one call's cost.
type nightCall struct {
	job  string
	cost float64
}

// writeNight appends one night's calls at 22:00 on day, naming runID when
// it is not "".
func writeNight(t *testing.T, path, day, runID string, calls []nightCall) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, c := range calls {
		run := ""
		if runID != "" {
			run = fmt.Sprintf(`"run_id":%q,`, runID)
		}
		fmt.Fprintf(f, `{"ts":"%sT22:%02d:00Z","event":"llm_call",%s"job_id":%q,"job_type":"nightly","model":"claude-sonnet-4-6","status":200,"cost_usd":%g}`+"\n",
			day, i, run, c.job, c.cost)
	}
}

// threeNights are $3, $3 and $6 with a cron job of the same name each
// night over a $2.50 job ceiling.
var threeNights = [][]nightCall{
	{{"cron-nightly", 2.6}, {"other-1", 0.4}},
	{{"cron-nightly", 2.6}, {"other-1", 0.4}},
	{{"cron-nightly", 2.6}, {"other-1", 0.4}, {"other-2", 1.5}, {"other-3", 1.5}},
}

// killsBy sorts a receiver's kills into run-ceiling run IDs and the runs
// each job was killed in.
func killsBy(kills []map[string]any) (runKills []string, jobKills map[string][]string) {
	jobKills = map[string][]string{}
	for _, k := range kills {
		run, _ := k["run_id"].(string)
		switch k["rule"] {
		case "run_ceiling":
			runKills = append(runKills, run)
		case "job_ceiling":
			job, _ := k["job_id"].(string)
			jobKills[job] = append(jobKills[job], run)
		}
	}
	return runKills, jobKills
}

// TestThreeNightsInOneDaemon: issue 21 — a daemon had one run for ever:
// across nights n1, n2, n3 ($3, $3, $6; ceiling $5) the run ceiling fired
// once, on night 2, keyed to night 1, and night 3 was never stopped; a job
// ID that recurs every night was killed on night 1 only. Each run_id is
// now a run of its own: its own spend, ceilings, rule state and keys.
func TestThreeNightsInOneDaemon(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "nightly.jsonl"), filepath.Join(dir, "journal.jsonl")
	os.WriteFile(logPath, nil, 0o644)
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "watch", "--headless", "--poll-interval", "50ms", "--ceiling", "5", "--job-ceiling", "2.5", "--kill-webhook", rc.URL,
		"--journal", journal, "--report-out", filepath.Join(dir, "report.json"), logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	days := []string{"2026-03-10", "2026-03-11", "2026-03-12"}
	for i, night := range threeNights {
		writeNight(t, logPath, days[i], fmt.Sprintf("n%d", i+1), night)
		waitUntil(t, fmt.Sprintf("night %d's job kill", i+1), 10*time.Second, func() bool {
			_, kills := rc.snapshot()
			_, jobs := killsBy(kills)
			return len(jobs["cron-nightly"]) == i+1
		})
	}
	waitUntil(t, "night 3's run kill", 10*time.Second, func() bool {
		_, kills := rc.snapshot()
		r, _ := killsBy(kills)
		return len(r) > 0
	})
	time.Sleep(300 * time.Millisecond) // room for a wrong extra kill
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	_, kills := rc.snapshot()
	runs, jobs := killsBy(kills)
	if strings.Join(runs, ",") != "n3" {
		t.Errorf("run-ceiling kills keyed to runs %v, want only n3 (n1 and n2 spent $3 each)", runs)
	}
	if strings.Join(jobs["cron-nightly"], ",") != "n1,n2,n3" {
		t.Errorf("the recurring job was killed in runs %v, want n1,n2,n3", jobs["cron-nightly"])
	}
	var rep struct {
		RunID  string `json:"run_id"`
		Totals struct {
			SpendUSD float64 `json:"spend_usd"`
		}
		PreviousRuns []struct {
			RunID    string  `json:"run_id"`
			SpendUSD float64 `json:"spend_usd"`
		} `json:"previous_runs"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.RunID != "n3" || rep.Totals.SpendUSD != 6 || len(rep.PreviousRuns) != 2 || rep.PreviousRuns[0].RunID != "n1" || rep.PreviousRuns[0].SpendUSD != 3 ||
		rep.PreviousRuns[1].RunID != "n2" || rep.PreviousRuns[1].SpendUSD != 3 {
		t.Errorf("report: run %q spend %v, previous %+v; want n3 $6 after n1 $3, n2 $3", rep.RunID, rep.Totals.SpendUSD, rep.PreviousRuns)
	}
}

// TestDailyRunWindowWithoutRunIDs: the same three nights in logs that name
// no run_id, split by --run-window at noon Berlin time: three runs named
// by their dates, the ceiling and the recurring job judged per night.
func TestDailyRunWindowWithoutRunIDs(t *testing.T) {
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "nightly.jsonl"), filepath.Join(dir, "journal.jsonl")
	days := []string{"2026-03-10", "2026-03-11", "2026-03-12"}
	for i, night := range threeNights {
		writeNight(t, logPath, days[i], "", night)
	}
	rc := newReceiver(t, false)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "5", "--job-ceiling", "2.5", "--run-window", "daily 12:00 Europe/Berlin"}, logPath)
	_, kills := rc.snapshot()
	runs, jobs := killsBy(kills)
	if len(runs) != 1 || !strings.HasSuffix(runs[0], "-2026-03-12") {
		t.Errorf("run-ceiling kills keyed to %v, want one, for the run of 2026-03-12", runs)
	}
	got := jobs["cron-nightly"]
	slices.Sort(got) // four workers deliver in any order
	if len(got) != 3 || !strings.HasSuffix(got[0], "-2026-03-10") || !strings.HasSuffix(got[2], "-2026-03-12") {
		t.Errorf("the recurring job was killed in runs %v, want one per night", got)
	}
	// And a bad window is refused at start, naming the flag.
	out, err := run(t, "replay", "--headless", "--speed", "max", "--run-window", "daily 25:00", logPath)
	if err == nil || !strings.Contains(out+err.Error(), "--run-window") {
		t.Errorf("a bad --run-window was accepted: %v %s", err, out)
	}
}

// TestRestartsOnAMultiFileSetKeepOneRunID: issue 21 — with several files,
// the derived run ID hashed whichever file was read first, so a restart
// could derive another ID the journal did not block (2 distinct run IDs
// in 12 restarts), and kill again. The derived ID is now journaled with
// the run's first action and found again from a first event near it.
func TestRestartsOnAMultiFileSetKeepOneRunID(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	var files []string
	for i, w := range []string{"worker-a", "worker-b", "worker-c"} {
		p := filepath.Join(dir, w+".jsonl")
		var b strings.Builder
		for k := range 200 {
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:%02d:%02d.%03dZ","event":"llm_call","job_id":"%s-job-%03d","model":"claude-sonnet-4-6","status":200,"cost_usd":0.01}`+"\n",
				k/60, k%60, i, w, k)
		}
		os.WriteFile(p, []byte(b.String()), 0o644)
		files = append(files, p)
	}
	rc := newReceiver(t, false)
	seen := map[string]bool{}
	for restart := range 12 {
		args := append([]string{"watch", "--headless", "--ceiling", "3", "--kill-webhook", rc.URL, "--journal", journal}, files...)
		cmd := exec.Command(bin, args...)
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var l struct{ Type, Rule, RunID string }
				json.Unmarshal(sc.Bytes(), &l)
				if l.Type == "alert" && l.Rule == "run_ceiling" {
					var a struct {
						RunID string `json:"run_id"`
					}
					json.Unmarshal(sc.Bytes(), &a)
					done <- a.RunID
				}
			}
			io.Copy(io.Discard, stdout)
		}()
		select {
		case id := <-done:
			seen[id] = true
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("restart %d: no run-ceiling alert\n%s", restart, stderr.String())
		}
		time.Sleep(100 * time.Millisecond) // the action settles in the journal
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	_, kills := rc.snapshot()
	runs, _ := killsBy(kills)
	if len(seen) != 1 || len(runs) != 1 {
		t.Errorf("12 restarts named the run %d way(s) (%v) and delivered %d run kill(s); want 1 and 1", len(seen), seen, len(runs))
	}
}

// TestOneFileManyPathsIsBilledOnce: issue 22 — the same file reached by two
// paths (a glob and the file's own name, a current.jsonl symlink, a hard
// link) was billed once per path: $0.04 read $0.08 in watch and $0.12 in
// report, and a job ceiling fired at half the real spend.
func TestOneFileManyPathsIsBilledOnce(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	dated := filepath.Join(dir, "night-2026-03-10.jsonl")
	night(t, dated, "2026-03-10", 1) // one job, one call of $0.50
	os.Symlink(dated, filepath.Join(dir, "current.jsonl"))
	os.Link(dated, filepath.Join(dir, "hardlink.jsonl"))
	paths := []string{filepath.Join(dir, "current.jsonl"), dated, filepath.Join(dir, "hardlink.jsonl"), dated}

	var reportErr bytes.Buffer
	glob, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")) // as a shell expands report dir/*.jsonl
	rcmd := exec.Command(bin, append([]string{"report", "--format", "json"}, append(paths, glob...)...)...)
	rcmd.Stderr = &reportErr
	out, err := rcmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Totals struct {
			SpendUSD float64 `json:"spend_usd"`
			Attempts int64   `json:"attempts"`
		}
		Source struct {
			Files []string `json:"files"`
		}
	}
	json.Unmarshal(out, &rep)
	if rep.Totals.SpendUSD != 0.5 || rep.Totals.Attempts != 1 {
		t.Errorf("report over four paths to one file: $%v in %d attempts, want $0.50 in 1", rep.Totals.SpendUSD, rep.Totals.Attempts)
	}
	if !slices.Equal(rep.Source.Files, []string{dated}) {
		t.Errorf("report source.files %q, want the one path read", rep.Source.Files)
	}
	// Each duplicate path is said once, though named twice (itself and the glob).
	for _, dup := range []string{"current.jsonl", "hardlink.jsonl"} {
		note := filepath.Join(dir, dup) + " and " + dated + " are the same file"
		if n := strings.Count(reportErr.String(), note); n != 1 {
			t.Errorf("%q said %d times, want once:\n%s", note, n, reportErr.String())
		}
	}

	// watch: a glob and the names; a $0.60 job ceiling must not fire.
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.6", "--kill-webhook", rc.URL, "--journal", filepath.Join(t.TempDir(), "j.jsonl"),
		"--report-out", filepath.Join(dir, "watch.json"), filepath.Join(dir, "*.jsonl"), dated, filepath.Join(dir, "current.jsonl"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Errorf("a $0.50 job was killed at a $0.60 ceiling: its file was read more than once")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "watch.json"))
	json.Unmarshal(b, &rep)
	if rep.Totals.SpendUSD != 0.5 {
		t.Errorf("watch over a glob, a name and a symlink: $%v, want $0.50", rep.Totals.SpendUSD)
	}
	// The --report-out lists the file once, by the path read: not the
	// paths left out as the same file.
	if len(rep.Source.Files) != 1 || !strings.Contains(stderr.String(), "read once, as "+rep.Source.Files[0]) {
		t.Errorf("watch --report-out source.files %q, want the one path read:\n%s", rep.Source.Files, stderr.String())
	}
	if !strings.Contains(stderr.String(), "are the same file: read once") {
		t.Errorf("the duplicate paths were not said:\n%s", stderr.String())
	}
}

// TestOnlyRegularFilesAreFollowed: issue 22 — a followed file swapped for a
// FIFO made SIGTERM hang, and /dev/zero spun a core at 100%. Both are
// refused: at start, and when a followed path turns into one.
func TestOnlyRegularFilesAreFollowed(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	syscall.Mkfifo(fifo, 0o600)
	for _, p := range []string{fifo, "/dev/zero"} {
		cmd := exec.Command(bin, "watch", "--headless", "--journal", filepath.Join(dir, "j.jsonl"), p)
		done := make(chan error, 1)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Start()
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(out.String(), "not a regular file") {
				t.Errorf("watch %s: %v\n%s", p, err, out.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("watch %s did not refuse it", p)
		}
	}
	if out, err := exec.Command(bin, "report", "/dev/zero").CombinedOutput(); err == nil || !strings.Contains(string(out), "not a log file") {
		t.Errorf("report /dev/zero: %v %s", err, out)
	}
	// A followed file that becomes a FIFO: the stop still comes at once.
	logPath := filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 3)
	cmd := exec.Command(bin, "watch", "--headless", "--poll-interval", "50ms", "--journal", filepath.Join(dir, "j2.jsonl"), logPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	os.Remove(logPath)
	syscall.Mkfifo(logPath, 0o600)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("SIGTERM took %s with a FIFO in place of the log", took)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGTERM hung on a FIFO in place of the followed file")
	}
}

// TestAHardLinkFoundLaterIsNotReadAgain: red team of issue 22 — watch
// followed a symlink; a hard link to the same file then appeared under a
// followed glob and, being no symlink, became the file's path: the file was
// read again from its start and billed twice.
func TestAHardLinkFoundLaterIsNotReadAgain(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "a.jsonl")
	night(t, real, "2026-03-10", 2) // $1.00
	os.Symlink(real, filepath.Join(dir, "cur.jsonl"))
	os.Mkdir(filepath.Join(dir, "logs"), 0o755)
	report := filepath.Join(dir, "rep.json")
	cmd := exec.Command(bin, "watch", "--headless", "--poll-interval", "50ms", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", report,
		filepath.Join(dir, "cur.jsonl"), filepath.Join(dir, "logs", "*.jsonl"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	os.Link(real, filepath.Join(dir, "logs", "h.jsonl"))
	time.Sleep(3 * time.Second) // the glob is expanded every 2 s
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	var rep struct {
		Totals struct {
			SpendUSD float64 `json:"spend_usd"`
		}
	}
	b, _ := os.ReadFile(report)
	json.Unmarshal(b, &rep)
	if rep.Totals.SpendUSD != 1 {
		t.Errorf("spend $%v after a hard link appeared under the glob, want $1.00\n%s", rep.Totals.SpendUSD, stderr.String())
	}
	if !strings.Contains(stderr.String(), "are the same file") {
		t.Errorf("the duplicate was not said:\n%s", stderr.String())
	}
}

// TestReportWrittenWhenEverySourceGaveUp: red team of issue 22 — a followed
// file replaced by a directory ended the run with exit 2 and no
// --report-out, losing what had been read.
func TestReportWrittenWhenEverySourceGaveUp(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, report := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "rep.json")
	night(t, logPath, "2026-03-10", 1)
	cmd := exec.Command(bin, "watch", "--headless", "--poll-interval", "50ms", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", report, logPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	os.Rename(logPath, logPath+".1")
	os.Mkdir(logPath, 0o755)
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if _, err := os.Stat(report); err != nil {
		t.Errorf("no --report-out after the source gave up: %v", err)
	}
}

// TestADaemonWithNothingToEndARunSaysSo: three nights in one watch, with
// no run_id in the logs and no run window, are one run — every night's
// spend against one run ceiling. burnrate says so once, on stderr, with
// what to set, instead of adding nights up in silence.
func TestADaemonWithNothingToEndARunSaysSo(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var b strings.Builder
	for _, day := range []string{"2026-03-10", "2026-03-11", "2026-03-12"} {
		for i := range 3 {
			fmt.Fprintf(&b, `{"ts":"%sT01:0%d:00Z","event":"llm_call","job_id":"cron-sum","model":"claude-sonnet-4-6","status":200,"input_tokens":1000,"output_tokens":100}`+"\n", day, i)
		}
	}
	logPath := filepath.Join(dir, "nights.jsonl")
	os.WriteFile(logPath, []byte(b.String()), 0o600)
	cmd := exec.Command(bin, "watch", "--headless", "--journal", filepath.Join(dir, "journal.jsonl"), logPath)
	var stderr testutil.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(stderr.String(), "nothing ends it") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if n := strings.Count(stderr.String(), "nothing ends it"); n != 1 {
		t.Fatalf("said %d times, want once:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "of log time and nothing ends it (no run_id in the logs, no run window)") || !strings.Contains(stderr.String(), "--run-window") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	// Two nights a week apart: a jump past the clock's one-day guard,
	// confirmed by the night's calls, is said too.
	b.Reset()
	for _, day := range []string{"2026-03-10", "2026-03-17"} {
		for i := range 20 {
			fmt.Fprintf(&b, `{"ts":"%sT01:%02d:00Z","event":"llm_call","job_id":"cron-sum","model":"claude-sonnet-4-6","status":200,"input_tokens":1000,"output_tokens":100}`+"\n", day, i)
		}
	}
	weekPath := filepath.Join(dir, "week.jsonl")
	os.WriteFile(weekPath, []byte(b.String()), 0o600)
	cmd = exec.Command(bin, "watch", "--headless", "--journal", filepath.Join(dir, "journal-week.jsonl"), weekPath)
	stderr.Reset()
	cmd.Stderr = &stderr
	cmd.Start()
	deadline = time.Now().Add(15 * time.Second)
	for !strings.Contains(stderr.String(), "nothing ends it") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if !strings.Contains(stderr.String(), "nothing ends it") {
		t.Errorf("a week between two nights, no warning:\n%s", stderr.String())
	}
	// With a window, nothing to say.
	cmd = exec.Command(bin, "watch", "--headless", "--run-window", "daily 06:00 UTC", "--journal", filepath.Join(dir, "journal2.jsonl"), logPath)
	stderr.Reset()
	cmd.Stderr = &stderr
	cmd.Start()
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if strings.Contains(stderr.String(), "nothing ends it") {
		t.Errorf("a run window ends runs, yet:\n%s", stderr.String())
	}
}
