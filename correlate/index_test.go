package correlate

import (
	"fmt"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestHashIndexTellsCollidingKeysApart: keys that share a hash each find
// their own record, and a key that was never added finds nothing.
func TestHashIndexTellsCollidingKeysApart(t *testing.T) {
	x := newHashIndex()
	keys := []string{"job-a", "job-b", "job-c"}
	keyAt := func(i int32) string { return keys[i] }
	const h = 42 << 32 // one hash for all: as if they collided
	for i, k := range keys {
		if _, ok := x.find(k, h, keyAt); ok {
			t.Fatalf("%s found before it was added", k)
		}
		x.add(h, int32(i))
	}
	for i, k := range keys {
		if got, ok := x.find(k, h, keyAt); !ok || got != int32(i) {
			t.Errorf("find(%s) = %d %v, want %d", k, got, ok, i)
		}
	}
	if _, ok := x.find("job-d", h, keyAt); ok {
		t.Error("a key never added was found")
	}
}

// TestStateSurvivesHashCollisions: with every job ID and key hashed alike
// (a seed cannot do that, a test can), each job and operation is still its
// own — the index confirms every match by the key itself.
func TestStateSurvivesHashCollisions(t *testing.T) {
	st := New(DefaultConfig())
	st.jobs.testCollide, st.ops.testCollide = true, true
	for i, id := range []string{"a", "b", "c", "a", "b", "c"} {
		ev := ingest.Event{TS: int64(i+1) * 1e9, Kind: ingest.KindLLMCall, JobID: id, IdempotencyKey: "k-" + id, Model: "m", Status: 429, RetryAfterMs: ingest.NoRetryAfter, Attempt: int16(i/3 + 1)}
		st.Apply(&ev)
	}
	if len(st.Jobs()) != 3 || st.opCount != 3 {
		t.Fatalf("%d jobs, %d operations; want 3 and 3", len(st.Jobs()), st.opCount)
	}
	for _, j := range st.Jobs() {
		if j.Calls != 2 || st.Job(j.ID) != j {
			t.Errorf("job %s: %d calls, found %p, want 2 and itself", j.ID, j.Calls, st.Job(j.ID))
		}
		// Operations are indexed by job and key (findOp).
		if sk := j.ID + "\x00k-" + j.ID; st.keyedOp(sk, st.ops.hash(sk)) == nil || st.keyedOp(sk, st.ops.hash(sk)).attempts != 2 {
			t.Errorf("operation of %s not found with its 2 attempts", j.ID)
		}
	}
}

// TestHashIndexGrows: across many growths every key stays findable at its
// position, and keys never added are not found.
func TestHashIndexGrows(t *testing.T) {
	x := newHashIndex()
	var keys []string
	keyAt := func(i int32) string { return keys[i] }
	for i := range 200_000 {
		k := fmt.Sprintf("key-%d", i)
		keys = append(keys, k)
		x.add(x.hash(k), int32(i))
	}
	for i, k := range keys {
		if got, ok := x.find(k, x.hash(k), keyAt); !ok || got != int32(i) {
			t.Fatalf("find(%s) = %d %v", k, got, ok)
		}
	}
	for i := range 1000 {
		k := fmt.Sprintf("absent-%d", i)
		if _, ok := x.find(k, x.hash(k), keyAt); ok {
			t.Fatalf("%s found", k)
		}
	}
	if len(x.slots) < 4*len(keys)/3 {
		t.Fatalf("%d slots for %d keys: fuller than three quarters", len(x.slots), len(keys))
	}
}

// TestIdempotencyKeysAreScopedToTheirJob: issue 22 — per-worker counters
// such as "req-1" are common; two jobs sharing one were one operation,
// which "completed twice" (a false critical duplicate_completion) and
// "retried a terminal error" (exit 1).
func TestIdempotencyKeysAreScopedToTheirJob(t *testing.T) {
	st := New(DefaultConfig())
	for i, c := range []struct {
		job    string
		status int16
	}{{"worker-a", 400}, {"worker-b", 200}, {"worker-a", 200}} {
		ev := ingest.Event{TS: int64(i+1) * 1e9, Kind: ingest.KindLLMCall, JobID: c.job, IdempotencyKey: "req-1", Model: "m", Status: c.status, RetryAfterMs: ingest.NoRetryAfter}
		if c.job == "worker-a" && i == 2 {
			ev.IdempotencyKey = "req-2" // worker-a's next request
		}
		st.Apply(&ev)
	}
	if st.opCount != 3 {
		t.Errorf("%d operations, want 3 (worker-a req-1, worker-b req-1, worker-a req-2)", st.opCount)
	}
	for _, f := range st.Report().Findings {
		if f.Kind == DuplicateCompletion.String() || f.Kind == TerminalErrorRetried.String() {
			t.Errorf("a false %s across two jobs that share a key: %+v", f.Kind, f)
		}
	}
}

// TestALineFarAheadDoesNotMoveTheClock: issue 22 — one line dated 2199 set
// the log clock to 2199 for the rest of the run. It is billed, at its own
// time, counted out of order, and the clock stays with its neighbours; a
// real jump (the next night after a weekend) moves it once the events
// around it are there too.
func TestALineFarAheadDoesNotMoveTheClock(t *testing.T) {
	st := New(DefaultConfig())
	base := int64(1773104400) * 1e9
	add := func(ts int64) {
		ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "j", Model: "m", Status: 200, CostUSD: 0.01, HasCost: true, RetryAfterMs: ingest.NoRetryAfter}
		st.Apply(&ev)
	}
	for i := range 20 {
		add(base + int64(i)*1e9)
	}
	add(int64(7000000000) * 1e9) // 2191
	for i := 20; i < 40; i++ {
		add(base + int64(i)*1e9)
	}
	if st.Now() != base+39e9 || st.OutOfOrder() != 1 || st.Spend() != PicoFromUSD(0.41) {
		t.Errorf("clock %d (want %d), %d out of order, spend %v", st.Now(), base+39e9, st.OutOfOrder(), st.Spend().USD())
	}
	weekend := base + 3*24*int64(time.Hour)
	for i := range 64 {
		add(weekend + int64(i)*1e9)
	}
	if st.Now() != weekend+63e9 {
		t.Errorf("after a real three-day gap the clock is %d, want %d", st.Now(), weekend+63e9)
	}
}

