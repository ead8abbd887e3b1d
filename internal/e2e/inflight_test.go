package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// inflightNight is an app's log of three jobs: each "calling model" line
// is answered by a "model call ok"/"model call failed" later; the stream
// is cut (a restart) after line cut, while job-1's call is in flight.
func inflightNight() []string {
	const t0 = int64(1796642058118) // ms
	line := func(ms int64, job string, attempt int, rest string) string {
		return fmt.Sprintf(`{"level":30,"time":%d,"job_id":%q,"job_type":"nightly","attempt":%d,"model":"claude-sonnet-4-5",%s}`, t0+ms, job, attempt, rest)
	}
	call := `"msg":"calling model"`
	ok := func(n int) string {
		return fmt.Sprintf(`"request_id":"req_011CLabe2e%016d","status":200,"input_tokens":5450,"output_tokens":2620,"msg":"model call ok"`, n)
	}
	failed := `"status":529,"error_type":"overloaded_error","msg":"model call failed"`
	return []string{
		line(0, "job-1", 1, call),
		line(10, "job-2", 1, call),
		line(900, "job-2", 1, ok(1)),
		line(1000, "job-3", 1, call),
		line(1500, "job-3", 1, failed),
		line(1600, "job-3", 2, call),
		// the cut: job-1 and job-3 are in flight
		line(2400, "job-1", 1, ok(2)),
		line(2500, "job-3", 2, ok(3)),
		line(2600, "job-2", 2, call),
		line(3300, "job-2", 2, ok(4)),
	}
}

// watchStdin is one spooled `watch -` (a kill hook makes it a daemon that
// spools what it cannot read again) fed lines on its stdin.
type watchStdin struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (w *watchStdin) errText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

func startWatchStdin(t *testing.T, journal, rep string) *watchStdin {
	t.Helper()
	w := &watchStdin{cmd: exec.Command(burnrate(t), "watch", "--headless", "--kill-exec", "true", "--journal", journal, "--report-out", rep, "-")}
	w.cmd.Stderr = &lockedWriter{mu: &w.mu, w: &w.stderr}
	in, err := w.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.in = in
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.cmd.Process.Kill(); w.cmd.Wait() })
	// Said once its signals are taken (a SIGTERM before would kill it
	// outright on a loaded machine).
	waitUntil(t, "the watch to start", 20*time.Second, func() bool { return strings.Contains(w.errText(), "limits in force") })
	return w
}

func (w *watchStdin) write(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w.in, l)
	}
	time.Sleep(600 * time.Millisecond) // a few batches go by: the calls are in flight
}

func (w *watchStdin) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	w.cmd.Process.Signal(sig)
	err := w.cmd.Wait()
	if sig == syscall.SIGTERM && err != nil {
		t.Fatalf("%v\n%s", err, w.errText())
	}
	w.in.Close()
}

// TestACallInFlightAcrossARestartCountsOnce: with the spool on, an app's
// "calling model" line still unanswered at a stop is handed over as a
// call of unknown outcome (the report written at the stop counts it) and
// was spooled so; its answer, read after the restart, was a second call —
// every call in flight at a restart counted twice (issue 34's leftover).
// A restart is a replay: the stream cut by a SIGTERM or a SIGKILL while
// calls are in flight gives the report of the stream read once, byte for
// byte — also when the answer never comes (the app died too), where a
// SIGKILL lost the call: its announcement was only in memory.
func TestACallInFlightAcrossARestartCountsOnce(t *testing.T) {
	full := inflightNight()
	// unanswered: job-1's answer never comes, and the stream is cut twice
	// (the call stays in flight across two restarts): counted once.
	unanswered := append(full[:6:6], full[7:]...)
	// many: 2,000 jobs announce a call none answers (the app died): each
	// is a call of unknown outcome, once, across the restarts.
	var many []string
	for i := range 2000 {
		many = append(many, fmt.Sprintf(`{"level":30,"time":%d,"job_id":"job-m%04d","attempt":1,"model":"claude-sonnet-4-5","msg":"calling model"}`, 1796642058118+int64(i), i))
	}
	// answered: 5,000 jobs announce, then each is answered (F8: past the
	// 256 a decoder held, the oldest went as calls and their answers
	// counted again), stopped with all in flight: 5,000 calls.
	a, b := announceMany(5000, 1796642058118)
	answered := append(strings.Split(strings.TrimSuffix(string(a), "\n"), "\n"), strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	// past: 40,000 in flight, past the bound held in full (F8's
	// leftover): the oldest are kept packed, spooled as held, and their
	// answers after the restart complete them as successes.
	a, b = announceMany(40000, 1796642058118)
	past := append(strings.Split(strings.TrimSuffix(string(a), "\n"), "\n"), strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	cases := []struct {
		name  string
		lines []string
		cuts  []int
		sigs  []syscall.Signal
		calls int // the calls the report must count, when set
	}{
		{"40,000 in flight, SIGTERM", past, []int{40000}, []syscall.Signal{syscall.SIGTERM}, 40000},
		{"40,000 in flight, SIGKILL", past, []int{40000}, []syscall.Signal{syscall.SIGKILL}, 40000},
		{"40,000, cut past the bound, SIGKILL", past, []int{40000 + 1000}, []syscall.Signal{syscall.SIGKILL}, 40000},
		{"5,000 in flight, SIGTERM", answered, []int{5000}, []syscall.Signal{syscall.SIGTERM}, 5000},
		{"5,000 in flight, SIGKILL", answered, []int{5000}, []syscall.Signal{syscall.SIGKILL}, 5000},
		{"SIGTERM", full, []int{6}, []syscall.Signal{syscall.SIGTERM}, 0},
		{"SIGKILL", full, []int{6}, []syscall.Signal{syscall.SIGKILL}, 0},
		{"unanswered, two restarts", unanswered, []int{6, 8}, []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, 0},
		{"unanswered, SIGTERM then SIGKILL", unanswered, []int{6, 8}, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, 0},
		// No stop ran: the call in flight is known from the copy of its
		// announcement spooled when it was read.
		{"unanswered, SIGKILL", unanswered, []int{6}, []syscall.Signal{syscall.SIGKILL}, 0},
		{"2,000 unanswered, SIGKILL then SIGTERM", many, []int{1990, 1995}, []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			once := func() string {
				dir := t.TempDir()
				journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
				w := startWatchStdin(t, journal, rep)
				w.write(c.lines)
				w.stop(t, syscall.SIGTERM)
				return reportOf(t, rep)
			}
			want := once()
			if c.calls > 0 {
				var r manyReport
				json.Unmarshal([]byte(want), &r)
				if r.Totals.Attempts != c.calls || r.Totals.FailedJobs != 0 {
					t.Errorf("uninterrupted: %d attempts, %d failed jobs, want %d, 0", r.Totals.Attempts, r.Totals.FailedJobs, c.calls)
				}
			}
			dir := t.TempDir()
			journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
			from := 0
			for i, cut := range c.cuts {
				w := startWatchStdin(t, journal, rep)
				w.write(c.lines[from:cut])
				w.stop(t, c.sigs[i])
				from = cut
			}
			w := startWatchStdin(t, journal, rep)
			w.write(c.lines[from:])
			w.stop(t, syscall.SIGTERM)
			if got := reportOf(t, rep); got != want {
				t.Errorf("restarts (%v at lines %v) with a call in flight changed the report:\n%s\nwant\n%s", c.sigs, c.cuts, got, want)
			}
		})
	}
}
