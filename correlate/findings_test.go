package correlate

import (
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

func apply(t *testing.T, cfg Config, lines ...string) *Report {
	t.Helper()
	st := New(cfg)
	p := decode.NewParser()
	for _, l := range lines {
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %v", l, r)
		}
		st.Apply(&ev)
	}
	return st.Report()
}

func findingOf(r *Report, kind string) *FindingReport {
	for i := range r.Findings {
		if r.Findings[i].Kind == kind {
			return &r.Findings[i]
		}
	}
	return nil
}

func TestRetryAfterIgnored(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-03-10T01:00:00Z","job_id":"j","idempotency_key":"k","model":"claude-haiku-4-5","status":429,"retry_after_s":5,"latency_ms":100}`,
		// 1.9 s after the 429 answered: 3.1 s too early.
		`{"ts":"2026-03-10T01:00:02Z","job_id":"j","idempotency_key":"k","attempt":2,"model":"claude-haiku-4-5","status":429,"retry_after_s":5,"latency_ms":100}`,
		// 6 s later: honoured.
		`{"ts":"2026-03-10T01:00:08.1Z","job_id":"j","idempotency_key":"k","attempt":3,"model":"claude-haiku-4-5","status":200,"input_tokens":10}`)
	f := findingOf(r, "retry_after_ignored")
	if f == nil || f.Count != 1 || f.Jobs[0] != "j" {
		t.Fatalf("retry_after_ignored = %+v", f)
	}
	if r.RetryAfter.Honored != 1 {
		t.Errorf("honoured %d, want 1", r.RetryAfter.Honored)
	}
}

func TestRetryAfterOn2xxIsNoSignal(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-03-10T01:00:00Z","job_id":"j","idempotency_key":"k","model":"m","status":200,"retry_after_s":30}`,
		`{"ts":"2026-03-10T01:00:01Z","job_id":"j","idempotency_key":"k","model":"m","status":200}`)
	if findingOf(r, "retry_after_ignored") != nil || r.RetryAfter.Count != 0 {
		t.Errorf("a Retry-After on a 2xx is not a rate-limit signal: %+v", r.RetryAfter)
	}
}

// TestStreamRepaid: a retry after a dropped stream pays the output again.
func TestStreamRepaid(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-03-10T01:00:00Z","job_id":"j","idempotency_key":"k","model":"claude-sonnet-4-6","status":200,"output_tokens":3000,"stream_dropped":true}`,
		`{"ts":"2026-03-10T01:01:00Z","job_id":"j","idempotency_key":"k","attempt":2,"model":"claude-sonnet-4-6","status":200,"output_tokens":3000}`)
	f := findingOf(r, "stream_repaid")
	// 3,000 output tokens at $15 per million, paid twice.
	if f == nil || f.Count != 1 || f.WastedUSD != 0.045 {
		t.Fatalf("stream_repaid = %+v", f)
	}
}

