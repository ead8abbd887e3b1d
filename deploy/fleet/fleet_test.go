// Package fleet is the fleet check (deploy/fleet/check.sh): a real
// OpenTelemetry Collector (deploy/collector) routing a night of OTLP by
// job.id to two burnrate replicas, beside one burnrate fed everything.
// It lives in its own module so the check's processes and the SDK's
// exporters stay out of burnrate's own tests; it runs the real binaries.
package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
)

const (
	runID      = "fleet-night-1"
	otlpToken  = "fleet-check-token"
	jobCeiling = 0.2 // USD: some jobs go over
	// fleetCeilingPerJob sets the fleet's run ceiling, in place of the
	// shipped rule's $100: a night spends about $0.10 a job, and the sum
	// Prometheus sees (a, and b after replaying its spool) about $0.10; neither
	// replica's shard alone reaches $0.065 a job.
	fleetCeilingPerJob = 0.065
)

// night is the traffic: jobs whose queue retries start new traces (each
// span carries job.id, as the Collector's routing needs), model calls with
// SDK retries (529, 429) before a 200, Claude Code sessions as log events,
// and standalone calls with no job.id at all (all routed to one replica).
type night struct {
	jobs       int
	unlabelled int
	sessions   int
	base       time.Time
	rng        *rand.Rand
	spans      int // model-call attempt spans sent
	logEvents  int
	// rootOnlyJobID puts job.id on each trace's root span only, as a
	// worker that sets it where the job starts does.
	rootOnlyJobID bool
}

func newNight(jobs int) *night {
	return &night{jobs: jobs, unlabelled: 20, sessions: 8, base: time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC), rng: rand.New(rand.NewPCG(28, 2026))}
}

// emitJobs sends jobs [from, to) through tp.
func (n *night) emitJobs(ctx context.Context, tp *sdktrace.TracerProvider, from, to int) {
	tr := tp.Tracer("fleet-check")
	for j := from; j < to; j++ {
		id := fmt.Sprintf("job-%04d", j)
		typ := []string{"enrich", "report", "summarize"}[j%3]
		at := n.base.Add(time.Duration(j) * 2 * time.Second)
		queueAttempts := 1 + n.rng.IntN(3) // each a new trace
		for qa := 0; qa < queueAttempts; qa++ {
			jobAttrs := []attribute.KeyValue{attribute.String("job.id", id), attribute.String("job.type", typ)}
			// A new root: a queue retry is a new trace, the case a
			// traceID route would spread over replicas.
			actx, root := tr.Start(ctx, "job.attempt", trace.WithNewRoot(), trace.WithTimestamp(at), trace.WithAttributes(append(jobAttrs, attribute.Int("messaging.delivery_count", qa+1))...))
			calls := 1 + n.rng.IntN(4)
			last := qa == queueAttempts-1
			for c := 0; c < calls; c++ {
				sdkAttempts := 1 + n.rng.IntN(3)
				for a := 0; a < sdkAttempts; a++ {
					status := 200
					if a < sdkAttempts-1 {
						status = []int{529, 429}[n.rng.IntN(2)]
					} else if !last && c == calls-1 {
						status = 500 // the queue attempt fails: the broker redelivers
					}
					callAttrs := jobAttrs
					if n.rootOnlyJobID {
						callAttrs = nil
					}
					attrs := append(slices.Clone(callAttrs),
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "anthropic"),
						attribute.String("gen_ai.request.model", "claude-sonnet-4-6"), attribute.Int("http.response.status_code", status),
						attribute.Int("http.request.resend_count", a))
					if status == 200 {
						attrs = append(attrs, attribute.Int("gen_ai.usage.input_tokens", 2000+n.rng.IntN(6000)), attribute.Int("gen_ai.usage.output_tokens", 200+n.rng.IntN(900)))
					}
					start := at
					at = at.Add(time.Duration(300+n.rng.IntN(3000)) * time.Millisecond)
					_, sp := tr.Start(actx, "anthropic.messages.create", trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
					sp.End(trace.WithTimestamp(at))
					n.spans++
				}
			}
			root.End(trace.WithTimestamp(at))
			at = at.Add(5 * time.Second)
		}
	}
}

