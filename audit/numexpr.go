package audit

import (
	"math"
	"strconv"
	"strings"
)

// numExprPat is a bound written as a number the audit can read: an integer
// literal (1_000_000, 99999999999999999999), a float (1e9, 1e400, 5.0), a
// power (10**9, 2**40), a product of literals (60 * 24), infinity
// (float("inf"), math.inf, Infinity, Number.POSITIVE_INFINITY), each
// optionally negative. float("…") is read as infinity: detectors match
// blanked code, where the string's text is gone, and a bound it cannot
// read exactly is no small one. Regular-expression text, for the matchers that
// take a bound (knobRe, the empty-answer loops' count test).
const numExprPat = `-?[ \t]*(?:[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?(?:[ \t]*\*\*?[ \t]*[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?)*|float[ \t]*\([ \t]*["'][^"'\n]{0,12}["'][ \t]*\)?|math\.inf\b|(?:Number\.POSITIVE_)?Infinity\b|Number\.MAX_(?:SAFE_INTEGER|VALUE)\b|sys\.maxsize\b|math\.MaxInt(?:64|32)?\b)`

// numExpr reads a bound numExprPat matched (rt5 F4's rule): a value it
// reads exactly is that value (over maxSiteBound, the scan reports it
// unbounded); one infinite, overflowing, fractional or negative (no library
// reads a negative count as a small one) is hugeBound — unbounded, never a
// small number.
// ok is false for text that is no such number (a name).
// namedBound are the constants a bound is written as, by their values.
var namedBound = map[string]string{
	"Number.MAX_SAFE_INTEGER": "9007199254740991",
	"Number.MAX_VALUE":        "Infinity",
	"sys.maxsize":             "9223372036854775807",
	"math.MaxInt":             "9223372036854775807",
	"math.MaxInt64":           "9223372036854775807",
	"math.MaxInt32":           "2147483647",
}

func numExpr(s string) (n int, ok bool) {
	// Named constants first: their names hold underscores (R7-8: ofetch's
	// retry: Number.MAX_SAFE_INTEGER was read as its default, 2 attempts).
	t := strings.TrimSpace(s)
	sign := ""
	if strings.HasPrefix(t, "-") {
		sign, t = "-", strings.TrimSpace(t[1:])
	}
	if v, named := namedBound[t]; named {
		s = sign + v
	}
	s = strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), " ", "")
	s = strings.ReplaceAll(s, "\t", "")
	if s == "" {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var v float64
	switch {
	case strings.HasPrefix(s, "float("), s == "math.inf", s == "Infinity", s == "Number.POSITIVE_INFINITY":
		v = math.Inf(1)
	default:
		v = 1
		for i, prod := range strings.Split(strings.ReplaceAll(s, "**", "^"), "*") {
			p := 1.0
			pows := strings.Split(prod, "^")
			// Python's ** is right-associative: 2**3**2 is 2**9.
			for j := len(pows) - 1; j >= 0; j-- {
				f, err := strconv.ParseFloat(pows[j], 64)
				if err != nil && !math.IsInf(f, 1) {
					return 0, false
				}
				if j == len(pows)-1 {
					p = f
				} else {
					p = math.Pow(f, p)
				}
			}
			if i == 0 {
				v = p
			} else {
				v *= p
			}
		}
	}
	switch {
	case neg && v != 0:
		return hugeBound, true
	case math.IsNaN(v) || v >= hugeBound:
		return hugeBound, true
	case v != math.Trunc(v):
		return hugeBound, true // a fraction of a try is no count the audit can read
	}
	return int(v), true
}
