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
	if usd > 9e6 {
		usd = 9e6 // int64 picodollars hold about $9.2M per amount
	}
	return Pico(math.Round(usd * PicoPerUSD))
}
