package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKillOnAssumptionViolatedKillsThatJobOnce: issue 27 — kill_on =
// ["finding:assumption_violated"] was refused by config validation. A
// real process replaying a log whose SDK retry lines show retries, with
// the operator's --assumptions FILE declaring anthropic-sdk.maxRetries 0
// (the log declares it too, which alone arms nothing since issue 34: see
// TestOnlyTheOperatorArmsAKill), now sends exactly one kill, of the job
// that retried, under a stable key; a second run over the same log with
// the same journal sends none (the journal has it acknowledged).
func TestKillOnAssumptionViolatedKillsThatJobOnce(t *testing.T) {
	bin := burnrate(t)
	logPath, err := filepath.Abs("../../correlate/testdata/assumptions/violated-records-2026-07-01.log")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(logPath); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "kill.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"job_ceiling\", \"finding:assumption_violated\"]\n", rc.URL)), 0o600)
	journal := filepath.Join(dir, "journal.jsonl")
	assumptions := filepath.Join(dir, "operator.assumptions.toml")
	os.WriteFile(assumptions, []byte("[anthropic-sdk]\nmaxRetries = 0\n"), 0o600)
	replay := func() string {
		cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", journal, "--assumptions", assumptions, logPath)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if _, exit := err.(*exec.ExitError); !exit {
				t.Fatalf("replay: %v\n%s", err, stderr.String())
			}
		}
		if strings.Contains(stderr.String(), "kill_on") {
			t.Fatalf("kill_on refused:\n%s", stderr.String())
		}
		return stdout.String()
	}
	out := replay()
	keys, kills := rc.snapshot()
	if len(kills) != 1 || len(keys) != 1 {
		t.Fatalf("%d kills under %d keys, want exactly 1\nstdout:\n%s", len(kills), len(keys), out)
	}
	k := kills[0]
	if k["scope"] != "job" || k["job_id"] != "site-a/2026-07-01/article-x" || k["rule"] != "finding:assumption_violated" || k["job_type"] != "nightly-article" {
		t.Errorf("kill body: %v", k)
	}
	if !strings.Contains(out, `"rule":"finding:assumption_violated","severity":"critical","scope":"job"`) || !strings.Contains(out, `"kill":true`) {
		t.Errorf("no job-scope kill alert on stdout:\n%s", out)
	}
	replay()
	if _, again := rc.snapshot(); len(again) != 1 {
		t.Errorf("a second run over the same log sent %d kills in all, want the first one only", len(again))
	}
}
