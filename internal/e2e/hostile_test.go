package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Issue 38: bounded work on hostile files, measured on the process.

const hostileGood = `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"after","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"status":200}` + "\n"

// hugeFirstLine writes a log whose first line is 100 MB of one JSON
// string with no newline until its end, then one good line.
func hugeFirstLine(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event":"llm_call","msg":"`)
	block := bytes.Repeat([]byte("a"), 1<<20)
	for range 100 {
		f.Write(block)
	}
	f.WriteString("\"}\n" + hostileGood)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// usage is a finished child's CPU time. Its rusage peak RSS is not its
// own: os/exec starts a child with CLONE_VM|CLONE_VFORK, and the kernel
// carries the shared memory's high-water mark — this test binary's, which
// other tests grow — into the child's ru_maxrss at exec (a 300 MiB parent
// makes /bin/true report 302 MiB). hwm samples the child's own.
func usage(ps *os.ProcessState) (cpu time.Duration) {
	return ps.UserTime() + ps.SystemTime()
}

// hwm samples a running child's own peak RSS (VmHWM of its memory after
// exec) until stop is called, and returns it in MiB. VmHWM only rises, so
// the last sample before the exit misses at most the final few
// milliseconds' growth.
func hwm(pid int) (stop func() int64) {
	var peak atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	read := func() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb>>10 > peak.Load() {
					peak.Store(kb >> 10)
				}
			}
		}
	}
	go func() {
		defer close(finished)
		for {
			read()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		read()
		close(done)
		<-finished
		return peak.Load()
	}
}

// TestHugeFirstLineCostsTheLineCap: a 100 MB first line that is valid JSON
// as far as the first 64 KiB go was taken for a JSON document and buffered
// up to its 64 MiB record cap (a peak of 455 MiB), and the line after it
// was lost with the "document". It is a line over the 1 MiB cap: skipped
// and counted, the next line read, in about the memory of any small log.
func TestHugeFirstLineCostsTheLineCap(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 100 MB and measures peak memory: the plain pass")
	}
	dir := t.TempDir()
	log := hugeFirstLine(t, dir)

	cmd := exec.Command(burnrate(t), "report", "--format", "json", log)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := hwm(cmd.Process.Pid)
	err := cmd.Wait()
	rss := peak()
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	t.Logf("report: peak RSS %d MiB", rss)
	if rss > 120 {
		t.Errorf("report peaked at %d MiB on a 100 MB first line: want the line cap plus a constant (under 120 MiB)", rss)
	}
	if !strings.Contains(out.String(), `"too_long": 1`) || !strings.Contains(out.String(), `"job_id": "after"`) {
		t.Errorf("the long line must be counted too long and the line after it read:\n%.1500s", out.String())
	}

	// The same log on stdin (report -): read as a stream, the same bound.
	in, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd = exec.Command(burnrate(t), "report", "--format", "json", "-")
	out.Reset()
	stderr.Reset()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak = hwm(cmd.Process.Pid)
	err = cmd.Wait()
	rss = peak()
	if err != nil {
		t.Fatalf("report -: %v\n%s", err, stderr.String())
	}
	t.Logf("report -: peak RSS %d MiB", rss)
	if rss > 120 {
		t.Errorf("report - peaked at %d MiB on a 100 MB first line on stdin: want under 120 MiB", rss)
	}
	if !strings.Contains(out.String(), `"too_long": 1`) || !strings.Contains(out.String(), `"job_id": "after"`) {
		t.Errorf("stdin: the long line must be counted too long and the line after it read:\n%.1500s", out.String())
	}

	// watch follows the same file: the same bound.
	d := startDaemon(t, "--journal", filepath.Join(dir, "journal.jsonl"), "--poll-interval", "20ms", log)
	peak = hwm(d.cmd.Process.Pid)
	time.Sleep(3 * time.Second)
	rss = peak()
	d.stop(syscall.SIGTERM)
	t.Logf("watch: peak RSS %d MiB", rss)
	if rss > 120 {
		t.Errorf("watch peaked at %d MiB on a 100 MB first line: want under 120 MiB", rss)
	}

	// And watch - reading it from a pipe.
	in.Seek(0, 0)
	d = &daemon{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	d.cmd = exec.Command(burnrate(t), "watch", "--headless", "--journal", filepath.Join(dir, "journal2.jsonl"), "-")
	d.cmd.Stdin, d.cmd.Stdout, d.cmd.Stderr = in, d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill(); d.cmd.Wait() })
	peak = hwm(d.cmd.Process.Pid)
	time.Sleep(3 * time.Second)
	rss = peak()
	d.stop(syscall.SIGTERM)
	t.Logf("watch -: peak RSS %d MiB", rss)
	if rss > 120 {
		t.Errorf("watch - peaked at %d MiB on a 100 MB first line on stdin: want under 120 MiB", rss)
	}
}

// cpuTicks is a running process's user and system CPU time so far, in
// clock ticks (1/100 s here), from /proc/PID/stat.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses and
	// may hold spaces: utime and stime are the 12th and 13th of them.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// TestHugeFirstArrayRecordCostsItsCap: a JSON array whose first record
// is 100 MB was buffered up to the 64 MiB record cap, the decoder doubling
// its buffer on the way (a 456 MiB peak). A record of an array of log
// records is capped at MaxArrayRecordBytes and skipped past in constant
// memory: counted too long, the record after it read.
func TestHugeFirstArrayRecordCostsItsCap(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 100 MB and measures peak memory: the plain pass")
	}
	log := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`[{"event":"llm_call","msg":"`)
	block := bytes.Repeat([]byte("a"), 1<<20)
	for range 100 {
		f.Write(block)
	}
	f.WriteString("\"},\n" + strings.TrimSuffix(hostileGood, "\n") + "]\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(burnrate(t), "report", "--format", "json", log)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := hwm(cmd.Process.Pid)
	err = cmd.Wait()
	rss := peak()
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	t.Logf("report: peak RSS %d MiB", rss)
	if rss > 120 {
		t.Errorf("report peaked at %d MiB on a 100 MB first array record: want its cap plus a constant (under 120 MiB)", rss)
	}
	if !strings.Contains(out.String(), `"too_long": 1`) || !strings.Contains(out.String(), `"job_id": "after"`) {
		t.Errorf("the long record must be counted too long and the record after it read:\n%.1500s", out.String())
	}
}

// TestFollowedFileReplacedByNothingReal: a followed log replaced by a
// sparse file of 1 TiB, by a FIFO, or by a symlink to /dev/zero is
// recognised and said once on stderr, and costs no CPU while nothing real
// arrives (the sparse file kept a core busy reading its NULs).
func TestFollowedFileReplacedByNothingReal(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures CPU time: the plain pass")
	}
	for _, c := range []struct {
		name, said string
		replace    func(t *testing.T, path string) bool
	}{
		{"sparse", "skipped unread", func(t *testing.T, path string) bool {
			tmp := path + ".new"
			f, err := os.Create(tmp)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Truncate(1<<40) != nil {
				return false
			}
			return os.Rename(tmp, path) == nil
		}},
		{"fifo", "FIFO", func(t *testing.T, path string) bool {
			os.Remove(path)
			return syscall.Mkfifo(path, 0o644) == nil
		}},
		{"devzero", "device", func(t *testing.T, path string) bool {
			os.Remove(path)
			return os.Symlink("/dev/zero", path) == nil
		}},
		{"dir", "is a directory", func(t *testing.T, path string) bool {
			os.Remove(path)
			return os.Mkdir(path, 0o755) == nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "app.jsonl")
			os.WriteFile(log, []byte(hostileGood), 0o644)
			d := startDaemon(t, "--journal", filepath.Join(dir, "journal.jsonl"), "--poll-interval", "20ms", log)
			time.Sleep(500 * time.Millisecond)
			if !c.replace(t, log) {
				t.Skip("cannot make one here")
			}
			time.Sleep(time.Second)
			// Once it has seen the replacement: 3 s of it costs what an
			// idle follower's polls do (about 1% of a core at a 20 ms
			// poll), not a core reading NULs or a device.
			before := cpuTicks(t, d.cmd.Process.Pid)
			time.Sleep(3 * time.Second)
			window := cpuTicks(t, d.cmd.Process.Pid) - before
			d.stop(syscall.SIGTERM)
			cpu := usage(d.cmd.ProcessState)
			t.Logf("%s: CPU %v over ~4.5 s, %d ticks in the 3 s after the replacement was seen", c.name, cpu, window)
			if cpu > 1500*time.Millisecond {
				t.Errorf("%s: %v of CPU in 4.5 s with nothing real to read", c.name, cpu)
			}
			if window > 30 {
				t.Errorf("%s: %d ticks (1/100 s) of CPU in 3 s with nothing real to read: want an idle follower's few", c.name, window)
			}
			if n := strings.Count(d.err(), c.said); n != 1 {
				t.Errorf("%s: want it said once on stderr (%q), said %d times:\n%s", c.name, c.said, n, d.err())
			}
		})
	}
}
