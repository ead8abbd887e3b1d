package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestSecondProcessOnAJournalIsRefused: issue 21 — the default journal is
// shared by every burnrate of a user, and two on it both ran every kill.
// The second now exits 2 naming the first's PID, before it reads a line.
func TestSecondProcessOnAJournalIsRefused(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 5)
	rc := newReceiver(t, false)
	first := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", journal, logPath)
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Signal(syscall.SIGTERM); first.Wait() }()
	waitUntil(t, "the first process's kills", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 5 })

	second := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", journal, logPath)
	out, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("the second process on the journal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "burnrate PID "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("the refusal does not name the holder:\n%s", out)
	}
	// A dashboard without hooks may read beside it.
	view := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", journal, logPath)
	if out, err := view.CombinedOutput(); err != nil {
		t.Errorf("a hook-less reader was refused: %v\n%s", err, out)
	}
	if k, _ := rc.snapshot(); len(k) != 5 {
		t.Errorf("%d kills delivered with a second process started, want 5", len(k))
	}
}

// TestFullJournalIsLoudAndNeverBothFailedAndAcknowledged: issue 21 — a
// journal write that failed (disk full) was said nowhere, and the headless
// output showed one action both failed and acknowledged. Under
// RLIMIT_FSIZE the journal cannot grow: every action line carries the
// journal's error with its one real state, stderr says it, and (issue 34)
// no kill is fired until it is journaled — a restart with room fires each
// once.
func TestFullJournalIsLoudAndNeverBothFailedAndAcknowledged(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatal("prlimit (util-linux) is needed to cap the journal's size:", err)
	}
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 5)
	rc := newReceiver(t, false)
	// 1 KiB: the lock file's PID fits, the first requested record does not.
	cmd := exec.Command("prlimit", "--fsize=1024", "--", bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.1",
		"--kill-webhook", rc.URL, "--journal", journal, logPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if k, _ := rc.snapshot(); len(k) != 0 {
		t.Fatalf("with a full journal %d kills were delivered, want 0 (held until they can be journaled: a restart would fire them again)", len(k))
	}
	states := map[string]map[string]bool{}
	withErr := 0
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var l struct {
			Type, Action, State, JobID string
			JournalError               string `json:"journal_error"`
		}
		json.Unmarshal(sc.Bytes(), &l)
		if l.Type != "action" {
			continue
		}
		if states[l.JobID] == nil {
			states[l.JobID] = map[string]bool{}
		}
		states[l.JobID][l.State] = true
		if l.JournalError != "" {
			withErr++
		}
	}
	for job, s := range states {
		if s["failed"] && s["acknowledged"] {
			t.Errorf("job %s shown both failed and acknowledged: %v", job, s)
		}
	}
	if withErr == 0 || !strings.Contains(stderr.String(), "the action journal could not record") {
		t.Errorf("the journal's failure was not said (%d action lines with journal_error); stderr:\n%s", withErr, stderr.String())
	}
	// With room again, the log raises them again: each fired once.
	replayHeadless(t, journal, rc.URL, []string{"--job-ceiling", "0.1"}, logPath)
	keys, _ := rc.snapshot()
	for k, n := range keys {
		if n != 1 {
			t.Errorf("key %s sent %d times after the restart, want once", k, n)
		}
	}
	if len(keys) != 5 {
		t.Errorf("after the restart %d distinct keys, want 5", len(keys))
	}
}

