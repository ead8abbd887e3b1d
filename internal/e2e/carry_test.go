package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/statedir"
)

// carryProc is one `watch --headless` fed over OTLP/HTTP: a replica of the
// night in issue 28's restart straddle.
type carryProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	lines  []string
	stderr bytes.Buffer
	done   chan struct{}
	stdin  io.WriteCloser // a watch of "-"
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCarryProc starts a watch on journal's directory with an OTLP/HTTP
// receiver and waits until it listens.
func startCarryProc(t *testing.T, journal string, extra ...string) *carryProc {
	t.Helper()
	return startCarryProcUnder(t, nil, journal, extra...)
}

// start runs p's command, gathering its stdout lines until it ends.
func (p *carryProc) start(t *testing.T) {
	t.Helper()
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
		close(p.done)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
}

// startCarryProcUnder is startCarryProc run by a wrapper command (prlimit).
func startCarryProcUnder(t *testing.T, wrapper []string, journal string, extra ...string) *carryProc {
	t.Helper()
	p := &carryProc{t: t, addr: freeAddr(t), done: make(chan struct{})}
	args := append([]string{"watch", "--headless", "--journal", journal, "--otlp-http", p.addr}, extra...)
	argv := append(append(wrapper[:len(wrapper):len(wrapper)], burnrate(t)), args...)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	p.start(t)
	waitUntil(t, "the OTLP receiver to listen", 15*time.Second, func() bool {
		c, err := net.Dial("tcp", p.addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// span posts one model call of job (10,000 input and 10,000 output tokens
// of claude-sonnet-4-5: $0.18) at minute min of the night; runID, when
// set, is the span's run.id.
func (p *carryProc) span(job, runID string, min int) {
	p.t.Helper()
	attrs := fmt.Sprintf(`{"key":"service.name","value":{"stringValue":"worker"}},{"key":"job.id","value":{"stringValue":%q}},{"key":"job.type","value":{"stringValue":"nightly"}}`, job)
	if runID != "" {
		attrs += fmt.Sprintf(`,{"key":"run.id","value":{"stringValue":%q}}`, runID)
	}
	start := int64(1796180270000000000) + int64(min)*int64(time.Minute)
	body := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[%s]},"scopeSpans":[{"scope":{"name":"manual"},"spans":[{"traceId":"%032x","spanId":"%016x","name":"chat claude-sonnet-4-5","kind":3,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.system","value":{"stringValue":"anthropic"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.response.model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"10000"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"10000"}}]}]}]}]}`,
		attrs, start, start, start, start+2e9)
	resp, err := http.Post("http://"+p.addr+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		p.t.Fatalf("OTLP post: %s", resp.Status)
	}
}

// settle gives a posted span time to be applied (the status line that
// would say so is a minute away).
func (p *carryProc) settle() { time.Sleep(400 * time.Millisecond) }

// stop ends the process with sig and waits for it.
func (p *carryProc) stop(sig syscall.Signal) {
	p.t.Helper()
	p.cmd.Process.Signal(sig)
	p.cmd.Wait()
	<-p.done
}

func (p *carryProc) alerts(rule string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, l := range p.lines {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "alert" && m["rule"] == rule {
			out = append(out, m)
		}
	}
	return out
}

func (p *carryProc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// TestRestartMidNightLosesNoKill: issue 28's straddle — one job, two spans
// of $0.18, a $0.20 job ceiling, the replica stopped (SIGTERM) between
// them: the restarted replica saw $0.18 and never killed. Now the stop
// carries the job's spend, the restart adds the second span to it, and the
// kill fires once at $0.36 and is delivered once. Two more restarts: a
// job that crosses only after the second is killed there, at $0.54; the
// job killed before is never killed again (the journal blocks it).
func TestRestartMidNightLosesNoKill(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.2", "--run-id", "night-x", "--replica", "b", "--kill-webhook", rc.URL}
	rep := filepath.Join(dir, "b.json") // the first part's is moved aside at the restart

	p1 := startCarryProc(t, journal, append(args, "--report-out", rep)...)
	p1.span("job-straddle", "", 0)
	p1.settle()
	p1.stop(syscall.SIGTERM)
	if n := len(p1.alerts("job_ceiling")); n != 0 {
		t.Fatalf("part 1 ($0.18) fired %d job_ceiling alerts", n)
	}
	if _, err := os.Stat(statedir.CarryPath(journal)); err != nil {
		t.Fatalf("no carry written at SIGTERM: %v\n%s", err, p1.errText())
	}

	p2 := startCarryProc(t, journal, append(args, "--report-out", rep)...)
	p2.span("job-straddle", "", 1)
	waitUntil(t, "the job_ceiling alert after the restart", 10*time.Second, func() bool { return len(p2.alerts("job_ceiling")) > 0 })
	waitUntil(t, "the kill to be delivered", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p2.stop(syscall.SIGTERM)
	a := p2.alerts("job_ceiling")
	if len(a) != 1 || a[0]["job_id"] != "job-straddle" || a[0]["spend_usd"].(float64) != 0.36 || a[0]["run_id"] != "night-x" {
		t.Fatalf("after the restart: %v, want one job_ceiling of job-straddle at $0.36 in night-x\n%s", a, p2.errText())
	}
	if !strings.Contains(p2.errText(), "resumed 1 run(s) carried across the last stop ($0.1800, 1 job(s))") {
		t.Errorf("the resume is not said:\n%s", p2.errText())
	}
	t.Logf("after one restart: job_ceiling at $%.2f, %s", a[0]["spend_usd"], strings.TrimSpace(p2.errText()[strings.Index(p2.errText(), "resumed"):]))
	// The report after the restart holds the one before it: report --merge
	// of the two counts the night once.
	parts, _ := filepath.Glob(filepath.Join(dir, "b*.json"))
	if len(parts) != 2 {
		t.Fatalf("reports %v, want the two parts", parts)
	}
	out, err := exec.Command(burnrate(t), append([]string{"report", "--merge", "--format", "json"}, parts...)...).Output()
	if err != nil {
		t.Fatalf("report --merge: %v", err)
	}
	var merged correlate.Report
	if err := json.Unmarshal(out, &merged); err != nil {
		t.Fatal(err)
	}
	if merged.Totals.SpendUSD != 0.36 || merged.Totals.Attempts != 2 || len(merged.Jobs) != 1 || merged.Jobs[0].Attempts != 2 || merged.Jobs[0].SpendUSD != 0.36 {
		t.Errorf("merged parts: $%v, %d calls, jobs %+v; want job-straddle once, 2 calls, $0.36", merged.Totals.SpendUSD, merged.Totals.Attempts, merged.Jobs)
	}

	// Two restarts: job-late is $0.18 a part under a $0.50 ceiling of its own
	// type; straddle logs again after its kill.
	args2 := []string{"--run-id", "night-x", "--replica", "b", "--kill-webhook", rc.URL, "--config", writeCarryConfig(t, dir)}
	p3 := startCarryProc(t, journal, args2...)
	p3.span("job-late", "", 2)
	p3.span("job-straddle", "", 3)
	p3.settle()
	p3.stop(syscall.SIGTERM)
	p4 := startCarryProc(t, journal, args2...)
	p4.span("job-late", "", 4)
	p4.settle()
	p4.stop(syscall.SIGTERM)
	p5 := startCarryProc(t, journal, args2...)
	p5.span("job-late", "", 5)
	waitUntil(t, "job-late's kill after the second restart", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 2 })
	time.Sleep(300 * time.Millisecond) // room for a second delivery to show
	p5.stop(syscall.SIGTERM)
	for _, p := range []*carryProc{p3, p4} {
		for _, al := range p.alerts("job_ceiling") {
			if al["job_id"] == "job-late" {
				t.Errorf("job-late killed before it crossed: %v", al)
			}
		}
	}
	late := p5.alerts("job_ceiling")
	if len(late) != 1 || late[0]["job_id"] != "job-late" || late[0]["spend_usd"].(float64) != 0.54 {
		t.Fatalf("after two restarts: %v, want one job_ceiling of job-late at $0.54\n%s", late, p5.errText())
	}
	keys, kills := rc.snapshot()
	for k, n := range keys {
		if n != 1 {
			t.Errorf("kill %s delivered %d times", k, n)
		}
	}
	byJob := map[string]int{}
	for _, k := range kills {
		byJob[fmt.Sprint(k["job_id"])]++
	}
	if byJob["job-straddle"] != 1 || byJob["job-late"] != 1 || len(kills) != 2 {
		t.Errorf("kills delivered: %v, want job-straddle and job-late once each", byJob)
	}
}

// writeCarryConfig writes a config whose nightly jobs have a $0.50 ceiling
// (--job-ceiling would beat it).
func writeCarryConfig(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "burnrate.toml")
	if err := os.WriteFile(path, []byte("[job_types.nightly]\njob_ceiling_usd = 0.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCarry reads the carry file back as the next start would.
func readCarry(t *testing.T, journal string) []engine.CarriedRun {
	t.Helper()
	f, err := os.Open(statedir.CarryPath(journal))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, runs, err := statedir.DecodeCarry(f)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestSIGKILLLosesAtMostTheLastCarryInterval: no stop runs on SIGKILL: what
// is kept is the last periodic carry, so at most --carry-interval of
// spend is lost. A span carried before the kill counts after the restart;
// one that arrived after the last carry is lost (said in the README).
func TestSIGKILLLosesAtMostTheLastCarryInterval(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	args := []string{"--job-ceiling", "0.3", "--run-id", "night-k", "--carry-interval", "1s"}
	p1 := startCarryProc(t, journal, args...)
	p1.span("job-k", "", 0)
	waitUntil(t, "a periodic carry of $0.18", 10*time.Second, func() bool {
		b, _ := os.ReadFile(statedir.CarryPath(journal))
		return bytes.Contains(b, []byte(`"spend_pico":180000000000`)) && bytes.Contains(b, []byte(`"end":true`))
	})
	p1.span("job-lost", "", 1) // after the carry, before the kill: lost
	p1.stop(syscall.SIGKILL)
	runs := readCarry(t, journal)
	if len(runs) != 1 || runs[0].Totals.Spend != 180_000_000_000 {
		t.Fatalf("carried after SIGKILL: %+v, want the run at $0.18", runs)
	}
	p2 := startCarryProc(t, journal, args...)
	p2.span("job-k", "", 2)
	waitUntil(t, "job-k's ceiling after SIGKILL and restart", 10*time.Second, func() bool { return len(p2.alerts("job_ceiling")) > 0 })
	p2.stop(syscall.SIGTERM)
	a := p2.alerts("job_ceiling")
	if len(a) != 1 || a[0]["spend_usd"].(float64) != 0.36 {
		t.Fatalf("after SIGKILL: %v, want job-k at $0.36", a)
	}
	after := readCarry(t, journal)
	if len(after) != 1 || after[0].Totals.Spend != 360_000_000_000 || len(after[0].Totals.JobList) != 1 {
		t.Fatalf("carried after the restart: %+v, want $0.36 of job-k only (job-lost arrived after the last carry)", after)
	}
}

// TestABadCarryIsSaidAndIgnored: a carry that is torn, corrupt, a symlink
// or a directory never stops the watch: it is said and the run begins at
// $0; the next carry replaces a bad file (a symlink is never written
// through).
func TestABadCarryIsSaidAndIgnored(t *testing.T) {
	good := func(journal string) {
		p := startCarryProc(t, journal, "--job-ceiling", "0.3", "--run-id", "night-c")
		p.span("job-c", "", 0)
		p.settle()
		p.stop(syscall.SIGTERM)
	}
	for _, c := range []struct {
		name, want string
		spoil      func(path string)
	}{
		{"torn", "corrupt or torn", func(path string) {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:len(b)-20], 0o600)
		}},
		{"torn at a line", "no end line", func(path string) {
			b, _ := os.ReadFile(path)
			b = bytes.TrimSuffix(b, []byte("\n"))
			os.WriteFile(path, b[:bytes.LastIndexByte(b, '\n')+1], 0o600)
		}},
		{"corrupt", "corrupt or torn", func(path string) {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(b, []byte(`"spend_pico":180000000000`), []byte(`"spend_pico":"lots"`), 1), 0o600)
		}},
		{"negative", "a negative amount", func(path string) {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(b, []byte(`"spend_pico":180000000000,"calls":1,"tool_calls":0,"first_ts_ns"`), []byte(`"spend_pico":-180000000000,"calls":1,"tool_calls":0,"first_ts_ns"`), 1), 0o600)
		}},
		{"binary", "corrupt or torn", func(path string) { os.WriteFile(path, bytes.Repeat([]byte{0xff, 0, '\n'}, 1000), 0o600) }},
		{"symlink", "symbolic link", func(path string) {
			target := path + ".elsewhere"
			os.Rename(path, target)
			os.Symlink(target, path)
		}},
		{"directory", "directory", func(path string) { os.Remove(path); os.Mkdir(path, 0o700) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			journal := filepath.Join(t.TempDir(), "journal.jsonl")
			good(journal)
			path := statedir.CarryPath(journal)
			c.spoil(path)
			p := startCarryProc(t, journal, "--job-ceiling", "0.3", "--run-id", "night-c")
			p.span("job-c", "", 1)
			p.settle()
			p.stop(syscall.SIGTERM)
			if !strings.Contains(p.errText(), "the carry file") || !strings.Contains(p.errText(), c.want) || !strings.Contains(p.errText(), "ignored") {
				t.Fatalf("stderr does not say the %s carry (%q):\n%s", c.name, c.want, p.errText())
			}
			if n := len(p.alerts("job_ceiling")); n != 0 {
				t.Errorf("a %s carry was applied: %d alerts", c.name, n)
			}
			if p.cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("exit %d", p.cmd.ProcessState.ExitCode())
			}
			switch c.name {
			case "symlink":
				if b, _ := os.ReadFile(path + ".elsewhere"); !bytes.Contains(b, []byte(`"spend_pico":180000000000`)) {
					t.Errorf("the symlink's target was written through")
				}
				if st, _ := os.Lstat(path); st.Mode()&os.ModeSymlink == 0 {
					// Renamed over: the link itself is replaced, never followed.
					if runs := readCarry(t, journal); len(runs) != 1 || runs[0].Totals.Spend != 180_000_000_000 {
						t.Errorf("the carry after the symlink: %+v", runs)
					}
				}
			case "directory":
				if !strings.Contains(p.errText(), "could not be written") {
					t.Errorf("a directory at the carry path is not said at the write:\n%s", p.errText())
				}
			default:
				if bad, _ := filepath.Glob(path + ".bad-*"); len(bad) != 1 {
					t.Errorf("the %s carry is not kept aside: %v", c.name, bad)
				}
				// Replaced by a good carry of this process's run.
				if runs := readCarry(t, journal); len(runs) != 1 || runs[0].Totals.Spend != 180_000_000_000 {
					t.Errorf("the carry after a %s one: %+v", c.name, runs)
				}
			}
		})
	}
}

// TestARunIDChangeStartsFromZero: a carried run is resumed only as the run
// it was. Another --run-id is another run: the old one's spend is not
// applied to it. With the logs' run.id, the old run is reopened as a
// previous run and a span of the new run is its own; a straggler of the old
// run still adds to the old run's carried spend.
func TestARunIDChangeStartsFromZero(t *testing.T) {
	t.Run("flag", func(t *testing.T) {
		journal := filepath.Join(t.TempDir(), "journal.jsonl")
		p1 := startCarryProc(t, journal, "--job-ceiling", "0.2", "--run-id", "night-1")
		p1.span("job-r", "", 0)
		p1.settle()
		p1.stop(syscall.SIGTERM)
		p2 := startCarryProc(t, journal, "--job-ceiling", "0.2", "--run-id", "night-2")
		p2.span("job-r", "", 1)
		p2.settle()
		p2.stop(syscall.SIGTERM)
		if a := p2.alerts("job_ceiling"); len(a) != 0 {
			t.Fatalf("night-1's spend was applied to night-2: %v", a)
		}
		if !strings.Contains(p2.errText(), "the carried run night-1 is not resumed") {
			t.Errorf("the run not resumed is not said:\n%s", p2.errText())
		}
	})
	t.Run("logs", func(t *testing.T) {
		// OTLP spans name no run (the mapping reads no run.id): the logs'
		// run_id comes through stdin, which cannot be read again either.
		journal := filepath.Join(t.TempDir(), "journal.jsonl")
		p1 := startCarryStdin(t, journal, "--job-ceiling", "0.2")
		p1.line("job-r", "n1", 0)
		// The end of stdin stops the first watch once it has read the
		// line: a SIGTERM after a fixed sleep lost it on a loaded machine
		// (the line still in the pipe), and with it the carry this test
		// is about.
		p1.endInput()
		p2 := startCarryStdin(t, journal, "--job-ceiling", "0.2")
		p2.line("job-r", "n2", 1)
		p2.settle()
		if a := p2.alerts("job_ceiling"); len(a) != 0 {
			t.Fatalf("n1's spend was applied to n2: %v", a)
		}
		p2.line("job-r", "n1", 2) // a straggler of n1
		waitUntil(t, "n1's job over its ceiling", 10*time.Second, func() bool { return len(p2.alerts("job_ceiling")) > 0 })
		p2.stop(syscall.SIGTERM)
		a := p2.alerts("job_ceiling")
		if len(a) != 1 || a[0]["run_id"] != "n1" || a[0]["spend_usd"].(float64) != 0.36 {
			t.Fatalf("the straggler: %v, want job-r of n1 at $0.36\n%s", a, p2.errText())
		}
		if runs := readCarry(t, journal); len(runs) != 2 || runs[0].ID != "n1" || runs[1].ID != "n2" || !runs[0].Current {
			t.Fatalf("carried: %+v, want n1 (current) and n2", runs)
		}
	})
}

// startCarryStdin starts a watch of stdin ("-").
func startCarryStdin(t *testing.T, journal string, extra ...string) *carryProc {
	t.Helper()
	p := &carryProc{t: t, done: make(chan struct{})}
	args := append([]string{"watch", "--headless", "--journal", journal}, extra...)
	p.cmd = exec.Command(burnrate(t), append(args, "-")...)
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = in
	p.start(t)
	return p
}

// endInput closes a stdin watch's input and waits for the watch to end:
// a clean stop after every line written was read.
func (p *carryProc) endInput() {
	p.t.Helper()
	p.stdin.Close()
	p.cmd.Wait()
	<-p.done
}

// line writes a JSON-lines call of $0.18 to a stdin watch.
func (p *carryProc) line(job, runID string, min int) {
	p.t.Helper()
	ts := time.Unix(0, 1796180270000000000).Add(time.Duration(min) * time.Minute).UTC().Format(time.RFC3339)
	if _, err := fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":%q,"job_type":"nightly","run_id":%q,"model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", ts, job, runID); err != nil {
		p.t.Fatal(err)
	}
}

// TestFilesReadFromTheStartAreNotCarried: watch reads a file from its start
// at every start, so a restart rebuilds its spend; carrying it as well
// would count it twice. A watch of files writes no carry; with --from-end
// (nothing is read again) it does.
func TestFilesReadFromTheStartAreNotCarried(t *testing.T) {
	dir := t.TempDir()
	journal, logPath := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 3)
	for i := range 2 {
		cmd := exec.Command(burnrate(t), "watch", "--headless", "--journal", journal, "--report-out", filepath.Join(dir, fmt.Sprintf("r%d.json", i)), logPath)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if _, err := os.Stat(statedir.CarryPath(journal)); err == nil {
			t.Fatalf("a watch of a file read from its start wrote a carry")
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("r%d.json", i)))
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		var r correlate.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Totals.SpendUSD != 1.5 {
			t.Fatalf("start %d: spend %v, want $1.50 (3 calls of $0.50, never twice)", i, r.Totals.SpendUSD)
		}
	}
}

// TestTwoWatchesOnOneCarry: two watches with no kill hook may share a
// journal (neither locks it); only the first owns the carry, the second
// says so and neither reads nor writes it.
func TestTwoWatchesOnOneCarry(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	p1 := startCarryProc(t, journal, "--run-id", "night-a")
	p2 := startCarryProc(t, journal, "--run-id", "night-b")
	p1.span("job-a", "", 0)
	p2.span("job-b", "", 0)
	p1.settle()
	p2.stop(syscall.SIGTERM)
	p1.stop(syscall.SIGTERM)
	if !strings.Contains(p2.errText(), "is held by burnrate PID") {
		t.Errorf("the second watch does not say who holds the carry:\n%s", p2.errText())
	}
	runs := readCarry(t, journal)
	if len(runs) != 1 || runs[0].ID != "night-a" {
		t.Fatalf("carried %+v, want night-a's run only", runs)
	}
}

// TestAFullDiskKeepsTheLastGoodCarry: a carry that cannot be written (a
// full disk, RLIMIT_FSIZE) is said on stderr, the watch goes on, and the
// file keeps the last carry that was written whole: the temporary file is
// never renamed over it.
func TestAFullDiskKeepsTheLastGoodCarry(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Fatal("prlimit (util-linux) is needed to cap the carry's size:", err)
	}
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	p1 := startCarryProc(t, journal, "--run-id", "night-f")
	p1.span("job-f0", "", 0)
	p1.settle()
	p1.stop(syscall.SIGTERM)
	before, err := os.ReadFile(statedir.CarryPath(journal))
	if err != nil {
		t.Fatal(err)
	}
	// Room for the first carry, not for one of twelve jobs.
	limit := fmt.Sprintf("--fsize=%d", len(before)+200)
	p2 := startCarryProcUnder(t, []string{"prlimit", limit, "--"}, journal, "--run-id", "night-f")
	for i := range 12 {
		p2.span(fmt.Sprintf("job-f%d", i+1), "", 1+i) // a span ID of its own: the receiver bills a repeated one once
	}
	p2.settle()
	p2.stop(syscall.SIGTERM)
	if !strings.Contains(p2.errText(), "could not be written") {
		t.Fatalf("a carry past RLIMIT_FSIZE is not said (%v):\n%s", p2.cmd.ProcessState, p2.errText())
	}
	after, _ := os.ReadFile(statedir.CarryPath(journal))
	if !bytes.Equal(after, before) {
		t.Fatalf("the last good carry was replaced:\n%s", after)
	}
	if runs := readCarry(t, journal); len(runs) != 1 || runs[0].Totals.Spend != 180_000_000_000 {
		t.Fatalf("the carry kept: %+v", runs)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(journal), ".*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestFromEndFilesAreCarried: a file followed --from-end is not read again
// at a restart (what was written before it is skipped), so its spend is
// carried like OTLP's, and counted once.
func TestFromEndFilesAreCarried(t *testing.T) {
	dir := t.TempDir()
	journal, logPath := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "live.jsonl")
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	appendCall := func(min int) {
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		ts := time.Unix(0, 1796180270000000000).Add(time.Duration(min) * time.Minute).UTC().Format(time.RFC3339)
		fmt.Fprintf(f, `{"ts":%q,"event":"llm_call","job_id":"job-e","job_type":"nightly","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", ts)
		f.Close()
	}
	var alerts []string
	for part := range 2 {
		cmd := exec.Command(burnrate(t), "watch", "--headless", "--from-end", "--poll-interval", "50ms", "--job-ceiling", "0.3", "--run-id", "night-e", "--journal", journal, logPath)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(700 * time.Millisecond) // at the end of the file before the line is written
		appendCall(part)
		time.Sleep(700 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.Contains(l, `"type":"alert"`) && strings.Contains(l, `"rule":"job_ceiling"`) {
				alerts = append(alerts, l)
			}
		}
		if part == 1 && len(alerts) != 1 {
			t.Fatalf("after the restart: %d job_ceiling alerts, want one at $0.36\n%s", len(alerts), stderr.String())
		}
	}
	if !strings.Contains(alerts[0], `"spend_usd":0.36`) {
		t.Errorf("the alert: %s, want job-e at $0.36 (its line before the restart counted once)", alerts[0])
	}
}
