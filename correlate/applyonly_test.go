package correlate_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// BenchmarkApplyLog parses the first BURNRATE_APPLY_N events (all when
// unset) of the log BURNRATE_APPLY_FILE and times applying them as report
// does (NoAttemptDetail, batches of ingest.BatchSize): any log, so the
// shapes of sample-logs/gen are measured as bench/report.sh writes them,
// and callgrind can count the instructions inside ApplyBatch alone
// (docs/performance.md, "fourth round, correlator side"). Skipped without
// BURNRATE_APPLY_FILE.
func BenchmarkApplyLog(b *testing.B) {
	path := os.Getenv("BURNRATE_APPLY_FILE")
	if path == "" {
		b.Skip("BURNRATE_APPLY_FILE names no log")
	}
	n, err := strconv.Atoi(os.Getenv("BURNRATE_APPLY_N"))
	if err != nil || n <= 0 {
		n = 1 << 62
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var events []ingest.Event
	var ev ingest.Event
	for it := file.NewIter(f, "bench", 0, decode.Options{}); len(events) < n && it.Next(&ev); {
		events = append(events, ev)
	}
	b.ResetTimer()
	for b.Loop() {
		cfg := correlate.DefaultConfig()
		cfg.NoAttemptDetail = true
		st := correlate.New(cfg)
		for i := 0; i < len(events); i += ingest.BatchSize {
			batch := ingest.NewBatch()
			k := copy(batch, events[i:])
			st.ApplyBatch(batch[:k], nil)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