// TestCrashWithPendingKillsThenRestartRunsEachOnce: issue 21 — after a
// SIGKILL with 200 kills pending, the restart's resend and the log raising
// the same kills again raced: 5 of 200 ran twice. The restart reads the
// log from the start (no --from-end), so both paths fire every kill.
func TestCrashWithPendingKillsThenRestartRunsEachOnce(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 200)
	hung := newReceiver(t, true)
	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", hung.URL, "--journal", journal, logPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "200 requested kills in the journal", 20*time.Second, func() bool {
		b, _ := os.ReadFile(journal)
		return bytes.Count(b, []byte(`"state":"requested"`)) >= 200
	})
	cmd.Process.Kill() // SIGKILL: no drain, nothing finished
	cmd.Wait()

	healthy := newReceiver(t, false)
	cmd2 := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", healthy.URL, "--journal", journal, logPath)
	var stderr bytes.Buffer
	cmd2.Stderr = &stderr
	if err := cmd2.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "200 kills after the restart", 30*time.Second, func() bool { k, _ := healthy.snapshot(); return len(k) >= 200 })
	time.Sleep(500 * time.Millisecond) // room for a duplicate to show up
	cmd2.Process.Signal(syscall.SIGTERM)
	cmd2.Wait()
	keys, _ := healthy.snapshot()
	twice := 0
	for _, n := range keys {
		if n > 1 {
			twice++
		}
	}
	if len(keys) != 200 || twice != 0 {
		t.Errorf("after the crash: %d distinct kills, %d sent twice; want 200, 0\n%s", len(keys), twice, stderr.String())
	}
}

// TestAConfigNobodyNamedRunsNothing: issue 29 — a ./burnrate.toml in a
// cloned repository set kill_exec, and "burnrate demo" ran it. Such a file
// is refused unless named; named, it runs; a config others may write is
// refused either way; and the start-up line names the config read.
func TestAConfigNobodyNamedRunsNothing(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	testutil.WriteFile(t, filepath.Join(dir, "burnrate.toml"), "[actions]\nkill_exec = \"touch "+pwned+"\"\n")
	cmd := exec.Command(bin, "demo", "--headless", "--speed", "max")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "read a config only when it is named") {
		t.Fatalf("an implicit config with kill_exec: %v\n%s", err, out)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the implicit config's command ran")
	}
	// Red team: one that only turns kills off or re-aims them
	// (readonly, kill_on = [], [map] job_id) is refused the same way for
	// the commands that can kill; report, which kills nothing, reads a
	// harmless one, and refuses one that sets a command.
	testutil.WriteFile(t, filepath.Join(dir, "burnrate.toml"), "[actions]\nreadonly = true\nkill_on = []\n[map]\njob_id = \"model\"\n")
	cmd = exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j2.jsonl"), "../../sample-logs/healthy-night.jsonl")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "read a config only when it is named") {
		t.Errorf("an implicit config that turns kills off: %v\n%s", err, out)
	}
	testutil.WriteFile(t, filepath.Join(dir, "burnrate.toml"), "max_calls_per_job = 7\n")
	abs, _ := filepath.Abs("../../sample-logs/healthy-night.jsonl")
	cmd = exec.Command(bin, "report", abs)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("report with a harmless implicit config: %v\n%s", err, out)
	}
	testutil.WriteFile(t, filepath.Join(dir, "burnrate.toml"), "[actions]\nkill_exec = \"touch "+pwned+"\"\n")
	// Named, it is the operator's choice: it loads, and says which file.
	cmd = exec.Command(bin, "demo", "--headless", "--speed", "max", "--config", "burnrate.toml", "--run-id", "named-config-test", "--journal", filepath.Join(dir, "journal.jsonl"))
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "limits in force (config burnrate.toml)") {
		t.Errorf("a named config: %v\n%s", err, out)
	}
	// Writable by anyone: refused, named or not.
	os.Chmod(filepath.Join(dir, "burnrate.toml"), 0o666)
	cmd = exec.Command(bin, "demo", "--headless", "--speed", "max", "--config", "burnrate.toml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "writable by every user") {
		t.Errorf("a world-writable config: %v\n%s", err, out)
	}
}