func TestSeverityOverridesAndPerTypeLimits(t *testing.T) {
	lines := []string{}
	for i := range 12 {
		lines = append(lines, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","job_type":"agent","model":"m","status":529}`)
	}
	cfg := DefaultConfig()
	if f := findingOf(apply(t, cfg, lines...), "hidden_retry_layer"); f == nil {
		t.Fatal("one call tried 12 times, over the default 10, must flag hidden_retry_layer")
	}
	cfg.MaxCallsPerJobType = map[string]int{"agent": 20}
	if f := findingOf(apply(t, cfg, lines...), "hidden_retry_layer"); f != nil {
		t.Error("the job type's own limit of 20 must win")
	}
	cfg = DefaultConfig()
	cfg.Severity = map[FindingKind]Severity{HiddenRetryLayer: SeverityOff}
	if f := findingOf(apply(t, cfg, lines...), "hidden_retry_layer"); f != nil {
		t.Error("severity off must silence the kind")
	}
	cfg.Severity = map[FindingKind]Severity{HiddenRetryLayer: SeverityCritical}
	if r := apply(t, cfg, lines...); !r.HasCritical() {
		t.Error("raising the kind to critical must make the report critical")
	}
}

func itoa(i int) string {
	b := []byte{}
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestManyDistinctCallsAreNoHiddenLayer: issue 23/25 — a job making 25
// distinct first-try calls got "layers 1×1×1 … a retry layer you do not
// know about is active", and every real coding-agent session did. A hidden
// layer shows as one call tried too often, with or without keys.
func TestManyDistinctCallsAreNoHiddenLayer(t *testing.T) {
	var keyless, keyed, retried []string
	for i := range 25 {
		keyless = append(keyless, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","model":"m","status":200}`)
		keyed = append(keyed, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","idempotency_key":"k`+itoa(i+1)+`","model":"m","status":200}`)
	}
	for i := range 11 {
		retried = append(retried, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","idempotency_key":"k1","model":"m","status":529}`)
	}
	for name, lines := range map[string][]string{"keyless": keyless, "keyed": keyed} {
		if f := findingOf(apply(t, DefaultConfig(), lines...), "hidden_retry_layer"); f != nil {
			t.Errorf("%s: 25 distinct calls flagged: %s", name, f.Example)
		}
	}
	if f := findingOf(apply(t, DefaultConfig(), retried...), "hidden_retry_layer"); f == nil {
		t.Error("one keyed call tried 11 times was not flagged")
	}
}

// TestNoKeyNoDuplicate pins a bug: without an idempotency key, a job's
// second successful call was counted as a duplicate completion.
func TestNoKeyNoDuplicate(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":1773104400,"job_id":"j","model":"m","status":200}`,
		`{"ts":1773104401,"job_id":"j","model":"m","status":200}`)
	if r.Duplicates != 0 || findingOf(r, "duplicate_completion") != nil {
		t.Errorf("two calls of one job without keys are not duplicates: %d", r.Duplicates)
	}
	r = apply(t, DefaultConfig(),
		`{"ts":1773104400,"job_id":"j","idempotency_key":"k","model":"m","status":200}`,
		`{"ts":1773104401,"job_id":"j","idempotency_key":"k","model":"m","status":200}`)
	if r.Duplicates != 1 {
		t.Errorf("two successes under one key are a duplicate: %d", r.Duplicates)
	}
}

// TestRetryThatWorkedWastedNothing: a retry sooner than Retry-After that
// then succeeded is a finding, but its cost bought the answer: the finding
// wastes only the early retries that failed, never more than the run.
func TestRetryThatWorkedWastedNothing(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-03-10T01:00:00Z","job_id":"j","idempotency_key":"k","model":"claude-haiku-4-5","status":429,"retry_after_s":5,"latency_ms":100,"input_tokens":1000}`,
		`{"ts":"2026-03-10T01:00:01Z","job_id":"j","idempotency_key":"k","attempt":2,"model":"claude-haiku-4-5","status":429,"retry_after_s":5,"latency_ms":100,"input_tokens":1000}`,
		`{"ts":"2026-03-10T01:00:02Z","job_id":"j","idempotency_key":"k","attempt":3,"model":"claude-haiku-4-5","status":200,"input_tokens":1000000}`)
	f := findingOf(r, "retry_after_ignored")
	if f == nil || f.Count != 2 {
		t.Fatalf("retry_after_ignored = %+v", f)
	}
	// 1,000 input tokens at $1 per million: the second 429's cost only.
	if f.WastedUSD != 0.001 || f.JobsWastedUSD != r.Totals.WastedUSD || r.Totals.WastedUSD != 0.002 {
		t.Errorf("finding wasted $%v, its jobs $%v, the run $%v: want $0.001, $0.002, $0.002", f.WastedUSD, f.JobsWastedUSD, r.Totals.WastedUSD)
	}
}

// TestStreamRepaidIsRunWaste: the paid output of a dropped stream that
// was regenerated is in the run's wasted spend, so the finding's waste is
// part of it.
func TestStreamRepaidIsRunWaste(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-03-10T01:00:00Z","job_id":"j","idempotency_key":"k","model":"claude-sonnet-4-6","status":200,"output_tokens":3000,"stream_dropped":true}`,
		`{"ts":"2026-03-10T01:01:00Z","job_id":"j","idempotency_key":"k","attempt":2,"model":"claude-sonnet-4-6","status":200,"output_tokens":3000}`)
	if f := findingOf(r, "stream_repaid"); f == nil || f.WastedUSD > r.Totals.WastedUSD || r.Totals.WastedUSD != 0.045 {
		t.Fatalf("stream_repaid = %+v, run wasted $%v: want $0.045 of $0.045", f, r.Totals.WastedUSD)
	}
}

// TestHiddenLayerWastesItsExtraTries: the finding counts its job once and
// wastes the failed tries past the limit, not the tries within it.
func TestHiddenLayerWastesItsExtraTries(t *testing.T) {
	var lines []string
	for i := range 12 {
		lines = append(lines, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","idempotency_key":"k","model":"claude-haiku-4-5","status":529,"input_tokens":1000}`)
	}
	r := apply(t, DefaultConfig(), lines...)
	f := findingOf(r, "hidden_retry_layer")
	if f == nil || f.Count != 1 || f.JobsTotal != 1 {
		t.Fatalf("hidden_retry_layer = %+v", f)
	}
	// Tries 11 and 12 of a limit of 10, $0.001 each; the job wasted all 12.
	if f.WastedUSD != 0.002 || f.JobsWastedUSD != 0.012 {
		t.Errorf("finding wasted $%v, its job $%v: want $0.002 and $0.012", f.WastedUSD, f.JobsWastedUSD)
	}
}

// TestDistinctCallsAreNoRetryLayer: issue 23 — a job making 25 distinct
// first-try calls got "layers 1×1×1 … a retry layer you do not know about
// is active". Neither hidden_retry_layer nor retry_amplification fires
// from a call count: only from one call tried again and again.
func TestDistinctCallsAreNoRetryLayer(t *testing.T) {
	var lines []string
	for i := range 25 {
		lines = append(lines, `{"ts":`+itoa(1773104400+i)+`,"job_id":"agent-1","idempotency_key":"call-`+itoa(i)+`","model":"claude-haiku-4-5","status":200,"input_tokens":100}`)
	}
	r := apply(t, DefaultConfig(), lines...)
	for _, k := range []string{"hidden_retry_layer", "retry_amplification"} {
		if f := findingOf(r, k); f != nil {
			t.Errorf("%s on 25 distinct calls that each worked first time: %+v", k, f)
		}
	}
	// One of them tried 12 times is a hidden layer.
	for i := range 11 {
		lines = append(lines, `{"ts":`+itoa(1773104500+i)+`,"job_id":"agent-1","idempotency_key":"call-x","model":"claude-haiku-4-5","status":529}`)
	}
	lines = append(lines, `{"ts":1773104520,"job_id":"agent-1","idempotency_key":"call-x","model":"claude-haiku-4-5","status":200}`)
	if f := findingOf(apply(t, DefaultConfig(), lines...), "hidden_retry_layer"); f == nil || f.Count != 1 {
		t.Errorf("one call tried 12 times: hidden_retry_layer = %+v", f)
	}
}

// TestWasteNeverWrapsNorExceedsTheRun: red team of issue 23 — a job's
// non-2xx spend plus its duplicates, added without saturating, read
// −$8,446,744.07, and a dropped stream priced from the table ($7.50) beside
// a logged cost_usd of $0.001 made a finding's waste exceed the run's.
func TestWasteNeverWrapsNorExceedsTheRun(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, `{"ts":`+itoa(1773104400+i)+`,"job_id":"j","idempotency_key":"k1","model":"m","status":529,"cost_usd":100000}`)
	}
	for i := range 51 {
		lines = append(lines, `{"ts":`+itoa(1773104500+i)+`,"job_id":"j","idempotency_key":"k1","model":"m","status":200,"cost_usd":100000}`)
	}
	r := apply(t, DefaultConfig(), lines...)
	for _, j := range r.Jobs {
		if j.WastedUSD < 0 || j.WastedUSD > j.SpendUSD {
			t.Errorf("job %s wasted $%v of $%v", j.JobID, j.WastedUSD, j.SpendUSD)
		}
	}
	r = apply(t, DefaultConfig(),
		`{"ts":1773104400,"job_id":"s","idempotency_key":"k","model":"claude-sonnet-4-6","status":529,"output_tokens":500000,"cost_usd":0.001,"stream_dropped":true}`,
		`{"ts":1773104401,"job_id":"s","idempotency_key":"k","model":"claude-sonnet-4-6","status":200,"output_tokens":500000,"cost_usd":0.001}`)
	for _, f := range r.Findings {
		if f.WastedUSD > r.Totals.WastedUSD+1e-9 || f.WastedUSD > r.Totals.SpendUSD+1e-9 {
			t.Errorf("%s wasted $%v; the run wasted $%v of $%v", f.Kind, f.WastedUSD, r.Totals.WastedUSD, r.Totals.SpendUSD)
		}
	}
}

// TestRatesFallWhenTheInputGoesQuiet: red team of issue 23 — 18 minutes
// after the last line, the burn rate still read its last minute's $6/min
// (and /metrics with it): the windows ended at the last event. At the live
// clock they end now, and a quiet log burns nothing.
func TestRatesFallWhenTheInputGoesQuiet(t *testing.T) {
	st := New(DefaultConfig())
	base := int64(1773104400) * 1e9
	for i := range 120 {
		ev := ingest.Event{TS: base + int64(i)*1e9, Kind: ingest.KindLLMCall, JobID: "j", Model: "m", Status: 200, CostUSD: 0.1, HasCost: true, RetryAfterMs: ingest.NoRetryAfter}
		st.Apply(&ev)
	}
	busy := st.Snapshot(SnapshotOptions{NoJobRows: true})
	if busy.BurnPerMin1 < 5 || busy.BurnPerMin1 > 7 {
		t.Fatalf("steady $6/min read $%v/min", busy.BurnPerMin1)
	}
	quiet := st.Snapshot(SnapshotOptions{NoJobRows: true, Now: st.Now() + int64(5*time.Minute)})
	if quiet.BurnPerMin1 != 0 || quiet.BurnWarming5 {
		t.Errorf("five quiet minutes later: $%v/min (warming %v), want $0", quiet.BurnPerMin1, quiet.BurnWarming5)
	}
}

// TestOneMinuteRateIsOfTheLastMinute: $11.25 spent in 45 s, then 73 s of
// nothing: the 1-minute rate is of the last 60 s — $0 — not of the two
// minute buckets it touches ($5.72/min read), and it falls as the quiet
// goes on rather than holding until the bucket ends.
func TestOneMinuteRateIsOfTheLastMinute(t *testing.T) {
	st := New(DefaultConfig())
	base := int64(1773104400) * 1e9 // 01:00:00
	for i := range 45 {
		ev := ingest.Event{TS: base + int64(i)*1e9, Kind: ingest.KindLLMCall, JobID: "j", Model: "m", Status: 200, CostUSD: 0.25, HasCost: true, RetryAfterMs: ingest.NoRetryAfter}
		st.Apply(&ev)
	}
	at := func(quiet time.Duration) float64 {
		return st.Snapshot(SnapshotOptions{NoJobRows: true, Now: base + int64(44*time.Second) + int64(quiet)}).BurnPerMin1
	}
	// Steady $15/min for 45 s: within 5% after the first 10 s.
	if r := at(0); r < 14.25 || r > 15.75 {
		t.Errorf("steady $15/min read $%.2f/min", r)
	}
	// 30 s quiet: the last minute holds 30 s of spend ($7.50 + the edge).
	if r := at(30 * time.Second); r < 7 || r > 8 {
		t.Errorf("30 s quiet: $%.2f/min, want about $7.50", r)
	}
	if r := at(61 * time.Second); r != 0 {
		t.Errorf("61 s quiet: $%.2f/min, want $0", r)
	}
}

// TestJobExamplesGiveTheJobsFinalFigures: issue 23 — a finding's example
// was written at its first crossing: "retry layers 2×3×3 multiply to 18
// calls" while the job's row read 63 calls at 7×3×3, and "tried 11 times
// … 1×1×11" while the job read 1×1×12. The examples of
// retry_amplification and hidden_retry_layer now give the job's figures
// as the report finds them: at every report, not only the first; the
// most-tried call, not the last one flagged; the first job flagged, not a
// later one.
func TestJobExamplesGiveTheJobsFinalFigures(t *testing.T) {
	st := New(DefaultConfig())
	p := decode.NewParser()
	sec := 0
	call := func(job, key string, attempt, status int) {
		t.Helper()
		sec++
		l := `{"ts":"2026-03-10T01:` + pad2(sec/60) + `:` + pad2(sec%60) + `Z","job_id":"` + job + `","idempotency_key":"` + key + `","attempt":` + itoa(attempt) + `,"model":"m","status":` + itoa(status) + `,"cost_usd":0.01}`
		var ev ingest.Event
		if r := p.ParseLine([]byte(l), &ev); r != ingest.Accepted {
			t.Fatalf("%s: %v", l, r)
		}
		st.Apply(&ev)
	}
	example := func(kind string) string {
		t.Helper()
		f := findingOf(st.Report(), kind)
		if f == nil {
			t.Fatalf("no %s finding", kind)
		}
		return f.Example
	}
	for a := 1; a <= 11; a++ { // one call tried 11 times: both findings cross
		call("j", "k1", a, 500)
	}
	if got, want := example("hidden_retry_layer"), "job j: one model call was tried 11 times (limit 10): layers 1×1×11"; got != want {
		t.Errorf("at the crossing: %q, want %q", got, want)
	}
	call("j", "k1", 12, 500)
	call("j", "k1", 13, 500)   // the call gives up at 13 tries; the next is a new round
	for a := 1; a <= 11; a++ { // a second call of the job, tried less
		call("j", "k2", a, 500)
	}
	for a := 1; a <= 20; a++ { // another job, flagged later, tried more
		call("other", "k3", a, 500)
	}
	if got, want := example("hidden_retry_layer"), "job j: one model call was tried 13 times (limit 10): layers 1×2×13"; got != want {
		t.Errorf("after the job grew: %q, want %q", got, want)
	}
	if got, want := example("retry_amplification"), "job j: retry layers 1×2×13 multiply to 26 calls"; got != want {
		t.Errorf("after the job grew: %q, want %q", got, want)
	}
	r := st.Report()
	for _, j := range r.Jobs {
		if j.JobID == "j" && FormatLayers(j.Layers) != "1×2×13" {
			t.Errorf("the job's row reads %s, the examples 1×2×13", FormatLayers(j.Layers))
		}
	}
	if f := findingOf(r, "hidden_retry_layer"); f.FirstAt != "2026-03-10T01:00:11Z" {
		t.Errorf("first_at %s: the first crossing's time stays", f.FirstAt)
	}
}

func pad2(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }
