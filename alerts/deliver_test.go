package alerts

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestRetryAfterIsHonouredUpToTheCap: a "Retry-After: 120" inside a 60 s
// deadline gave up at once (issue 34: 1 request); it is now waited out up
// to MaxRetryAfter, then the delivery is made again.
func TestRetryAfterIsHonouredUpToTheCap(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(429)
		}
	}))
	defer srv.Close()
	p := NewPoster(time.Second, 5*time.Second, nil)
	p.MaxRetryAfter = 50 * time.Millisecond
	start := time.Now()
	d := p.Post(context.Background(), srv.URL, "k", []byte("{}"))
	if d.Err != nil || d.Attempts != 2 || time.Since(start) > 3*time.Second {
		t.Errorf("delivery %+v after %s; want 2 attempts, the second after the capped wait", d, time.Since(start))
	}
	// Past the delivery's deadline the capped wait is handed on, for the
	// next delivery to honour.
	n.Store(0)
	p.MaxRetryAfter, p.Deadline = 2*time.Second, time.Second
	d = p.Post(context.Background(), srv.URL, "k", []byte("{}"))
	if d.Err == nil || d.RetryAfter != 2*time.Second {
		t.Errorf("delivery %+v; want a failure carrying the capped Retry-After (2s)", d)
	}
}

// TestRedeliverWaitIsJitteredAndBounded: equal jitter between half and
// the whole of min(60 s, 1 s·2ⁿ), never below the receiver's Retry-After.
func TestRedeliverWaitIsJitteredAndBounded(t *testing.T) {
	for round := 1; round < 12; round++ {
		d := min(redeliverCap, redeliverBase<<(round-1))
		for range 50 {
			w := redeliverWait(round, 0)
			if w < d/2 || w > d {
				t.Fatalf("round %d: %s, want %s to %s", round, w, d/2, d)
			}
		}
	}
	if w := redeliverWait(1, 7*time.Second); w != 7*time.Second {
		t.Errorf("with Retry-After 7s: %s", w)
	}
}

// TestProcStatReadsGroupAndStart: the journal's record of a command's
// group is read from /proc/PID/stat, past a command name that holds
// spaces and parentheses.
func TestProcStatReadsGroupAndStart(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a b) (c")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(sleep, name); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, "5")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pg, st, err := procStat(cmd.Process.Pid)
	if err != nil || pg != cmd.Process.Pid || st == 0 {
		t.Fatalf("procStat: group %d start %d err %v; want group %d", pg, st, err, cmd.Process.Pid)
	}
	// A wrong start time is another process: not ours to end.
	if m := groupMembers(pg, st+1); m != nil {
		t.Errorf("a group with another leader start was taken for the recorded one: %v", m)
	}
	n, err := endGroup(pg, st)
	if n != 1 || err != nil {
		t.Errorf("endGroup: %d found, %v", n, err)
	}
	if m := groupMembers(pg, st); len(m) != 0 {
		t.Errorf("group still alive: %v", m)
	}
}

// TestEndGroupKillsWhatIgnoresSIGTERM: a leftover that traps SIGTERM gets
// SIGKILL after the grace.
func TestEndGroupKillsWhatIgnoresSIGTERM(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 30 & wait; sleep 30`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait() // reap the leader, as init would
	time.Sleep(200 * time.Millisecond)
	st, err := procStart(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := endGroup(cmd.Process.Pid, st)
	if n < 2 || err != nil || time.Since(start) < groupGrace {
		t.Errorf("endGroup: %d found, %v, after %s; want the shell and its sleep, ended by SIGKILL after the grace", n, err, time.Since(start))
	}
}
