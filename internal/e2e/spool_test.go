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
)

// spoolProc is one `watch --headless` fed over OTLP/HTTP: a replica of the
// night in issue 28's restart straddle, whose events the spool keeps.
type spoolProc struct {
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

// startSpoolProc starts a watch on journal's directory with an OTLP/HTTP
// receiver and waits until it listens.
func startSpoolProc(t *testing.T, journal string, extra ...string) *spoolProc {
	t.Helper()
	return startSpoolProcUnder(t, nil, journal, extra...)
}

// start runs p's command, gathering its stdout lines until it ends.
func (p *spoolProc) start(t *testing.T) {
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

// startSpoolProcUnder is startSpoolProc run by a wrapper command (prlimit).
func startSpoolProcUnder(t *testing.T, wrapper []string, journal string, extra ...string) *spoolProc {
	t.Helper()
	p := &spoolProc{t: t, addr: freeAddr(t), done: make(chan struct{})}
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
func (p *spoolProc) span(job, runID string, min int) {
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
func (p *spoolProc) settle() { time.Sleep(400 * time.Millisecond) }

// stop ends the process with sig and waits for it.
func (p *spoolProc) stop(sig syscall.Signal) {
	p.t.Helper()
	p.cmd.Process.Signal(sig)
	p.cmd.Wait()
	<-p.done
}

func (p *spoolProc) alerts(rule string) []map[string]any {
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

func (p *spoolProc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// spoolDir is the spool beside journal (statedir/spool.Dir).
func spoolDir(journal string) string {
	return strings.TrimSuffix(journal, filepath.Ext(journal)) + ".spool"
}

// TestRestartMidNightLosesNoKill: issue 28's straddle — one job, two spans
// of $0.18, a $0.20 job ceiling, the replica stopped (SIGTERM) between
// them. The restart replays the spool, the second span adds to the first,
// and the kill fires once at $0.36 and is delivered once. Two more
// restarts: a job that crosses only after the second is killed there, at
// $0.54; the job killed before is never killed again (the journal blocks
// the replay's kill).
func TestRestartMidNightLosesNoKill(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.2", "--run-id", "night-x", "--replica", "b", "--kill-webhook", rc.URL}
	rep := filepath.Join(dir, "b.json") // the first part's is moved aside at the restart

	p1 := startSpoolProc(t, journal, append(args, "--report-out", rep)...)
	p1.span("job-straddle", "", 0)
	p1.settle()
	p1.stop(syscall.SIGTERM)
	if n := len(p1.alerts("job_ceiling")); n != 0 {
		t.Fatalf("part 1 ($0.18) fired %d job_ceiling alerts", n)
	}
	p2 := startSpoolProc(t, journal, append(args, "--report-out", rep)...)
	p2.span("job-straddle", "", 1)
	waitUntil(t, "the job_ceiling alert after the restart", 10*time.Second, func() bool { return len(p2.alerts("job_ceiling")) > 0 })
	waitUntil(t, "the kill to be delivered", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p2.stop(syscall.SIGTERM)
	a := p2.alerts("job_ceiling")
	if len(a) != 1 || a[0]["job_id"] != "job-straddle" || a[0]["spend_usd"].(float64) != 0.36 || a[0]["run_id"] != "night-x" {
		t.Fatalf("after the restart: %v, want one job_ceiling of job-straddle at $0.36 in night-x\n%s", a, p2.errText())
	}
	if !strings.Contains(p2.errText(), "replayed 1 event(s) from the spool") {
		t.Errorf("the replay is not said:\n%s", p2.errText())
	}
	// The report after the restart holds the night: report --merge of the
	// two parts counts it once.
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
	args2 := []string{"--run-id", "night-x", "--replica", "b", "--kill-webhook", rc.URL, "--config", writeSpoolConfig(t, dir, "[job_types.nightly]\njob_ceiling_usd = 0.5\n")}
	p3 := startSpoolProc(t, journal, args2...)
	p3.span("job-late", "", 2)
	p3.span("job-straddle", "", 3)
	p3.settle()
	p3.stop(syscall.SIGTERM)
	p4 := startSpoolProc(t, journal, args2...)
	p4.span("job-late", "", 4)
	p4.settle()
	p4.stop(syscall.SIGTERM)
	p5 := startSpoolProc(t, journal, args2...)
	p5.span("job-late", "", 5)
	waitUntil(t, "job-late's kill after the second restart", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 2 })
	time.Sleep(300 * time.Millisecond) // room for a second delivery to show
	p5.stop(syscall.SIGTERM)
	for _, p := range []*spoolProc{p3, p4} {
		for _, al := range p.alerts("job_ceiling") {
			if al["job_id"] == "job-late" {
				t.Errorf("job-late killed before it crossed: %v", al)
			}
		}
	}
	// p4's replay raised job-straddle's alert again: it is not written
	// again at every restart, and p4 itself raised none.
	if a := p4.alerts("job_ceiling"); len(a) != 0 {
		t.Errorf("the replay's alerts were written again: %v", a)
	}
	if !strings.Contains(p4.errText(), "alert(s) it raised again are not written again") {
		t.Errorf("the replayed alerts are not said:\n%s", p4.errText())
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

// writeSpoolConfig writes a config file.
func writeSpoolConfig(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "burnrate.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSIGKILLLosesNothing: no stop runs on SIGKILL, and nothing is lost:
// a request is answered only once its events are in the spool. The carry
// this replaces lost up to --carry-interval of spend.
func TestSIGKILLLosesNothing(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.5", "--run-id", "night-k", "--kill-webhook", rc.URL}
	p1 := startSpoolProc(t, journal, args...)
	p1.span("job-k", "", 0)
	p1.span("job-k", "", 1)
	p1.stop(syscall.SIGKILL) // at once: the answer to the post was the promise
	p2 := startSpoolProc(t, journal, args...)
	p2.span("job-k", "", 2)
	waitUntil(t, "job-k's ceiling after SIGKILL and restart", 10*time.Second, func() bool { return len(p2.alerts("job_ceiling")) > 0 })
	p2.stop(syscall.SIGTERM)
	if a := p2.alerts("job_ceiling"); len(a) != 1 || a[0]["spend_usd"].(float64) != 0.54 {
		t.Fatalf("after SIGKILL: %v, want job-k at $0.54\n%s", a, p2.errText())
	}
}

// reportOf reads a --report-out file, without its "source" (what this
// process read from its own inputs: the spool's replay is listed there).
func reportOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// source is what each process read from its own inputs, instance the
	// process that wrote the report (unique per start, so report --merge
	// tells a restart from a second replica): neither is the night's state.
	delete(m, "source")
	delete(m, "instance")
	out, _ := json.MarshalIndent(m, "", " ")
	return string(out)
}

// TestRestartAtEveryStepIsByteIdentical: a night of eight calls (three
// jobs, one over its ceiling, one retried across the restart) is watched
// whole, and again with a restart after each step, by SIGTERM and by
// SIGKILL: the report at the end is the same, byte for byte (its "source",
// what each process read from its own inputs, and its "instance", aside), and each kill is
// delivered once.
func TestRestartAtEveryStepIsByteIdentical(t *testing.T) {
	steps := []struct {
		job string
		min int
	}{{"job-a", 0}, {"job-b", 1}, {"job-a", 2}, {"job-c", 3}, {"job-a", 4}, {"job-b", 5}, {"job-c", 6}, {"job-a", 7}}
	run := func(t *testing.T, restartAfter int, sig syscall.Signal) (string, map[string]int) {
		dir := t.TempDir()
		journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
		rc := newReceiver(t, false)
		args := []string{"--job-ceiling", "0.5", "--run-id", "night-i", "--kill-webhook", rc.URL, "--report-out", rep}
		p := startSpoolProc(t, journal, args...)
		for i, s := range steps {
			if i == restartAfter {
				p.stop(sig)
				p = startSpoolProc(t, journal, args...)
			}
			p.span(s.job, "", s.min)
		}
		waitUntil(t, "job-a's kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1 })
		p.settle()
		p.stop(syscall.SIGTERM)
		keys, _ := rc.snapshot()
		return reportOf(t, rep), keys
	}
	want, keys := run(t, -1, 0)
	if len(keys) != 1 {
		t.Fatalf("the night without a restart: kills %v", keys)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		for k := 1; k < len(steps); k++ {
			got, keys := run(t, k, sig)
			if got != want {
				t.Fatalf("a restart (%v) after step %d changed the report:\n%s\nwant\n%s", sig, k, got, want)
			}
			for key, n := range keys {
				// A SIGKILL between the receiver's answer and the
				// journal's record of it leaves the outcome unknown: the
				// start sends it once more, under the same key, which the
				// receiver dedups (docs/kill-hooks.md, delivery table).
				// A clean stop never sends twice.
				if n != 1 && !(sig == syscall.SIGKILL && n == 2) {
					t.Errorf("a restart (%v) after step %d: kill %s delivered %d times", sig, k, key, n)
				}
			}
		}
	}
}

// TestAReSendBillsOnce: a Collector's retry of a batch it had delivered —
// a span batch, and a Claude Code events batch — is billed once, whether
// it comes before or after a restart: $0.12 is not $0.24, and no kill.
func TestAReSendBillsOnce(t *testing.T) {
	cc := func(seq int) string {
		return fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},"scopeLogs":[{"scope":{"name":"com.anthropic.claude_code.events"},"logRecords":[{"timeUnixNano":"%d","eventName":"claude_code.api_request","body":{"stringValue":"claude_code.api_request"},"attributes":[{"key":"session.id","value":{"stringValue":"sess-1"}},{"key":"event.sequence","value":{"intValue":"%d"}},{"key":"model","value":{"stringValue":"claude-sonnet-4-5"}},{"key":"cost_usd","value":{"doubleValue":0.12}},{"key":"input_tokens","value":{"intValue":"100"}},{"key":"output_tokens","value":{"intValue":"100"}}]}]}]}]}`,
			int64(1796180270000000000)+int64(seq)*int64(time.Minute), seq)
	}
	post := func(p *spoolProc, path, body string) {
		t.Helper()
		resp, err := http.Post("http://"+p.addr+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("OTLP post: %s", resp.Status)
		}
	}
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			dir := t.TempDir()
			journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
			rc := newReceiver(t, false)
			args := []string{"--job-ceiling", "0.2", "--run-id", "night-r", "--kill-webhook", rc.URL, "--report-out", rep}
			p := startSpoolProc(t, journal, args...)
			post(p, "/v1/logs", cc(1))
			p.span("job-s", "", 0) // $0.18 under a $0.20 ceiling
			if restart {
				p.settle()
				p.stop(syscall.SIGKILL)
				p = startSpoolProc(t, journal, args...)
			}
			post(p, "/v1/logs", cc(1)) // the Collector's retry
			p.span("job-s", "", 0)     // the same span, delivered again
			p.settle()
			p.stop(syscall.SIGTERM)
			b, _ := os.ReadFile(rep)
			var r correlate.Report
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%v\n%s", err, p.errText())
			}
			spend := map[string]float64{}
			for _, j := range r.Jobs {
				spend[j.JobID] = j.SpendUSD
			}
			if spend["sess-1"] != 0.12 || spend["job-s"] != 0.18 || r.Totals.Attempts != 2 {
				t.Errorf("billed %v in %d calls, want sess-1 $0.12 and job-s $0.18 once each", spend, r.Totals.Attempts)
			}
			if k, _ := rc.snapshot(); len(k) != 0 || len(p.alerts("job_ceiling")) != 0 {
				t.Errorf("a re-send killed: %v", k)
			}
		})
	}
}

// startSpoolStdin starts a watch of stdin ("-").
func startSpoolStdin(t *testing.T, journal string, extra ...string) *spoolProc {
	t.Helper()
	p := &spoolProc{t: t, done: make(chan struct{})}
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
func (p *spoolProc) endInput() {
	p.t.Helper()
	p.stdin.Close()
	p.cmd.Wait()
	<-p.done
}

// line writes a JSON-lines call of $0.18 to a stdin watch.
func (p *spoolProc) line(job, runID string, min int) {
	p.t.Helper()
	ts := time.Unix(0, 1796180270000000000).Add(time.Duration(min) * time.Minute).UTC().Format(time.RFC3339)
	if _, err := fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":%q,"job_type":"nightly","run_id":%q,"model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", ts, job, runID); err != nil {
		p.t.Fatal(err)
	}
}

// TestTwoPipelinesTwoRestarts: two pipelines on one stream (run_ids P and
// Q); after a restart in which only Q logs and a second restart, P's job
// ($0.18 + $0.18 over a $0.20 ceiling) is killed. The carry kept only the
// runs that logged since the last start, and P's job was never killed.
func TestTwoPipelinesTwoRestarts(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.2", "--kill-webhook", rc.URL}
	p1 := startSpoolStdin(t, journal, args...)
	p1.line("job-p", "P", 0)
	p1.line("job-q", "Q", 0)
	p1.endInput()
	p2 := startSpoolStdin(t, journal, args...)
	p2.line("job-q2", "Q", 1)
	p2.endInput()
	p3 := startSpoolStdin(t, journal, args...)
	p3.line("job-p", "P", 2)
	waitUntil(t, "P's job over its ceiling", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p3.endInput()
	a := p3.alerts("job_ceiling")
	if len(a) != 1 || a[0]["run_id"] != "P" || a[0]["job_id"] != "job-p" || a[0]["spend_usd"].(float64) != 0.36 {
		t.Fatalf("after two restarts: %v, want job-p of P at $0.36\n%s", a, p3.errText())
	}
}

// TestJobRetentionAcrossARestart: jobs retired by job_retention still count
// in their type's spend after a restart: six jobs of $0.18 under a type
// ceiling of $1.00, a restart after the third, each job retired before
// the next — the type ceiling fires at $1.08. The carry rebuilt the type's
// spend from the jobs it carried and missed it.
func TestJobRetentionAcrossARestart(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.jsonl")
	rc := newReceiver(t, false)
	cfg := writeSpoolConfig(t, dir, "[job_types.nightly]\nceiling_usd = 1.0\n")
	args := []string{"--run-id", "night-t", "--job-retention", "10m", "--kill-webhook", rc.URL, "--config", cfg}
	p := startSpoolProc(t, journal, args...)
	for i := range 6 {
		if i == 3 {
			p.settle()
			p.stop(syscall.SIGTERM)
			p = startSpoolProc(t, journal, args...)
		}
		p.span(fmt.Sprintf("job-t%d", i), "", 20*i)
	}
	waitUntil(t, "the type ceiling", 10*time.Second, func() bool { return len(p.alerts("job_type_ceiling")) > 0 })
	p.stop(syscall.SIGTERM)
	if a := p.alerts("job_type_ceiling"); len(a) != 1 || a[0]["spend_usd"].(float64) != 1.08 {
		t.Fatalf("the type ceiling after a restart: %v, want one at $1.08\n%s", a, p.errText())
	}
}

// TestAViewerInTheRestartGap: a watch with no kill hook on the daemon's
// journal, started while the daemon restarts, takes neither the journal's
// lock nor the spool: the restarted daemon replays its events and kills.
func TestAViewerInTheRestartGap(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.2", "--run-id", "night-v", "--kill-webhook", rc.URL}
	p1 := startSpoolProc(t, journal, args...)
	p1.span("job-v", "", 0)
	p1.settle()
	p1.stop(syscall.SIGTERM)
	viewer := startSpoolProc(t, journal, "--run-id", "night-v")
	p2 := startSpoolProc(t, journal, args...)
	p2.span("job-v", "", 1)
	waitUntil(t, "job-v's kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p2.stop(syscall.SIGTERM)
	viewer.stop(syscall.SIGTERM)
	if !strings.Contains(viewer.errText(), "this watch is a viewer") {
		t.Errorf("the viewer does not say it keeps nothing:\n%s", viewer.errText())
	}
	if a := p2.alerts("job_ceiling"); len(a) != 1 || a[0]["spend_usd"].(float64) != 0.36 {
		t.Fatalf("the daemon after the gap: %v\n%s", a, p2.errText())
	}
}

// TestAForeignStateDirectoryIsRefused: a state directory every user may
// write, or a spool another user owns, is refused at start (exit 2,
// said), as the journal refuses such a file: its events would be anyone's
// — a forged $99 call kills an innocent job. Leftover temporary files
// of a process killed mid-write are removed at start.
func TestAForeignStateDirectoryIsRefused(t *testing.T) {
	rc := newReceiver(t, false)
	for _, c := range []struct {
		name, want string
		spoil      func(dir, journal string)
	}{
		{"world-writable", "writable by every user", func(dir, _ string) { os.Chmod(dir, 0o777) }},
		{"foreign spool", "owned by user 4242", func(_, journal string) {
			if os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			os.Chown(spoolDir(journal), 4242, 4242)
		}},
		{"foreign segment", "owned by user 4242", func(_, journal string) {
			if os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			segs, _ := filepath.Glob(filepath.Join(spoolDir(journal), "0*"))
			os.Chown(segs[0], 4242, 4242)
		}},
		{"symlinked spool", "not a directory", func(dir, journal string) {
			os.Rename(spoolDir(journal), filepath.Join(dir, "elsewhere"))
			os.Symlink(filepath.Join(dir, "elsewhere"), spoolDir(journal))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			os.Mkdir(dir, 0o700)
			journal := filepath.Join(dir, "journal.jsonl")
			p := startSpoolProc(t, journal, "--kill-webhook", rc.URL, "--run-id", "night-f")
			p.span("job-f", "", 0)
			p.settle()
			p.stop(syscall.SIGTERM)
			c.spoil(dir, journal)
			cmd := exec.Command(burnrate(t), "watch", "--headless", "--journal", journal, "--kill-webhook", rc.URL, "--otlp-http", freeAddr(t))
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("started on a %s state (%v):\n%s", c.name, err, out)
			}
		})
	}
	t.Run("temporaries", func(t *testing.T) {
		journal := filepath.Join(t.TempDir(), "journal.jsonl")
		p := startSpoolProc(t, journal, "--kill-webhook", rc.URL)
		p.stop(syscall.SIGKILL)
		left := []string{filepath.Join(filepath.Dir(journal), ".journal-123.tmp"), filepath.Join(filepath.Dir(journal), ".journal.carry.jsonl.456.tmp")}
		for _, l := range left {
			os.WriteFile(l, bytes.Repeat([]byte("x"), 1<<20), 0o600)
		}
		p = startSpoolProc(t, journal, "--kill-webhook", rc.URL)
		p.stop(syscall.SIGTERM)
		for _, l := range left {
			if _, err := os.Stat(l); err == nil {
				t.Errorf("%s left at start", l)
			}
		}
	})
}

// TestFilesReadFromTheStartAreNotSpooled: watch reads a file from its
// start at every start, so a restart rebuilds its spend; spooling it as
// well would count it twice. A watch of files has no spool; with
// --from-end (nothing is read again) it has.
func TestFilesReadFromTheStartAreNotSpooled(t *testing.T) {
	dir := t.TempDir()
	journal, logPath := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "night.jsonl")
	night(t, logPath, "2026-03-10", 3)
	rc := newReceiver(t, false)
	for i := range 2 {
		cmd := exec.Command(burnrate(t), "watch", "--headless", "--journal", journal, "--kill-webhook", rc.URL, "--report-out", filepath.Join(dir, fmt.Sprintf("r%d.json", i)), logPath)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if _, err := os.Stat(spoolDir(journal)); err == nil {
			t.Fatalf("a watch of a file read from its start spooled it")
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

// TestFromEndFilesAreSpooled: a file followed --from-end is not read again
// at a restart (what was written before it is skipped), so its events are
// spooled like OTLP's, and counted once.
func TestFromEndFilesAreSpooled(t *testing.T) {
	dir := t.TempDir()
	journal, logPath := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "live.jsonl")
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, false)
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
		cmd := exec.Command(burnrate(t), "watch", "--headless", "--from-end", "--poll-interval", "50ms", "--job-ceiling", "0.3", "--run-id", "night-e", "--journal", journal, "--kill-webhook", rc.URL, logPath)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// At the end of the file before the line is written: the
		// follower has it open (a fixed sleep lost the line on a loaded
		// machine), then a moment for its seek to the end.
		waitUntil(t, "the log open", 20*time.Second, func() bool { return holdsOpen(cmd.Process.Pid, logPath) })
		time.Sleep(300 * time.Millisecond)
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

// TestAFullSpoolIsLoud: past --spool-max-bytes events are applied but not
// spooled, and that is said on stderr and on /metrics — never a silent
// drop: the kill still fires live.
func TestAFullSpoolIsLoud(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	rc := newReceiver(t, false)
	metricsAddr := freeAddr(t)
	p := startSpoolProc(t, journal, "--job-ceiling", "0.3", "--run-id", "night-c", "--kill-webhook", rc.URL, "--spool-max-bytes", "200", "--metrics-addr", metricsAddr)
	for i := range 4 {
		p.span("job-c", "", i)
	}
	waitUntil(t, "the kill, live", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	var body []byte
	counted := func() bool {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			return false
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, "burnrate_spool_refused_events_total{") {
				return !strings.HasSuffix(l, " 0")
			}
		}
		return false
	}
	ok := counted()
	for deadline := time.Now().Add(5 * time.Second); !ok && time.Now().Before(deadline); ok = counted() {
		time.Sleep(100 * time.Millisecond)
	}
	p.stop(syscall.SIGTERM)
	if !strings.Contains(p.errText(), "not spooled") || !strings.Contains(p.errText(), "--spool-max-bytes") {
		t.Errorf("a full spool is not said on stderr:\n%s", p.errText())
	}
	if !ok {
		t.Errorf("/metrics does not count the refused events:\n%s", body)
	}
}

// stdinNight runs a stdin watch over each part of lines, one process a
// part (the end of stdin stops it), and returns the last report.
func stdinNight(t *testing.T, parts [][]string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	journal, rep := filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "r.json")
	for _, part := range parts {
		p := startSpoolStdin(t, journal, append(extra, "--report-out", rep)...)
		for _, l := range part {
			if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		p.endInput()
	}
	return reportOf(t, rep)
}

// TestARetryStraddlingARestart: an operation whose first attempt came
// before the restart and whose retry came after is one operation of two
// attempts, and a declared anthropic-sdk.maxRetries 0 is seen broken by
// it: the report is the uninterrupted run's. The carry kept no operation,
// and after a restart the retry was no retry.
func TestARetryStraddlingARestart(t *testing.T) {
	ts := func(min int) string {
		return time.Unix(0, 1796180270000000000).Add(time.Duration(min) * time.Minute).UTC().Format(time.RFC3339)
	}
	call := func(min, attempt, status int) string {
		return fmt.Sprintf(`{"ts":%q,"event":"llm_call","job_id":"job-r","job_type":"nightly","run_id":"night-r","idempotency_key":"op-1","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-5","status":%d,"input_tokens":1000,"output_tokens":100}`, ts(min), attempt, status)
	}
	lines := []string{
		fmt.Sprintf(`{"ts":%q,"event":"assumptions","run_id":"night-r","assumptions":{"anthropic-sdk.maxRetries":0}}`, ts(0)),
		call(1, 1, 529),
		call(2, 2, 200),
	}
	hook := newReceiver(t, false)
	whole := stdinNight(t, [][]string{lines}, "--kill-webhook", hook.URL)
	if !strings.Contains(whole, `"assumption_violated"`) {
		t.Fatalf("the night without a restart has no assumption_violated finding: the test proves nothing\n%s", whole)
	}
	if split := stdinNight(t, [][]string{lines[:2], lines[2:]}, "--kill-webhook", hook.URL); split != whole {
		t.Fatalf("a restart between the attempts changed the report:\n%s\nwant\n%s", split, whole)
	}
}

// TestDeclarationsDoNotCrowdOutJobs: 13 runs × 1,024 log-written
// declarations (about 5 MB of log) before a restart, and a job whose two
// calls straddle it is killed at $0.36. The carry reserved its bytes for
// the declarations and carried no job.
func TestDeclarationsDoNotCrowdOutJobs(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	rc := newReceiver(t, false)
	args := []string{"--job-ceiling", "0.2", "--kill-webhook", rc.URL}
	p1 := startSpoolStdin(t, journal, args...)
	p1.line("job-d", "run-0", 0)
	ts := time.Unix(0, 1796180270000000000).Add(time.Minute).UTC().Format(time.RFC3339)
	var w strings.Builder
	pad := strings.Repeat("v", 200)
	size := 0
	for r := range 13 {
		for k := range 1024 {
			fmt.Fprintf(&w, `{"ts":%q,"event":"assumptions","run_id":"run-%d","job_type":"nightly","assumptions":{"layer-%04d-%s.maxRetries":"%d-%s"}}`+"\n", ts, r, k, strings.Repeat("k", 80), k, pad)
		}
		size += w.Len()
		io.WriteString(p1.stdin, w.String())
		w.Reset()
	}
	p1.endInput()
	if size < 5<<20 {
		t.Fatalf("%d bytes of declarations, want about 5 MB", size)
	}
	p2 := startSpoolStdin(t, journal, args...)
	p2.line("job-d", "run-0", 2)
	waitUntil(t, "job-d's kill", 30*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
	p2.endInput()
	if a := p2.alerts("job_ceiling"); len(a) != 1 || a[0]["job_id"] != "job-d" || a[0]["spend_usd"].(float64) != 0.36 {
		t.Fatalf("after 5 MB of declarations and a restart: %v\n%s", a, p2.errText())
	}
}

// TestRunsThatCannotBeBlinded: on a real process, a run_id per call (50
// calls of one job, $0.18 each) is said as churn and the job is killed;
// and under a daily window a job running at the reset is one job, killed
// at $0.36.
func TestRunsThatCannotBeBlinded(t *testing.T) {
	at := func(h, m, s int) string {
		return time.Date(2026, 12, 1, h, m, s, 0, time.UTC).Format(time.RFC3339)
	}
	t.Run("per-call run IDs", func(t *testing.T) {
		rc := newReceiver(t, false)
		p := startSpoolStdin(t, filepath.Join(t.TempDir(), "journal.jsonl"), "--job-ceiling", "0.2", "--kill-webhook", rc.URL)
		for i := range 50 {
			fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":"job-lc","run_id":"call-%d","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", at(1, 0, i), i)
		}
		waitUntil(t, "job-lc's kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
		p.endInput()
		if !strings.Contains(p.errText(), "run IDs churn") {
			t.Errorf("the churn is not said:\n%s", p.errText())
		}
	})
	t.Run("a daily reset mid-job", func(t *testing.T) {
		rc := newReceiver(t, false)
		p := startSpoolStdin(t, filepath.Join(t.TempDir(), "journal.jsonl"), "--job-ceiling", "0.2", "--run-window", "daily 06:00", "--kill-webhook", rc.URL)
		for _, ts := range []string{at(5, 58, 0), at(6, 1, 0)} {
			fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":"job-x","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", ts)
		}
		waitUntil(t, "job-x's kill", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 1 })
		p.endInput()
		if a := p.alerts("job_ceiling"); len(a) != 1 || a[0]["spend_usd"].(float64) != 0.36 {
			t.Errorf("%v", a)
		}
	})
}

// TestASkewedLineAgesNoJob: on a real process, twenty jobs of $0.18, one
// line 10 h ahead (local time written as UTC), then each job's second
// call: all twenty are killed at $0.36 — the line moved the clock and
// every job began again from $0.
func TestASkewedLineAgesNoJob(t *testing.T) {
	rc := newReceiver(t, false)
	p := startSpoolStdin(t, filepath.Join(t.TempDir(), "journal.jsonl"), "--job-ceiling", "0.3", "--run-id", "night-s", "--kill-webhook", rc.URL)
	at := func(h, m, s int) string { return time.Date(2026, 12, 1, h, m, s, 0, time.UTC).Format(time.RFC3339) }
	for i := range 20 {
		fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":"job-%d","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", at(1, 0, i), i)
	}
	fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":"job-skewed","model":"claude-sonnet-4-5","status":200,"cost_usd":0.01}`+"\n", at(11, 0, 30))
	for i := range 20 {
		fmt.Fprintf(p.stdin, `{"ts":%q,"event":"llm_call","job_id":"job-%d","model":"claude-sonnet-4-5","status":200,"cost_usd":0.18}`+"\n", at(1, 2, i), i)
	}
	waitUntil(t, "twenty kills", 10*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) == 20 })
	p.endInput()
}

// holdsOpen reports whether process pid has path open.
func holdsOpen(pid int, path string) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fds)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && l == path {
			return true
		}
	}
	return false
}
