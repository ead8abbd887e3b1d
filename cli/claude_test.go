package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// claudeProjects writes a projects directory of Claude Code transcripts in
// the real shape: one file per session, each response written once per
// content block, costs set by the output tokens of claude-opus-4-6 ($25
// per million). It returns the sessions over $5.
func claudeProjects(t *testing.T, dir string, costs map[string]float64) []string {
	t.Helper()
	var over []string
	for id, usd := range costs {
		proj := filepath.Join(dir, "-home-dev-"+id[:4])
		os.MkdirAll(proj, 0o755)
		var b strings.Builder
		tokens := int64(usd / 25 * 1e6)
		for i := 0; tokens > 0; i++ {
			n := min(tokens, 30_000)
			tokens -= n
			for block := range 2 { // text, then tool_use: one response
				rec := map[string]any{"type": "assistant", "sessionId": id, "cwd": "/home/dev/" + id[:4], "uuid": fmt.Sprintf("%s-%d-%d", id, i, block),
					"timestamp": time.Date(2026, 3, 10, 1, i, block, 0, time.UTC).Format(time.RFC3339Nano), "requestId": fmt.Sprintf("req_%s_%d", id, i),
					"message": map[string]any{"id": fmt.Sprintf("msg_%s_%d", id, i), "model": "claude-opus-4-6",
						"usage": map[string]any{"input_tokens": 0, "output_tokens": n, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}
				line, _ := json.Marshal(rec)
				b.Write(line)
				b.WriteByte('\n')
			}
		}
		writeFile(t, filepath.Join(proj, id+".jsonl"), b.String())
		if usd > 5 {
			over = append(over, id)
		}
	}
	slices.Sort(over)
	return over
}

// TestReplayKillsClaudeSessionsOverTheirCeiling: replay --headless
// --job-ceiling 5 --kill-exec on a projects directory kills exactly the
// sessions over $5, once each.
func TestReplayKillsClaudeSessionsOverTheirCeiling(t *testing.T) {
	dir := t.TempDir()
	over := claudeProjects(t, dir, map[string]float64{
		"11111111-aaaa-4aaa-8aaa-000000000001": 1, "22222222-bbbb-4bbb-8bbb-000000000002": 3.2,
		"33333333-cccc-4ccc-8ccc-000000000003": 6, "44444444-dddd-4ddd-8ddd-000000000004": 4.5,
		"55555555-eeee-4eee-8eee-000000000005": 12.4, "66666666-ffff-4fff-8fff-000000000006": 7.75,
	})
	killed := filepath.Join(t.TempDir(), "killed")
	hook := filepath.Join(t.TempDir(), "kill.sh")
	writeFile(t, hook, "#!/bin/sh\necho \"$1\" >> "+killed+"\n")
	os.Chmod(hook, 0o755)
	if _, err := run(t, "replay", "--headless", "--speed", "max", "--job-ceiling", "5", "--kill-exec", hook+" {job_id}",
		"--journal", filepath.Join(t.TempDir(), "j.jsonl"), dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(killed)
	got := strings.Fields(string(b))
	slices.Sort(got)
	if !slices.Equal(got, over) {
		t.Errorf("killed %v, want exactly %v once each", got, over)
	}
}

// TestClaudeKillSessionScript: the contrib kill recipe stops the claude
// process of one session, and only it.
func TestClaudeKillSessionScript(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("the recipe reads /proc")
	}
	target, other := "0b6f1c52-7c1e-4c55-9a53-2f9e6f2d1a01", "9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f"
	fake := func(id string) *exec.Cmd {
		// A process that looks like a headless Claude Code run of id.
		c := exec.Command("bash", "-c", `exec -a "claude -p --session-id `+id+`" sleep 60`)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	victim, bystander := fake(target), fake(other)
	time.Sleep(100 * time.Millisecond)
	out, err := exec.Command("../contrib/claude-kill-session", target).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	done := make(chan error, 1)
	go func() { done <- victim.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("the session's process is still running: %s", out)
	}
	if err := bystander.Process.Signal(syscallZero()); err != nil {
		t.Errorf("another session's process was stopped: %v", err)
	}
	for _, bad := range []string{"--all", "-9", "../x", "a;b", ""} {
		if err := exec.Command("../contrib/claude-kill-session", bad).Run(); err == nil {
			t.Errorf("the recipe accepted %q", bad)
		}
	}
}

func syscallZero() os.Signal { return syscall.Signal(0) }
