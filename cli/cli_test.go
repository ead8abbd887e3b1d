package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/metrics"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

// run executes the CLI in-process and captures stdout (the commands print
// through the root's outWriter, which writes to os.Stdout).
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	// Read while the command writes: a report bigger than the pipe's
	// buffer would otherwise block the command forever.
	out := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		out <- b.String()
	}()
	cmd := newRootCmd()
	cmd.SetArgs(args)
	err := cmd.Execute()
	w.Close()
	os.Stdout = old
	return <-out, err
}

func TestReportExitCodes(t *testing.T) {
	if _, err := run(t, "report", "../sample-logs/healthy-night.jsonl"); err != nil {
		t.Errorf("healthy night: %v, want exit 0", err)
	}
	if _, err := run(t, "report", "../sample-logs/seed000-incident.jsonl"); !errors.Is(err, errCritical) {
		t.Errorf("seed 000: %v, want the critical exit", err)
	}
	if _, err := run(t, "report", "--format", "yaml", "../sample-logs/healthy-night.jsonl"); err == nil || errors.Is(err, errCritical) {
		t.Errorf("bad format: %v, want a usage error", err)
	}
	if _, err := run(t, "report", "no/such/file.jsonl"); err == nil || !strings.Contains(err.Error(), "no/such/file.jsonl") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := run(t, "report", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.jsonl files") {
		t.Errorf("an empty directory: %v, want a usage error", err)
	}
}

func TestReportJSONFromStdin(t *testing.T) {
	f, _ := os.Open("../sample-logs/seed000-after-fix.jsonl")
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	out, err := run(t, "report", "--format", "json", "-")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Totals struct{ Attempts int } `json:"totals"`
	}
	if json.Unmarshal([]byte(out), &r) != nil || r.Totals.Attempts != 31 {
		t.Errorf("stdin report: %d attempts, want 31", r.Totals.Attempts)
	}
}

func TestBudgetLayersJSON(t *testing.T) {
	out, err := run(t, "budget", "layers", "--format", "json",
		"--layer", "scheduler:attempts=2,timeout=3600s,backoff=fixed:300s", "--layer", "watchdog:attempts=2,timeout=900s",
		"--layer", "wrapper:attempts=3,timeout=300s,backoff=exp:10s", "--layer", "sdk:attempts=3,timeout=120s,backoff=linear:1s+1s")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Attempts int     `json:"worst_case_attempts"`
		Wall     float64 `json:"worst_case_wall_clock_s"`
		Layers   []any   `json:"layers"`
	}
	if json.Unmarshal([]byte(out), &r) != nil || r.Attempts != 36 || r.Wall != 3900 || len(r.Layers) != 4 {
		t.Errorf("%s", out)
	}
}

func TestBudgetModelJSONAndEmit(t *testing.T) {
	out, err := run(t, "budget", "model", "--format", "json", "--p", "0.5", "--retries", "3", "--base", "1s", "--jitter", "none", "--latency", "1", "--deadline", "6s", "--target", "0.99")
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	json.Unmarshal([]byte(out), &r)
	for k, want := range map[string]float64{"p_success": 0.9375, "expected_attempts": 1.875, "expected_time_s": 3.375, "worst_time_s": 11, "deadline_attempt": 4, "p_deadline_exceeded": 0.125, "recommended_retries": 6} {
		if r[k] != want {
			t.Errorf("%s = %v, want %v", k, r[k], want)
		}
	}
	out, err = run(t, "budget", "model", "--p", "0.2", "--retries", "0", "--target", "0.999", "--emit", "env")
	if err != nil || !strings.Contains(out, "MAX_RETRIES=4\n") {
		t.Errorf("emit env: %q %v", out, err)
	}
}

// TestHeadlessReplay runs the headless path end to end: alerts as JSON lines
// on stdout, a dry-run kill journaled, the report written on exit.
func TestHeadlessReplay(t *testing.T) {
	dir := t.TempDir()
	cfgPath := dir + "/burnrate.toml"
	os.WriteFile(cfgPath, []byte("journal = \""+dir+"/journal.jsonl\"\n"), 0o644)
	var l liveFlags
	l.configPath, l.maxCallsPerJob = cfgPath, -1
	l.headless, l.reportOut = true, dir+"/report.json"
	l.act.JobCeiling, l.act.DryRun, l.act.KillWebhook = 0.30, true, "http://127.0.0.1:9/never-called"
	r, err := loadReplay([]string{"../sample-logs/seed001-poisoned-400.jsonl.gz"}, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rd, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(rd); done <- b }()
	err = runLive(context.Background(), l, "replay", nil, r)
	w.Close()
	os.Stdout = old
	out := <-done
	if err != nil {
		t.Fatal(err)
	}
	var kills, wouldFire int
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		if m["type"] == "alert" && m["rule"] == "job_ceiling" && m["kill"] == true {
			kills++
		}
		if m["type"] == "action" && m["state"] == "would_fire" {
			wouldFire++
		}
	}
	// 550 poisoned records each spend $0.36, crossing $0.30 on the 13th call.
	if kills != 550 || wouldFire != 550 {
		t.Errorf("%d kill alerts and %d would-fire results, want 550 each", kills, wouldFire)
	}
	b, err := os.ReadFile(l.reportOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Totals struct{ Attempts int } `json:"totals"`
	}
	if json.Unmarshal(b, &rep) != nil || rep.Totals.Attempts != 9075 {
		t.Errorf("--report-out: %d attempts, want 9,075", rep.Totals.Attempts)
	}
	j, _ := os.ReadFile(dir + "/journal.jsonl")
	if c := bytes.Count(j, []byte(`"state":"would_fire"`)); c != 550 {
		t.Errorf("journal has %d would_fire records", c)
	}
}

