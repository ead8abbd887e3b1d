package matrix

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/lab/mockprovider"
)

// Lab is what a matrix run needs: the repository, a built burnrate, a
// scratch directory, and the Redis it started.
type Lab struct {
	Root     string // the repository
	Burnrate string // the binary under test
	Work     string // scratch: one directory per run
	// RetryAfterMs and PRetryMinMs are the lab's clock (docs/lab.md):
	// they change when calls happen, never how many.
	RetryAfterMs, PRetryMinMs, ClientTimeoutMs int
	Log                                        func(format string, args ...any)

	redis *exec.Cmd
	rport int
}

// Row is one setup as measured.
type Row struct {
	Setup
	Result
	Err error
	// Note is what burnrate said when it read nothing (its exit 2).
	Note string
	// WireBad: the wire broke the setup's own expectation (seed 000's 63).
	WireBad string
}

// Holds: a row that must hold does.
func (r Row) Holds() bool {
	if r.Err != nil || r.WireBad != "" {
		return false
	}
	if !r.MustHold {
		return true
	}
	return r.JobsWrong == 0 && r.FalseCritical == 0 && r.FalseKills <= 0 && r.Expected == r.SeenCalls
}

// Run measures setups, one app execution per distinct run they need.
func (l *Lab) Run(ctx context.Context, setups []Setup) []Row {
	rows := make([]Row, len(setups))
	for i, s := range setups {
		rows[i].Setup = s
	}
	done := map[run]bool{}
	for i, s := range setups {
		if ctx.Err() != nil {
			// Stopped (SIGINT/SIGTERM): the rest are errors, not measured.
			rows[i].Err = ctx.Err()
			continue
		}
		rn := runOf(s)
		if done[rn] {
			continue
		}
		done[rn] = true
		var idx []int
		for j, t := range setups {
			if runOf(t) == rn {
				idx = append(idx, j)
			}
		}
		start := time.Now()
		l.measure(ctx, rn, rows, idx)
		night := ""
		if rn.Night {
			night = " night"
		}
		l.Log("%s %s c%d seed %03d%s: %s", rn.App, rn.Mode, rn.Concurrency, rn.Seed, night, time.Since(start).Round(time.Millisecond))
		_ = i
	}
	return rows
}

