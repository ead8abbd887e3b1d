package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestShippedUnitStartsAsAServiceUser: issue 14 — the README's unit failed
// as a service user (the journal defaulted to a file beside the config in
// /etc). The shipped unit's ExecStart line, run as a user that may write
// only its state directory ($STATE_DIRECTORY), starts, journals there,
// and on SIGTERM writes its report there and exits 0.
func TestShippedUnitStartsAsAServiceUser(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/burnrate.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart string
	var environment []string
	for _, line := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = v
		}
		if v, ok := strings.CutPrefix(line, "Environment="); ok {
			environment = append(environment, strings.Fields(v)...) // GOMEMLIMIT
		}
	}
	// Issue 36: a crash loop never leaves it down for good, its memory is
	// bounded, and other processes are out of its sight.
	for _, want := range []string{"DynamicUser=yes", "StateDirectory=burnrate", "NoNewPrivileges=yes", "ProtectSystem=strict",
		"StartLimitIntervalSec=0", "Restart=always", "MemoryMax=", "ProtectProc=invisible", "ProcSubset=pid"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	root := t.TempDir()
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755) // the test's own temp parent, so the service user can reach it
	etc, logs, state := filepath.Join(root, "etc"), filepath.Join(root, "logs"), filepath.Join(root, "state")
	for _, d := range []string{etc, logs, state} {
		os.Mkdir(d, 0o755)
	}
	testutil.WriteFile(t, filepath.Join(etc, "burnrate.toml"), "[budget]\njob_ceiling_usd = 0.10\n")
	night(t, filepath.Join(logs, "worker-1.jsonl"), "2026-03-10", 5)
	bin := filepath.Join(root, "burnrate")
	data, _ := os.ReadFile(burnrate(t))
	os.WriteFile(bin, data, 0o755)

	cmdline := strings.NewReplacer("/usr/local/bin/burnrate", bin, "/etc/burnrate/burnrate.toml", filepath.Join(etc, "burnrate.toml"),
		"/var/log/workers/", logs+"/", "${STATE_DIRECTORY}", state, "127.0.0.1:9464", "127.0.0.1:0").Replace(execStart)
	argv := strings.Fields(cmdline) // systemd splits on spaces; the unit quotes nothing
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "/"
	cmd.Env = append([]string{"STATE_DIRECTORY=" + state, "PATH=/usr/bin:/bin"}, environment...) // no HOME: the state directory must be enough
	if os.Geteuid() == 0 {
		// As root, run as nobody, who may write only the state directory.
		os.Chown(state, 65534, 65534)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		os.Chmod(etc, 0o555)
		os.Chmod(logs, 0o555)
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var said []string
	deadline := time.After(10 * time.Second)
	for started := false; !started; {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("exited at start: %v\n%s", cmd.ProcessState, strings.Join(said, "\n"))
			}
			said = append(said, l)
			started = strings.Contains(l, "limits in force")
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("did not start:\n%s", strings.Join(said, "\n"))
		}
	}
	waitUntil(t, "the journal in the state directory", 10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(state, "journal.jsonl"))
		return err == nil
	})
	time.Sleep(500 * time.Millisecond) // the log is read and the kill-free night settles
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, strings.Join(said, "\n"))
	}
	if _, err := os.Stat(filepath.Join(state, "last-run.json")); err != nil {
		t.Errorf("no report in the state directory: %v", err)
	}
}
