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
	var b [40]byte
	return string(appendRFC3339Nano(b[:0], ns))
}

// appendRFC3339Nano appends ns as time.Unix(0, ns).UTC() formats in
// time.RFC3339Nano, byte for byte: a report writes two times per job, and
// the time package's general formatter was a fifth of filling a job's row.
// Times after 1970 (all a log's, up to int64's 2262) are written here;
// the rest by the time package.
func appendRFC3339Nano(b []byte, ns int64) []byte {
	if ns < 0 {
		return time.Unix(0, ns).UTC().AppendFormat(b, time.RFC3339Nano)
	}
	secs, frac := uint64(ns)/1e9, uint64(ns)%1e9
	days, sod := secs/86400, secs%86400
	// Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil
	// inverted), in unsigned arithmetic: days is never negative here.
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	hh, mm, ss := sod/3600, sod/60%60, sod%60
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+hh/10), byte('0'+hh%10), ':', byte('0'+mm/10), byte('0'+mm%10), ':',
		byte('0'+ss/10), byte('0'+ss%10))
	if frac != 0 {
		digits := 9
		for frac%10 == 0 {
			frac /= 10
			digits--
		}
		b = append(b, '.')
		n := len(b)
		for range digits {
			b = append(b, 0)
		}
		for i := len(b) - 1; i >= n; i-- {
			b[i] = byte('0' + frac%10)
			frac /= 10
		}
	}
	return append(b, 'Z')
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