// emitUnlabelled sends standalone calls without job.id: each is its own
// job (its trace ID) on one instance, and all of them reach the replica
// that the key "job.id=|" maps to.
func (n *night) emitUnlabelled(ctx context.Context, tp *sdktrace.TracerProvider) {
	tr := tp.Tracer("fleet-check")
	for i := 0; i < n.unlabelled; i++ {
		at := n.base.Add(time.Duration(i) * 7 * time.Second)
		_, sp := tr.Start(ctx, "anthropic.messages.create", trace.WithNewRoot(), trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "claude-sonnet-4-6"),
			attribute.Int("http.response.status_code", 200), attribute.Int("gen_ai.usage.input_tokens", 1000), attribute.Int("gen_ai.usage.output_tokens", 100)))
		sp.End(trace.WithTimestamp(at.Add(time.Second)))
		n.spans++
	}
}

// emitSessions sends Claude Code api_request events, routed by session.id.
func (n *night) emitSessions(ctx context.Context, lp *sdklog.LoggerProvider) {
	lg := lp.Logger("com.anthropic.claude_code")
	for s := 0; s < n.sessions; s++ {
		session := fmt.Sprintf("5e551011-0000-4000-8000-%012d", s)
		for e := 0; e < 5; e++ {
			var rec otellog.Record
			rec.SetTimestamp(n.base.Add(time.Duration(s*60+e*9) * time.Second))
			rec.SetEventName("claude_code.api_request")
			rec.AddAttributes(attribute.String("session.id", session), attribute.String("model", "claude-sonnet-4-6"),
				attribute.Float64("cost_usd", 0.0125*float64(e+1)), attribute.Int("input_tokens", 1200), attribute.Int("output_tokens", 300),
				attribute.Int("duration_ms", 4200))
			lg.Emit(ctx, rec)
			n.logEvents++
		}
	}
}

// receiver is a kill receiver that deduplicates on Idempotency-Key, as the
// README asks of one: it acts once per key, however often a key arrives.
// It also takes Alertmanager's webhook, keyed as burnrate keys a run kill.
type receiver struct {
	mu         sync.Mutex
	down       bool                           // answers 503, as a receiver being deployed does
	acted      map[string]map[string]killBody // path → key → first body
	deliveries map[string]int                 // path → requests that carried a key
	refused    int
}

type killBody struct {
	Action string `json:"action"`
	Scope  string `json:"scope"`
	RunID  string `json:"run_id"`
	JobID  string `json:"job_id"`
	Rule   string `json:"rule"`
}

