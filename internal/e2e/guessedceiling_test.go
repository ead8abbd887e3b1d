package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAJobOverItsCeilingByGuessedSpendIsSaidNotKilled: R7b-4's second
// half — a sequential app's lines name no job (a --pattern without a
// job_id group): each call is placed in the job of the JSON line before
// it by position alone. R7-17 made such spend never weigh on a job
// ceiling (a guess is no reason to kill), and the job then burned 4× its
// ceiling in silence. It is now said — a warning naming the job "over its
// ceiling by spend placed by position only", in watch's alerts and in the
// report's night — and still killed never.
func TestAJobOverItsCeilingByGuessedSpendIsSaidNotKilled(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for j := range 3 {
		fmt.Fprintf(&b, `{"ts": "2026-06-02T00:%02d:00Z", "event": "job_started", "job_id": "job-%d", "job_type": "t"}`+"\n", j, j)
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&b, "2026-06-02T00:%02d:%02dZ model call done cost=0.20 status=200 model=gpt-4o\n", j, i)
		}
	}
	p := filepath.Join(dir, "seq.log")
	os.WriteFile(p, []byte(b.String()), 0o600)
	pat := `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+)$`
	rc := newReceiver(t, false)
	cfg := filepath.Join(dir, "c.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[budget]\njob_ceiling_usd = 1.0\n[actions]\nkill_webhook = %q\nkill_on = [\"job_ceiling\"]\n", rc.URL)), 0o600)
	cmd := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", filepath.Join(dir, "j.jsonl"), "--pattern", pat, p)
	out, err := cmd.Output()
	if err != nil {
		if _, exit := err.(*exec.ExitError); !exit {
			t.Fatal(err)
		}
	}
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Fatalf("kills %v: spend placed by position is a guess, never a kill", kills)
	}
	for j := range 3 {
		want := `"rule":"job_ceiling_guessed","severity":"warning","scope":"job","run_id":`
		if !strings.Contains(string(out), want) || !strings.Contains(string(out), fmt.Sprintf("job job-%d is over its ceiling of $1.00 by spend placed by position only", j)) {
			t.Errorf("job-%d: no warning that it is over its ceiling by guessed spend:\n%s", j, out)
		}
	}
	if strings.Contains(string(out), `"kill":true`) {
		t.Errorf("a kill was asked for:\n%s", out)
	}
	md, err := run(t, "report", "--config", cfg, "--pattern", pat, p)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	if !strings.Contains(md, "| job_ceiling_guessed | job-2 | $1.00 | $1.00 | no | job job-2 is over its ceiling of $1.00 by spend placed by position only") {
		t.Errorf("the report's night does not say it:\n%s", md)
	}
	// kill_on cannot name it: a guess is never a reason to kill.
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[budget]\njob_ceiling_usd = 1.0\n[actions]\nkill_exec = \"true\"\nkill_on = [\"job_ceiling_guessed\"]\n"), 0o600)
	refused, err := exec.Command(burnrate(t), "replay", "--headless", "--speed", "max", "--config", bad, "--journal", filepath.Join(dir, "j2.jsonl"), p).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(refused), `kill_on "job_ceiling_guessed"`) {
		t.Errorf("kill_on = [job_ceiling_guessed] not refused (%v):\n%s", err, refused)
	}
}
