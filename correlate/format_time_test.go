package correlate

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendRFC3339NanoIsTheTimePackages holds the report's own time
// formatter to time.Format(time.RFC3339Nano) in UTC, byte for byte: every
// day of four centuries' boundaries, leap days, whole seconds (no
// fraction), fractions with trailing zeros, int64's ends, times before
// 1970 (given to the time package), and random instants.
func TestAppendRFC3339NanoIsTheTimePackages(t *testing.T) {
	want := func(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
	check := func(ns int64) {
		t.Helper()
		if got := string(appendRFC3339Nano(nil, ns)); got != want(ns) {
			t.Fatalf("%d: %q, time.Format %q", ns, got, want(ns))
		}
		if got := string(appendRFC3339Nano([]byte("x"), ns)); got != "x"+want(ns) {
			t.Fatalf("%d appended: %q", ns, got)
		}
	}
	for _, ns := range []int64{0, 1, -1, 999_999_999, 1e9, 1e9 + 1, 1e9 + 100_000_000, 1e9 + 120_000_000,
		math.MaxInt64, math.MaxInt64 - 999_999_999, math.MinInt64, -1e9, -86400e9 - 1} {
		check(ns)
	}
	for _, day := range []string{"1970-01-01", "1972-02-29", "1999-12-31", "2000-02-28", "2000-02-29", "2000-03-01",
		"2024-02-29", "2026-12-31", "2100-02-28", "2100-03-01", "2200-02-28", "2262-04-11"} {
		d, err := time.Parse("2006-01-02", day)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []time.Duration{0, time.Nanosecond, time.Second - 1, 23*time.Hour + 59*time.Minute + 59*time.Second + 999_999_000} {
			check(d.Add(off).UnixNano())
		}
	}
	for d := int64(0); d < 106_000; d += 7 { // every seventh day to 2260
		check(d*86400e9 + d%86400*1e9 + d*1000)
	}
	r := rand.New(rand.NewPCG(38, 5))
	for range 200_000 {
		ns := r.Int64()
		check(ns)
		check(ns / 1e9 * 1e9)                     // whole seconds
		check(ns / 1e6 * 1e6)                     // milliseconds, as logs write
		check(ns/1e6*1e6 + int64(r.IntN(10))*1e8) // a tenth
	}
}

func FuzzAppendRFC3339Nano(f *testing.F) {
	f.Add(int64(1_772_000_000_123_000_000))
	f.Fuzz(func(t *testing.T, ns int64) {
		if got, want := string(appendRFC3339Nano(nil, ns)), time.Unix(0, ns).UTC().Format(time.RFC3339Nano); got != want {
			t.Fatalf("%d: %q, time.Format %q", ns, got, want)
		}
	})
}