// TestAnEarlyLineFarAheadLetsTheClockBack: red team of issue 22 — a line
// dated 2199 among the first eight events set the clock before there was a
// median to judge it by, and held it there. The third event on is judged;
// and a clock set by the very first comes back once the events arriving
// are all a day behind it.
func TestAnEarlyLineFarAheadLetsTheClockBack(t *testing.T) {
	base := int64(1773104400) * 1e9
	for _, at := range []int{0, 1, 3, 7} {
		st := New(DefaultConfig())
		for i := range 40 {
			ts := base + int64(i)*1e9
			if i == at {
				ts = int64(7000000000) * 1e9 // 2191
			}
			ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "j", Model: "m", Status: 200, CostUSD: 0.01, HasCost: true, RetryAfterMs: ingest.NoRetryAfter}
			st.Apply(&ev)
		}
		if st.Now() != base+39e9 {
			t.Errorf("a 2191 line as event %d: clock %d, want %d", at+1, st.Now(), base+39e9)
		}
	}
}

// TestOneLineInEightFarAheadCannotHoldTheClock: red team of issue 22 —
// with the first line and every eighth after dated 2199, the clock stayed
// in 2199 (the recovery ran on every eighth event, and that event set the
// clock again), retention retired nothing and breakers misread the run.
func TestOneLineInEightFarAheadCannotHoldTheClock(t *testing.T) {
	base := int64(1773104400) * 1e9
	st := New(DefaultConfig())
	for i := range 400 {
		ts := base + int64(i)*1e9
		if i == 0 || i%8 == 7 {
			ts = int64(7000000000) * 1e9 // 2191
		}
		ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "j", Model: "m", Status: 200, CostUSD: 0.01, HasCost: true, RetryAfterMs: ingest.NoRetryAfter}
		st.Apply(&ev)
	}
	if now := st.Now(); now > base+400e9 || now < base+390e9 {
		t.Errorf("clock %d, want near %d", now, base+399e9)
	}
}
