package correlate_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/report"
	"github.com/burnrate-dev/burnrate/scenario"
)

var update = flag.Bool("update", false, "rewrite golden files")

const samples = "../sample-logs/"

// reportOf runs the whole report path on files, as `burnrate report` does.
func reportOf(t testing.TB, cfg correlate.Config, paths ...string) *correlate.Report {
	t.Helper()
	var iters []file.EventIter
	var files []*file.FileIter
	for i, p := range paths {
		it, err := file.OpenFile(p, uint16(i), decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		iters = append(iters, it)
		files = append(files, it)
	}
	st := correlate.New(cfg)
	file.Drain(file.Merge(iters...), st)
	var src []correlate.SourceInfo
	for _, f := range files {
		src = append(src, correlate.SourceInfo{Name: filepath.Base(f.Path), Stats: f.Stats})
	}
	st.SetSources(src)
	return st.Report()
}

func finding(r *correlate.Report, kind string) *correlate.FindingReport {
	for i := range r.Findings {
		if r.Findings[i].Kind == kind {
			return &r.Findings[i]
		}
	}
	return nil
}

func kinds(r *correlate.Report) []string {
	var k []string
	for _, f := range r.Findings {
		k = append(k, f.Kind)
	}
	return k
}

// TestSeed000Incident pins seed 000's autopsy: 22 jobs, 1,043 calls,
// p99 63 calls per job, 9 duplicate reports, 11 m 40 s to dead letter.
func TestSeed000Incident(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"seed000-incident.jsonl")
	if r.Totals.Jobs != 22 || r.Totals.Attempts != 1043 {
		t.Errorf("jobs %d attempts %d, want 22 and 1,043", r.Totals.Jobs, r.Totals.Attempts)
	}
	if r.CallsPerJob.P99 != 63 || r.CallsPerJob.Max != 63 {
		t.Errorf("calls per job %+v, want p99 63", r.CallsPerJob)
	}
	if r.Duplicates != 9 {
		t.Errorf("duplicates %d, want 9", r.Duplicates)
	}
	if r.TimeToDeadLetterS.Max != 700 || r.TimeToDeadLetterS.P50 != 700 {
		t.Errorf("time to dead letter %+v, want 700 s (11 m 40 s)", r.TimeToDeadLetterS)
	}
	if r.Totals.DeadLetteredJobs != 15 || r.Totals.SucceededJobs != 7 {
		t.Errorf("outcomes %+v", r.Totals)
	}
	worst := r.Jobs[len(r.Jobs)-1]
	if got := correlate.FormatLayers(worst.Layers); got != "7×3×3" {
		t.Errorf("layers of %s = %s, want 7×3×3", worst.JobID, got)
	}
	for _, k := range []string{"duplicate_completion", "retry_amplification", "hidden_retry_layer", "synchronized_retries", "deadline_exceeded", "breaker_open"} {
		if finding(r, k) == nil {
			t.Errorf("missing finding %s; have %v", k, kinds(r))
		}
	}
	if f := finding(r, "duplicate_completion"); f != nil && (f.Count != 9 || f.Severity != correlate.SeverityCritical) {
		t.Errorf("duplicate_completion %+v", f)
	}
	if !r.HasCritical() {
		t.Error("seed 000 must exit 1: duplicates are critical")
	}
	// 16 successful report calls at 12k in / 3k out on Sonnet 4.6: $0.081 each.
	if r.Totals.SpendUSD != 1.296 || r.Totals.WastedUSD != 0.729 {
		t.Errorf("spend %v wasted %v, want 1.296 and 0.729 (9 duplicates)", r.Totals.SpendUSD, r.Totals.WastedUSD)
	}
}

