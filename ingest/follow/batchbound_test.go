package follow

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// What a follower has read and not yet handed on is bounded by the
// engine's queue times a batch: a batch must hold no more than
// ingest.BatchSize events (each of these lines is one event) — not the
// whole 1 MiB read chunk's, thousands, which let a catch-up of a 2 GB log
// hold 434 MB of queued events (issue 38). Both a file caught up on and a
// pipe, every line once and in order.
func TestBatchesStayBatchSized(t *testing.T) {
	const lines = 30_000
	var log bytes.Buffer
	for seq := range lines {
		log.WriteString(line(seq))
	}
	check := func(t *testing.T, out <-chan ingest.Batch) {
		t.Helper()
		seq, largest := 0, 0
		timeout := time.After(30 * time.Second)
		for seq < lines {
			select {
			case b := <-out:
				largest = max(largest, len(b))
				for i := range b {
					if want := "l" + strconv.Itoa(seq); b[i].JobID != want {
						t.Fatalf("event %d is job %q, want %q", seq, b[i].JobID, want)
					}
					seq++
				}
			case <-timeout:
				t.Fatalf("%d of %d events in 30 s", seq, lines)
			}
		}
		if largest > ingest.BatchSize {
			t.Errorf("a batch of %d events handed over, more than BatchSize %d: what waits in the engine's queue is unbounded by it", largest, ingest.BatchSize)
		}
	}
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "app.jsonl")
		if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := make(chan ingest.Batch) // unbuffered: the engine is slow
		go NewTail([]string{path}, false, decode.Options{}).Run(ctx, out)
		check(t, out)
	})
	t.Run("pipe", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := make(chan ingest.Batch)
		tl := NewTail([]string{"-"}, false, decode.Options{})
		tl.track("-", "stdin") // as Run does for "-"
		go tl.readPipe(ctx, "-", strings.NewReader(log.String()), out)
		check(t, out)
	})
}

// TestRecycledBatchesAreReused: issue 38 — the follower made a fresh
// batch for every hand-over while the engine gave each applied one back
// (ingest.Recycle): the pool kept every batch of the last two collections,
// 117 MB of a 10,000,000-line catch-up's heap that nothing used, growing
// with the read rate. A consumer that recycles sees the same few batches
// again (sync.Pool may drop some, so the bound is loose).
func TestRecycledBatchesAreReused(t *testing.T) {
	const lines = 100 * ingest.BatchSize
	var log bytes.Buffer
	for seq := range lines {
		log.WriteString(line(seq))
	}
	path := filepath.Join(t.TempDir(), "app.jsonl")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan ingest.Batch)
	go NewTail([]string{path}, false, decode.Options{}).Run(ctx, out)
	arrays := map[*ingest.Event]bool{}
	batches := 0
	timeout := time.After(30 * time.Second)
	for seen := 0; seen < lines; {
		select {
		case b := <-out:
			seen += len(b)
			batches++
			arrays[&b[:1][0]] = true
			ingest.Recycle(b)
		case <-timeout:
			t.Fatalf("%d of %d events in 30 s", seen, lines)
		}
	}
	if len(arrays) > batches/2 {
		t.Errorf("%d batches handed over in %d distinct arrays, though each was recycled at once: the follower does not reuse them", batches, len(arrays))
	}
}
