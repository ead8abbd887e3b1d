package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNewUserCommandLine: issue 14 — what a new user tripped on.
func TestNewUserCommandLine(t *testing.T) {
	// A mistyped command is not a file to wait for.
	for _, args := range [][]string{{"reprot", "x.jsonl"}, {"--headless", "version"}} {
		_, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "unknown command") {
			t.Errorf("%v: %v, want unknown command", args, err)
		}
	}
	if _, err := run(t, "reprot", "x.jsonl"); err == nil || !strings.Contains(err.Error(), "did you mean report") {
		t.Errorf("a near miss must suggest the command: %v", err)
	}
	// The prefix is said once.
	if _, err := run(t, "report", "nope.jsonl"); err == nil || strings.Count(err.Error(), "nope.jsonl") != 1 {
		t.Errorf("missing file: %v", err)
	}
	// Help shows one default per flag, and no placeholder taken from prose.
	for _, sub := range []string{"report", "watch", "replay", "budget"} {
		help, _ := run(t, sub, "--help")
		if strings.Count(help, "(default 10)") > 1 || strings.Contains(help, "(default -1)") || strings.Contains(help, "--baseline report") {
			t.Errorf("%s --help:\n%s", sub, help)
		}
		if strings.Contains(help, "Seed") || strings.Contains(help, "seed 00") {
			t.Errorf("%s --help talks about our seeds", sub)
		}
	}
	if _, err := os.Stat("../../LICENSE"); err != nil {
		t.Error("no LICENSE at the root")
	}
}

// TestVersion: a built binary reports its module version and revision.
func TestVersion(t *testing.T) {
	out, err := exec.Command(burnrate(t), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "burnrate version ") || !strings.Contains(string(out), "go1.") {
		t.Errorf("--version: %q %v", out, err)
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return // not a git checkout: there is no revision to embed
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-buildvcs=true", "-o", dir+"/burnrate", "../..")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, b)
	}
	out, _ = exec.Command(dir+"/burnrate", "--version").Output()
	if !strings.Contains(string(out), strings.TrimSpace(string(rev))[:12]) {
		t.Errorf("--version %q lacks the revision %s", out, rev[:12])
	}
}

// TestFlagBeatsPerTypeConfig: with burnrate.example.toml, --job-ceiling
// 0.1 fired nothing because [job_types.report] job_ceiling_usd = 0.50 won.
func TestFlagBeatsPerTypeConfig(t *testing.T) {
	journal := t.TempDir() + "/j.jsonl"
	out, err := run(t, "replay", "--headless", "--speed", "max", "--config", "../../burnrate.example.toml", "--job-ceiling", "0.1",
		"--journal", journal, "../../sample-logs/seed000-incident.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"rule":"job_ceiling"`) {
		t.Errorf("--job-ceiling 0.1 fired no job ceiling with the example config:\n%.2000s", out)
	}
}
