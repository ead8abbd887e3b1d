package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestJournalReachedByTwoHardLinksIsRefused: audit a2 — the lock is a file
// named after the journal's path, so two processes on one journal reached
// through two hard links took two locks and both POSTed the kill. A
// journal with more than one name is refused, by both, with the reason;
// kills are delivered once it has one name again.
func TestJournalReachedByTwoHardLinksIsRefused(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 5)
	rc := newReceiver(t, false)
	j1, j2 := filepath.Join(dir, "j1.jsonl"), filepath.Join(dir, "j2.jsonl")
	rec := `{"time":"2026-12-02T00:00:00Z","key":"x","action":"kill_webhook","rule":"job_ceiling","scope":"job","run_id":"q","job_id":"q","state":"would_fire"}` + "\n"
	if err := os.WriteFile(j1, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(j1, j2); err != nil {
		t.Fatal(err)
	}
	// Both at once, as in the audit.
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, j := range []string{j1, j2} {
		c := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", j, logPath)
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, c), append(outs, &b)
	}
	for i, c := range cmds {
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				t.Errorf("process %d on a hard-linked journal: %v, want exit 2\n%s", i, err, outs[i])
			}
		case <-time.After(15 * time.Second):
			c.Process.Signal(syscall.SIGTERM)
			<-done
			t.Errorf("process %d on a hard-linked journal kept running\n%s", i, outs[i])
		}
		if o := outs[i].String(); !strings.Contains(o, "has 2 hard links") || !strings.Contains(o, "another lock") {
			t.Errorf("process %d: the refusal does not say why:\n%s", i, o)
		}
	}
	if k, _ := rc.snapshot(); len(k) != 0 {
		t.Errorf("%d kills POSTed through a hard-linked journal, want 0 (refused)", len(k))
	}
	// A hook-less dashboard still reads it: it never locks or writes.
	view := exec.Command(bin, "replay", "--headless", "--speed", "max", "--journal", j2, logPath)
	if out, err := view.CombinedOutput(); err != nil {
		t.Errorf("a hook-less reader of a hard-linked journal was refused: %v\n%s", err, out)
	}

	// One name again: the kills go out, once each.
	if err := os.Remove(j2); err != nil {
		t.Fatal(err)
	}
	first := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", j1, logPath)
	var firstOut bytes.Buffer
	first.Stderr = &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Signal(syscall.SIGTERM); first.Wait() }()
	waitUntil(t, "the kills once the journal has one name", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 5 })

	// A link made while it runs: a second process through it is refused
	// too (the link count is the file's, seen by both).
	if err := os.Link(j1, j2); err != nil {
		t.Fatal(err)
	}
	second := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", j2, logPath)
	out, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "hard links") {
		t.Errorf("a second process through a link made after start: %v\n%s", err, out)
	}
	time.Sleep(300 * time.Millisecond)
	if k, _ := rc.snapshot(); len(k) != 5 {
		t.Errorf("%d distinct kills, want 5", len(k))
	}
	for key, n := range func() map[string]int { k, _ := rc.snapshot(); return k }() {
		if n != 1 {
			t.Errorf("kill %s POSTed %d times, want 1", key, n)
		}
	}
}

// TestMisconfiguredReceiverIsSaidOnStderr: audit a2 — a redirect or a
// 401/403/404/405 printed nothing on stderr; only the JSON line and the
// journal named it. One loud line names the status, the redacted Location
// and the setting to fix: the first, then every hundredth.
func TestMisconfiguredReceiverIsSaidOnStderr(t *testing.T) {
	bin := burnrate(t)
	for _, tc := range []struct {
		status int
		jobs   int
		lines  int
		says   []string
	}{
		{302, 5, 1, []string{"HTTP 302 redirects to http://127.0.0.1:9/…", "redirects are never followed"}},
		{401, 5, 1, []string{"HTTP 401 Unauthorized", "receiver's token"}},
		{404, 5, 1, []string{"HTTP 404 Not Found", "check the webhook URL"}},
		{405, 250, 3, []string{"HTTP 405 Method Not Allowed"}}, // 1st, 100th, 200th
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.status/100 == 3 {
				w.Header().Set("Location", "http://127.0.0.1:9/landed/SECRETPATH?token=SECRETQUERY")
			}
			w.WriteHeader(tc.status)
		}))
		dir := t.TempDir()
		logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
		night(t, logPath, "2026-03-10", tc.jobs)
		cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.1",
			"--kill-webhook", srv.URL+"/hook/SECRETHOOK?token=SECRETTOKEN", "--journal", journal, logPath)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		srv.Close()
		if err != nil {
			t.Fatalf("HTTP %d: %v\n%s", tc.status, err, stderr.String())
		}
		var said []string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(l, "is misconfigured") {
				said = append(said, l)
			}
		}
		if len(said) != tc.lines {
			t.Errorf("HTTP %d with %d kills: %d stderr line(s), want %d:\n%s", tc.status, tc.jobs, len(said), tc.lines, stderr.String())
			continue
		}
		for _, want := range append(tc.says, "burnrate: error: kill_webhook for job job-", "(--kill-webhook)", srv.URL+"/…?…", "(1 such delivery(ies) so far)") {
			if !strings.Contains(said[0], want) {
				t.Errorf("HTTP %d: the stderr line does not say %q:\n%s", tc.status, want, said[0])
			}
		}
		if tc.lines == 3 && (!strings.Contains(said[1], "(100 such") || !strings.Contains(said[2], "(200 such")) {
			t.Errorf("HTTP %d: not the 100th and the 200th:\n%s", tc.status, strings.Join(said, "\n"))
		}
		if strings.Contains(stderr.String()+stdout.String(), "SECRET") {
			t.Errorf("HTTP %d: a secret of the URL or the Location was printed:\n%s", tc.status, stderr.String())
		}
	}
}

