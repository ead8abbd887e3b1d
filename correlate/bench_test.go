package correlate_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
)

// benchLog is an n-line night of 12-line jobs, 8,000 of them in flight at
// once, so a job's lines are spread over the log as in a real queue (a
// log sorted by job overstated throughput about threefold).
func benchLog(n int) []byte {
	var b bytes.Buffer
	scenario.Night(&b, n, 8000)
	return b.Bytes()
}

// BenchmarkParseCorrelate measures the report path end to end — split,
// parse, correlate — on a 1,000,000-line interleaved log, on one core.
func BenchmarkParseCorrelate(b *testing.B) {
	const lines = 1_000_000
	data := benchLog(lines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var st *correlate.State
	for b.Loop() {
		st = correlate.New(correlate.DefaultConfig())
		file.Drain(file.NewIter(bytes.NewReader(data), "bench", 0, decode.Options{}), st)
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapAlloc)/float64(len(st.Jobs())), "heap-bytes/job")
}

// BenchmarkSnapshot100kJobs: the engine takes one snapshot per frame (at
// most 10 a second) on its own goroutine.
func BenchmarkSnapshot100kJobs(b *testing.B) {
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(file.NewIter(bytes.NewReader(benchLog(1_200_000)), "bench", 0, decode.Options{}), st)
	if n := len(st.Jobs()); n < 100_000 {
		b.Fatalf("%d jobs", n)
	}
	b.ResetTimer()
	for b.Loop() {
		st.Snapshot(correlate.SnapshotOptions{CeilingUSD: 100})
	}
}

// BenchmarkCorrelateNight measures correlation alone — events already
// parsed — on the interleaved 1,000,000-line night: the other half of the
// report pipeline (BenchmarkParseNight in ingest is the first).
func BenchmarkCorrelateNight(b *testing.B) { benchCorrelate(b, benchLog(1_000_000)) }

// BenchmarkCorrelateUniform is BenchmarkCorrelateNight on the uniform
// shape (gen -uniform): 100,000 jobs all in flight, their lines shuffled,
// so every lookup is of a job last touched a round ago (issue 38).
func BenchmarkCorrelateUniform(b *testing.B) {
	var buf bytes.Buffer
	if err := scenario.NightUniform(&buf, 1_000_000, 8, 1); err != nil {
		b.Fatal(err)
	}
	benchCorrelate(b, buf.Bytes())
}

func benchCorrelate(b *testing.B, log []byte) {
	var events []ingest.Event
	var ev ingest.Event
	for it := file.NewIter(bytes.NewReader(log), "bench", 0, decode.Options{}); it.Next(&ev); {
		events = append(events, ev)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cfg := correlate.DefaultConfig()
		cfg.NoAttemptDetail = true // as report does
		st := correlate.New(cfg)
		for i := 0; i < len(events); i += ingest.BatchSize {
			batch := ingest.NewBatch()
			n := copy(batch, events[i:])
			st.Consume(batch[:n])
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCompareDeclared100kJobs: report --stack's comparison on a
// 1,200,000-line night (100,000 jobs): one pass over the jobs and one over
// the operations, on top of the report.
func BenchmarkCompareDeclared100kJobs(b *testing.B) {
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(file.NewIter(bytes.NewReader(benchLog(1_200_000)), "bench", 0, decode.Options{}), st)
	if n := len(st.Jobs()); n < 100_000 {
		b.Fatalf("%d jobs", n)
	}
	r := st.ReportWith(correlate.ReportOptions{StreamJobs: true})
	d := correlate.DeclaredStack{Layers: []correlate.DeclaredLayer{{Name: "queue", Attempts: 2}, {Name: "sdk", Attempts: 1}}}
	b.ResetTimer()
	for b.Loop() {
		st.CompareDeclared(r, d, "", nil, correlate.DefaultConfig().SeverityOf)
	}
	b.ReportMetric(float64(r.DeclaredVsObserved.Observed.PerOperation.Max), "max-calls/op")
}
