package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandFailsOnAFullStdout: issue 36 — `prices > /dev/full` and
// `formats > /dev/full` exited 0: the output was lost and success claimed.
// Every command that prints, with stdout on /dev/full (every write fails
// with ENOSPC), must exit 2 and say why on stderr.
func TestEveryCommandFailsOnAFullStdout(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	bin := burnrate(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "night.jsonl")
	night(t, log, "2026-03-10", 5)
	incident := "../../sample-logs/seed000-incident.jsonl"
	// Two replicas' reports, for report --merge.
	var replicas []string
	for _, r := range []string{"a", "b"} {
		rlog, rjson := filepath.Join(dir, r+".jsonl"), filepath.Join(dir, r+".json")
		night(t, rlog, "2026-03-10", 3)
		if out, err := exec.Command(bin, "report", "--format", "json", rlog).Output(); err != nil {
			t.Fatalf("report --format json: %v", err)
		} else {
			os.WriteFile(rjson, out, 0o644)
		}
		replicas = append(replicas, rjson)
	}
	stack := filepath.Join(dir, "stack.toml")
	os.WriteFile(stack, []byte("[[layer]]\nname = \"sdk\"\nattempts = 3\ntimeout = \"60s\"\n"), 0o644)
	layer := "sdk:attempts=3,timeout=60s,backoff=exp:1s"
	model := []string{"budget", "model", "--p", "0.3", "--retries", "4", "--base", "1s", "--cap", "30s", "--latency", "8s", "--deadline", "90s"}
	src := "../../audit/testdata/goworker"
	cases := [][]string{
		{"report", log},
		{"report", incident}, // a critical finding (exit 1) lost is still exit 2
		{"report", "--format", "json", log},
		{"report", "--merge", replicas[0], replicas[1]},
		{"report", "--merge", "--format", "json", replicas[0], replicas[1]},
		{"budget"}, // its help
		{"budget", "--from-log", log},
		{"budget", "--from-log", log, "--format", "json"},
		{"budget", "layers", "--layer", layer},
		{"budget", "layers", "--layer", layer, "--format", "json"},
		{"budget", "layers", "--file", stack, "--emit", "env"},
		{"budget", "layers", "--layer", layer, "--emit", "toml"},
		{"budget", "layers", "--layer", layer, "--emit", "json"},
		model,
		append(append([]string{}, model...), "--format", "json"),
		append(append([]string{}, model...), "--emit", "env"),
		{"audit", src},
		{"audit", "--format", "json", src},
		{"audit", "--format", "sarif", src},
		{"audit", "--format", "toml", src},
		{"defaults"},
		{"defaults", "p-retry"},
		{"formats"},
		{"formats", "--detect", log},
		{"prices"},
		{"prices", "claude-sonnet-4-6"},
		{"completion", "bash"},
		{"completion", "zsh"},
		{"completion", "fish"},
		{"completion", "powershell"},
		{"--version"},
		{"--help"},
		{"help", "report"},
		{"report", "--help"},
		{}, // no arguments: the help
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		cmd := exec.Command(bin, args...)
		cmd.Dir = "."
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+dir, "HOME="+dir)
		cmd.Stdout = full
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code == -1 {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if code != 2 {
			t.Errorf("burnrate %s > /dev/full: exit %d, want 2 (the output was lost); stderr:\n%s", name, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "burnrate: writing the output: no space left on device") {
			t.Errorf("burnrate %s > /dev/full: stderr does not say the output was lost:\n%s", name, stderr.String())
		}
	}
}

// TestClosedPipeStaysQuiet: a reader that went away (`burnrate prices |
// head`, the reader gone before the write) is not a lost output: the
// process ends as before (SIGPIPE) and says nothing about writing.
func TestClosedPipeStaysQuiet(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(burnrate(t), "prices")
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code == 2 || strings.Contains(stderr.String(), "writing the output") {
		t.Errorf("a closed pipe: exit %d, stderr %q; want the quiet end it always had (SIGPIPE)", code, stderr.String())
	}
}
