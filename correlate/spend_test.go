package correlate

import (
	"math"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// FuzzSpendNeverDecreases: issue 11 — a trillion output tokens, or 1,100
// costs of $9M, wrapped the int64 sums and a $1 run ceiling never fired.
// Events go to the State directly, without ingest's plausibility check,
// so correlate's own arithmetic is what is tested: whatever an event
// carries, no job's, type's or the run's spend is ever negative or lower
// than before it.
func FuzzSpendNeverDecreases(f *testing.F) {
	f.Add(int64(1_000_000_000_000), int64(0), int64(0), 9e6, uint8(3), true)
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), math.Inf(1), uint8(7), false)
	f.Add(int64(-5), int64(10), int64(-1), -3.0, uint8(0), true)
	f.Add(int64(100), int64(100), int64(0), math.NaN(), uint8(1), true)
	f.Fuzz(func(t *testing.T, in, out, cache int64, cost float64, job uint8, hasCost bool) {
		st := New(DefaultConfig())
		typeSpend := map[string]Pico{}
		for i := range 40 {
			ev := ingest.Event{}
			ev.Reset()
			ev.TS = int64(1_773_104_400+i) * 1e9
			ev.Kind = ingest.KindLLMCall
			ev.JobID = string(rune('a' + (int(job)+i)%5))
			ev.JobType = string(rune('t' + i%2))
			ev.Model = "claude-sonnet-4-6"
			ev.Status = int16(200 + (i%3)*129)
			ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens = in, out, cache
			ev.CostUSD, ev.HasCost = cost, hasCost
			before, runBefore := Pico(0), st.Spend()
			if j := st.Job(ev.JobID); j != nil {
				before = j.Spend
			}
			j := st.Apply(&ev)
			if j.Spend < before || j.Spend < 0 {
				t.Fatalf("event %d: job spend %d → %d", i, before, j.Spend)
			}
			if st.Spend() < runBefore || st.Spend() < 0 {
				t.Fatalf("event %d: run spend %d → %d", i, runBefore, st.Spend())
			}
			ts := typeSpend[ev.JobType].Add(st.LastAttemptCost())
			if ts < typeSpend[ev.JobType] {
				t.Fatalf("type spend decreased")
			}
			typeSpend[ev.JobType] = ts
		}
		r := st.Report()
		for _, jt := range r.JobTypes {
			if jt.SpendUSD < 0 {
				t.Fatalf("job type %s spend %v", jt.JobType, jt.SpendUSD)
			}
		}
		if r.Totals.SpendUSD < 0 {
			t.Fatalf("report spend %v", r.Totals.SpendUSD)
		}
	})
}

// TestHugeSpendSaturatesAndStillCrossesACeiling: a sum that would pass
// int64 stops at MaxPico, which every ceiling is below.
func TestHugeSpendSaturatesAndStillCrossesACeiling(t *testing.T) {
	st := New(DefaultConfig())
	for i := range 1100 {
		ev := ingest.Event{}
		ev.Reset()
		ev.TS, ev.Kind, ev.JobID, ev.Model, ev.Status = int64(1_773_104_400+i)*1e9, ingest.KindLLMCall, "j", "m", 200
		ev.CostUSD, ev.HasCost = 9e6, true
		st.Apply(&ev)
	}
	if st.Spend() != MaxPico || st.Job("j").Spend != MaxPico {
		t.Errorf("run %d, job %d; want both saturated at %d", st.Spend(), st.Job("j").Spend, MaxPico)
	}
	if !(JobCeilings{Default: PicoFromUSD(1)}).Over("", st.Job("j").Spend) {
		t.Error("a $1 job ceiling does not fire on a saturated spend")
	}
	if got := mulTokens(math.MaxInt64, 75_000_000); got != MaxPico {
		t.Errorf("mulTokens overflow: %d", got)
	}
}