func newReceiver() *receiver {
	return &receiver{acted: map[string]map[string]killBody{}, deliveries: map[string]int{}}
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.down {
		rv.refused++
		http.Error(w, "deploying", http.StatusServiceUnavailable)
		return
	}
	if r.URL.Path == "/alertmanager" {
		var msg struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
			} `json:"alerts"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, a := range msg.Alerts {
			run := a.Labels["run_id"]
			key := alerts.IdempotencyKey("kill_webhook", alerts.Alert{Rule: "run_ceiling", Scope: "run", RunID: run})
			rv.act("/fleet", key, killBody{Action: "kill", Scope: "run", RunID: run, Rule: "run_ceiling"})
			rv.deliveries["/alertmanager"]++
		}
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "no Idempotency-Key", http.StatusBadRequest)
		return
	}
	var kb killBody
	if err := json.Unmarshal(body, &kb); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rv.deliveries[r.URL.Path]++
	rv.act(r.URL.Path, key, kb)
}

func (rv *receiver) act(path, key string, kb killBody) {
	if rv.acted[path] == nil {
		rv.acted[path] = map[string]killBody{}
	}
	if _, ok := rv.acted[path][key]; !ok {
		rv.acted[path][key] = kb
	}
}

func (rv *receiver) setDown(down bool) {
	rv.mu.Lock()
	rv.down = down
	rv.mu.Unlock()
}

// killed is the acted-on kills at path, as "scope/rule/job".
func (rv *receiver) killed(path string) []string {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	var out []string
	for _, kb := range rv.acted[path] {
		out = append(out, kb.Scope+"/"+kb.Rule+"/"+kb.JobID)
	}
	slices.Sort(out)
	return out
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a started binary, stopped with SIGTERM at the end of the test.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan error
}

// syncBuffer is a process's output, written by exec's copiers and read by
// the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func start(t *testing.T, name string, env []string, bin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: log, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			os.WriteFile(filepath.Join(os.TempDir(), "fleet-"+name+".log"), []byte(log.String()), 0o644)
			t.Logf("--- %s's output (the end; all of it in %s):\n%s", name, filepath.Join(os.TempDir(), "fleet-"+name+".log"), tail(log.String(), 3000))
		}
	})
	return p
}

// stop sends SIGTERM and waits for the exit (a replica writes its report).
func (p *proc) stop(t *testing.T) {
	if p.cmd.ProcessState != nil || p.done == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Logf("%s exited: %v\n%s", p.name, err, tail(p.log.String(), 2000))
		}
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Errorf("%s did not stop within 60 s of SIGTERM\n%s", p.name, tail(p.log.String(), 2000))
	}
	p.done = nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// scrape reads one series' value from a replica's /metrics (0 if absent).
func scrape(addr, series string) float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, series+"{") {
			v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			return v
		}
	}
	return 0
}

// waitFor polls until cond holds, or fails after limit.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (%s)", what, limit, last)
}

func buildBinaries(t *testing.T, dir string) (burnrate, collector string) {
	t.Helper()
	burnrate, collector = filepath.Join(dir, "burnrate"), os.Getenv("FLEET_COLLECTOR")
	build := exec.Command("go", "build", "-o", burnrate, "github.com/burnrate-dev/burnrate")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build burnrate: %v\n%s", err, out)
	}
	if collector == "" {
		collector = filepath.Join(dir, "otelcol-burnrate")
		t0 := time.Now()
		build := exec.Command("go", "build", "-o", collector, ".")
		build.Dir = "../collector"
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build the Collector (deploy/collector): %v\n%s", err, out)
		}
		t.Logf("built the Collector in %s", time.Since(t0).Round(time.Second))
	}
	return burnrate, collector
}

type replica struct {
	name, otlp, metrics, journal string
	reports                      []string
	p                            *proc
}

func (r *replica) start(t *testing.T, bin, killURL string, dir string) {
	t.Helper()
	report := filepath.Join(dir, fmt.Sprintf("%s-%d.json", r.name, len(r.reports)+1))
	r.reports = append(r.reports, report)
	r.p = start(t, r.name, []string{"BURNRATE_OTLP_TOKEN=" + otlpToken}, bin, "watch", "--headless",
		"--replica", r.name, "--run-id", runID, "--otlp-grpc", r.otlp, "--metrics-addr", r.metrics,
		"--job-ceiling", strconv.FormatFloat(jobCeiling, 'f', -1, 64), "--kill-webhook", killURL,
		"--journal", r.journal, "--report-out", report, "--drain-window", "1s")
	waitFor(t, r.name+" listening", 30*time.Second, func() (bool, string) {
		c, err := net.Dial("tcp", r.otlp)
		if err == nil {
			c.Close()
			return true, ""
		}
		return false, tail(r.p.log.String(), 500)
	})
}

// providers send the same spans and log records to the Collector and to the
// single instance: one SDK, two exporters each.
func providers(t *testing.T, ctx context.Context, collector, single string) (*sdktrace.TracerProvider, *sdklog.LoggerProvider) {
	t.Helper()
	auth := map[string]string{"Authorization": "Bearer " + otlpToken}
	toCollector, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(collector), otlptracegrpc.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	toSingle, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(single), otlptracegrpc.WithInsecure(), otlptracegrpc.WithHeaders(auth))
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "fleet-worker"))
	// Blocking: a full SDK queue waits instead of dropping spans (the
	// default drops them, and both sides would lack a different few).
	batch := []sdktrace.BatchSpanProcessorOption{sdktrace.WithBlocking(), sdktrace.WithMaxQueueSize(8192)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(toCollector, batch...), sdktrace.WithBatcher(toSingle, batch...))
	logsToCollector, err := otlploggrpc.New(ctx, otlploggrpc.WithEndpoint(collector), otlploggrpc.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	logsToSingle, err := otlploggrpc.New(ctx, otlploggrpc.WithEndpoint(single), otlploggrpc.WithInsecure(), otlploggrpc.WithHeaders(auth))
	if err != nil {
		t.Fatal(err)
	}
	lres := resource.NewSchemaless(attribute.String("service.name", "claude-code"))
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(lres), sdklog.WithProcessor(sdklog.NewBatchProcessor(logsToCollector)), sdklog.WithProcessor(sdklog.NewBatchProcessor(logsToSingle)))
	return tp, lp
}

func readReport(t *testing.T, path string) *correlate.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r correlate.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// startAlerting runs the real Prometheus, with the shipped fleet rules
// (the run ceiling set to fleetCeiling), scraping the replicas every
// second, and the real Alertmanager with the shipped route, its kill
// receiver pointed at rv.
func startAlerting(t *testing.T, dir, killBase, fleetCeiling string, replicas ...*replica) {
	t.Helper()
	for _, bin := range []string{"prometheus", "prometheus-alertmanager"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: install it (Debian: apt-get install prometheus prometheus-alertmanager)", bin)
		}
	}
	rules, err := os.ReadFile("../prometheus/burnrate.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rules, []byte(">= 100")) {
		t.Fatal("burnrate.rules.yml: the run ceiling (>= 100) is not where the check expects it")
	}
	rules = bytes.Replace(rules, []byte(">= 100"), []byte(">= "+fleetCeiling), 1)
	os.WriteFile(filepath.Join(dir, "burnrate.rules.yml"), rules, 0o644)
	am, err := os.ReadFile("../prometheus/alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "kill-receiver-token")
	os.WriteFile(token, []byte("am-token\n"), 0o600)
	am = bytes.ReplaceAll(am, []byte("http://127.0.0.1:8088"), []byte(killBase))
	am = bytes.ReplaceAll(am, []byte("/etc/alertmanager/kill-receiver-token"), []byte(token))
	os.WriteFile(filepath.Join(dir, "alertmanager.yml"), am, 0o644)
	amAddr := freePort(t)
	var targets []string
	for _, r := range replicas {
		targets = append(targets, "'"+r.metrics+"'")
	}
	prom := fmt.Sprintf(`global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [burnrate.rules.yml]
alerting: { alertmanagers: [ { static_configs: [ { targets: ['%s'] } ] } ] }
scrape_configs:
  - job_name: burnrate
    static_configs: [ { targets: [%s] } ]
`, amAddr, strings.Join(targets, ", "))
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(prom), 0o644)
	start(t, "alertmanager", nil, "prometheus-alertmanager", "--config.file="+filepath.Join(dir, "alertmanager.yml"),
		"--storage.path="+filepath.Join(dir, "am"), "--web.listen-address="+amAddr, "--cluster.listen-address=")
	start(t, "prometheus", nil, "prometheus", "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), "--web.listen-address="+freePort(t))
}

var traceIDJob = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestFleet is the fleet check. Jobs: FLEET_JOBS (default 300).
func TestFleet(t *testing.T) {
	jobs := 300
	if v := os.Getenv("FLEET_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			t.Fatalf("FLEET_JOBS=%q: give a number of jobs, 10 or more", v)
		}
		jobs = n
	}
	dir := t.TempDir()
	burnrate, collectorBin := buildBinaries(t, dir)

	rv, killBase, a, b, single := startFleet(t, burnrate, dir)
	fleetCeiling := strconv.FormatFloat(math.Round(fleetCeilingPerJob*float64(jobs)), 'f', -1, 64)
	startAlerting(t, dir, killBase, fleetCeiling, a, b)

	col, collectorAddr := startCollector(t, "collector", collectorBin, "../collector/collector.yaml", a, b)

	ctx := context.Background()
	tp, lp := providers(t, ctx, collectorAddr, single.otlp)
	n := newNight(jobs)
	calls := func(rs ...*replica) float64 {
		var sum float64
		for _, r := range rs {
			sum += scrape(r.metrics, "burnrate_run_calls_total")
		}
		return sum
	}
	converged := func(want int) func() (bool, string) {
		return func() (bool, string) {
			f, s := calls(a, b), calls(single)
			return f == float64(want) && s == float64(want), fmt.Sprintf("fleet %v, single %v, want %d", f, s, want)
		}
	}

	// First half, with the kill receiver down: the kills it cannot take
	// stay requested in each replica's journal.
	rv.setDown(true)
	t0 := time.Now()
	n.emitJobs(ctx, tp, 0, jobs/2)
	n.emitUnlabelled(ctx, tp)
	n.emitSessions(ctx, lp)
	tp.ForceFlush(ctx)
	lp.ForceFlush(ctx)
	want := n.spans + n.logEvents
	waitFor(t, "first half applied", 2*time.Minute, converged(want))
	firstHalf := time.Since(t0)

	// Replica b stops mid-night (SIGTERM: it writes its report; its
	// undelivered kills stay in its journal) and comes back later. The
	// Collector queues its share meanwhile and retries.
	b.p.stop(t)
	spooledAtRestart := spoolSummary(t, b.journal)
	var pendingAtStop []string
	for key, state := range journalLast(t, b.journal) {
		if state != "acknowledged" {
			pendingAtStop = append(pendingAtStop, key)
		}
	}
	rv.setDown(false)
	n.emitJobs(ctx, tp, jobs/2, jobs)
	tp.ForceFlush(ctx)
	time.Sleep(2 * time.Second) // b's share waits in the Collector's queue
	b.start(t, burnrate, killBase+"/fleet", dir)
	want = n.spans + n.logEvents
	waitFor(t, "second half applied, b back", 3*time.Minute, func() (bool, string) {
		f := calls(a) + calls(b)
		s := calls(single)
		// b replayed its spool: its calls before the restart are in its
		// count again, never twice.
		return f == float64(want) && s == float64(want), fmt.Sprintf("fleet %v (b replayed its spool), single %v, want %d", f, s, want)
	})
	// The fleet's run ceiling, which no replica sees: Prometheus sums the
	// replicas, the rule fires, Alertmanager posts the kill of the run.
	runKill := "run/run_ceiling/"
	waitFor(t, "the fleet run ceiling through Prometheus and Alertmanager", 2*time.Minute, func() (bool, string) {
		return slices.Contains(rv.killed("/fleet"), runKill), fmt.Sprintf("fleet kills %d, alertmanager posts %d", len(rv.killed("/fleet")), rv.deliveries["/alertmanager"])
	})
	// Every job kill delivered: the single instance's, and the fleet's.
	waitFor(t, "kills delivered", 2*time.Minute, func() (bool, string) {
		f, s := slices.DeleteFunc(rv.killed("/fleet"), func(k string) bool { return k == runKill }), rv.killed("/single")
		return len(s) > 0 && slices.Equal(f, s), fmt.Sprintf("fleet %d kills, single %d", len(f), len(s))
	})
	tp.Shutdown(ctx)
	lp.Shutdown(ctx)
	for _, r := range []*replica{a, b, single} {
		r.p.stop(t)
	}
	col.stop(t)
	total := time.Since(t0)

	// Per job: calls and spend across the replicas (b's two reports, as
	// report --merge sums them) equal the single instance's.
	merged := filepath.Join(dir, "merged.json")
	mergeArgs := append([]string{"report", "--merge", "--format", "json"}, append(a.reports, b.reports...)...)
	out, err := exec.Command(burnrate, mergeArgs...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: a critical finding
			t.Fatalf("report --merge: %v\n%s", err, ee.Stderr)
		}
	}
	os.WriteFile(merged, out, 0o644)
	m, one := readReport(t, merged), readReport(t, single.reports[0])
	byID := map[string]correlate.JobReport{}
	for _, j := range m.Jobs {
		byID[j.JobID] = j
	}
	mismatched := 0
	for _, j := range one.Jobs {
		g, ok := byID[j.JobID]
		if !ok || g.Attempts != j.Attempts || g.SpendUSD != j.SpendUSD {
			mismatched++
			if mismatched <= 5 {
				t.Errorf("job %s: fleet %d calls $%v, single %d calls $%v", j.JobID, g.Attempts, g.SpendUSD, j.Attempts, j.SpendUSD)
			}
		}
	}
	if len(m.Jobs) != len(one.Jobs) || m.Totals.Attempts != one.Totals.Attempts || m.Totals.SpendUSD != one.Totals.SpendUSD {
		t.Errorf("fleet: %d jobs, %d calls, $%v; single: %d jobs, %d calls, $%v", len(m.Jobs), m.Totals.Attempts, m.Totals.SpendUSD, len(one.Jobs), one.Totals.Attempts, one.Totals.SpendUSD)
	}
	if m.Merged.SplitJobs != 0 {
		t.Errorf("%d jobs were split over replicas (%v): routing by job.id keeps a job on one", m.Merged.SplitJobs, m.Merged.SplitJobExamples)
	}
	// The fleet ceiling is one no replica reached alone.
	ceil, _ := strconv.ParseFloat(fleetCeiling, 64)
	for _, path := range append(a.reports, b.reports...) {
		if r := readReport(t, path); r.Totals.SpendUSD >= ceil {
			t.Errorf("%s alone spent $%v, over the fleet ceiling $%v: the check proves nothing about the sum", path, r.Totals.SpendUSD, ceil)
		}
	}
	// The unlabelled calls: all on one replica (the key "job.id=|").
	onReplica := map[string]int{}
	for _, path := range append(a.reports, b.reports...) {
		r := readReport(t, path)
		for _, j := range r.Jobs {
			if traceIDJob.MatchString(j.JobID) {
				onReplica[r.Replica]++
			}
		}
	}
	if len(onReplica) != 1 {
		t.Errorf("the %d calls without job.id reached %d replicas (%v): the key job.id=| is one", n.unlabelled, len(onReplica), onReplica)
	}

	// Kills: the same set, each acted on once (the receiver deduplicates;
	// deliveries count the requests, retries and re-sends included).
	fleetKills, singleKills := slices.DeleteFunc(rv.killed("/fleet"), func(k string) bool { return k == runKill }), rv.killed("/single")
	if !slices.Equal(fleetKills, singleKills) {
		t.Errorf("kills: fleet %v, single %v", fleetKills, singleKills)
	}
	endStates := journalLast(t, b.journal)
	deliveredAfterRestart := 0
	for _, key := range pendingAtStop {
		if endStates[key] == "acknowledged" {
			deliveredAfterRestart++
		} else {
			t.Errorf("replica b's kill %s was pending when it stopped and is %q at the end: lost", key, endStates[key])
		}
	}

	t.Logf("FLEET CHECK: %d jobs (%d model-call attempt spans, %d unlabelled calls, %d Claude Code log events) through a real Collector to 2 replicas, beside 1 burnrate fed everything", jobs, n.spans, n.unlabelled, n.logEvents)
	t.Logf("FLEET CHECK: per job: %d of %d jobs have the single instance's calls and spend (merged: %d jobs, %d calls, $%.4f; single: %d jobs, %d calls, $%.4f; split jobs %d)",
		len(one.Jobs)-mismatched, len(one.Jobs), len(m.Jobs), m.Totals.Attempts, m.Totals.SpendUSD, len(one.Jobs), one.Totals.Attempts, one.Totals.SpendUSD, m.Merged.SplitJobs)
	t.Logf("FLEET CHECK: unlabelled calls by replica: %v", onReplica)
	t.Logf("FLEET CHECK: kills: fleet acted on %d, single %d, equal %v; kill requests at the fleet receiver %d (refused while down: %d)", len(fleetKills), len(singleKills), slices.Equal(fleetKills, singleKills), rv.deliveries["/fleet"], rv.refused)
	t.Logf("FLEET CHECK: restart: replica b stopped after the first half with %d kill(s) journaled but undelivered; %d of them acknowledged after its restart", len(pendingAtStop), deliveredAfterRestart)
	t.Logf("FLEET CHECK: restart: replica b replayed its spool (%s): b's calls after the restart count the night whole", spooledAtRestart)
	t.Logf("FLEET CHECK: fleet run ceiling ($%s, no replica alone over it): Prometheus fired BurnrateFleetRunCeiling, Alertmanager posted %d time(s), the receiver acted once under burnrate's run_ceiling key %s", fleetCeiling,
		rv.deliveries["/alertmanager"], alerts.IdempotencyKey("kill_webhook", alerts.Alert{Rule: "run_ceiling", Scope: "run", RunID: runID}))
	t.Logf("FLEET CHECK: first half applied in %s, whole night in %s", firstHalf.Round(time.Millisecond), total.Round(time.Millisecond))
	if len(pendingAtStop) == 0 {
		t.Errorf("replica b had no undelivered kill when it stopped: the restart proves nothing (raise FLEET_JOBS)")
	}
}

// spoolSummary says what a replica's event spool (beside its journal)
// held at its stop; a stop that spooled nothing fails the check.
func spoolSummary(t *testing.T, journal string) string {
	t.Helper()
	dir := strings.TrimSuffix(journal, filepath.Ext(journal)) + ".spool"
	segs, _ := filepath.Glob(filepath.Join(dir, "0*"))
	var size int64
	for _, s := range segs {
		if st, err := os.Stat(s); err == nil {
			size += st.Size()
		}
	}
	if size <= int64(len(segs))*32 {
		t.Fatalf("replica b spooled nothing before its stop (%s: %d bytes in %d segments)", dir, size, len(segs))
	}
	return fmt.Sprintf("%s: %d bytes in %d segment(s)", filepath.Base(dir), size, len(segs))
}

// journalLast is each key's last state in a replica's action journal.
func journalLast(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]string{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec struct {
			Key    string `json:"key"`
			Action string `json:"action"`
			State  string `json:"state"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Key != "" && rec.Action == "kill_webhook" {
			last[rec.Key] = rec.State
		}
	}
	return last
}

