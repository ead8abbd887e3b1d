package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/ingest/follow"
)

// killServer records kill requests and verifies their signature.
type killServer struct {
	*httptest.Server
	secret []byte
	mu     sync.Mutex
	got    []KillBody
	at     map[string]time.Time
	keys   map[string]string
	bad    int
}

func newKillServer(t *testing.T, secret []byte) *killServer {
	ks := &killServer{secret: secret, at: map[string]time.Time{}, keys: map[string]string{}}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ks.mu.Lock()
		defer ks.mu.Unlock()
		signed := ks.secret == nil || r.Header.Get("X-Burnrate-Signature") == Sign(ks.secret, body)
		if !signed || r.Header.Get("Content-Type") != "application/json" {
			ks.bad++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var b KillBody
		if err := json.Unmarshal(body, &b); err != nil {
			ks.bad++
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		ks.got = append(ks.got, b)
		ks.at[b.JobID] = time.Now()
		ks.keys[b.JobID] = r.Header.Get("Idempotency-Key")
	}))
	t.Cleanup(ks.Close)
	return ks
}

func (ks *killServer) kills() []KillBody {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return append([]KillBody(nil), ks.got...)
}

// call is one $0.03 model call (10,000 input tokens of Sonnet 4.6).
func call(job string, ms int64) string {
	return fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"%s","job_type":"batch","model":"claude-sonnet-4-6","status":200,"input_tokens":10000}`+"\n", 1773104400000+ms, job)
}

func appendLine(t *testing.T, path, line string) time.Time {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(line)
	return time.Now()
}

// pipeline is the engine's loop reduced to what the rules need: alerts
// must not import engine, so its tests feed the rules themselves.
type pipeline struct {
	disp     *Dispatcher
	rules    *Rules
	cancel   context.CancelFunc
	done     chan struct{}
	attempts atomic.Int64
}

func startPipeline(t *testing.T, src ingest.Source, rc Config, h Hooks, p *Poster, journalPath string) *pipeline {
	j, err := OpenJournal(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	var rules *Rules
	disp := NewDispatcher(h, p, j, func(r Result) { rules.Result(r) })
	rules = NewRules(rc, disp, nil)
	ctx, cancel := context.WithCancel(context.Background())
	disp.Start(ctx)
	pl := &pipeline{disp: disp, rules: rules, cancel: cancel, done: make(chan struct{})}
	in := make(chan ingest.Batch, 16)
	go func() { src.Run(ctx, in); close(in) }()
	go func() {
		defer close(pl.done)
		st := correlate.New(correlate.DefaultConfig())
		for b := range in {
			for i := range b {
				job := st.Apply(&b[i])
				rules.Observe(st, job, &b[i])
			}
			pl.attempts.Store(st.AttemptCount())
		}
	}()
	t.Cleanup(pl.stop)
	return pl
}

func (pl *pipeline) stop() {
	pl.cancel()
	<-pl.done
	sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
	defer c()
	pl.disp.Shutdown(sctx)
}

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, what, within, cond)
}

// TestFleetKillsOnlyJobsOverCeilingOnceWithinASecond is the headline
// contract: in a log another process appends to, only the jobs over their
// ceiling are killed, each exactly once, within 1 s of the crossing line
// being written, with a signature that verifies.
func TestFleetKillsOnlyJobsOverCeilingOnceWithinASecond(t *testing.T) {
	secret := []byte("s3cret")
	ks := newKillServer(t, secret)
	path := filepath.Join(t.TempDir(), "fleet.jsonl")
	appendLine(t, path, "")
	pl := startPipeline(t, follow.NewTail([]string{path}, false, decode.Options{}), Config{JobCeilingUSD: 0.10, KillOn: DefaultKillOn},
		Hooks{KillWebhook: ks.URL}, NewPoster(time.Second, 5*time.Second, secret), filepath.Join(t.TempDir(), "j.jsonl"))
	_ = pl
	time.Sleep(100 * time.Millisecond)

	over := map[string]bool{"job-0": true, "job-3": true, "job-7": true}
	crossed := map[string]time.Time{}
	ms := int64(0)
	for round := range 6 {
		for i := range 10 {
			job := fmt.Sprintf("job-%d", i)
			if !over[job] && round >= 2 { // $0.06: under the $0.10 ceiling
				continue
			}
			ms += 10
			at := appendLine(t, path, call(job, ms))
			if over[job] && round == 3 { // the 4th call reaches $0.12
				crossed[job] = at
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	waitFor(t, "three kills", 5*time.Second, func() bool { return len(ks.kills()) >= 3 })
	time.Sleep(300 * time.Millisecond) // room for a wrong or duplicate kill to show up
	kills := ks.kills()
	if len(kills) != 3 || ks.bad != 0 {
		t.Fatalf("kills %+v (bad signatures %d), want exactly job-0, job-3, job-7 once", kills, ks.bad)
	}
	for _, k := range kills {
		if !over[k.JobID] || k.Rule != RuleJobCeiling || k.Scope != "job" || k.Action != "kill" || k.CeilingUSD != 0.10 {
			t.Errorf("unexpected kill %+v", k)
		}
		if lag := ks.at[k.JobID].Sub(crossed[k.JobID]); lag > time.Second {
			t.Errorf("%s killed %s after its crossing line was written, want under 1 s", k.JobID, lag)
		}
		if k.SpendUSD < 0.10 || k.At == "" {
			t.Errorf("body %+v", k)
		}
	}
}

func TestRestartDoesNotKillTwice(t *testing.T) {
	ks := newKillServer(t, nil)
	dir := t.TempDir()
	path, journal := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "journal.jsonl")
	for i := range 5 {
		appendLine(t, path, call("job-a", int64(i)))
	}
	run := func() {
		pl := startPipeline(t, follow.NewTail([]string{path}, false, decode.Options{}), Config{JobCeilingUSD: 0.05, KillOn: DefaultKillOn},
			Hooks{KillWebhook: ks.URL}, NewPoster(time.Second, 5*time.Second, nil), journal)
		waitFor(t, "the log to be read", 5*time.Second, func() bool {
			return pl.attempts.Load() == 5
		})
		pl.disp.Wait()
		pl.stop()
	}
	run()
	run() // replays the log from the start, with the same journal
	if n := len(ks.kills()); n != 1 {
		t.Errorf("job killed %d times across a restart, want 1", n)
	}
}

func TestRetryPolicy(t *testing.T) {
	t.Run("500 then 200 is retried and succeeds", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.WriteHeader(500)
			}
		}))
		defer srv.Close()
		d := NewPoster(time.Second, 10*time.Second, nil).Post(context.Background(), srv.URL, "k", []byte("{}"))
		if d.Err != nil || d.Attempts != 2 || d.Status != 200 {
			t.Errorf("%+v", d)
		}
	})
	t.Run("400 is final", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); w.WriteHeader(400) }))
		defer srv.Close()
		d := NewPoster(time.Second, 10*time.Second, nil).Post(context.Background(), srv.URL, "k", []byte("{}"))
		if d.Err == nil || d.Attempts != 1 || n.Load() != 1 {
			t.Errorf("400 must not be retried: %+v, server saw %d", d, n.Load())
		}
	})
	t.Run("429 honours Retry-After and keeps the key", func(t *testing.T) {
		var times []time.Time
		var keys []string
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Now())
			keys = append(keys, r.Header.Get("Idempotency-Key"))
			if len(times) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(429)
			}
		}))
		defer srv.Close()
		d := NewPoster(time.Second, 10*time.Second, nil).Post(context.Background(), srv.URL, "key-1", []byte("{}"))
		if d.Err != nil || len(times) != 2 || times[1].Sub(times[0]) < 900*time.Millisecond || keys[0] != "key-1" || keys[1] != "key-1" {
			t.Errorf("%+v times %v keys %v", d, times, keys)
		}
	})
	t.Run("a hanging endpoint hits the deadline", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer func() { close(release); srv.Close() }()
		start := time.Now()
		d := NewPoster(100*time.Millisecond, 600*time.Millisecond, nil).Post(context.Background(), srv.URL, "k", []byte("{}"))
		if d.Err == nil || time.Since(start) > 2*time.Second {
			t.Errorf("%+v after %s", d, time.Since(start))
		}
	})
}

// TestHangingWebhookDoesNotStallIngest: while a kill hangs, events keep
// being applied.
func TestHangingWebhookDoesNotStallIngest(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer func() { close(release); srv.Close() }()
	path := filepath.Join(t.TempDir(), "log.jsonl")
	appendLine(t, path, "")
	pl := startPipeline(t, follow.NewTail([]string{path}, false, decode.Options{}), Config{JobCeilingUSD: 0.01, KillOn: DefaultKillOn},
		Hooks{KillWebhook: srv.URL}, NewPoster(10*time.Second, 30*time.Second, nil), filepath.Join(t.TempDir(), "j"))
	appendLine(t, path, call("hung", 1))
	waitFor(t, "the kill to be sent", 5*time.Second, func() bool { return pl.disp.KillStates()["hung"].State == StateSent })
	for i := range 200 {
		appendLine(t, path, call(fmt.Sprintf("other-%d", i), int64(i+2)))
	}
	waitFor(t, "ingest to go on", 5*time.Second, func() bool {
		return pl.attempts.Load() == 201
	})
}

func TestExecHookTerminatesARealProcess(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("no sleep binary:", err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	tmpl, err := ParseExec("kill -TERM {job_id}", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res := tmpl.Run(context.Background(), Alert{JobID: fmt.Sprint(child.Process.Pid), Scope: "job", Rule: RuleJobCeiling}, nil)
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		child.Process.Kill()
		t.Fatal("the process was not terminated")
	}
}

func TestExecRefusesUnsafeJobIDs(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	// Even a template that hands the value to a shell is safe: unsafe
	// values never reach it.
	tmpl, err := ParseExec(`sh -c "echo {job_id}"`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"x; touch " + pwned, "$(touch " + pwned + ")", "`touch " + pwned + "`", "a b", "x\ntouch " + pwned, ""} {
		res := tmpl.Run(context.Background(), Alert{JobID: id, Scope: "job", Rule: RuleJobCeiling}, nil)
		if res.Err == nil || res.Argv != nil {
			t.Errorf("job ID %q was not refused: %+v", id, res)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("an injected command ran")
	}
	ok, _ := ParseExec("echo {job_id} {job_type} {rule} {scope}", time.Second)
	argv, err := ok.Argv(Alert{JobID: "rec-00042", JobType: "enrich", Rule: "job_ceiling", Scope: "job"})
	if err != nil || len(argv) != 5 || argv[1] != "rec-00042" {
		t.Errorf("plain values must pass: %v %v", argv, err)
	}
	if _, err := ParseExec("echo {jobid}", time.Second); err == nil {
		t.Error("an unknown placeholder must be rejected at start-up")
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	ks := newKillServer(t, nil)
	dir := t.TempDir()
	path, journal := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "journal.jsonl")
	for i := range 5 {
		appendLine(t, path, call("job-a", int64(i)))
	}
	pl := startPipeline(t, follow.NewTail([]string{path}, false, decode.Options{}), Config{JobCeilingUSD: 0.05, KillOn: DefaultKillOn},
		Hooks{KillWebhook: ks.URL, DryRun: true}, NewPoster(time.Second, 5*time.Second, nil), journal)
	waitFor(t, "the would-fire record", 5*time.Second, func() bool {
		b, _ := os.ReadFile(journal)
		return len(b) > 0
	})
	pl.stop()
	b, _ := os.ReadFile(journal)
	var r Record
	json.Unmarshal(b, &r)
	if len(ks.kills()) != 0 || r.State != StateWouldFire || r.JobID != "job-a" {
		t.Errorf("dry run sent %d kills; journal %s", len(ks.kills()), b)
	}
}

func TestReadOnlyRefusesKills(t *testing.T) {
	ks := newKillServer(t, nil)
	d := NewDispatcher(Hooks{KillWebhook: ks.URL, ReadOnly: true}, NewPoster(time.Second, time.Second, nil), nil, nil)
	d.Start(context.Background())
	defer d.Shutdown(context.Background())
	d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", JobID: "j"})
	if err := NewManual(NewRules(Config{}, d, nil)).Kill(correlate.JobRow{ID: "j", Type: "t"}, 1); err == nil {
		t.Error("manual kill must be refused in read-only mode")
	}
	d.Wait()
	if len(ks.kills()) != 0 {
		t.Error("read-only mode sent a kill")
	}
}

// TestSeed001RunCeilingFiresAtTheSameLogMoment: replaying seed 001 with a
// $5 run ceiling fires the kill at the same log time every time, at the
// first event that takes spend to $5.
func TestSeed001RunCeilingFiresAtTheSameLogMoment(t *testing.T) {
	var ats []int64
	for range 3 {
		it, err := file.OpenFile("../sample-logs/seed001-poisoned-400.jsonl.gz", 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var fired []Alert
		rules := NewRules(Config{RunCeilingUSD: 5, KillOn: DefaultKillOn}, nil, func(a Alert) { fired = append(fired, a) })
		st := correlate.New(correlate.DefaultConfig())
		var ev ingest.Event
		for it.Next(&ev) {
			job := st.Apply(&ev)
			rules.Observe(st, job, &ev)
		}
		it.Close()
		if len(fired) != 1 || fired[0].Rule != RuleRunCeiling || !fired[0].Kill {
			t.Fatalf("fired %+v", fired)
		}
		if fired[0].SpendUSD < 5 || fired[0].SpendUSD >= 5.024 {
			t.Errorf("fired at $%v: not the first call over $5", fired[0].SpendUSD)
		}
		ats = append(ats, fired[0].At)
	}
	if ats[0] != ats[1] || ats[1] != ats[2] {
		t.Errorf("the run ceiling fired at different log moments: %v", ats)
	}
}

func TestShutdownIsIdempotentAndSafeWithoutStart(t *testing.T) {
	d := NewDispatcher(Hooks{}, NewPoster(0, 0, nil), nil, nil)
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	d2 := NewDispatcher(Hooks{}, NewPoster(0, 0, nil), nil, nil)
	d2.Start(context.Background())
	d2.Shutdown(context.Background())
	d2.Shutdown(context.Background())
}

func TestBurnRateRearms(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{BurnRateUSDPerMin: 0.05, BurnWindow: time.Minute}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	feed := func(ms int64) {
		p := decode.NewParser()
		var ev ingest.Event
		p.ParseLine([]byte(call("burn", ms)), &ev)
		r.Observe(st, st.Apply(&ev), &ev)
	}
	feed(0)
	feed(1000) // $0.06 in a minute: fires
	feed(5 * 60_000)
	feed(5*60_000 + 1) // quiet for minutes, then burning again: fires again
	if len(fired) != 2 {
		t.Errorf("burn rate fired %d times, want 2 (re-armed after the rate fell)", len(fired))
	}
}

// TestProjectedCeilingFiresBeforeTheMoneyIsGone: with finished jobs of a
// type costing $0.06, ten more enqueued project the run over $0.50 while
// only $0.12 is spent.
func TestProjectedCeilingFiresBeforeTheMoneyIsGone(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{ProjectedCeilingUSD: 0.5}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	p := decode.NewParser()
	feed := func(l string) {
		var ev ingest.Event
		if p.ParseLine([]byte(l), &ev) != ingest.Accepted {
			t.Fatal(l)
		}
		r.Observe(st, st.Apply(&ev), &ev)
	}
	ms := int64(0)
	for i := range 2 {
		job := fmt.Sprintf("done-%d", i)
		feed(fmt.Sprintf(`{"ts":%d,"event":"job_started","job_id":"%s","job_type":"batch"}`, 1773104400000+ms, job))
		for range 2 {
			ms += 10
			feed(fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"%s","job_type":"batch","model":"claude-sonnet-4-6","status":200,"input_tokens":10000}`, 1773104400000+ms, job))
		}
		feed(fmt.Sprintf(`{"ts":%d,"event":"job_succeeded","job_id":"%s","job_type":"batch"}`, 1773104400000+ms, job))
	}
	for i := range 10 {
		ms += 1000
		feed(fmt.Sprintf(`{"ts":%d,"event":"job_enqueued","job_id":"queued-%d","job_type":"batch"}`, 1773104400000+ms, i))
	}
	if len(fired) != 1 || fired[0].Rule != RuleProjectedCeiling || fired[0].SpendUSD > 0.13 {
		t.Errorf("fired %+v", fired)
	}
}

