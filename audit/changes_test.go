package audit

import (
	"strings"
	"testing"
)

func TestChangesAcross(t *testing.T) {
	for _, c := range []struct {
		id, from, to string
		n            int
	}{
		{"openai-go", "3.10.0", "3.53.0", 1}, {"openai-go", "v3.52.0", "v3.52.1", 1}, {"openai-go", "3.53.0", "3.52.0", 1},
		{"openai-go", "3.10.0", "3.52.0", 0}, {"openai-go", "3.53.0", "3.60.0", 0}, {"openai-go", "abc", "3.60.0", 0},
		// openai-python: 120 s from v2.52.0 (commit 7fa7946), v2.51.0 the last at 60 s.
		{"openai-python", "2.51.0", "2.52.0", 1}, {"openai-python", "1.55.0", "2.54.0", 1}, {"openai-python", "2.52.0", "2.54.0", 0}, {"openai-python", "2.40.0", "2.51.0", 0},
		// botocore: AWS_NEW_RETRIES_2026 from 1.43.3 (commit b8db539).
		{"botocore", "1.35.0", "1.43.3", 1}, {"botocore", "1.43.2", "1.43.67", 1}, {"botocore", "1.35.0", "1.43.2", 0}, {"botocore", "1.43.3", "1.43.67", 0},
		// Claude Code: the cap of 15 in 2.1.186, the watchdog on for all in 2.1.196.
		{"claude-code", "2.1.185", "2.1.186", 1}, {"claude-code", "2.1.195", "2.1.196", 1}, {"claude-code", "2.1.180", "2.1.200", 2},
		{"claude-code", "2.1.196", "2.1.239", 0},
		// The audit's t27/cc-bump.jsonl: 1.0.20 → 2.1.39 predates both, so it crosses neither.
		{"claude-code", "1.0.20", "2.1.39", 0},
	} {
		if got := ChangesAcross(c.id, c.from, c.to); len(got) != c.n {
			t.Errorf("%s %s → %s: %d changes, want %d", c.id, c.from, c.to, len(got), c.n)
		}
	}
	got := ChangesAcross("claude-code", "2.1.195", "2.1.196")
	if len(got) != 1 || !strings.Contains(got[0].After, "watchdog") {
		t.Errorf("2.1.195 → 2.1.196 = %+v, want the watchdog change", got)
	}
	for _, c := range DefaultChanges {
		if _, ok := Lookup(c.ID); !ok || c.Source == "" || c.Before == "" || c.After == "" {
			t.Errorf("change %+v: no Defaults row, or no source, before or after", c)
		}
		if _, ok := versionParts(c.LastBefore); !ok {
			t.Errorf("change %+v: LastBefore %q is no version", c, c.LastBefore)
		}
	}
}
