package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestKillCommandCannotReadBurnratesEnvironment: issue 34 — a kill
// command gets burnrate's environment without its secrets, but the red
// team read them back from the parent: "cat /proc/$PPID/environ" printed
// BURNRATE_WEBHOOK_SECRET and BURNRATE_OTLP_TOKEN. A real burnrate runs a
// real command that tries; it must get nothing of them.
func TestKillCommandCannotReadBurnratesEnvironment(t *testing.T) {
	const hmacKey, otlp = "whsec-proc-environ-0451", "otlp-proc-environ-0452"
	t.Setenv("BURNRATE_WEBHOOK_SECRET", hmacKey)
	t.Setenv("BURNRATE_OTLP_TOKEN", otlp)
	dir := t.TempDir()
	seen, done := filepath.Join(dir, "seen"), filepath.Join(dir, "done")
	script := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, script, "#!/bin/sh\n"+
		"tr '\\000' '\\n' < /proc/$PPID/environ > "+seen+" 2>&1\n"+
		"cat /proc/$PPID/cmdline >> "+seen+" 2>&1\n"+
		"echo ran > "+done+"\n")
	logPath, journal := oneJob(t, dir), filepath.Join(dir, "journal.jsonl")
	bin := burnrate(t)
	cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.1", "--kill-exec", "sh "+script+" {job_id}", "--journal", journal, logPath)
	if os.Geteuid() == 0 {
		// Root reads every process's /proc entries whatever they say
		// (CAP_SYS_PTRACE), so as root the test runs burnrate, and its
		// command, as nobody: the same user on both sides, as in a
		// deployment.
		local := filepath.Join(dir, "burnrate")
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, local, string(b))
		for _, p := range []string{filepath.Dir(dir), dir, local, script, logPath} {
			if err := os.Chmod(p, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		cmd.Path, cmd.Args[0] = local, local
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitCritical {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if _, err := os.Stat(done); err != nil {
		t.Fatalf("the kill command did not run: %v", err)
	}
	got, _ := os.ReadFile(seen)
	for _, s := range []string{hmacKey, otlp} {
		if strings.Contains(string(got), s) {
			t.Errorf("the kill command read burnrate's secret %q from /proc/$PPID:\n%s", s, got)
		}
	}
}