// TestKillDuringShutdownDoesNotPanic pins a race: enqueue checked
// "stopped" but sent after releasing the lock, so Shutdown could close the
// queue in between.
func TestKillDuringShutdownDoesNotPanic(t *testing.T) {
	for range 50 {
		d := NewDispatcher(Hooks{KillWebhook: "http://127.0.0.1:9/kill"}, NewPoster(10*time.Millisecond, 20*time.Millisecond, nil), nil, nil)
		d.Start(context.Background())
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 20 {
					d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", JobID: fmt.Sprintf("j-%d-%d", i, j)})
				}
			}()
		}
		d.Shutdown(context.Background())
		wg.Wait()
	}
}

// TestJobCeilingSeesAResponsesLaterRecords: issue 25 — a Claude Code
// response's later records add its output as usage growth; a ceiling that
// read only attempts would miss a job carried over it by one.
func TestJobCeilingSeesAResponsesLaterRecords(t *testing.T) {
	var fired []Alert
	r := NewRules(Config{JobCeilingUSD: 0.10}, nil, func(a Alert) { fired = append(fired, a) })
	st := correlate.New(correlate.DefaultConfig())
	dec := decode.NewDecoder(decode.FormatClaudeCode, nil, decode.Options{})
	record := func(out int) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s1","uuid":"u%d","timestamp":"2026-03-10T01:00:0%dZ","message":{"id":"msg_bdrk_1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"output_tokens":%d}}}`, out, min(out/1000, 9), out)
	}
	for _, out := range []int{8, 2000, 9000} { // 9,000 output tokens at $15/M: $0.135
		if sr := dec.Decode([]byte(record(out)), func(ev *ingest.Event) { r.Observe(st, st.Apply(ev), ev) }); sr != ingest.Accepted {
			t.Fatalf("record of %d output tokens: %s", out, sr)
		}
	}
	if st.AttemptCount() != 1 || len(fired) != 1 || fired[0].Rule != RuleJobCeiling {
		t.Fatalf("%d attempts, fired %+v: one response over its ceiling must fire once", st.AttemptCount(), fired)
	}
}