// variant is one night through a Collector whose shipped config edit
// changes, to two replicas beside one burnrate fed everything.
type variant struct {
	merged, single       *correlate.Report
	fleetKills, oneKills []string
	callsByReplica       map[string]int64
}

func runVariant(t *testing.T, edit func(cfg []byte) []byte, rootOnly bool) variant {
	t.Helper()
	dir := t.TempDir()
	burnrate, collectorBin := buildBinaries(t, dir)
	cfg, err := os.ReadFile("../collector/collector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "collector.yaml")
	os.WriteFile(cfgPath, edit(cfg), 0o644)

	rv, _, a, b, single := startFleet(t, burnrate, dir)
	col, collectorAddr := startCollector(t, "collector-variant", collectorBin, cfgPath, a, b)
	ctx := context.Background()
	tp, lp := providers(t, ctx, collectorAddr, single.otlp)
	n := newNight(300)
	n.rootOnlyJobID = rootOnly
	n.emitJobs(ctx, tp, 0, n.jobs)
	tp.Shutdown(ctx)
	lp.Shutdown(ctx)
	want := float64(n.spans)
	waitFor(t, "the night applied", 2*time.Minute, func() (bool, string) {
		f := scrape(a.metrics, "burnrate_run_calls_total") + scrape(b.metrics, "burnrate_run_calls_total")
		s := scrape(single.metrics, "burnrate_run_calls_total")
		return f == want && s == want, fmt.Sprintf("fleet %v, single %v, want %v", f, s, want)
	})
	waitFor(t, "kills delivered", time.Minute, func() (bool, string) {
		return len(rv.killed("/single")) > 0, ""
	})
	time.Sleep(2 * time.Second) // the fleet's kills, if any more come
	for _, r := range []*replica{a, b, single} {
		r.p.stop(t)
	}
	col.stop(t)

	out, err := exec.Command(burnrate, "report", "--merge", "--format", "json", a.reports[0], b.reports[0]).Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("report --merge: %v\n%s", err, ee.Stderr)
	}
	merged := filepath.Join(dir, "merged.json")
	os.WriteFile(merged, out, 0o644)
	v := variant{merged: readReport(t, merged), single: readReport(t, single.reports[0]), fleetKills: rv.killed("/fleet"), oneKills: rv.killed("/single"), callsByReplica: map[string]int64{}}
	for _, r := range []*replica{a, b} {
		v.callsByReplica[r.name] = readReport(t, r.reports[0]).Totals.Attempts
	}
	return v
}

