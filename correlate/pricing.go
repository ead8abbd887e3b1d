package correlate

import (
	"math"
	"math/bits"
)

// Pico is an amount of US dollars in units of 1e-12. Spend is summed as
// integers so the total does not depend on float rounding or on order, and
// a cost logged as 0.00022500000000000002 sums exactly. Sums saturate at
// MaxPico (about $9.2M) instead of wrapping: a hostile line can make spend
// read "at least $9.2M", never negative, so a ceiling always still fires.
// A saturated amount is written "≥$9,223,372.04" (USD) wherever it is
// shown, so a run of ten saturated jobs never reads as exactly one job's
// worth: the run and every job in it say "at least".
type Pico int64

// PicoPerUSD is one dollar.
const PicoPerUSD = 1e12

// MaxPico is the largest amount a Pico holds; sums stop there.
const MaxPico = Pico(math.MaxInt64)

// Add returns p+q, saturating at MaxPico. A negative q adds nothing:
// spend never decreases when an event is added.
func (p Pico) Add(q Pico) Pico {
	if q <= 0 {
		return p
	}
	if p > MaxPico-q {
		return MaxPico
	}
	return p + q
}

// mulTokens prices n tokens at price each, saturating at MaxPico.
func mulTokens(n int64, price Pico) Pico {
	if n <= 0 || price <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(price))
	if hi != 0 || lo > uint64(MaxPico) {
		return MaxPico
	}
	return Pico(lo)
}

// USD converts to dollars for display and JSON.
func (p Pico) USD() float64 { return float64(p) / PicoPerUSD }

// PicoFromUSD rounds a dollar amount to the nearest picodollar.
func PicoFromUSD(usd float64) Pico {
	if usd <= 0 || math.IsNaN(usd) {
		return 0
	}
	if v := math.Round(usd * PicoPerUSD); v < float64(MaxPico) { // 2^63: past it a conversion wraps
		return Pico(v)
	}
	// Saturated, as a sum is: $9.2M read back from a report (a merge, a
	// carried total) stays the saturated amount, never a smaller one that
	// a job's own saturated spend would be above.
	return MaxPico
}

// Saturated reports whether p is the most a Pico holds: a sum that
// stopped there, so the true amount is at least this. Every level that
// includes it (job, type, run) is saturated too, since sums saturate.
func (p Pico) Saturated() bool { return p == MaxPico }

// saturatedUSD is MaxPico in dollars, as USD receives it.
var saturatedUSD = MaxPico.USD()
