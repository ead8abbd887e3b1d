package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/statedir/flock"
	"github.com/burnrate-dev/burnrate/statedir/spool"
)

// sliceSource hands its batches over, then ends.
type sliceSource struct{ batches []ingest.Batch }

func (s *sliceSource) Run(ctx context.Context, out chan<- ingest.Batch) error {
	for _, b := range s.batches {
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
func (s *sliceSource) Status() []ingest.Status { return []ingest.Status{{Name: "slice"}} }

func spoolCall(run, job string, ts int64) ingest.Event {
	var ev ingest.Event
	ev.Reset()
	ev.TS, ev.Kind, ev.Status, ev.RunID, ev.JobID, ev.Model = ts, ingest.KindLLMCall, 200, run, job, "claude-sonnet-4-5"
	ev.InputTokens, ev.OutputTokens = 1000, 100
	return ev
}

func openSpool(t *testing.T, journal string, opt spool.Options) *spool.Spool {
	t.Helper()
	sp, err := spool.Open(journal, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestSpoolReplayIsTheLiveState: what a live engine applied, a new
// engine replaying its spool applies alike — the same report — and the
// spool keeps a run's events while it is open, and lets them go once a
// later run's clock has passed its last event by the resend horizon.
func TestSpoolReplayIsTheLiveState(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	lock, err := flock.Lock(journal + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer flock.Unlock(lock)
	const t0 = int64(1_796_180_270_000_000_000)
	var src sliceSource
	for i := range 40 {
		src.batches = append(src.batches, ingest.Batch{spoolCall("night-1", "job-a", t0+int64(i)*int64(time.Second)), spoolCall("night-1", "job-b", t0+int64(i)*int64(time.Second))})
	}
	later := t0 + 3*int64(time.Hour)
	for i := range 40 {
		src.batches = append(src.batches, ingest.Batch{spoolCall("night-2", "job-c", later+int64(i)*int64(time.Second))})
	}
	sp := openSpool(t, journal, spool.Options{SegmentBytes: 1024})
	live := New(Options{Config: correlate.DefaultConfig(), Spool: sp}, &src)
	if _, _, err := live.ReplaySpool(context.Background()); err != nil {
		t.Fatal(err)
	}
	live.Run(context.Background())
	want := live.Report()
	segs := sp.Status().Segments
	live.retain()
	sp.Close()

	sp2 := openSpool(t, journal, spool.Options{})
	defer sp2.Close()
	again := New(Options{Config: correlate.DefaultConfig(), Spool: sp2})
	n, warnings, err := again.ReplaySpool(context.Background())
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	got := again.Report()
	if got.RunID != "night-2" || got.Totals.Attempts != want.Totals.Attempts || got.Totals.SpendUSD != want.Totals.SpendUSD || len(got.Jobs) != len(want.Jobs) {
		t.Errorf("replayed: run %s, %d calls, $%v, %d jobs; live: run %s, %d calls, $%v, %d jobs", got.RunID, got.Totals.Attempts, got.Totals.SpendUSD, len(got.Jobs), want.RunID, want.Totals.Attempts, want.Totals.SpendUSD, len(want.Jobs))
	}
	// night-1 ended three hours before night-2's clock: its segments went,
	// and the replay has night-2 whole.
	if n >= 120 || n < 40 {
		t.Errorf("replayed %d events of 120: night-1's segments were not let go (or night-2's were)", n)
	}
	if segs < 4 {
		t.Fatalf("%d segments: the test proves nothing", segs)
	}
}