// TestSeveralConfigErrorsPrintOneLineEach: audit a2 — two bad limits were
// printed as one line joined by a literal "\u000a". Each is its own
// "burnrate: config …:" line naming its key; a newline inside one error
// (a file name may hold one) stays escaped, so input cannot forge a line.
func TestSeveralConfigErrorsPrintOneLineEach(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad\nburnrate: forged.toml")
	if err := os.WriteFile(cfg, []byte("[budget]\nceiling_usd = inf\nburn_rate_usd_per_min = nan\n[job_types.sum]\nceiling_usd = -inf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--config", cfg, "../../sample-logs/healthy-night.jsonl")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("a config with three bad limits: %v, want exit 2\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	want := []string{"[budget] ceiling_usd = +Inf: ", "[budget] burn_rate_usd_per_min = NaN: ", "[job_types.sum] ceiling_usd = -Inf: "}
	if len(lines) != len(want) {
		t.Fatalf("%d stderr line(s), want %d, one per error:\n%s", len(lines), len(want), stderr.String())
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "burnrate: config ") || !strings.Contains(l, `bad\u000aburnrate: forged.toml: `+want[i]) {
			t.Errorf("line %d: %q, want the escaped file name and %q", i, l, want[i])
		}
		if strings.Count(l, `\u000a`) != 1 {
			t.Errorf("line %d: an escaped newline other than the file name's joins errors: %q", i, l)
		}
	}
}

// TestJournalReachedThroughABindMountIsRefused: the lock file is named
// after the path, and a bind mount of the journal (a container's
// /state/journal.jsonl on the host's file) is another path to one file
// with one link: both processes took their own path lock and would both
// run every kill. The file itself is locked too, so the second refuses,
// naming the first's PID. Needs root and unshare (util-linux), as the
// machine these tests run on has.
func TestJournalReachedThroughABindMountIsRefused(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare (util-linux) is needed for a private bind mount:", err)
	}
	bin := burnrate(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 5)
	rc := newReceiver(t, false)
	host, inContainer := filepath.Join(dir, "host.jsonl"), filepath.Join(dir, "container.jsonl")
	for _, p := range []string{host, inContainer} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	first := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", rc.URL, "--journal", host, logPath)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Signal(syscall.SIGTERM); first.Wait() }()
	waitUntil(t, "the first process's kills", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 5 })

	// The mount lives in a namespace of the second process's own.
	// Bounded: a second process that is not refused runs until killed.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "sh", "-c", `mount --bind "$1" "$2" && exec "$3" watch --headless --job-ceiling 0.1 --kill-webhook "$4" --journal "$2" "$5"`,
		"sh", host, inContainer, bin, rc.URL, logPath)
	out, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("a second process on the journal through a bind mount: %v, want exit 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "PID "+strconv.Itoa(first.Process.Pid)) || !strings.Contains(string(out), "another name for the same file") {
		t.Errorf("the refusal does not name the holder and why:\n%s", out)
	}
	time.Sleep(300 * time.Millisecond)
	keys, _ := rc.snapshot()
	if len(keys) != 5 {
		t.Errorf("%d distinct kills, want 5", len(keys))
	}
	for key, n := range keys {
		if n != 1 {
			t.Errorf("kill %s POSTed %d times, want 1", key, n)
		}
	}
}
