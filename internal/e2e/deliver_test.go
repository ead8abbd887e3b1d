package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// flaky is a kill receiver on loopback whose answer to each request is
// chosen by answer (given the request's number, from 1, and the time
// since the first); it records every request's Idempotency-Key and time.
type flaky struct {
	*httptest.Server
	mu    sync.Mutex
	keys  []string
	at    []time.Duration
	first time.Time
}

// reply is what flaky does with one request: a status (with a
// Retry-After when retryAfter is set), or reset: the connection is
// closed with no answer.
type reply struct {
	status     int
	retryAfter string
	reset      bool
	delay      time.Duration // a hung receiver: answer only after this
}

func newFlaky(t *testing.T, answer func(n int, since time.Duration) reply) *flaky {
	f := &flaky{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		if f.first.IsZero() {
			f.first = time.Now()
		}
		since := time.Since(f.first)
		f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
		f.at = append(f.at, since)
		n := len(f.keys)
		f.mu.Unlock()
		rp := answer(n, since)
		if rp.delay > 0 {
			select {
			case <-time.After(rp.delay):
			case <-r.Context().Done():
				return
			}
		}
		if rp.reset {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
					tc.SetLinger(0) // RST, not FIN
				}
				conn.Close()
			}
			return
		}
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		w.WriteHeader(rp.status)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *flaky) requests() ([]string, []time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...), append([]time.Duration(nil), f.at...)
}

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemon is a headless "watch" on one log file, stopped by the test.
type daemon struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
}

func startDaemon(t *testing.T, args ...string) *daemon {
	t.Helper()
	d := &daemon{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	d.cmd = exec.Command(burnrate(t), append([]string{"watch", "--headless"}, args...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill(); d.cmd.Wait() })
	return d
}

func (d *daemon) stop(sig syscall.Signal) {
	d.cmd.Process.Signal(sig)
	d.cmd.Wait()
}

func (d *daemon) out() string { return d.stdout.String() }
func (d *daemon) err() string { return d.stderr.String() }

// oneJob writes a log in which one job spends $0.50 against a ceiling the
// test sets at $0.10: one kill.
func oneJob(t *testing.T, dir string) string {
	p := filepath.Join(dir, "night.jsonl")
	night(t, p, "2026-03-10", 1)
	return p
}

func actionsConfig(t *testing.T, dir, body string) string {
	p := filepath.Join(dir, "burnrate.toml")
	testutil.WriteFile(t, p, "[actions]\n"+body)
	return p
}

// TestKillsDeliveredWhileRunning: issue 34 — a failed webhook delivery
// was sent again only by the next start: one 429 with "Retry-After: 120"
// got 1 request (the wait passed the 60 s deadline, so the delivery gave
// up), and 503s for longer than the deadline left the kill failed while
// the money burned. The running daemon now delivers it again, under the
// same Idempotency-Key, until retry_for; a 400 is still sent once.
func TestKillsDeliveredWhileRunning(t *testing.T) {
	cases := []struct {
		name   string
		config string
		answer func(n int, since time.Duration) reply
		// want: requests, at least; the kill acknowledged (or rejected).
		wantMin int
		wantMax int
		state   string
	}{
		{"429 Retry-After 120", `max_retry_after = "1s"` + "\n", func(n int, _ time.Duration) reply {
			if n == 1 {
				return reply{status: 429, retryAfter: "120"}
			}
			return reply{status: 200}
		}, 2, 2, "acknowledged"},
		{"503 past the deadline", `deadline = "1s"` + "\n", func(_ int, since time.Duration) reply {
			if since < 3*time.Second {
				return reply{status: 503}
			}
			return reply{status: 200}
		}, 2, 100, "acknowledged"},
		{"connection resets past the deadline", `deadline = "1s"` + "\n", func(_ int, since time.Duration) reply {
			if since < 3*time.Second {
				return reply{reset: true}
			}
			return reply{status: 200}
		}, 2, 100, "acknowledged"},
		{"400 is not retried", "", func(int, time.Duration) reply { return reply{status: 400} }, 1, 1, "rejected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rc := newFlaky(t, tc.answer)
			logPath := oneJob(t, dir)
			cfg := actionsConfig(t, dir, `timeout = "500ms"`+"\n"+tc.config)
			d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", filepath.Join(dir, "journal.jsonl"), logPath)
			waitUntil(t, "the kill's "+tc.state, 20*time.Second, func() bool {
				return strings.Contains(d.out(), `"state":"`+tc.state+`"`)
			})
			time.Sleep(1500 * time.Millisecond) // room for a request too many
			d.stop(syscall.SIGTERM)
			keys, at := rc.requests()
			t.Logf("%s: %d request(s) at %v", tc.name, len(keys), at)
			if len(keys) < tc.wantMin || len(keys) > tc.wantMax {
				t.Errorf("%d request(s), want %d to %d\n%s", len(keys), tc.wantMin, tc.wantMax, d.err())
			}
			for _, k := range keys {
				if k != keys[0] || k == "" {
					t.Errorf("Idempotency-Keys differ between retries: %q", keys)
					break
				}
			}
		})
	}
}

