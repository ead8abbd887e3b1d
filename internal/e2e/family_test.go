package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// setsidScript writes a kill command that starts a child in a session of
// its own ("setsid sleep 1000 &": it leaves the command's process group)
// and writes the child's PID to a file of its own per run, then hangs.
func setsidScript(t *testing.T, dir string) (script string, pids func() []int) {
	script = filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, script, `setsid sleep 1000 </dev/null >/dev/null 2>&1 &
echo $! >> `+filepath.Join(dir, "pids")+`
sleep 1000
`)
	return script, func() []int {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		var out []int
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
}

// procAlive: pid runs (a zombie has done all it will; init reaps it).
func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// procGone: no process pid at all, not even a zombie.
func procGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err != nil
}

// TestASetsidChildOfAKillCommandEndsAtTheTimeout: issue 34 — a kill
// command's child that called setsid left the command's process group, so
// the SIGKILL to the group at exec_timeout missed it and it ran on. The
// child is ended with the group, and burnrate, its subreaper, reaps it:
// no process and no zombie is left while burnrate runs on.
func TestASetsidChildOfAKillCommandEndsAtTheTimeout(t *testing.T) {
	dir := t.TempDir()
	script, pids := setsidScript(t, dir)
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	cfg := actionsConfig(t, dir, "exec_timeout = \"1s\"\n")
	d := startDaemon(t, "--config", cfg, "--job-ceiling", "0.1", "--kill-exec", "sh "+script, "--journal", journal, logPath)
	defer d.stop(syscall.SIGTERM)
	waitUntil(t, "the command's child", 10*time.Second, func() bool { return len(pids()) == 1 })
	child := pids()[0]
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	waitUntil(t, "the command timed out", 10*time.Second, func() bool {
		b, _ := os.ReadFile(journal)
		return bytes.Contains(b, []byte(`"timed_out":true`))
	})
	waitUntil(t, "the setsid child ended and reaped", 5*time.Second, func() bool { return procGone(child) })
}

// TestASetsidChildOfAKillCommandEndsAtTheNextStart: issue 34 — across a
// SIGKILL of burnrate, Pdeathsig takes the command and the start's
// endGroup its group, but not a child that called setsid: the restart's
// re-run overlapped it. The command's descendants are journaled while it
// runs (PID and start time), and the next start ends them before the
// re-run.
func TestASetsidChildOfAKillCommandEndsAtTheNextStart(t *testing.T) {
	dir := t.TempDir()
	script, pids := setsidScript(t, dir)
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	args := []string{"--job-ceiling", "0.1", "--kill-exec", "sh " + script, "--journal", journal, logPath}
	d := startDaemon(t, args...)
	waitUntil(t, "the command's child", 10*time.Second, func() bool { return len(pids()) == 1 })
	child := pids()[0]
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	waitUntil(t, "the child journaled", 5*time.Second, func() bool {
		b, _ := os.ReadFile(journal)
		return bytes.Contains(b, []byte(`"pid":`+strconv.Itoa(child)+`,`))
	})
	d.stop(syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	if !procAlive(child) {
		t.Fatalf("the setsid child died with burnrate: nothing to test")
	}
	d2 := startDaemon(t, args...)
	waitUntil(t, "the re-run", 15*time.Second, func() bool { return len(pids()) == 2 })
	if procAlive(child) {
		t.Errorf("the first run's setsid child (%d) still runs beside the re-run\n%s", child, d2.out())
	}
	if !strings.Contains(d2.out(), "outside its group were still running and were ended first") {
		t.Errorf("the start does not say it ended the child first:\n%s", d2.out())
	}
	second := pids()[1]
	t.Cleanup(func() { syscall.Kill(second, syscall.SIGKILL) })
	// The stop ends the re-run's family too.
	time.Sleep(300 * time.Millisecond)
	d2.stop(syscall.SIGTERM)
	if procAlive(second) {
		t.Errorf("the re-run's setsid child (%d) outlived the stop", second)
	}
}

// TestOrphansOfKillCommandsAreReaped: issue 34's red team — a kill
// command that leaves a quick background child ("( sleep 0.3 & ); exit
// 0") orphans it to burnrate, the subreaper, before any poll of /proc
// sees it; only descendants seen were reaped, so 50 kills left 50
// zombies for as long as burnrate ran. Every adopted orphan is reaped.
func TestOrphansOfKillCommandsAreReaped(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "dfork.sh")
	testutil.WriteFile(t, script, "( sleep 0.3 & )\nexit 0\n")
	logPath := filepath.Join(dir, "kills.jsonl")
	var b strings.Builder
	for i := range 50 {
		b.WriteString(`{"ts": "2026-12-07T01:00:` + strconv.Itoa(10+i%50) + `Z", "event": "llm_call", "job_id": "job-` + strconv.Itoa(i) +
			`", "model": "gpt-4o", "status": 200, "input_tokens": 10, "output_tokens": 10, "cost_usd": 2}` + "\n")
	}
	testutil.WriteFile(t, logPath, b.String())
	journal := filepath.Join(dir, "journal.jsonl")
	d := startDaemon(t, "--job-ceiling", "1", "--kill-exec", "sh "+script+" {job_id}", "--journal", journal, logPath)
	defer d.stop(syscall.SIGTERM)
	waitUntil(t, "50 kill commands ran", 60*time.Second, func() bool {
		b, _ := os.ReadFile(journal)
		return bytes.Count(b, []byte(`"exit_code":0`)) >= 50
	})
	zombies := func() int {
		n := 0
		kids, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range kids {
			s, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			i := bytes.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			fs := bytes.Fields(s[i+1:])
			if len(fs) > 1 && string(fs[0]) == "Z" && string(fs[1]) == strconv.Itoa(d.cmd.Process.Pid) {
				n++
			}
		}
		return n
	}
	// The orphans sleep 0.3 s after their command; then a SIGCHLD, or the
	// second's scan, reaps them.
	waitUntil(t, "no zombie child of burnrate", 5*time.Second, func() bool { return zombies() == 0 })
}
