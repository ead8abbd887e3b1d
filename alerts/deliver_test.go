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
	if m := groupMembers(pg, st+1, ""); m != nil {
		t.Errorf("a group with another leader start was taken for the recorded one: %v", m)
	}
	n, err := endGroup(pg, st, "")
	if n != 1 || err != nil {
		t.Errorf("endGroup: %d found, %v", n, err)
	}
	if m := groupMembers(pg, st, ""); len(m) != 0 {
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
	n, err := endGroup(cmd.Process.Pid, st, "")
	if n < 2 || err != nil || time.Since(start) < groupGrace {
		t.Errorf("endGroup: %d found, %v, after %s; want the shell and its sleep, ended by SIGKILL after the grace", n, err, time.Since(start))
	}
}

// TestEndGroupOnlyWithItsMark: red team R8-14 — a "sent" kill command's
// group was ended at the next start by its group ID and its leader's
// start time alone; after a reboot (start times count from another boot)
// or a wrapped PID, an unrelated group with the same ID and later members
// was SIGKILLed. Only processes whose environment holds the run's mark
// are ended; a group of which a live member lacks it is not ours.
func TestEndGroupOnlyWithItsMark(t *testing.T) {
	mark := newRunMark()
	start := func(env ...string) (*exec.Cmd, uint64) {
		cmd := exec.Command("sh", "-c", "sleep 30 & wait")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go cmd.Wait()
		time.Sleep(200 * time.Millisecond)
		st, err := procStart(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		return cmd, st
	}
	// An innocent group: the same ID and start, no mark (another boot's).
	innocent, st := start()
	if n, err := endGroup(innocent.Process.Pid, st, mark); n != 0 || err != nil {
		t.Errorf("endGroup of an unmarked group: %d ended, %v; want none", n, err)
	}
	if err := syscall.Kill(innocent.Process.Pid, 0); err != nil {
		t.Errorf("the innocent group's leader is gone: %v", err)
	}
	// Another run's mark is not this one's.
	other, st2 := start(runMarkEnv + "=" + newRunMark())
	if n, _ := endGroup(other.Process.Pid, st2, mark); n != 0 {
		t.Errorf("endGroup of another run's group: %d ended; want none", n)
	}
	// Its own group, marked: ended.
	own, st3 := start(runMarkEnv + "=" + mark)
	if n, err := endGroup(own.Process.Pid, st3, mark); n < 2 || err != nil {
		t.Errorf("endGroup of its own marked group: %d ended, %v; want the shell and its sleep", n, err)
	}
	// Its setsid'd processes by PID and start time: the same rule.
	if n, _ := endProcs([]Proc{{PID: other.Process.Pid, Start: st2}}, 0, mark); n != 0 {
		t.Errorf("endProcs of another run's process: %d; want none", n)
	}
}
