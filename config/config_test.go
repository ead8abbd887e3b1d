package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestExampleConfigLoads: the shipped example is valid and means what its
// comments say.
func TestExampleConfigLoads(t *testing.T) {
	f, err := Load("../burnrate.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Correlate(Analysis{MaxCallsPerJob: -1})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxCallsPerJob != 10 || cfg.JobDeadline != 10*time.Minute || cfg.Breaker.Cooldown != 300*time.Second || cfg.MaxCallsPerJobType["report"] != 4 {
		t.Errorf("%+v", cfg)
	}
	acts, err := f.Alerts(ActionFlags{Ceiling: 7})
	if err != nil {
		t.Fatal(err)
	}
	if acts.Rules.RunCeilingUSD != 7 || acts.Rules.JobTypeJobCeilingUSD["report"] != 0.5 || acts.Rules.JobTypeCeilingUSD["report"] != 20 || acts.Poster.Deadline != 60*time.Second {
		t.Errorf("%+v", acts.Rules)
	}
	if acts.Rules.FindingAlerts[correlate.DuplicateCompletion] != correlate.SeverityCritical || acts.Rules.FindingAlerts[correlate.RetryAfterTooShort] != correlate.SeverityOff {
		t.Errorf("finding alerts %v", acts.Rules.FindingAlerts)
	}
}

func TestConfigErrorsAreSpecific(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"max_calls_per_jb = 3\n":                              "unknown key(s) max_calls_per_jb",
		"[breaker]\ntrip_rate = 2\n":                          "breaker trip rate is 2",
		"[findings]\nbreaker_opn = \"off\"\n":                 "unknown finding kind",
		"[actions]\nkill_exec = \"kill '{job_id}\"":           "unterminated",
		"[actions]\nsecret_env = \"BURNRATE_TEST_UNSET_VAR\"": "environment variable is empty",
		"job_deadline = \"soon\"\n":                           "invalid duration",
	}
	for body, want := range cases {
		p := filepath.Join(dir, "c.toml")
		os.WriteFile(p, []byte(body), 0o644)
		f, err := Load(p)
		if err == nil {
			_, err = f.Correlate(Analysis{MaxCallsPerJob: -1})
		}
		if err == nil {
			_, err = f.Alerts(ActionFlags{})
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to mention %q", body, err, want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"1s": time.Second, "250ms": 250 * time.Millisecond, "2.5": 2500 * time.Millisecond, "10m": 10 * time.Minute} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
}
