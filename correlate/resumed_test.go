package correlate

import (
	"fmt"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

func agentCall(job, resp string, ts int64, out int64) *ingest.Event {
	var ev ingest.Event
	ev.Reset()
	ev.TS, ev.Kind, ev.JobID, ev.Model, ev.Status, ev.AgentSession = ts, ingest.KindLLMCall, job, "claude-opus-4-6", 200, true
	ev.ResponseID, ev.OutputTokens = resp, out
	return &ev
}

// TestResumedCopiesSettleInTimeOrder: the original's and the resumed
// session's copies interleaved as a merged read gives them (one time,
// job ID order), either session's ID first: the copies end with the
// original, the resumed session's own calls with it.
func TestResumedCopiesSettleInTimeOrder(t *testing.T) {
	for _, ids := range [][2]string{{"a-orig", "b-resumed"}, {"b-orig", "a-resumed"}} {
		cfg := DefaultConfig()
		cfg.SettleResumed = true
		st := New(cfg)
		first, second := ids[0], ids[1]
		if second < first {
			first, second = second, first
		}
		for i := range 4 {
			ts := int64(1_773_104_400+i*60) * 1e9
			st.Apply(agentCall(first, fmt.Sprint("msg_", i), ts, 80_000))
			st.Apply(agentCall(second, fmt.Sprint("msg_", i), ts, 80_000))
		}
		for i := range 2 {
			st.Apply(agentCall(ids[1], fmt.Sprint("own_", i), int64(1_773_108_000+i*60)*1e9, 20_000))
		}
		orig, res := st.Job(ids[0]), st.Job(ids[1])
		if orig.Calls != 4 || orig.Spend != dollars(8) || res.Calls != 2 || res.Spend != dollars(1) {
			t.Errorf("%v: original %d calls %s, resumed %d calls %s; want 4 and $8, 2 and $1", ids, orig.Calls, USD(orig.Spend.USD()), res.Calls, USD(res.Spend.USD()))
		}
		if st.Spend() != dollars(9) {
			t.Errorf("run spend %s", USD(st.Spend().USD()))
		}
	}
}

// TestResumedSettlingIsBounded: red team — two sessions holding 2,000
// responses and then writing in turn would move them all at every turn;
// the moves are bounded and the run's spend never moves.
func TestResumedSettlingIsBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SettleResumed = true
	st := New(cfg)
	const n = 2000
	for i := range n {
		ts := int64(1_773_104_400+i) * 1e9
		st.Apply(agentCall("a", fmt.Sprint("msg_", i), ts, 10))
		st.Apply(agentCall("b", fmt.Sprint("msg_", i), ts, 10))
	}
	spend := st.Spend()
	start := time.Now()
	for i := range 3000 {
		job := []string{"a", "b"}[i%2]
		st.Apply(agentCall(job, fmt.Sprint("own_", i), int64(1_773_200_000+i)*1e9, 10))
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("3,000 turns took %s", d)
	}
	if st.moves > maxMoves {
		t.Errorf("%d moves, past %d", st.moves, maxMoves)
	}
	a, b := st.Job("a"), st.Job("b")
	if a.Spend.Add(b.Spend) != st.Spend() || st.Spend() <= spend {
		t.Errorf("jobs %s + %s, run %s", USD(a.Spend.USD()), USD(b.Spend.USD()), USD(st.Spend().USD()))
	}
	if a.Calls+b.Calls != n+3000 {
		t.Errorf("calls %d + %d, want %d", a.Calls, b.Calls, n+3000)
	}
}

