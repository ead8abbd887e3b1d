package file_test

import (
	"bytes"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
)

// BenchmarkParseNight measures split and parse alone (no correlation) on a
// 1,000,000-line interleaved night: the parse side of the report pipeline.
func BenchmarkParseNight(b *testing.B) {
	const lines = 1_000_000
	var log bytes.Buffer
	scenario.Night(&log, lines, 8000)
	data := log.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ev ingest.Event
	for b.Loop() {
		it := file.NewIter(bytes.NewReader(data), "bench", 0, decode.Options{})
		n := 0
		for it.Next(&ev) {
			n++
		}
		if n < lines*9/10 {
			b.Fatalf("%d events from %d lines", n, lines)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
