package engine

import "testing"

// TestDateShape: the rule that joins a job across a dated run ID's roll
// (runroll.go) compares run IDs with their dates blanked; a number that
// is no date, or a date inside a longer number, is kept.
func TestDateShape(t *testing.T) {
	for id, want := range map[string]string{
		"nightly-2026-12-01":      "nightly-\x00",
		"etl_20261201_eu":         "etl_\x00_eu",
		"2026/12/01-batch":        "\x00-batch",
		"run-2026.12.01T06":       "run-\x00T06",
		"P":                       "",
		"build-12345678":          "",
		"id-120261201":            "", // inside a longer number
		"run-2026-13-01":          "", // no month 13
		"run-2026-12/01":          "", // mixed separators
		"a-2026-12-01-b-20261202": "a-\x00-b-\x00",
	} {
		if got := dateShape(id); got != want {
			t.Errorf("dateShape(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestNextDay: a roll is each date one day on, across a month's and a
// year's end; a backfill of another day, or an impossible date, is none.
func TestNextDay(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"n-2026-12-01", "n-2026-12-02", true},
		{"n-2026-11-30", "n-2026-12-01", true},
		{"n-20261231", "n-20270101", true},
		{"n-2026-12-02", "n-2026-12-01", false},
		{"n-2026-11-15", "n-2026-12-02", false},
		{"n-2026-02-28", "n-2026-02-30", false},
	} {
		_, a := datesOf(c.a)
		_, b := datesOf(c.b)
		if got := nextDay(a, b); got != c.want {
			t.Errorf("%s → %s: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
