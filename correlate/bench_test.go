package correlate_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// benchLog builds an n-line log shaped like a real night: jobs with a
// lifecycle and a few retried model calls, Retry-After on 429s.
func benchLog(n int) []byte {
	var b bytes.Buffer
	statuses := []int{529, 529, 429, 200, 200, 200, 200, 200}
	for i := 0; b.Len() >= 0 && i < n; {
		job := i / 12
		fmt.Fprintf(&b, `{"ts":"2026-03-10T01:%02d:%02d.%03dZ","event":"job_started","job_id":"job-%07d","job_type":"type-%d"}`+"\n", (i/60000)%60, (i/1000)%60, i%1000, job, job%7)
		i++
		for k := 0; k < 10 && i < n; k++ {
			st := statuses[(i+k)%len(statuses)]
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:%02d:%02d.%03dZ","event":"llm_call","job_id":"job-%07d","job_type":"type-%d","idempotency_key":"job-%07d-%d","attempt":%d,"provider":"anthropic","model":"claude-sonnet-4-6","status":%d,"retry_after_s":%d,"input_tokens":1200,"output_tokens":%d,"cache_read_tokens":4096,"latency_ms":830}`+"\n",
				(i/60000)%60, (i/1000)%60, i%1000, job, job%7, job, k/3, k%3+1, st, st/200, 300*(st/200))
			i++
		}
		if i < n {
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:%02d:%02d.%03dZ","event":"job_succeeded","job_id":"job-%07d","job_type":"type-%d"}`+"\n", (i/60000)%60, (i/1000)%60, i%1000, job, job%7)
			i++
		}
	}
	return b.Bytes()
}

// BenchmarkParseCorrelate measures the report path end to end — split,
// parse, correlate — on a 1,000,000-line log, on one core.
func BenchmarkParseCorrelate(b *testing.B) {
	const lines = 1_000_000
	data := benchLog(lines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var st *correlate.State
	for b.Loop() {
		st = correlate.New(correlate.DefaultConfig())
		ingest.Drain(ingest.NewIter(bytes.NewReader(data), "bench", 0), st)
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
	ingest.Drain(ingest.NewIter(bytes.NewReader(benchLog(1_200_000)), "bench", 0), st)
	if n := len(st.Jobs()); n < 100_000 {
		b.Fatalf("%d jobs", n)
	}
	b.ResetTimer()
	for b.Loop() {
		st.Snapshot(correlate.SnapshotOptions{CeilingUSD: 100})
	}
}