// TestKillFailedForGoodIsSaidAndSentAtTheNextStart: past retry_for the
// running daemon says the kill failed (stderr, journal, headless line)
// and stops; a clean stop leaves it for the next start, which sends it
// under the same key.
func TestKillFailedForGoodIsSaidAndSentAtTheNextStart(t *testing.T) {
	dir := t.TempDir()
	down := newFlaky(t, func(int, time.Duration) reply { return reply{status: 503} })
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	cfg := actionsConfig(t, dir, "timeout = \"300ms\"\ndeadline = \"300ms\"\nretry_for = \"3s\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", down.URL, "--journal", journal, logPath)
	waitUntil(t, "the kill said failed on stderr", 20*time.Second, func() bool {
		return strings.Contains(d.err(), "kill_webhook for job job-000") && strings.Contains(d.err(), "failed")
	})
	d.stop(syscall.SIGTERM)
	t.Logf("stderr:\n%s", d.err())
	downKeys, _ := down.requests()
	if len(downKeys) < 3 || !strings.Contains(d.out(), `"state":"retrying"`) {
		t.Errorf("%d request(s) before giving up, want several, delivered again while running\n%s", len(downKeys), d.out())
	}
	b, _ := os.ReadFile(journal)
	if !bytes.Contains(b, []byte(`"state":"failed"`)) {
		t.Errorf("the journal does not say failed:\n%s", b)
	}
	up := newReceiver(t, false)
	// --from-end: only the journal can send it.
	d2 := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", up.URL, "--journal", journal, "--from-end", logPath)
	waitUntil(t, "the kill sent again by the next start", 10*time.Second, func() bool { k, _ := up.snapshot(); return len(k) == 1 })
	d2.stop(syscall.SIGTERM)
	keys, _ := up.snapshot()
	for k, n := range keys {
		if k != downKeys[0] || n != 1 {
			t.Errorf("the next start sent key %s %d time(s); want the same key as before (%s), once", k, n, downKeys[0])
		}
	}
}

// killScript writes a kill command that says when it begins and ends.
// The end is written by a child (a subshell that outlives the command's
// own shell, as a kubectl or a curl would), which also says "end" when it
// is asked to stop (SIGTERM): two runs overlap when a "begin" follows a
// "begin".
func killScript(t *testing.T, dir string, seconds int) (script, marks string) {
	marks = filepath.Join(dir, "marks")
	script = filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, script, fmt.Sprintf(`echo begin >> %[1]s
sh -c 'trap "echo end >> %[1]s; exit 0" TERM; sleep %[2]d & wait; echo end >> %[1]s' &
wait
`, marks, seconds))
	return script, marks
}

