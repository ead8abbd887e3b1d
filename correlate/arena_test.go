package correlate

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/burnrate-dev/burnrate/ingest"
)

// newJobEvents are n model calls, each of a job and an operation not seen
// before (the allocations a night's new jobs and keys make).
func newJobEvents(n int, idLen int) []ingest.Event {
	evs := make([]ingest.Event, n)
	for i := range evs {
		id := fmt.Sprintf("job-%0*d", idLen-4, i)
		evs[i] = ingest.Event{Kind: ingest.KindLLMCall, JobID: id, IdempotencyKey: id + "-0", Model: "gpt-4o",
			Status: 200, Attempt: 1, InputTokens: 10, OutputTokens: 5, RetryAfterMs: ingest.NoRetryAfter,
			TS: 1e18 + int64(i)*1e6}
	}
	return evs
}

// allocsPerNewJob is what applying a call of a new job and key allocates,
// on average, in a State of cfg.
func allocsPerNewJob(t *testing.T, cfg Config) float64 {
	t.Helper()
	cfg.NoAttemptDetail = true
	st := New(cfg)
	evs := newJobEvents(5000, 11)
	for i := range 1000 { // the maps and tables past their first growths
		st.Apply(&evs[i])
	}
	i := 1000
	return testing.AllocsPerRun(3000, func() {
		st.Apply(&evs[i])
		i++
	})
}

// TestKeepAllStateCarvesJobsOutOfBlocks: a State that keeps every job
// (report's) allocated the Job, its ID's copy and the operation's key for
// each new job; they come out of blocks now. Without arena.go it measures
// 3 allocations a new job more than here.
func TestKeepAllStateCarvesJobsOutOfBlocks(t *testing.T) {
	keep := allocsPerNewJob(t, DefaultConfig())
	cfg := DefaultConfig()
	cfg.JobRetention = DefaultJobRetention
	retiring := allocsPerNewJob(t, cfg)
	if keep > 0 || retiring < 3 {
		t.Fatalf("a new job and key allocated %.0f objects keeping every job, %.0f retiring them: want 0 (from blocks) and at least 3 (Job, ID, key each its own)", keep, retiring)
	}
}

// TestRetiringStateUsesNoBlocks: a State that retires jobs must not carve
// them out of blocks — a block stays alive while anything in it does, so a
// long watch would keep every retired job's memory.
func TestRetiringStateUsesNoBlocks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.JobRetention = 10 * time.Minute
	st := New(cfg)
	evs := newJobEvents(300, 11)
	for i := range evs {
		st.Apply(&evs[i])
	}
	if st.strs.block != nil || st.jobSlab != nil {
		t.Fatal("a State that retires jobs carved them out of blocks")
	}
}

// TestArenaCopiesAreTheirOwn: the arena's copies of IDs and keys do not
// share the event's bytes (a decoder reuses them) nor each other's, short
// and long (past arenaBlock/8, allocated alone) alike.
func TestArenaCopiesAreTheirOwn(t *testing.T) {
	for _, n := range []int{1, 11, 64, arenaBlock/8 + 1, arenaBlock} {
		st := New(DefaultConfig())
		var jobs []*Job
		var want []string
		for i := range 3 * arenaBlock / max(n, 64) {
			buf := []byte(fmt.Sprintf("%0*d", n, i))[:n]
			id := unsafe.String(&buf[0], len(buf))
			ev := ingest.Event{Kind: ingest.KindLLMCall, JobID: id, IdempotencyKey: id, Model: "gpt-4o",
				Status: 200, Attempt: 1, RetryAfterMs: ingest.NoRetryAfter, TS: 1e18 + int64(i)*1e6}
			jobs = append(jobs, st.Apply(&ev))
			want = append(want, strings.Clone(id))
			for k := range buf {
				buf[k] = 'x' // the decoder's block, reused
			}
		}
		for i, j := range jobs {
			if j.ID != want[i] {
				t.Fatalf("length %d, job %d: ID %.20q, want %.20q", n, i, j.ID, want[i])
			}
			if o, _ := st.findOp(j, j.ID, want[i]); o == nil || o.key != want[i]+"\x00"+want[i] {
				t.Fatalf("length %d, job %d: its operation is not found by its key, or has another", n, i)
			}
			if st.Job(want[i]) != j {
				t.Fatalf("length %d: job %d not found by its ID", n, i)
			}
		}
	}
}

// TestArenaWastesAtMostAnEighth: hostile sizes (every length up to an
// eighth of a block and just past it, IDs of exactly 4 KiB that leave a
// block's end unused) cost the arena at most 8/7 of their bytes and one
// block: no worse than the allocator's size classes, which round a 4,097
// byte string up to 4,864.
func TestArenaWastesAtMostAnEighth(t *testing.T) {
	sizes := [][]int{{arenaBlock / 8}, {arenaBlock/8 - 1, 1}, {arenaBlock/8 + 1}, {arenaBlock/4 + 1}, {3000, 17, 1200}}
	for i := 1; i <= arenaBlock/8+2; i += 37 {
		sizes[4] = append(sizes[4], i)
	}
	for _, pattern := range sizes {
		var a strArena
		used := 0
		for k := range 5000 {
			n := pattern[k%len(pattern)]
			if s := a.clone(strings.Repeat("j", n)); len(s) != n {
				t.Fatalf("a copy of %d bytes has %d", n, len(s))
			}
			used += n
		}
		held := a.blocks*arenaBlock + a.alone
		if held*7 > used*8+7*arenaBlock {
			t.Fatalf("sizes %v: %d bytes held for %d used, past 8/7 and a block", pattern[:min(4, len(pattern))], held, used)
		}
	}
}
