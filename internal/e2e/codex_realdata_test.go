//go:build realdata

package e2e

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCodexFollowsNewSessions: issue 25 — `burnrate codex` is `burnrate
// claude` for Codex CLI: it finds ${CODEX_HOME}/sessions, follows the
// rollouts there, and picks up a session that starts after it did, in a
// day directory that did not exist yet. Real rollouts, copied in as Codex
// writes them; spend equals the independent count.
func TestCodexFollowsNewSessions(t *testing.T) {
	bin := burnrate(t)
	home := t.TempDir()
	src := "../../../shared/realdata/round2/codex/localpush-2026-02-23/"
	first, second := "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl", "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
	copyInto := func(day, name string) {
		b, err := os.ReadFile(src + name)
		if err != nil {
			t.Fatalf("%v (../shared must sit beside the repository)", err)
		}
		d := filepath.Join(home, "sessions", "2026", "02", day)
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyInto("23", first)
	report := filepath.Join(home, "rep.json")
	cmd := exec.Command(bin, "codex", "--headless", "--poll-interval", "50ms", "--journal", filepath.Join(home, "j.jsonl"), "--report-out", report)
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	copyInto("24", second) // a new day's directory, after the start
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	var rep struct {
		Totals struct {
			Attempts int64   `json:"attempts"`
			Jobs     int     `json:"jobs"`
			SpendUSD float64 `json:"spend_usd"`
		}
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("no report: %v\n%s", err, stderr.String())
	}
	// 28 + 6 calls, $0.667549 + $0.161689 (SOURCES.md).
	if rep.Totals.Jobs != 2 || rep.Totals.Attempts != 34 || math.Abs(rep.Totals.SpendUSD-0.829238) > 2e-6 {
		t.Errorf("jobs %d calls %d spend $%.6f, want 2 sessions, 34 calls, $0.829238\n%s", rep.Totals.Jobs, rep.Totals.Attempts, rep.Totals.SpendUSD, stderr.String())
	}
}

// TestFormatsDetectNamesEveryAgent: issue 25 — `formats --detect` names
// each agent's files: a Codex rollout, claude -p stream output, a Gemini
// session and its prompt log (once taken for a Claude Code transcript).
func TestFormatsDetectNamesEveryAgent(t *testing.T) {
	r := "../../../shared/realdata/round2/"
	for path, want := range map[string]string{
		r + "codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": "codex",
		r + "claude-headless/vecsum-2026-01-14-12-47-23-313_req_fix_05_logging.stream.jsonl":       "claude-code",
		r + "claude/codemie-v2.0.76/session-624a4a58.jsonl":                                        "claude-code",
		r + "gemini/session-2025-12-01T21-45-5b959dae.json":                                        "gemini-cli, a JSON document",
		r + "gemini/logs.json": "gemini-cli, a JSON document",
	} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%v (../shared must sit beside the repository)", err)
		}
		out, err := run(t, "formats", "--detect", path)
		if err != nil || !bytes.Contains([]byte(out), []byte(path+": "+want+" ")) && !bytes.Contains([]byte(out), []byte(path+": "+want+" (")) {
			t.Errorf("%s: %v\n%s", path, err, out)
		}
	}
}

// TestLinkedAgentRootsAndGeminiChats: red team of issue 25 — a
// ~/.codex/sessions or ~/.claude/projects that is a symbolic link read
// nothing ("no *.jsonl files in it"), and the README's
// `report ~/.gemini/tmp/*/chats/` failed: chats are .json documents.
// Watching a Gemini chat, which Gemini rewrites whole, is refused.
func TestLinkedAgentRootsAndGeminiChats(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data", "2026", "02", "23")
	os.MkdirAll(data, 0o755)
	name := "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
	b, err := os.ReadFile("../../../shared/realdata/round2/codex/localpush-2026-02-23/" + name)
	if err != nil {
		t.Fatalf("%v (../shared must sit beside the repository)", err)
	}
	os.WriteFile(filepath.Join(data, name), b, 0o644)
	os.MkdirAll(filepath.Join(home, "codex"), 0o755)
	os.Symlink(filepath.Join(home, "data"), filepath.Join(home, "codex", "sessions"))
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	out, err := run(t, "report", "--codex", "--format", "json")
	if err != nil || !bytes.Contains([]byte(out), []byte(`"attempts": 1,`)) {
		t.Errorf("a linked sessions directory: %v\n%.400s", err, out)
	}

	chats := filepath.Join(home, "gemini", "tmp", "9f2c", "chats")
	os.MkdirAll(chats, 0o755)
	g, err := os.ReadFile("../../../shared/realdata/round2/gemini/session-2025-12-01T21-45-5b959dae.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(chats, "session-2025-12-01T21-45-5b959dae.json"), g, 0o644)
	out, err = run(t, "report", "--format", "json", filepath.Join(home, "gemini", "tmp"))
	if err != nil || !bytes.Contains([]byte(out), []byte(`"attempts": 11,`)) {
		t.Errorf("a Gemini tmp directory: %v\n%.400s", err, out)
	}
	if _, err := run(t, "watch", "--headless", "--journal", filepath.Join(home, "j.jsonl"), filepath.Join(chats, "session-2025-12-01T21-45-5b959dae.json")); err == nil {
		t.Error("watching a Gemini chat was not refused")
	}
}