func markLines(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(string(b))
}

// TestKillCommandChildrenEndedBeforeTheRerun: issue 34 — a kill command's
// children outlived burnrate's SIGKILL (Pdeathsig takes only the command
// itself), so the restart's re-run overlapped them: begin, begin, end,
// end. The command's process group is journaled while it runs, and the
// start ends what is left of it before the re-run.
func TestKillCommandChildrenEndedBeforeTheRerun(t *testing.T) {
	dir := t.TempDir()
	script, marks := killScript(t, dir, 4)
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	args := []string{"--job-ceiling", "0.1", "--kill-exec", "sh " + script, "--journal", journal, logPath}
	d := startDaemon(t, args...)
	waitUntil(t, "the kill command begun", 10*time.Second, func() bool { return len(markLines(marks)) == 1 })
	time.Sleep(300 * time.Millisecond) // its group journaled, its child started
	d.stop(syscall.SIGKILL)
	d2 := startDaemon(t, args...)
	waitUntil(t, "the re-run's end", 15*time.Second, func() bool {
		m := markLines(marks)
		return len(m) >= 3 && m[len(m)-1] == "end" && strings.Count(strings.Join(m, " "), "begin") == 2
	})
	time.Sleep(5 * time.Second) // a surviving first run would say "end" now
	d2.stop(syscall.SIGTERM)
	m := markLines(marks)
	t.Logf("marks: %v", m)
	open := 0
	for _, l := range m {
		switch l {
		case "begin":
			open++
			if open > 1 {
				t.Errorf("two runs of the kill command overlapped: %v\n%s", m, d2.err())
			}
		case "end":
			open--
		}
	}
	if strings.Join(m, " ") != "begin end begin end" {
		t.Errorf("marks %v, want begin end begin end (the first run's child ended at the start, then one re-run)", m)
	}
}

// TestTimedOutKillCommandRunsAtMostOnceMore: issue 34 — a command killed
// at exec_timeout was journaled failed and run again at every start (5
// runs in 5 starts). Its outcome is unknown, so it is counted like a lost
// one: run once more, then given up.
func TestTimedOutKillCommandRunsAtMostOnceMore(t *testing.T) {
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	script := filepath.Join(dir, "hang.sh")
	testutil.WriteFile(t, script, "echo run >> "+marks+"\nsleep 30\n")
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	cfg := actionsConfig(t, dir, "exec_timeout = \"300ms\"\n")
	var last string
	for range 5 {
		out, err := run(t, "replay", "--headless", "--speed", "max", "--config", cfg, "--job-ceiling", "0.1", "--kill-exec", "sh "+script, "--journal", journal, logPath)
		if err != nil && err != errCritical {
			t.Fatal(err)
		}
		last = out
	}
	runs := len(markLines(marks))
	t.Logf("runs in 5 starts: %d", runs)
	if runs != 2 {
		t.Errorf("the timed-out command ran %d time(s) in 5 starts, want 2 (once, then once more)", runs)
	}
	if !strings.Contains(last, `"state":"gave_up"`) {
		t.Errorf("the last start does not say it gave up:\n%s", last)
	}
}