// TestOutputNeverStandsBetweenARuleAndItsKill: issue 29 — with the stdout
// reader gone (a filter that exited), burnrate died of SIGPIPE on its first
// alert, before the kill; with a reader that stalls, the engine blocked in
// the write (97 of 1,000 kills in 8 s; SIGTERM ignored for 15 s).
func TestOutputNeverStandsBetweenARuleAndItsKill(t *testing.T) {
	bin := burnrate(t)
	for _, reader := range []string{"gone", "stalled"} {
		t.Run(reader, func(t *testing.T) {
			dir := t.TempDir()
			logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
			night(t, logPath, "2026-03-10", 1000)
			rc := newReceiver(t, false)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", journal, logPath)
			cmd.Stdout = pw
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			if reader == "gone" {
				pr.Close()
			} else {
				defer pr.Close() // open, never read: the pipe fills at 64 KiB
			}
			waitUntil(t, "1,000 kills with stdout "+reader, 30*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1000 })
			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			err = cmd.Wait()
			if took := time.Since(start); took > 8*time.Second {
				t.Errorf("SIGTERM to exit took %s with stdout %s", took, reader)
			}
			if err != nil {
				t.Errorf("exit: %v\n%s", err, stderr.String())
			}
			b, _ := os.ReadFile(journal)
			if n := bytes.Count(b, []byte(`"state":"acknowledged"`)); n != 1000 {
				t.Errorf("%d kills journaled acknowledged, want 1000", n)
			}
			if !strings.Contains(stderr.String(), map[string]string{"gone": "broken pipe", "stalled": "were not written"}[reader]) {
				t.Errorf("stderr does not say what happened to the output:\n%s", stderr.String())
			}
		})
	}
}

// TestSIGHUPDrainsLikeSIGTERM: issue 29 — SIGHUP (a dropped ssh session)
// was not handled: no drain, no --report-out, the kill left requested.
func TestSIGHUPDrainsLikeSIGTERM(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal, report := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "report.json")
	night(t, logPath, "2026-03-10", 3)
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", journal, "--report-out", report, logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "3 kills", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 3 })
	cmd.Process.Signal(syscall.SIGHUP)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGHUP: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("no --report-out after SIGHUP: %v", err)
	}
	b, _ := os.ReadFile(journal)
	if n := bytes.Count(b, []byte(`"state":"acknowledged"`)); n != 3 {
		t.Errorf("%d kills acknowledged in the journal, want 3", n)
	}
}