// scrapeReplay plays logs through the engine under rules of cfg to their
// end and returns the engine and one /metrics scrape of it as replica.
func scrapeReplay(t *testing.T, logs []string, cfg alerts.Config, replica string) (*engine.Engine, []byte) {
	t.Helper()
	r, err := loadReplay(logs, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rules := alerts.NewRules(cfg, nil, nil)
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Observer: rules}, r)
	eng.Run(context.Background())
	srv, addr, err := metrics.ListenReplica("127.0.0.1:0", replica, eng, rules, "", false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return eng, body
}

func TestMetricsEndpoint(t *testing.T) {
	_, body := scrapeReplay(t, []string{"../sample-logs/seed000-incident.jsonl"}, alerts.Config{JobCeilingUSD: 0.2, KillOn: alerts.DefaultKillOn}, "replica-a")
	for _, want := range []string{
		`burnrate_api_calls_per_job_bucket{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52",le="63"} 22`,
		`burnrate_api_calls_per_job_bucket{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52",le="20"} 7`,
		`burnrate_api_calls_per_job_count{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52"} 22`,
		`burnrate_api_calls_per_job_bucket{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52",le="1"} 0`, // empty buckets are there too
		`burnrate_api_calls_per_job_bucket{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52",le="3"} 0`,
		`burnrate_api_calls_per_job_bucket{job_type="report",replica="replica-a",run_id="derived-e1eb33d286a56b52",le="+Inf"} 22`,
		`burnrate_attempts_total{replica="replica-a",run_id="derived-e1eb33d286a56b52",status="529"} 1027`,
		`burnrate_breaker_state{key="anthropic/claude-sonnet-4-6",replica="replica-a",run_id="derived-e1eb33d286a56b52"} 2`,
		`burnrate_alerts_total{replica="replica-a",rule="job_ceiling"} 2`,
		`burnrate_alerts_total{replica="replica-a",rule="run_ceiling"} 0`,
		`burnrate_actions_total{action="kill_webhook",replica="replica-a",result="acknowledged"} 0`,
		// One run per replica at a time: the series a fleet sums by run_id.
		`burnrate_run_spend_usd{replica="replica-a",run_id="derived-e1eb33d286a56b52"} 1.296`,
		`burnrate_run_jobs{replica="replica-a",run_id="derived-e1eb33d286a56b52"} 22`,
		`burnrate_runs_seen{replica="replica-a"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// promtool's lint rules over the real scrape.
	problems, err := promlint.New(bytes.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	// Spend converted once from picodollars: no float noise.
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "burnrate_spend_usd") {
			v := line[strings.LastIndexByte(line, ' ')+1:]
			if len(v) > 12 {
				t.Errorf("spend gauge with float noise: %s", line)
			}
		}
	}
}

// TestReportBaseline: seed 000's Before/After table from the two logs.
func TestReportBaseline(t *testing.T) {
	before, err := run(t, "report", "--format", "json", "../sample-logs/seed000-incident.jsonl")
	if !errors.Is(err, errCritical) {
		t.Fatal(err)
	}
	path := t.TempDir() + "/before.json"
	os.WriteFile(path, []byte(before), 0o644)
	out, err := run(t, "report", "--baseline", path, "../sample-logs/seed000-after-fix.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Metric | Baseline | This run |", "| Total API calls (model attempts) | 1,043 | 31 |",
		"| Calls per job p50 / p99 / max | 63 / 63 / 63 | 1 / 3 / 3 |", "| Enqueue to dead letter p50 / max | 11m 40s / 11m 40s | 38.0s / 38.0s |",
		"| Duplicate completions | 9 | 0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if _, err := run(t, "report", "--baseline", "../go.mod", "../sample-logs/healthy-night.jsonl"); err == nil || !strings.Contains(err.Error(), "not a burnrate report") {
		t.Errorf("a non-report baseline: %v", err)
	}
}

func TestBudgetLayersFromTOML(t *testing.T) {
	path := t.TempDir() + "/stack.toml"
	os.WriteFile(path, []byte(`
[[layer]]
name = "scheduler"
attempts = 2
timeout = "3600s"
backoff = "fixed:300s"

[[layer]]
name = "watchdog"
attempts = 2
timeout = "900s"

[[layer]]
name = "wrapper"
attempts = 3
timeout = "300s"
backoff = "exp:10s"

[[layer]]
name = "sdk"
attempts = 3
timeout = 120
backoff = "linear:1s+1s"
`), 0o644)
	out, err := run(t, "budget", "layers", "--file", path)
	if err != nil || !strings.Contains(out, "worst-case attempts: 36") || !strings.Contains(out, "3900 s (65.0 min)") || !strings.Contains(out, "keep retries in scheduler") {
		t.Errorf("%v\n%s", err, out)
	}
	os.WriteFile(path, []byte("[[layer]]\nname = \"x\"\nattempts = 2\ntimeout = \"1s\"\nretries = 3\n"), 0o644)
	if _, err := run(t, "budget", "layers", "--file", path); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("an unknown key must be named: %v", err)
	}
}

func TestFormatsCommand(t *testing.T) {
	out, err := run(t, "formats")
	if err != nil || !strings.Contains(out, "litellm") || !strings.Contains(out, "anthropic-batch") || !strings.Contains(out, "--map") {
		t.Errorf("%v\n%s", err, out)
	}
	out, err = run(t, "formats", "--detect", "../sample-logs/formats/node-sdk.log", "--detect", "../sample-logs/formats/openai-batch.jsonl")
	if err != nil || !strings.Contains(out, "node-sdk.log: sdk-text") || !strings.Contains(out, "openai-batch.jsonl: openai-batch") {
		t.Errorf("%v\n%s", err, out)
	}
}

// TestConfigMapAndFormat: [map] and format in the config file act like
// --map and --input-format.
func TestConfigMapAndFormat(t *testing.T) {
	cfg := t.TempDir() + "/burnrate.toml"
	os.WriteFile(cfg, []byte(`format = "auto"
[map]
job_id = "ctx.job.id"
job_type = "ctx.job.kind"
model = "llm.model"
input_tokens = "llm.usage.in"
output_tokens = "llm.usage.out"
status = "res.statusCode"
`), 0o644)
	out, err := run(t, "report", "--format", "json", "--config", cfg, "../sample-logs/formats/pino-nested.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Totals struct{ Attempts, Jobs int } `json:"totals"`
	}
	if json.Unmarshal([]byte(out), &r) != nil || r.Totals.Attempts != 60 || r.Totals.Jobs != 30 {
		t.Errorf("config [map]: %+v", r.Totals)
	}
	os.WriteFile(cfg, []byte(`format = "csv"`), 0o644)
	if _, err := run(t, "report", "--config", cfg, "../sample-logs/healthy-night.jsonl"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("a bad format must be named: %v", err)
	}
}

// TestMetricsAreBoundedAndGuarded: issue 22 — /metrics labels came from log
// text with no cap (100,000 job types: a 262 MB scrape taking 7 s), and the
// listener served every interface without auth when asked. At most 100
// values a label, the rest as "other"; off loopback a token is required.
func TestMetricsAreBoundedAndGuarded(t *testing.T) {
	var log bytes.Buffer
	for i := range 100000 {
		fmt.Fprintf(&log, `{"ts":%d,"event":"llm_call","job_id":"j%d","job_type":"type-%d","model":"m%d","status":200,"cost_usd":0.001}`+"\n", 1773104400000+int64(i), i, i, i%500)
	}
	it := file.NewIter(&log, "many-types", 0, decode.Options{})
	r := file.NewReplay(it, nil, 0)
	rules := alerts.NewRules(alerts.Config{}, nil, nil)
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Observer: rules}, r)
	eng.Run(context.Background())
	srv, addr, err := metrics.Listen("127.0.0.1:0", eng, rules, "s3cret", false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a scrape without the token: HTTP %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(body), "burnrate_spend_usd_by_job_type{"); n != 101 || !strings.Contains(string(body), `job_type="other"`) {
		t.Errorf("%d job-type series (want 100 and other)", n)
	}
	// README states about 180 KB (179,562 bytes measured: the 101 job-type
	// series of each family, the calls-per-job histogram's 10 buckets each).
	t.Logf("scrape of 100,000 job types: %d bytes", len(body))
	if len(body) > 256<<10 {
		t.Errorf("a scrape of 100,000 job types is %d bytes", len(body))
	}
	if _, _, err := metrics.Listen("0.0.0.0:0", eng, rules, "", false); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("a non-loopback /metrics without a token: %v", err)
	}
}
