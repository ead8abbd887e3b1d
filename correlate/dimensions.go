package correlate

import (
	"fmt"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The bill's dimensions beyond a call's tokens (issue 35): fast mode,
// US-only inference, the service tier as the response reports it,
// server-side compaction, long-context tiers, cache writes. Each is read
// where the record has it (ingest.Bill) and priced from the table's own
// figure for it; where the table has none, the call is priced by a stated
// assumption, counted per reason in the report (Pricing.AssumedCalls).

// Dimension names, as the report counts calls that carried each
// (Pricing.DimensionCalls).
const (
	DimFast        = "fast"
	DimGeoUS       = "inference_geo_us"
	DimFlex        = "service_tier_flex"
	DimPriority    = "service_tier_priority"
	DimCompaction  = "compaction"
	DimLongContext = "long_context"
	DimCacheWrite  = "cache_write"
)

// Reasons a call was priced by assumption, as the report counts them.
const (
	AssumeFast       = "fast mode: the table has no fast multiplier for the model; priced at the standard rate (the bill is higher)"
	AssumeGeoUS      = "inference_geo us: the table has no US multiplier for the model; priced at the standard rate (the bill is higher)"
	AssumeFlex       = "service_tier flex: the table has no flex rate for the model; priced at the standard rate (the bill is lower)"
	AssumePriority   = "service_tier priority: the table has no priority rate for the model; priced at the standard rate (the bill is higher)"
	AssumeCacheWrite = "cache write: the table has no cache-write rate for the model; written tokens priced at the input rate"
)

// dimCounts counts the calls priced from the table that carried each
// dimension, and those priced by assumption per reason.
type dimCounts struct {
	dims    map[string]int64
	assumed map[string]int64
}

func (d *dimCounts) dim(name string) {
	if d.dims == nil {
		d.dims = map[string]int64{}
	}
	d.dims[name]++
}

func (d *dimCounts) assume(why string) {
	if d.assumed == nil {
		d.assumed = map[string]int64{}
	}
	d.assumed[why]++
}

// billCost prices a call's tokens with p along every dimension the event
// carries. prompt, when not 0, is the whole call's prompt (a usage
// growth's tokens are a part of it), which picks the long-context tier.
// count is nil when the call is not to be counted (a recomputation beside
// a recorded cost).
//
// It reads the model's price in place (a Price is 216 bytes: three copies
// a call were 7% of correlation's instructions) and copies it only when
// the call's service tier or prompt changes its rates.
func billCost(price *Price, ev *ingest.Event, prompt int64, count *dimCounts) Pico {
	p := price
	var own Price // p's rates for this call, when they differ from the model's
	note := func(dim string) {
		if count != nil {
			count.dim(dim)
		}
	}
	assume := func(why string) {
		if count != nil {
			count.assume(why)
		}
	}
	// The service tier the response reports: its own rates (and its own
	// long-context tiers), before the tier is chosen by the prompt.
	if !ev.Batch {
		switch {
		case ev.Bill&ingest.BillPriority != 0:
			note(DimPriority)
			if p.Priority.known() {
				own = p.inTier(p.Priority)
				p = &own
			} else {
				assume(AssumePriority)
			}
		case ev.Bill&ingest.BillFlex != 0:
			note(DimFlex)
			if p.Flex.known() {
				own = p.inTier(p.Flex)
				p = &own
			} else {
				assume(AssumeFlex)
			}
		}
	}
	whole := prompt
	if whole == 0 {
		whole = satAdd(satAdd(max(ev.InputTokens, 0), max(ev.CacheReadTokens, 0)), max(ev.CacheCreateTokens, 0))
	}
	if len(p.Tiers) > 0 && whole > p.Tiers[0].Above {
		// The whole request at the tier's rates, not the part above it.
		note(DimLongContext)
	}
	if prompt > 0 {
		own = p.at(prompt, 0, 0)
		own.Tiers = nil
		p = &own
	}
	if ev.CacheCreateTokens > 0 && p.NoCacheWrite {
		// Written cache on a model whose entry has no write rate (OpenAI's
		// before GPT-5.6): counted as a dimension and an assumption. Where
		// the table has the rate (every Claude model) it is no news.
		note(DimCacheWrite)
		assume(AssumeCacheWrite)
	}
	var c Pico
	switch {
	case ev.Batch:
		c = p.BatchCost(ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
	case ev.CacheCreate1hTokens > 0:
		// The one-hour cache is written at its own rate (Anthropic: twice
		// the input rate, LiteLLM's cache_creation_input_token_cost_above_1hr).
		h := min(ev.CacheCreate1hTokens, ev.CacheCreateTokens)
		c = p.cost(ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens-h).Add(mulTokens(h, p.write1h()))
	default:
		c = p.cost(ev.InputTokens, ev.OutputTokens, ev.CacheReadTokens, ev.CacheCreateTokens)
	}
	if ev.Bill&ingest.BillCompaction != 0 {
		note(DimCompaction) // its tokens are in the event's (the decoder summed them)
	}
	// Fast mode and US-only inference multiply every rate of the call,
	// cache reads and writes included (Anthropic: "applies on top of").
	if ev.Bill&ingest.BillFast != 0 {
		note(DimFast)
		if p.FastX > 0 {
			c = mulX(c, p.FastX)
		} else {
			assume(AssumeFast)
		}
	}
	if ev.Bill&ingest.BillGeoUS != 0 {
		note(DimGeoUS)
		if p.USX > 0 {
			c = mulX(c, p.USX)
		} else {
			assume(AssumeGeoUS)
		}
	}
	return c
}

// recordedCost is, for one job, the costs its records carried (a
// producer's own figure: LiteLLM's response_cost, Cline's cost, GenAI's
// gen_ai.usage.cost.amount, Claude Code's costUSD …) beside what the
// table prices the same calls' tokens at.
type recordedCost struct {
	recorded, ours Pico
	calls          int64
}

// noteRecorded keeps a call's recorded cost beside ours, for its job and
// the run, when the table prices its model.
func (s *State) noteRecorded(job *Job, recorded, ours Pico, ts int64, call bool) {
	n := int64(0)
	if call {
		n = 1
	}
	if s.recorded == nil {
		s.recorded = map[int32]*recordedCost{}
	}
	r := s.recorded[job.Seq]
	if r == nil {
		r = &recordedCost{}
		s.recorded[job.Seq] = r
	}
	r.recorded, r.ours, r.calls = r.recorded.Add(recorded), r.ours.Add(ours), r.calls+n
	s.recordedAll.recorded, s.recordedAll.ours, s.recordedAll.calls = s.recordedAll.recorded.Add(recorded), s.recordedAll.ours.Add(ours), s.recordedAll.calls+n
	// Judged on the job's sums so far, once a cent apart (a call's
	// rounding is no finding), and flagged once per job.
	if !job.HasFinding(RecordedCostDiffers) && differsByMoreThan1pc(r.recorded, r.ours) && max(r.recorded, r.ours)-min(r.recorded, r.ours) >= PicoPerUSD/100 {
		s.flag(RecordedCostDiffers, job, 1, 0, ts, func() string {
			return fmt.Sprintf("job %s: its records' own cost %s, the price table's %s for the same %d calls", job.ID, USD(r.recorded.USD()), USD(r.ours.USD()), r.calls)
		})
	}
}

// Recorded is the producer's own cost of the job's calls that carried
// one, and the table's price of the same calls; ok false for none.
func (s *State) Recorded(job *Job) (recorded, ours Pico, calls int64, ok bool) {
	r := s.recorded[job.Seq]
	if r == nil {
		return 0, 0, 0, false
	}
	return r.recorded, r.ours, r.calls, true
}

// differsByMoreThan1pc: the recorded and the computed figure differ by
// more than 1% of the larger, in integer arithmetic.
func differsByMoreThan1pc(a, b Pico) bool {
	hi, lo := max(a, b), min(a, b)
	return hi > 0 && (hi-lo) > hi/100
}