// TestSeed000AfterFix pins the fix: 31 calls, p99 3, no duplicates, dead
// letter after 38 s, and nothing critical.
func TestSeed000AfterFix(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"seed000-after-fix.jsonl")
	if r.Totals.Attempts != 31 || r.CallsPerJob.P99 != 3 || r.Duplicates != 0 {
		t.Errorf("attempts %d p99 %d dups %d, want 31, 3, 0", r.Totals.Attempts, r.CallsPerJob.P99, r.Duplicates)
	}
	if r.TimeToDeadLetterS.Max != 38 {
		t.Errorf("time to dead letter %v, want 38 s", r.TimeToDeadLetterS.Max)
	}
	if len(r.Findings) != 0 || r.HasCritical() {
		t.Errorf("after the fix there should be no findings, got %v", kinds(r))
	}
}

// TestSeed001Poisoned pins seed 001: 550 poisoned records, a 400 retried
// 5 × 5 × 3, $198 wasted at $3/$15 per million tokens.
func TestSeed001Poisoned(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"seed001-poisoned-400.jsonl.gz")
	if r.Totals.DeadLetteredJobs != 550 {
		t.Errorf("dead-lettered %d, want 550", r.Totals.DeadLetteredJobs)
	}
	if r.Totals.WastedUSD != 198 {
		t.Errorf("wasted $%v, want $198", r.Totals.WastedUSD)
	}
	f := finding(r, "terminal_error_retried")
	// The retried 400s are tool calls, priced at nothing: the money went
	// on the model's re-plans around them, which the finding's jobs wasted
	// but the finding's own attempts did not.
	if f == nil || f.Severity != correlate.SeverityCritical || f.JobsTotal != 550 || f.WastedUSD != 0 || f.JobsWastedUSD != 198 {
		t.Fatalf("terminal_error_retried = %+v", f)
	}
	// 75 tool attempts per record, the first is not a retry.
	if f.Count != 550*74 {
		t.Errorf("retried terminal errors %d, want %d", f.Count, 550*74)
	}
	if r.Tools[0].Attempts != 550*75+825 {
		t.Errorf("tool attempts %d", r.Tools[0].Attempts)
	}
	if r.CallsPerJob.Max != 15 {
		t.Errorf("model calls per poisoned record %d, want 15 (5 re-plans × 3 queue attempts)", r.CallsPerJob.Max)
	}
	var tripped bool
	for _, b := range r.Breakers {
		if b.Key == "tool:/v1/enrich" && b.Trips > 0 {
			tripped = true
		}
	}
	if !tripped {
		t.Errorf("the shadow breaker on the tool should have opened: %+v", r.Breakers)
	}
}

// TestSeed002Pipelines pins seed 002: Retry-After honoured exactly still
// meets 429s at the window edge, and parallel retries synchronize.
func TestSeed002Pipelines(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"seed002-six-pipelines.jsonl")
	if len(r.JobTypes) != 6 {
		t.Errorf("job types %d, want 6 pipelines", len(r.JobTypes))
	}
	short := finding(r, "retry_after_too_short")
	if short == nil || r.RetryAfter.Honored < 5 || float64(r.RetryAfter.Rehit)/float64(r.RetryAfter.Honored) < 0.10 {
		t.Errorf("retry_after_too_short = %+v, retry_after %+v", short, r.RetryAfter)
	}
	if finding(r, "synchronized_retries") == nil {
		t.Errorf("missing synchronized_retries; have %v", kinds(r))
	}
	if finding(r, "retry_after_ignored") != nil {
		t.Error("every retry waited at least Retry-After: nothing was ignored")
	}
	if r.Status["429"] == 0 || r.RetryAfter.Count >= r.Status["429"] {
		t.Errorf("some 429s must come without Retry-After: status %v, retry_after %+v", r.Status, r.RetryAfter)
	}
}

// TestHealthyNight: a clean night has no findings and exits 0.
func TestHealthyNight(t *testing.T) {
	r := reportOf(t, correlate.DefaultConfig(), samples+"healthy-night.jsonl")
	if len(r.Findings) != 0 {
		t.Errorf("healthy night has findings %v: %+v", kinds(r), r.Findings)
	}
	if r.Totals.WastedUSD != 0 || r.Totals.Jobs != 240 {
		t.Errorf("totals %+v", r.Totals)
	}
}