// TestFleetTraceIDRouting measures the pitfall the shipped config avoids:
// with routing_key traceID, a job whose queue retries start new traces is
// split over the replicas, each sees a part below the job ceiling, and
// kills the single instance makes are missed. report --merge still joins
// the parts again.
func TestFleetTraceIDRouting(t *testing.T) {
	byJob := []byte("routing_key: attributes\n    routing_attributes: [job.id]")
	v := runVariant(t, func(cfg []byte) []byte {
		if !bytes.Contains(cfg, byJob) {
			t.Fatal("collector.yaml: the job.id route is not where the check expects it")
		}
		return bytes.Replace(cfg, byJob, []byte("routing_key: traceID"), 1)
	}, false)
	m, one := v.merged, v.single
	if m.Merged.SplitJobs == 0 {
		t.Errorf("routing by trace ID split no job: the night has no queue retries across traces")
	}
	if len(v.fleetKills) >= len(v.oneKills) {
		t.Errorf("routing by trace ID missed no kill (fleet %d, single %d)", len(v.fleetKills), len(v.oneKills))
	}
	if m.Totals.Attempts != one.Totals.Attempts || m.Totals.SpendUSD != one.Totals.SpendUSD || len(m.Jobs) != len(one.Jobs) {
		t.Errorf("merged: %d jobs %d calls $%v; single %d jobs %d calls $%v", len(m.Jobs), m.Totals.Attempts, m.Totals.SpendUSD, len(one.Jobs), one.Totals.Attempts, one.Totals.SpendUSD)
	}
	t.Logf("FLEET CHECK (routing_key traceID, the pitfall): %d of %d jobs split over the 2 replicas; job kills: fleet %d, single %d (%d missed: each replica saw a part below the $%v ceiling); report --merge joined them again: %d jobs, %d calls, $%.4f (single: %d, %d, $%.4f)",
		m.Merged.SplitJobs, len(one.Jobs), len(v.fleetKills), len(v.oneKills), len(v.oneKills)-len(v.fleetKills), jobCeiling, len(m.Jobs), m.Totals.Attempts, m.Totals.SpendUSD, len(one.Jobs), one.Totals.Attempts, one.Totals.SpendUSD)
}

