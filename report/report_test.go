package report

import (
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

func TestFormatting(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", 0.000225: "$0.000225", 0.729: "$0.7290", 1.296: "$1.30", 198: "$198.00", 217.8: "$217.80", 1234567.891: "$1,234,567.89",
		3.999: "$4.00", 19.995001: "$20.00", -2.5: "-$2.50"} {
		if got := correlate.USD(v); got != want {
			t.Errorf("correlate.USD(%v) = %s, want %s", v, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1043: "1,043", 42075: "42,075", -1234567: "-1,234,567"} {
		if got := correlate.Count(n); got != want {
			t.Errorf("correlate.Count(%d) = %s, want %s", n, got, want)
		}
	}
	for s, want := range map[float64]string{38: "38.0s", 700: "11m 40s", 3900: "1h 05m"} {
		if got := Seconds(s); got != want {
			t.Errorf("Seconds(%v) = %s, want %s", s, got, want)
		}
	}
	if got := cell("a|b\nc<img src=x onerror=alert(1)>[x](javascript:y)"); got != `a\|b\\u000ac&lt;img src=x onerror=alert(1)&gt;\[x\](javascript:y)` {
		t.Errorf("a log value must not break a Markdown table or become live Markdown: %s", got)
	}
}