// TestGoldenReports pins the full JSON and Markdown report of every sample.
// Run with -update after an intended change, and review the diff.
func TestGoldenReports(t *testing.T) {
	files, _ := filepath.Glob(samples + "*.jsonl*")
	if len(files) < 5 {
		t.Fatalf("expected the sample logs in %s, found %v", samples, files)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".jsonl")
		t.Run(name, func(t *testing.T) {
			// burnrate report keeps no per-attempt records; the report
			// must not change for it.
			lean := correlate.DefaultConfig()
			lean.NoAttemptDetail = true
			for _, cfg := range []correlate.Config{correlate.DefaultConfig(), lean} {
				r := reportOf(t, cfg, f)
				var js, md bytes.Buffer
				if err := report.JSON(&js, r); err != nil {
					t.Fatal(err)
				}
				if err := report.Markdown(&md, r); err != nil {
					t.Fatal(err)
				}
				golden(t, "testdata/golden/"+name+".json", js.Bytes())
				golden(t, "testdata/golden/"+name+".md", md.Bytes())
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./correlate -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the report; if the change is intended, run go test ./correlate -update and review the diff.\n%s", path, firstDiff(want, got))
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestNoAttemptDetail: the lean configuration keeps no attempts for the
// detail view, and the default one does.
func TestNoAttemptDetail(t *testing.T) {
	for _, lean := range []bool{false, true} {
		cfg := correlate.DefaultConfig()
		cfg.NoAttemptDetail = lean
		st := correlate.New(cfg)
		it, err := file.OpenFile(samples+"seed000-incident.jsonl", 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		file.Drain(it, st)
		it.Close()
		kept := 0
		for _, j := range st.Jobs() {
			kept += len(st.Attempts(j))
		}
		if lean && kept != 0 {
			t.Errorf("NoAttemptDetail kept %d attempts", kept)
		}
		if !lean && kept != 1043 {
			t.Errorf("default kept %d attempts, want seed 000's 1043", kept)
		}
	}
}

// TestDeterministic: the same log gives byte-identical reports.
func TestDeterministic(t *testing.T) {
	var prev []byte
	for range 3 {
		var b bytes.Buffer
		report.JSON(&b, reportOf(t, correlate.DefaultConfig(), samples+"seed002-six-pipelines.jsonl", samples+"seed000-incident.jsonl"))
		if prev != nil && !bytes.Equal(prev, b.Bytes()) {
			t.Fatal("two runs over the same logs gave different reports")
		}
		prev = b.Bytes()
	}
}

// TestApplyBatchIsApply: a batch applied with its lookups done ahead gives
// the report of the same events applied one at a time, and hands the
// observer each event with the job Apply returns, in order — over every
// sample log and an interleaved night whose batches join jobs and keys
// first seen within the same batch.
func TestApplyBatchIsApply(t *testing.T) {
	paths, _ := filepath.Glob(samples + "*.jsonl*")
	more, _ := filepath.Glob(samples + "formats/*")
	paths = append(paths, more...)
	more, _ = filepath.Glob(samples + "claude-code/projects/*/*.jsonl")
	paths = append(paths, more...)
	if len(paths) < 10 {
		t.Fatalf("only %d sample logs under %s", len(paths), samples)
	}
	var night bytes.Buffer
	scenario.Night(&night, 30_000, 700)
	nightPath := filepath.Join(t.TempDir(), "night.jsonl")
	if err := os.WriteFile(nightPath, night.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range append(paths, nightPath) {
		var events []ingest.Event
		it, err := file.OpenFile(path, 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ev ingest.Event
		for it.Next(&ev) {
			events = append(events, ev)
		}
		it.Close()
		one, batched := correlate.New(correlate.DefaultConfig()), correlate.New(correlate.DefaultConfig())
		var want, got []string
		for i := range events {
			if j := one.Apply(&events[i]); j != nil { // nil: an assumption, of no job
				want = append(want, j.ID)
			}
		}
		for i := 0; i < len(events); i += ingest.BatchSize {
			b := slices.Clone(events[i:min(i+ingest.BatchSize, len(events))])
			batched.ApplyBatch(b, func(j *correlate.Job, ev *ingest.Event) {
				if batched.Job(j.ID) != j || batched.Now() < ev.TS {
					t.Fatalf("%s: observer called before the event was applied", path)
				}
				got = append(got, j.ID)
			})
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: observer saw other jobs than Apply returned", path)
		}
		var a, b bytes.Buffer
		report.JSON(&a, one.Report())
		report.JSON(&b, batched.Report())
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: ApplyBatch's report differs from Apply's", path)
		}
	}
}

// TestSnapshotWithoutRows: a snapshot without job rows still counts the
// jobs and their waste.
func TestSnapshotWithoutRows(t *testing.T) {
	st := correlate.New(correlate.DefaultConfig())
	it, err := file.OpenFile(samples+"seed000-incident.jsonl", 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file.Drain(it, st)
	it.Close()
	full, lean := st.Snapshot(correlate.SnapshotOptions{}), st.Snapshot(correlate.SnapshotOptions{NoJobRows: true})
	if len(lean.Jobs) != 0 || lean.JobCount != len(full.Jobs) || lean.JobCount != 22 || lean.Wasted != full.Wasted || full.Wasted == 0 {
		t.Fatalf("lean snapshot: %d rows, %d jobs, wasted %v; full: %d rows, wasted %v", len(lean.Jobs), lean.JobCount, lean.Wasted, len(full.Jobs), full.Wasted)
	}
}

// TestReportOptionsOnlyTrim: the top-N report lists exactly the first N
// jobs of the full one, and the streamed one yields every job of it, in
// order — on a night where most jobs tie on spend and calls, so the job ID
// decides, and on seed 000's 22 jobs.
func TestReportOptionsOnlyTrim(t *testing.T) {
	var night bytes.Buffer
	scenario.Night(&night, 20_000, 300)
	nightPath := filepath.Join(t.TempDir(), "night.jsonl")
	if err := os.WriteFile(nightPath, night.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{nightPath, samples + "seed000-incident.jsonl"} {
		st := correlate.New(correlate.DefaultConfig())
		it, err := file.OpenFile(path, 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		file.Drain(it, st)
		it.Close()
		full := st.Report()
		if len(full.Jobs) < 20 {
			t.Fatalf("%s: %d jobs", path, len(full.Jobs))
		}
		for _, n := range []int{1, 10, len(full.Jobs) - 1, len(full.Jobs) + 5} {
			top := st.ReportWith(correlate.ReportOptions{TopJobs: n})
			want := full.Jobs[:min(n, len(full.Jobs))]
			if !reflect.DeepEqual(top.Jobs, want) {
				t.Fatalf("%s: top %d differs from the full report's first %d", path, n, n)
			}
		}
		streamed := st.ReportWith(correlate.ReportOptions{StreamJobs: true})
		if streamed.Jobs != nil || streamed.JobSource == nil {
			t.Fatal("StreamJobs built the job list")
		}
		var got []correlate.JobReport
		var jr correlate.JobReport
		for i := range streamed.JobSource.Len() {
			streamed.JobSource.Fill(i, &jr)
			got = append(got, jr.Detached())
		}
		if !reflect.DeepEqual(got, full.Jobs) {
			t.Fatalf("%s: the stream yielded other jobs than the full report lists", path)
		}
		var a, b bytes.Buffer
		report.JSON(&a, full)
		report.JSON(&b, streamed)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: streamed JSON differs", path)
		}
	}
}