// TestForkMarksAfterOwnLinesAreNoCopies: red team — a session marking its
// own calls as a fork's copies (forkedFrom) to hide them from its job
// ceiling. A fork copies its parent's lines before it writes any of its
// own; a mark after an own line is no copy, and weighs on the ceiling.
// A true fork's copies, read before its parent, do not; once the parent's
// records are read they are the parent's.
func TestForkMarksAfterOwnLinesAreNoCopies(t *testing.T) {
	for _, settle := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.SettleResumed = settle
		st := New(cfg)
		t0 := int64(1_773_104_400) * 1e9
		forked := func(ev *ingest.Event) *ingest.Event { ev.ForkCopy = true; return ev }
		st.Apply(forked(agentCall("fork", "msg_0", t0, 80_000)))
		st.Apply(forked(agentCall("fork", "msg_1", t0+60e9, 80_000)))
		st.Apply(agentCall("fork", "own_0", t0+600e9, 20_000))
		fork := st.Job("fork")
		if fork.Spend != dollars(4.5) || st.CeilingSpend(fork) != dollars(0.5) {
			t.Errorf("settle %v: the fork's copies, no parent read: spend %s, ceiling spend %s; want $4.50, $0.50", settle, USD(fork.Spend.USD()), USD(st.CeilingSpend(fork).USD()))
		}
		st.Apply(forked(agentCall("fork", "forged_0", t0+660e9, 80_000)))
		if st.CeilingSpend(fork) != dollars(2.5) {
			t.Errorf("settle %v: a mark after an own line hid $2 from the ceiling: ceiling spend %s, want $2.50", settle, USD(st.CeilingSpend(fork).USD()))
		}
		st.Apply(agentCall("parent", "msg_0", t0, 80_000))
		st.Apply(agentCall("parent", "msg_1", t0+60e9, 80_000))
		parent := st.Job("parent")
		if parent.Spend != dollars(4) || fork.Spend != dollars(2.5) || st.CeilingSpend(fork) != dollars(2.5) || st.Spend() != dollars(6.5) {
			t.Errorf("settle %v: parent read: parent %s, fork %s (ceiling %s), run %s; want $4, $2.50, $2.50, $6.50", settle,
				USD(parent.Spend.USD()), USD(fork.Spend.USD()), USD(st.CeilingSpend(fork).USD()), USD(st.Spend().USD()))
		}
	}
}

// TestTwoForksOfAnUnreadParent: red team — two sessions forked from one
// parent whose transcript is not read; settling by time (report, replay)
// moved the copies from one fork to the other, and with them out of
// what the ceiling does not weigh. Neither fork's ceiling weighs them;
// they stay with the fork read first until the parent is read.
func TestTwoForksOfAnUnreadParent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SettleResumed = true
	st := New(cfg)
	t0 := int64(1_773_104_400) * 1e9
	forked := func(ev *ingest.Event) *ingest.Event { ev.ForkCopy = true; return ev }
	for i := range 3 {
		st.Apply(forked(agentCall("b-fork", fmt.Sprint("msg_", i), t0+int64(i)*60e9, 80_000)))
		st.Apply(forked(agentCall("c-fork", fmt.Sprint("msg_", i), t0+int64(i)*60e9, 80_000)))
	}
	st.Apply(agentCall("c-fork", "own_c", t0+600e9, 20_000))
	st.Apply(agentCall("b-fork", "own_b", t0+1200e9, 20_000))
	st.Apply(agentCall("d-other", "own_d", t0+1800e9, 20_000)) // the records of b's last time all in
	for _, id := range []string{"b-fork", "c-fork"} {
		if got := st.CeilingSpend(st.Job(id)); got != dollars(0.5) {
			t.Errorf("%s: ceiling spend %s, want its own $0.50", id, USD(got.USD()))
		}
	}
	if st.Spend() != dollars(7.5) {
		t.Errorf("run spend %s, want $7.50", USD(st.Spend().USD()))
	}
}