// measure executes one run and fills the rows that read its evidence.
func (l *Lab) measure(ctx context.Context, rn run, rows []Row, idx []int) {
	fail := func(err error) {
		for _, i := range idx {
			rows[i].Err = err
		}
	}
	app, ok := appNamed(rn.App)
	if !ok {
		fail(fmt.Errorf("no app %q", rn.App))
		return
	}
	name := fmt.Sprintf("%s-%s-c%d-s%03d", rn.App, rn.Mode, rn.Concurrency, rn.Seed)
	sched := mockprovider.Schedule{Seed: rn.Seed}
	if rn.Night {
		name += "-night"
		sched.Window = &mockprovider.SeedNight
	}
	dir := filepath.Join(l.Work, name)
	// A kept directory from an earlier matrix is replaced: its ledger and
	// reports are another run's truth.
	if err := os.RemoveAll(dir); err != nil {
		fail(err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
		return
	}
	if app.Redis {
		if err := l.startRedis(); err != nil {
			fail(err)
			return
		}
		if err := l.flushRedis(); err != nil {
			fail(err)
			return
		}
	}
	ledgerPath := filepath.Join(dir, "ledger.jsonl")
	ledger, err := mockprovider.CreateLedger(ledgerPath)
	if err != nil {
		fail(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
		return
	}
	srv := &http.Server{Handler: &mockprovider.Server{Schedule: sched, Ledger: ledger, RetryAfterMs: l.RetryAfterMs},
		ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()

	env := append(os.Environ(),
		"ANTHROPIC_BASE_URL="+base, "OPENAI_BASE_URL="+base+"/v1", "LAB_BASE_URL="+base,
		"ANTHROPIC_API_KEY=sk-ant-lab", "OPENAI_API_KEY=sk-lab",
		fmt.Sprintf("JOBS=%d", app.Jobs(rn.Seed)), fmt.Sprintf("CONCURRENCY=%d", rn.Concurrency),
		fmt.Sprintf("LAB_PRETRY_MIN_MS=%d", l.PRetryMinMs), fmt.Sprintf("LAB_TIMEOUT_MS=%d", l.ClientTimeoutMs),
		fmt.Sprintf("REDIS_URL=redis://127.0.0.1:%d", l.rport))
	var evidence map[Logging][]string
	var otlp *watch
	var otlpReport string
	switch rn.Mode {
	case "files":
		env = append(env, "APP_LOG="+filepath.Join(dir, "app.log"), app.SDKLogEnv)
		err = l.runApp(ctx, app, dir, env, filepath.Join(dir, "sdk.log"), false)
		evidence = map[Logging][]string{AppJSON: {"app.log"}, SDKDebug: {"sdk.log"}, BothFiles: {"app.log", "sdk.log"}}
	case "stream":
		env = append(env, app.SDKLogEnv)
		err = l.runApp(ctx, app, dir, env, filepath.Join(dir, "stream.log"), true)
		evidence = map[Logging][]string{BothStream: {"stream.log"}, BothReplay: {"stream.log"}}
	case "otlp":
		otlpReport = filepath.Join(dir, "night.json")
		var addr string
		otlp, addr, err = l.startWatch(dir, otlpReport)
		if err == nil {
			env = append(env, "LAB_OTLP=1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://"+addr+"/v1/traces", "OTEL_SERVICE_NAME="+app.Name)
			err = l.runApp(ctx, app, dir, env, filepath.Join(dir, "app.log"), true)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_ = srv.Shutdown(sctx)
	cancel()
	if cerr := ledger.Close(); err == nil {
		err = cerr
	}
	if otlp != nil {
		if werr := otlp.stop(); err == nil {
			err = werr
		}
	}
	if err != nil {
		fail(err)
		return
	}
	f, err := os.Open(ledgerPath)
	if err != nil {
		fail(err)
		return
	}
	entries, err := mockprovider.ReadLedger(f)
	f.Close()
	if err != nil {
		fail(err)
		return
	}
	truth := TruthFrom(entries)
	for _, i := range idx {
		s := rows[i].Setup
		rows[i].WireBad = wireCheck(s, truth, app.Jobs(rn.Seed))
		if rn.Night {
			rows[i].WireBad = strings.Join(nonEmpty(rows[i].WireBad, nightCheck(sched, truth)), "; ")
		}
		var seen Seen
		var err error
		switch s.Logging {
		case OTLP:
			seen, err = readSeenFile(otlpReport)
		case BothReplay:
			seen, err = l.replay(dir, evidence[s.Logging])
		default:
			seen, rows[i].Note, err = l.report(dir, evidence[s.Logging])
		}
		if err != nil {
			rows[i].Err = err
			continue
		}
		if s.Logging == AppJSON {
			rows[i].Result = CompareAppLog(truth, seen)
		} else {
			rows[i].Result = Compare(truth, seen)
		}
		if s.Logging == OTLP {
			kills, crit, err := readAlerts(filepath.Join(dir, "watch.out"))
			if err != nil {
				rows[i].Err = err
				continue
			}
			live := FalseLiveCriticals(truth, crit)
			rows[i].FalseCritical += len(live)
			rows[i].FalseCriticals = append(rows[i].FalseCriticals, live...)
			rows[i].FalseKills = InnocentKills(truth, kills, PicoFromUSD(JobCeilingUSD))
			rows[i].MissedKills = MissedKills(truth, kills, PicoFromUSD(JobCeilingUSD))
		}
	}
}

// wireCheck holds the wire to the setup's own expectation: every job ran,
// none unattributed, and seed 000's stack put 63 calls per job.
func wireCheck(s Setup, t Truth, jobs int) string {
	var bad []string
	if len(t.Jobs) != jobs {
		bad = append(bad, fmt.Sprintf("%d jobs on the wire, %d run", len(t.Jobs), jobs))
	}
	if t.Unattributed > 0 {
		bad = append(bad, fmt.Sprintf("%d requests without a job", t.Unattributed))
	}
	if s.WireCallsPerJob > 0 {
		for id, j := range t.Jobs {
			if j.Calls != s.WireCallsPerJob {
				bad = append(bad, fmt.Sprintf("%s: %d calls on the wire, want %d", id, j.Calls, s.WireCallsPerJob))
			}
		}
	}
	return strings.Join(bad, "; ")
}

// SeedNightCalls is seed 000's night as its author counted it: 1,043
// requests for 22 jobs. It holds the schedule (SeedNight) and the wire to
// the seed; burnrate is held to the ledger, whatever it carries.
const SeedNightCalls = 1043

// nightCheck holds the wire of seed 000's night to its schedule: each job
// carries what the schedule predicts on the seed-000 stack (63 for a job
// the storm outlasted, fewer for one it let through), and all of them
// 1,043 requests.
func nightCheck(sched mockprovider.Schedule, t Truth) string {
	var bad []string
	total := 0
	for _, id := range slices.Sorted(maps.Keys(t.Jobs)) {
		j := t.Jobs[id]
		calls, answered := sched.Expect(id, 63)
		total += calls
		if j.Calls != calls || j.Succeeded != answered {
			bad = append(bad, fmt.Sprintf("%s: %d calls (answered %t) on the wire, the schedule says %d (answered %t)", id, j.Calls, j.Succeeded, calls, answered))
		}
	}
	if t.Calls != SeedNightCalls || total != SeedNightCalls {
		bad = append(bad, fmt.Sprintf("%d requests on the wire (the schedule predicts %d), want the seed's %d", t.Calls, total, SeedNightCalls))
	}
	return strings.Join(bad, "; ")
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// runApp runs the app to its end, with a bound: a run that hangs is an
// error, not a stuck matrix. The SDK's debug lines go where the SDK writes
// them (Node's console: stdout; Python's logging: stderr): sdkPath gets
// that stream; with oneStream both stdout and stderr go to it, as 2>&1.
func (l *Lab) runApp(ctx context.Context, app App, dir string, env []string, sdkPath string, oneStream bool) error {
	out, err := os.Create(sdkPath)
	if err != nil {
		return err
	}
	defer out.Close()
	other, err := os.Create(filepath.Join(dir, "other.out"))
	if err != nil {
		return err
	}
	defer other.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var args []string
	if app.Interp == "node" && slices.Contains(env, "LAB_OTLP=1") {
		args = append(args, "--import", filepath.Join(l.Root, "lab/node/otel.mjs"))
	}
	args = append(args, filepath.Join(l.Root, app.Script))
	cmd := exec.CommandContext(ctx, app.Interp, args...)
	cmd.Dir, cmd.Env = dir, env
	switch {
	case oneStream:
		cmd.Stdout, cmd.Stderr = out, out
	case app.SDKOnStderr:
		cmd.Stdout, cmd.Stderr = other, out
	default:
		cmd.Stdout, cmd.Stderr = out, other
	}
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(other.Name())
		if oneStream {
			tail, _ = os.ReadFile(out.Name())
		}
		return fmt.Errorf("%s: %w: %s", app.Name, err, lastLines(string(tail), 5))
	}
	return nil
}

// report runs `burnrate report --format json` on the evidence. Exit 1 (a
// critical finding) is an answer; exit 2 (nothing read, bad input) is
// measured as burnrate seeing no job, with its message kept.
func (l *Lab) report(dir string, files []string) (Seen, string, error) {
	args := append([]string{"report", "--format", "json"}, files...)
	cmd := exec.Command(l.Burnrate, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		if errors.As(err, &ee) && ee.ExitCode() == 2 {
			return Seen{}, "burnrate read nothing: " + lastLines(stderr.String(), 1), nil
		}
		return Seen{}, "", fmt.Errorf("burnrate report: %w: %s", err, lastLines(stderr.String(), 3))
	}
	seen, err := ReadSeen(&stdout)
	return seen, "", err
}

// replay plays the evidence through `burnrate replay --headless --speed
// max --report-out`: the live pipeline (watch's) on a finished log.
func (l *Lab) replay(dir string, files []string) (Seen, error) {
	out := filepath.Join(dir, "replay.json")
	args := append([]string{"replay", "--headless", "--speed", "max", "--report-out", out,
		"--journal", filepath.Join(dir, "replay-journal.jsonl")}, files...)
	cmd := exec.Command(l.Burnrate, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STATE_DIRECTORY="+dir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return Seen{}, fmt.Errorf("burnrate replay: %w: %s", err, lastLines(stderr.String(), 3))
	}
	return readSeenFile(out)
}

func readSeenFile(path string) (Seen, error) {
	f, err := os.Open(path)
	if err != nil {
		return Seen{}, fmt.Errorf("watch --report-out: %w", err)
	}
	defer f.Close()
	return ReadSeen(f)
}

// watch is a running `burnrate watch`; done yields its Wait.
type watch struct {
	cmd  *exec.Cmd
	done chan error
}

// startWatch starts `burnrate watch --headless` with its OTLP/HTTP
// receiver on a free port, and waits until it accepts.
func (l *Lab) startWatch(dir, reportOut string) (*watch, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// An operator's guard: a job ceiling whose kill runs a command that
	// does nothing (the kill is counted from watch's alert lines).
	cmd := exec.Command(l.Burnrate, "watch", "--headless", "--otlp-http", addr, "--report-out", reportOut,
		"--journal", filepath.Join(dir, "journal.jsonl"), "--job-ceiling", fmt.Sprint(JobCeilingUSD), "--kill-exec", "/bin/true {job_id}")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STATE_DIRECTORY="+dir)
	out, err := os.Create(filepath.Join(dir, "watch.out"))
	if err != nil {
		return nil, "", err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, "", err
	}
	w := &watch{cmd: cmd, done: make(chan error, 1)}
	go func() { w.done <- cmd.Wait(); out.Close() }()
	if err := waitPort(addr, 10*time.Second); err != nil {
		_ = cmd.Process.Kill()
		return nil, "", fmt.Errorf("burnrate watch: %w", err)
	}
	return w, addr, nil
}

// stop sends SIGTERM (watch writes --report-out and exits) and waits.
func (w *watch) stop() error {
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-w.done:
		if err != nil {
			return fmt.Errorf("burnrate watch: %w", err)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Kill()
		return errors.New("burnrate watch did not exit within 30 s of SIGTERM")
	}
}

func (l *Lab) startRedis() error {
	if l.redis != nil {
		return nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server is not installed: run lab/node/install.sh (Debian's redis-server)")
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	dir := filepath.Join(l.Work, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redis-server: %w", err)
	}
	l.redis, l.rport = cmd, port
	go func() { _ = cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if l.redisCmd("PING") == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("redis-server did not answer PING within 10 s")
}

func (l *Lab) flushRedis() error { return l.redisCmd("FLUSHALL") }

// redisCmd sends one argument-less command and wants a +OK/+PONG reply.
func (l *Lab) redisCmd(c string) error {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", l.rport), time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "*1\r\n$%d\r\n%s\r\n", len(c), c)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+") {
		return fmt.Errorf("redis %s: %s", c, strings.TrimSpace(line))
	}
	return nil
}

// Close stops what the lab started (its Redis).
func (l *Lab) Close() {
	if l.redis != nil && l.redis.Process != nil {
		_ = l.redis.Process.Signal(syscall.SIGTERM)
		l.redis = nil
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func waitPort(addr string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after %s", addr, d)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
