package correlate_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/report"
)

const fixtures = "../sample-logs/formats/"

// pinoMaps tell burnrate where a pino logger keeps the call.
func pinoMaps(t testing.TB) []decode.FieldMap {
	var maps []decode.FieldMap
	for _, m := range []string{"job_id=ctx.job.id", "job_type=ctx.job.kind", "attempt=ctx.try", "model=llm.model", "provider=llm.vendor",
		"input_tokens=llm.usage.in", "output_tokens=llm.usage.out", "status=res.statusCode", "latency_ms=res.ms"} {
		fm, err := decode.ParseFieldMap(m)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, fm)
	}
	return maps
}

func readWith(t testing.TB, path string, opts decode.Options) (*correlate.State, *file.FileIter) {
	t.Helper()
	it, err := file.OpenFile(path, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(it, st)
	st.SetSources([]correlate.SourceInfo{{Name: filepath.Base(path), Stats: it.Stats, Format: string(it.Detected.Format), Hint: it.Hint()}})
	return st, it
}

// TestFormatGoldenReports pins the report of every format fixture.
func TestFormatGoldenReports(t *testing.T) {
	files, _ := filepath.Glob(fixtures + "*")
	if len(files) < 7 {
		t.Fatalf("format fixtures missing: %v", files)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			opts := decode.Options{}
			if strings.HasPrefix(name, "pino") {
				opts.Maps = pinoMaps(t)
			}
			st, it := readWith(t, f, opts)
			// An app's own text and JSON lines between SDK lines are
			// skipped for what they are; nothing else may be.
			allowed := map[string]bool{}
			if name == "openai-python.log" {
				allowed = map[string]bool{"text": true, "no_event": true}
			}
			for reason, n := range it.Stats.SkippedByReason() {
				if !allowed[reason] {
					t.Errorf("skipped %d lines as %s", n, reason)
				}
			}
			var js bytes.Buffer
			report.JSON(&js, st.Report())
			golden(t, "testdata/golden/formats-"+name+".json", js.Bytes())
		})
	}
}

// TestDetectionMatrix: every fixture is detected as its own format, and
// no canonical sample is taken for another.
func TestDetectionMatrix(t *testing.T) {
	want := map[string]decode.Format{
		"litellm-payload.jsonl": decode.FormatLiteLLM, "litellm-spendlogs.jsonl": decode.FormatLiteLLM,
		"python-sdk-mixed.log": decode.FormatSDKText, "node-sdk.log": decode.FormatSDKText,
		"openai-batch.jsonl": decode.FormatOpenAIBatch, "anthropic-batch.jsonl": decode.FormatAnthropicBatch,
		"pino-nested.jsonl": decode.FormatJSONL,
	}
	canon, _ := filepath.Glob(samples + "*.jsonl*")
	for _, c := range canon {
		want["../"+filepath.Base(c)] = decode.FormatJSONL
	}
	for name, f := range want {
		path := fixtures + name
		if strings.HasPrefix(name, "../") {
			path = samples + strings.TrimPrefix(name, "../")
		}
		_, it := readWith(t, path, decode.Options{})
		if it.Detected.Format != f {
			t.Errorf("%s detected as %s, want %s (counts %v)", name, it.Detected.Format, f, it.Detected.Counts)
		}
	}
}

// TestNodeChain: a Node-SDK 529 → 429 → 200 chain is one operation with 3
// attempts and the two waits between them.
func TestNodeChain(t *testing.T) {
	st, _ := readWith(t, fixtures+"node-sdk.log", decode.Options{})
	r := st.Report()
	if r.Totals.Operations != 30 {
		t.Errorf("operations %d, want one per chain (30)", r.Totals.Operations)
	}
	var chain *correlate.Job
	for _, j := range st.Jobs() {
		if len(st.Attempts(j)) == 3 {
			chain = j
			break
		}
	}
	if chain == nil {
		t.Fatal("no 3-attempt chain")
	}
	atts := st.Attempts(chain)
	if atts[0].Status != 529 || atts[1].Status != 429 || atts[2].Status != 200 {
		t.Errorf("statuses %d %d %d", atts[0].Status, atts[1].Status, atts[2].Status)
	}
	// The fixture waits 500 ms after the first attempt and 1,000 ms after the second.
	if atts[0].WaitMs != -1 || atts[1].WaitMs != 500 || atts[2].WaitMs != 1000 || atts[2].Num != 3 {
		t.Errorf("waits %d %d %d, attempt %d", atts[0].WaitMs, atts[1].WaitMs, atts[2].WaitMs, atts[2].Num)
	}
	if got := correlate.FormatLayers(chain.Layers()); got != "1×1×3" {
		t.Errorf("layers %s: the SDK layer should show 3 attempts", got)
	}
}

