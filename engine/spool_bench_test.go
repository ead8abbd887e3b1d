package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
	"github.com/burnrate-dev/burnrate/statedir/flock"
	"github.com/burnrate-dev/burnrate/statedir/spool"
)

// BenchmarkSpoolRestart: what a restart costs — the spool of a
// 1,000,000-event night (the interleaved night of the report benchmarks,
// 8,000 jobs in flight) opened and replayed through the engine into
// correlate, as a start does before it goes on live. It reports the
// spool's bytes per event, its append rate, and the replay's events/s.
func BenchmarkSpoolRestart(b *testing.B) {
	var log bytes.Buffer
	scenario.Night(&log, 1_000_000, 8000)
	var events []ingest.Event
	var ev ingest.Event
	for it := file.NewIter(bytes.NewReader(log.Bytes()), "bench", 0, decode.Options{}); it.Next(&ev); {
		events = append(events, ev)
	}
	journal := filepath.Join(b.TempDir(), "journal.jsonl")
	lock, err := flock.Lock(journal + ".lock")
	if err != nil {
		b.Fatal(err)
	}
	defer flock.Unlock(lock)
	sp, err := spool.Open(journal, spool.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sp.Replay(context.Background(), func(ingest.Batch) {}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := 0; i < len(events); i += ingest.BatchSize {
		if err := sp.Append(events[i:min(i+ingest.BatchSize, len(events))]); err != nil {
			b.Fatal(err)
		}
	}
	appendRate := float64(len(events)) / time.Since(start).Seconds()
	size := sp.Status().Bytes
	sp.Close()
	b.ResetTimer()
	for b.Loop() {
		sp, err := spool.Open(journal, spool.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e := New(Options{Config: correlate.DefaultConfig(), Spool: sp})
		n, _, err := e.ReplaySpool(context.Background())
		if err != nil || n != int64(len(events)) {
			b.Fatalf("replayed %d of %d: %v", n, len(events), err)
		}
		sp.Close()
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "replayed-events/s")
	b.ReportMetric(float64(size)/float64(len(events)), "spool-bytes/event")
	b.ReportMetric(appendRate, "appended-events/s")
}