// TestFleetRootOnlyJobID measures the other pitfall: job.id on the root
// span only. The Collector reads the key from the first span of each trace
// in a batch — a call span, which ended first — so every trace is keyed
// "job.id=|" and the whole night lands on one replica.
func TestFleetRootOnlyJobID(t *testing.T) {
	v := runVariant(t, func(cfg []byte) []byte { return cfg }, true)
	var most, total int64
	for _, n := range v.callsByReplica {
		most, total = max(most, n), total+n
	}
	if most != total {
		t.Errorf("with job.id on the root only, the calls were spread %v: the key of a trace is its first span's", v.callsByReplica)
	}
	t.Logf("FLEET CHECK (job.id on the root span only, the pitfall): model calls by replica %v — one replica took the whole night; jobs: fleet %d, single %d (a call span that arrives before its root's is a job of its trace ID on either); kills: fleet %d, single %d", v.callsByReplica, len(v.merged.Jobs), len(v.single.Jobs), len(v.fleetKills), len(v.oneKills))
}

// startFleet starts the kill receiver, the two replicas behind it and the
// single instance fed everything, each a real burnrate.
func startFleet(t *testing.T, burnrate, dir string) (rv *receiver, killBase string, a, b, single *replica) {
	t.Helper()
	rv = newReceiver()
	srv := &http.Server{Handler: rv}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	killBase = "http://" + ln.Addr().String()
	a = &replica{name: "burnrate-a", otlp: freePort(t), metrics: freePort(t), journal: filepath.Join(dir, "a.journal")}
	b = &replica{name: "burnrate-b", otlp: freePort(t), metrics: freePort(t), journal: filepath.Join(dir, "b.journal")}
	single = &replica{name: "single", otlp: freePort(t), metrics: freePort(t), journal: filepath.Join(dir, "single.journal")}
	for _, r := range []*replica{a, b} {
		r.start(t, burnrate, killBase+"/fleet", dir)
	}
	single.start(t, burnrate, killBase+"/single", dir)
	return rv, killBase, a, b, single
}

// startCollector starts a Collector built from deploy/collector with the
// configuration at cfg, routing to the replicas a and b, and waits until
// it listens; it returns the process and its OTLP/gRPC address.
func startCollector(t *testing.T, name, collectorBin, cfg string, a, b *replica) (*proc, string) {
	t.Helper()
	addr := freePort(t)
	col := start(t, name, []string{
		"BURNRATE_OTLP_TOKEN=" + otlpToken,
		"BURNRATE_REPLICAS=[" + a.otlp + ", " + b.otlp + "]",
		"COLLECTOR_OTLP_GRPC=" + addr,
		"COLLECTOR_OTLP_HTTP=" + freePort(t),
	}, collectorBin, "--config", cfg)
	waitFor(t, "the Collector listening", 30*time.Second, func() (bool, string) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return true, ""
		}
		return false, tail(col.log.String(), 800)
	})
	return col, addr
}