// TestJournalOnAFullFilesystemAcrossARestart: issue 34 — with journal
// writes failing (a full disk), every kill was still fired, its records
// lost, and the restart fired them again: 20 of 20 jobs killed twice. The
// rule now: a kill is fired only once its request is on disk and room for
// its outcome is kept (fallocate past the end of the journal); otherwise
// it is held, said, and fired when the journal can take it. The journal
// here is on a real tmpfs that fills up mid-night; the restart comes after
// space is freed; a kill command that writes a line per run counts them.
func TestJournalOnAFullFilesystemAcrossARestart(t *testing.T) {
	if out, err := exec.Command("unshare", "-r", "-m", "true").CombinedOutput(); err != nil {
		t.Skipf("this test mounts a small tmpfs in a user and mount namespace, which this machine refuses (unshare -r -m: %v %s)", err, out)
	}
	bin := burnrate(t)
	dir := t.TempDir()
	state, kills := filepath.Join(dir, "state"), filepath.Join(dir, "kills")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 20)
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo \"$1\" >> "+kills+"\n")
	// 1 MiB of tmpfs; the filler leaves the lock file and 16 KiB: the
	// records of a few kills, not of 20 (each writes about 1.5 KiB), and
	// less than the room the journal keeps for outcomes under way
	// (alerts.ReserveBytes), so nothing may be fired until space is freed.
	const size, room = 1 << 20, 4<<10 + 16<<10
	replay := fmt.Sprintf("%s replay --headless --speed max --job-ceiling 0.1 --kill-exec 'sh %s {job_id}' --journal %s/journal.jsonl %s", bin, killSh, state, logPath)
	script := fmt.Sprintf(`set -e
mount -t tmpfs -o size=%d tmpfs %s
head -c %d /dev/zero > %s/filler
%s > %s/out1 2> %s/err1 || true
rm %s/filler
%s > %s/out2 2> %s/err2 || true
cp %s/journal.jsonl %s/journal.after
`, size, state, size-room, state, replay, dir, dir, state, replay, dir, dir, state, dir)
	if out, err := exec.Command("unshare", "-r", "-m", "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	err1, _ := os.ReadFile(filepath.Join(dir, "err1"))
	out1, _ := os.ReadFile(filepath.Join(dir, "out1"))
	perJob := map[string]int{}
	for _, j := range markLines(kills) {
		perJob[j]++
	}
	twice := 0
	for _, n := range perJob {
		if n > 1 {
			twice++
		}
	}
	first := bytes.Count(out1, []byte(`"state":"acknowledged"`))
	t.Logf("killed in the first start (full disk): %d; jobs killed after the restart: %d; twice or more: %d", first, len(perJob), twice)
	if twice != 0 || len(perJob) != 20 {
		t.Errorf("after a full disk and a restart: %d of 20 jobs killed, %d twice or more; want 20, 0\nfirst start's stderr:\n%s", len(perJob), twice, err1)
	}
	if first != 0 || !strings.Contains(string(err1), "held") {
		t.Errorf("the first start had no room to journal kills, yet %d were fired; or the held kills were not said on stderr:\n%s", first, err1)
	}
}

// TestACleanStopDuringABackoffLosesNoKill: a kill waiting for its next
// delivery when SIGTERM comes is left at once (the stop does not wait out
// the backoff), journaled failed, and the next start sends it under the
// same key.
func TestACleanStopDuringABackoffLosesNoKill(t *testing.T) {
	dir := t.TempDir()
	down := newFlaky(t, func(int, time.Duration) reply { return reply{status: 503, retryAfter: "20"} })
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	cfg := actionsConfig(t, dir, "timeout = \"300ms\"\ndeadline = \"300ms\"\nmax_retry_after = \"20s\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", down.URL, "--journal", journal, logPath)
	waitUntil(t, "the kill waiting for its next delivery", 10*time.Second, func() bool { return strings.Contains(d.out(), `"state":"retrying"`) })
	start := time.Now()
	d.stop(syscall.SIGTERM)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the stop took %s: it waited out the backoff", took)
	}
	downKeys, _ := down.requests()
	up := newReceiver(t, false)
	d2 := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-webhook", up.URL, "--journal", journal, "--from-end", logPath)
	waitUntil(t, "the kill sent by the next start", 10*time.Second, func() bool { k, _ := up.snapshot(); return len(k) == 1 })
	d2.stop(syscall.SIGTERM)
	if keys, _ := up.snapshot(); keys[downKeys[0]] != 1 {
		t.Errorf("the next start sent %v; want key %s once", keys, downKeys[0])
	}
}