// TestOTLPTokenFromAFileOrTheEnvironment: issue 29 — the OTLP token could
// be given only on the command line, where every user's ps reads it. A
// real receiver takes it from --otlp-token-file and refuses a request
// without it; two sources at once are refused at start.
func TestOTLPTokenFromAFileOrTheEnvironment(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	testutil.WriteFile(t, tokenFile, "s3cret-from-file\n")
	os.Chmod(tokenFile, 0o600)
	_, httpAddr, _ := startReceiver(t, "--otlp-token-file", tokenFile)
	post := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+httpAddr+"/v1/traces", strings.NewReader(`{"resourceSpans":[]}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d, want 401", got)
	}
	if got := post("Bearer s3cret-from-file"); got != http.StatusOK {
		t.Errorf("the file's token: HTTP %d, want 200", got)
	}
}

// TestFilesItShouldNotTouch: issue 29 — --journal pointed at an existing
// 17 MiB log printed 126,524 warnings and compaction truncated it to 0
// bytes; the journal and --report-out were written through symlinks, and
// the report was created 0644.
func TestFilesItShouldNotTouch(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 3)
	rc := newReceiver(t, false)
	appLog := filepath.Join(dir, "app.log")
	testutil.WriteFile(t, appLog, strings.Repeat("2026-03-10 01:00:00 INFO request served in 3 ms\n", 17<<20/48))
	before, _ := os.Stat(appLog)
	victim := filepath.Join(dir, "victim")
	testutil.WriteFile(t, victim, "precious\n")
	os.Symlink(victim, filepath.Join(dir, "journal-link.jsonl"))
	os.Symlink(victim, filepath.Join(dir, "report-link.json"))
	// Red team: Go's slog JSON lines begin like a journal record, and a
	// blank first line passed the first-line check: both were compacted
	// to 0 bytes.
	slogLog := filepath.Join(dir, "slog.jsonl")
	testutil.WriteFile(t, slogLog, strings.Repeat(`{"time":"2026-03-10T01:00:00Z","level":"INFO","msg":"request served","ms":3}`+"\n", 17<<20/76))
	blankFirst := filepath.Join(dir, "notes.txt")
	testutil.WriteFile(t, blankFirst, "\n"+strings.Repeat("a note that is not a record\n", 1000))
	sizes := map[string]int64{}
	for _, p := range []string{slogLog, blankFirst} {
		st, _ := os.Stat(p)
		sizes[p] = st.Size()
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--journal", appLog}, "not a burnrate journal"},
		{[]string{"--journal", slogLog}, "not a burnrate journal"},
		{[]string{"--journal", blankFirst}, "not a burnrate journal"},
		{[]string{"--journal", filepath.Join(dir, "journal-link.jsonl")}, "symbolic link"},
		{[]string{"--journal", filepath.Join(dir, "j.jsonl"), "--report-out", filepath.Join(dir, "report-link.json")}, "not a regular file"},
	} {
		args := append([]string{"replay", "--headless", "--speed", "max", "--job-ceiling", "0.1", "--kill-webhook", rc.URL}, append(tc.args, logPath)...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v, want a refusal saying %q:\n%s", tc.args, err, tc.want, out)
		}
		if strings.Count(string(out), "\n") > 5 {
			t.Errorf("%v: %d lines of output", tc.args, strings.Count(string(out), "\n"))
		}
	}
	if after, _ := os.Stat(appLog); after.Size() != before.Size() {
		t.Errorf("the application log went from %d to %d bytes", before.Size(), after.Size())
	}
	for p, size := range sizes {
		if after, _ := os.Stat(p); after.Size() != size {
			t.Errorf("%s went from %d to %d bytes", p, size, after.Size())
		}
		if _, err := os.Stat(p + ".lock"); err == nil {
			t.Errorf("a refused file got a lock file beside it: %s.lock", p)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("a symlink's target was written: %q", b)
	}
	report := filepath.Join(dir, "report.json")
	if out, err := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", filepath.Join(dir, "j.jsonl"), "--report-out", report, logPath).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, err := os.Stat(report); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("--report-out mode: %v %v, want 0600", st.Mode().Perm(), err)
	}
}

// TestLimitsParsedStrictly: issue 21 — "--ceiling nan", "inf" and "1e300"
// were accepted, shown as $-92,233,720,368,547,758.-8, and silently off;
// red team: "--job-ceiling 1e-13" rounds to 0 picodollars and never fired.
func TestLimitsParsedStrictly(t *testing.T) {
	for _, flag := range []string{"--ceiling", "--job-ceiling", "--burn-rate", "--projected-ceiling"} {
		for _, v := range []string{"nan", "inf", "-inf", "-5", "1e300", "1e-13"} {
			out, err := run(t, "replay", "--headless", "--speed", "max", flag, v, "../../sample-logs/healthy-night.jsonl")
			if err == nil || !strings.Contains(err.Error(), flag) {
				t.Errorf("%s %s: %v %s", flag, v, err, out)
			}
		}
	}
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "b.toml"), "[budget]\nceiling_usd = nan\n")
	if _, err := run(t, "replay", "--headless", "--speed", "max", "--config", filepath.Join(dir, "b.toml"), "../../sample-logs/healthy-night.jsonl"); err == nil || !strings.Contains(err.Error(), "ceiling_usd") {
		t.Errorf("ceiling_usd = nan in the config: %v", err)
	}
}

// TestAPortInUseIsAFailedStart: red team of issue 29 — with the OTLP port
// taken, burnrate said so and exited 0, so a service manager would not
// restart it.
func TestAPortInUseIsAFailedStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(burnrate(t), "watch", "--headless", "--journal", filepath.Join(t.TempDir(), "j.jsonl"), "--otlp-http", ln.Addr().String())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "address already in use") {
		t.Errorf("a taken OTLP port: %v\n%s", err, out)
	}
}
