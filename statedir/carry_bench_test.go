package statedir

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
)

// carryOf100k is a run of 100,000 jobs as CarryOut would take it.
func carryOf100k() []engine.CarriedRun {
	jobs := make([]correlate.CarriedJob, 100_000)
	for i := range jobs {
		jobs[i] = correlate.CarriedJob{ID: fmt.Sprintf("enrich-2026-12-01-%08d", i), Type: "enrich", Spend: correlate.Pico(180_000_000_000 + i), Calls: 3, FirstTS: 1796180270000000000 + int64(i), LastTS: 1796180270000000000 + int64(i) + 9e9}
	}
	return []engine.CarriedRun{{ID: "night-x", Current: true, Totals: correlate.Carried{Events: 300_000, Spend: 18_000_000_000_000_000, Attempts: 300_000, Jobs: 100_000, JobList: jobs}}}
}

// BenchmarkCarryEncode100kJobs: what the carry writer does every
// --carry-interval for a night of 100,000 jobs (off the engine goroutine).
func BenchmarkCarryEncode100kJobs(b *testing.B) {
	runs := carryOf100k()
	var buf bytes.Buffer
	EncodeCarry(&buf, "fp", runs, time.Unix(0, 0))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		EncodeCarry(io.Discard, "fp", runs, time.Unix(0, 0))
	}
}

// BenchmarkCarryDecode100kJobs: reading that carry back at start.
func BenchmarkCarryDecode100kJobs(b *testing.B) {
	var buf bytes.Buffer
	EncodeCarry(&buf, "fp", carryOf100k(), time.Unix(0, 0))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeCarry(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
