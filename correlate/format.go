package correlate

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The formatters every output shares — report, alerts, headless lines and
// the dashboard — so a number reads the same wherever it is shown.

// USD formats dollars: cents for whole amounts, more digits below a dollar.
// A saturated amount (MaxPico, about $9.2M) reads "≥$9,223,372.04".
func USD(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case math.Abs(v) < 0.01:
		return fmt.Sprintf("$%.6f", v)
	case math.Abs(v) < 1:
		return fmt.Sprintf("$%.4f", v)
	}
	if math.Abs(v) >= 1e15 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("$%.4g", v) // past what cents in an int64 hold: never a wrapped figure
	}
	if v == saturatedUSD {
		// A saturated sum (Pico.Saturated): at least this much.
		return "≥$" + Count(int64(saturatedUSD)) + fmt.Sprintf(".%02d", int64(math.Round(saturatedUSD*100))%100)
	}
	cents := int64(math.Round(math.Abs(v) * 100)) // round once, so $3.999 carries to $4.00
	sign := ""
	if v < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s$%s.%02d", sign, Count(cents/100), cents%100)
}

// Count formats an integer with thousands separators.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatTime renders a log time (Unix ns) as RFC 3339 in UTC, "" for none.
func FormatTime(ns int64) string {
	if ns == 0 {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

// atTime is "at" and a log time, or words when there is none (the lines
// had no timestamps): a finding's sentence never ends on a blank.
func atTime(ns int64) string { return atText(FormatTime(ns)) }

// atText is atTime of a time already formatted.
func atText(t string) string {
	if t == "" {
		return "at a time unknown (its lines had none)"
	}
	return "at " + t
}

// Saturated reports an amount in dollars that is a saturated sum
// (MaxPico): at least that much, no figure to divide.
func Saturated(usd float64) bool { return usd == saturatedUSD }

// satAdd adds counters that must not wrap (token totals), saturating.
func satAdd(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