// TestPythonMixed: SDK text lines interleaved with the app's JSON lines
// count the SDK's attempts against the app's jobs.
func TestPythonMixed(t *testing.T) {
	st, _ := readWith(t, fixtures+"python-sdk-mixed.log", decode.Options{})
	j := st.Job("report:01")
	if j == nil {
		t.Fatal("job report:01 missing: text lines must take the job of the JSON line before them")
	}
	atts := st.Attempts(j)
	if len(atts) != 3 || atts[0].Num != 1 || atts[1].Num != 2 || atts[2].Num != 3 || atts[2].Status != 200 || j.Outcome != correlate.OutcomeSucceeded {
		t.Errorf("attempts %+v outcome %v", atts, j.Outcome)
	}
	if st.Name(atts[0].Name) != "claude-sonnet-4-6" {
		t.Errorf("model %q: take it from the app's line", st.Name(atts[0].Name))
	}
	r := st.Report()
	if r.Totals.Attempts != 21 || r.Status["529"] != 6 || r.Status["400"] != 3 {
		t.Errorf("attempts %d status %v, want the SDK's 21 attempts", r.Totals.Attempts, r.Status)
	}
	// The 400s were not retried; only the 529s' breaker trips.
	if finding(r, "terminal_error_retried") != nil || finding(r, "breaker_open") == nil {
		t.Errorf("findings %v", kinds(r))
	}
}

func TestMapAndHint(t *testing.T) {
	st, it := readWith(t, fixtures+"pino-nested.jsonl", decode.Options{})
	if st.Report().Totals.Attempts != 0 || !strings.Contains(it.Hint(), "--map") || !strings.Contains(it.Hint(), `"llm" 60`) {
		t.Errorf("unmapped pino: hint %q", it.Hint())
	}
	st, it = readWith(t, fixtures+"pino-nested.jsonl", decode.Options{Maps: pinoMaps(t)})
	r := st.Report()
	if r.Totals.Attempts != 60 || r.Totals.Jobs != 30 || r.Status["429"] != 10 || it.Hint() != "" {
		t.Errorf("mapped pino: %+v status %v", r.Totals, r.Status)
	}
	if r.JobTypes[0].JobType != "triage" || r.Totals.InputTokens != 60*900 {
		t.Errorf("job type %s input %d", r.JobTypes[0].JobType, r.Totals.InputTokens)
	}
}

// TestBatchPricing: batch results are priced at half the synchronous rate
// (no batch rates in the built-in table) and reported beside sync spend.
func TestBatchPricing(t *testing.T) {
	st, _ := readWith(t, fixtures+"anthropic-batch.jsonl", decode.Options{})
	r := st.Report()
	// 48 successes × (1,800 in × $1.50 + 600 out × $7.50 + 4,000 cache read × $0.15) per million.
	want := 48 * (1800*1.5 + 600*7.5 + 4000*0.15) / 1e6
	if r.Totals.BatchSpendUSD != r.Totals.SpendUSD || r.Totals.SyncSpendUSD != 0 || !near(r.Totals.BatchSpendUSD, want) || r.Pricing.BatchNote == "" {
		t.Errorf("batch %v sync %v, want %v; note %q", r.Totals.BatchSpendUSD, r.Totals.SyncSpendUSD, want, r.Pricing.BatchNote)
	}
}

func TestLiteLLM(t *testing.T) {
	st, _ := readWith(t, fixtures+"litellm-spendlogs.jsonl", decode.Options{})
	r := st.Report()
	// Spend is the rows' "spend", float noise and all, summed exactly.
	var want float64
	for i := range 60 {
		want += 0.0011200000000000001 + float64(i%3)*0.0001
	}
	if !near(r.Totals.SpendUSD, want) || r.Totals.Jobs != 20 || r.Totals.CacheReadTokens != 60*1024 {
		t.Errorf("%+v (want spend %v)", r.Totals, want)
	}
	// attempted_retries 0,0,2,0,1,3 per six rows: 60 rows + 60 retries.
	if r.Totals.Attempts != 120 {
		t.Errorf("attempts %d, want 120", r.Totals.Attempts)
	}
	st, _ = readWith(t, fixtures+"litellm-payload.jsonl", decode.Options{})
	r = st.Report()
	if r.Status["429"] != 14 || r.RetryAfter.Count != 14 || r.Totals.Jobs != 32 {
		t.Errorf("payload: status %v retry_after %+v jobs %d", r.Status, r.RetryAfter, r.Totals.Jobs)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }
