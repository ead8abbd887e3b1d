package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadLimitsNameTheirKeyOneErrorEach: audit a2 — "[job_types.sum] is
// -Inf" did not say which key, and two bad limits came out as one error
// whose second half had no file name (printed with a literal \u000a).
// Each bad limit is its own error, naming the file, the table and the key.
func TestBadLimitsNameTheirKeyOneErrorEach(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		toml string
		want []string
	}{
		{"[job_types.sum]\nceiling_usd = -inf\n", []string{"[job_types.sum] ceiling_usd = -Inf: give a finite USD amount"}},
		{"[budget]\nceiling_usd = inf\nburn_rate_usd_per_min = nan\n[job_types.sum]\njob_ceiling_usd = nan\n", []string{
			"[budget] ceiling_usd = +Inf: give a finite",
			"[budget] burn_rate_usd_per_min = NaN: give a finite",
			"[job_types.sum] job_ceiling_usd = NaN: give a finite"}},
		{"[job_types.b]\nceiling_usd = 1e300\n[job_types.a]\njob_ceiling_usd = -2\n", []string{
			"[job_types.a] job_ceiling_usd = -2: give a positive",
			"[job_types.b] ceiling_usd = 1e+300: the largest amount"}},
	} {
		p := filepath.Join(dir, "b.toml")
		if err := os.WriteFile(p, []byte(tc.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Alerts(ActionFlags{})
		if err == nil {
			t.Errorf("%q accepted", tc.toml)
			continue
		}
		each := flattenJoined([]error{err})
		if len(each) != len(tc.want) {
			t.Errorf("%q: %d error(s), want %d:\n%v", tc.toml, len(each), len(tc.want), err)
			continue
		}
		for i, e := range each {
			if msg := e.Error(); !strings.HasPrefix(msg, "config "+p+": "+tc.want[i]) || strings.Contains(msg, "\n") {
				t.Errorf("error %d: %q, want it to begin %q, on one line", i, msg, "config "+p+": "+tc.want[i])
			}
		}
	}
}

// TestFlattenJoinedKeepsOtherWrappers: only errors.Join results are split;
// an error wrapping two under a text of its own stays whole, and errors.Is
// still finds what was wrapped.
func TestFlattenJoinedKeepsOtherWrappers(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	got := flattenJoined([]error{errors.Join(a, errors.Join(b, nil)), fmtTwo(a, c)})
	if len(got) != 3 || got[0] != a || got[1] != b || got[2].Error() != "both a and c" {
		t.Errorf("flattened %q", got)
	}
	f := &File{path: "x.toml"}
	if err := f.wrap([]error{errors.Join(a, b)}); !errors.Is(err, b) || err.Error() != "config x.toml: a\nconfig x.toml: b" {
		t.Errorf("wrap: %q (Is b: %v)", err, errors.Is(err, b))
	}
	if f.wrap(nil) != nil {
		t.Error("wrap of no errors is not nil")
	}
}

type two struct{ x, y error }

func (e two) Error() string   { return "both " + e.x.Error() + " and " + e.y.Error() }
func (e two) Unwrap() []error { return []error{e.x, e.y} }
func fmtTwo(x, y error) error { return two{x, y} }

// TestOverriddenJobTypeJobCeilingIsNotChecked: --job-ceiling is every
// job's ceiling, so a [job_types] job_ceiling_usd it overrides is not in
// force, and is not blamed; the type's ceiling_usd still is.
func TestOverriddenJobTypeJobCeilingIsNotChecked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.toml")
	if err := os.WriteFile(p, []byte("[job_types.sum]\njob_ceiling_usd = nan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Alerts(ActionFlags{JobCeiling: 2}); err != nil {
		t.Errorf("an overridden job_ceiling_usd was checked: %v", err)
	}
	if _, err := f.Alerts(ActionFlags{}); err == nil || !strings.Contains(err.Error(), "[job_types.sum] job_ceiling_usd = NaN") {
		t.Errorf("in force, it was not refused: %v", err)
	}
}