// TestGuessedSpendNeverWeighsOnACeiling: R7-17 — spend of calls placed in
// a job by position alone (ingest.AttemptByLineAmbiguous) is the job's to
// show, never its ceiling's to weigh; it stays so when a trace's job is
// folded into the job it names, and a Seq given again carries none of it.
func TestGuessedSpendNeverWeighsOnACeiling(t *testing.T) {
	st := New(DefaultConfig())
	mk := func(ts int64, job, key string, cost float64, guessed bool) *ingest.Event {
		ev := &ingest.Event{}
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.IdempotencyKey, ev.Model, ev.Status = ts*1e9, ingest.KindLLMCall, job, key, "gpt-4o", 200
		ev.CostUSD, ev.HasCost = cost, true
		if guessed {
			ev.AttemptBy = ingest.AttemptByLineAmbiguous
		}
		return ev
	}
	st.Apply(mk(1, "job-A", "a1", 0.10, false))
	st.Apply(mk(2, "job-A", "a2", 1.50, true))
	a := st.Job("job-A")
	if a.Spend != dollars(1.60) || st.CeilingSpend(a) != dollars(0.10) {
		t.Fatalf("spend %s, ceiling spend %s; want $1.60, $0.10", USD(a.Spend.USD()), USD(st.CeilingSpend(a).USD()))
	}
	// A trace's job with guessed spend, folded into job-A.
	st.Apply(mk(3, "trace-1", "t1", 2.00, true))
	fold := &ingest.Event{}
	fold.Reset()
	fold.TS, fold.Kind, fold.JobID, fold.CorrelationID = 4e9, ingest.KindTraceJob, "job-A", "trace-1"
	st.Apply(fold)
	if a = st.Job("job-A"); a.Spend != dollars(3.60) || st.CeilingSpend(a) != dollars(0.10) {
		t.Errorf("after the fold: spend %s, ceiling spend %s; want $3.60, $0.10", USD(a.Spend.USD()), USD(st.CeilingSpend(a).USD()))
	}
	// The trace job's Seq, given to a new job, holds nothing guessed.
	st.Apply(mk(5, "job-N", "n1", 0.70, false))
	if n := st.Job("job-N"); st.CeilingSpend(n) != dollars(0.70) {
		t.Errorf("a new job's ceiling spend %s, want $0.70", USD(st.CeilingSpend(n).USD()))
	}
}

// TestRecordedZeroCostForPricedTokens: R7-19 — a producer's recorded $0
// (LiteLLM's response_cost for a deployment its cost map lacks) for
// 110,000 gpt-4o tokens read as an exact $0. It may also be a true $0 (a
// self-hosted model under a hosted one's name, R7b-1: billed at the table,
// it was killed). Under 1% of the table's price of its tokens, a recorded
// cost is billed as recorded and counted unpriced — a floor — and counted;
// a discount it may be is billed exactly.
func TestRecordedZeroCostForPricedTokens(t *testing.T) {
	st := New(DefaultConfig())
	for i, cost := range []float64{0, 0.0001, 0.20} {
		ev := &ingest.Event{}
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.IdempotencyKey, ev.Model, ev.Status = int64(i+1)*1e9, ingest.KindLLMCall, fmt.Sprint("j", i), "k", "gpt-4o", 200
		ev.InputTokens, ev.OutputTokens, ev.CostUSD, ev.HasCost = 100_000, 10_000, cost, true
		st.Apply(ev)
	}
	j0, j1, j2 := st.Job("j0"), st.Job("j1"), st.Job("j2")
	if j0.Spend != 0 || j0.Unpriced != 1 || j1.Spend != dollars(0.0001) || j1.Unpriced != 1 || j2.Spend != dollars(0.20) || j2.Unpriced != 0 {
		t.Errorf("spend %s / %s / %s, unpriced %d / %d / %d; want $0 and $0.0001 unpriced, $0.20 priced",
			USD(j0.Spend.USD()), USD(j1.Spend.USD()), USD(j2.Spend.USD()), j0.Unpriced, j1.Unpriced, j2.Unpriced)
	}
	if r := st.Report(); r.Totals.RecordedBelowTable != 2 || r.Totals.UnpricedAttempts != 2 {
		t.Errorf("%d counted below the table, %d unpriced; want 2, 2", r.Totals.RecordedBelowTable, r.Totals.UnpricedAttempts)
	}
}
