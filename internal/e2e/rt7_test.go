package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestJournalShowsHostileIDsEscaped (red team R7-7): job IDs, run IDs and
// the alert's reason went into journal.jsonl raw — U+202E, U+200B, a C1
// CSI, DEL — so `tail -f journal.jsonl` let a log drive the terminal.
// Every file burnrate writes for a person to read (the journal, the
// assumptions log beside it, the report) carries them as escapes, and the
// journal's values still decode to the IDs exactly as logged.
func TestJournalShowsHostileIDsEscaped(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "night.jsonl")
	ids := []string{"job\u202eevil\u202c", "job\u200bzw", "job\u009b31m", "job\x7fdel", "job\u2800", "job\U000E0100", "job\U000E0041tag"}
	var b strings.Builder
	for i, id := range ids {
		for k := range 3 {
			line, _ := json.Marshal(map[string]any{"ts": 1773104400 + i*10 + k, "event": "llm_call", "job_id": id, "run_id": "run" + id,
				"model": "claude-sonnet-4-6", "status": 200, "input_tokens": 10000})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	os.WriteFile(log, []byte(b.String()), 0o644)
	journal := filepath.Join(dir, "st", "j.jsonl")
	cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--job-ceiling", "0.05", "--kill-exec", "/bin/true {job_id}",
		"--journal", journal, "--report-out", filepath.Join(dir, "rep.json"), log)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	j, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	killed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(j))
	for sc.Scan() {
		var r struct {
			JobID string `json:"job_id"`
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("journal line is not JSON: %v\n%q", err, sc.Bytes())
		}
		killed[r.JobID] = true
	}
	for _, id := range ids {
		if !killed[id] {
			t.Errorf("no journal record decodes to job %q exactly", id)
		}
	}
	files := map[string][]byte{"journal": j, "headless stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	for _, name := range []string{"rep.json", filepath.Join("st", "assumptions.jsonl")} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			files[name] = b
		}
	}
	for name, out := range files {
		if u := testutil.TerminalUnsafe(string(out)); u != "" {
			t.Errorf("%s carries %q raw", name, u)
		}
	}
	if !bytes.Contains(j, []byte(`job\u202eevil\u202c`)) || !bytes.Contains(j, []byte(`\udb40\udc41`)) {
		t.Errorf("the journal does not show the IDs as escapes:\n%.2000s", j)
	}
}

// TestInvisibleSuffixesAreSevenJobsOnScreen (red team R7-2): "job-003"
// and "job-003" followed by U+E0100, U+1BCA0, U+FFF9, U+1D173, U+2800 or
// U+00A0 are seven jobs, and the Markdown report showed seven rows that
// all read "job-003". Each is now shown with its escape, so the seven
// rows read as seven names, in Markdown and in the JSON a person reads.
func TestInvisibleSuffixesAreSevenJobsOnScreen(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "spoof.jsonl")
	ids := []string{"job-003", "job-003\U000E0100", "job-003\U0001BCA0", "job-003\uFFF9", "job-003\U0001D173", "job-003\u2800", "job-003\u00a0"}
	var b strings.Builder
	for i, id := range ids {
		line, _ := json.Marshal(map[string]any{"ts": 1773104400 + i, "event": "llm_call", "job_id": id, "model": "claude-sonnet-4-6", "status": 200, "input_tokens": 1000 * (i + 1)})
		b.Write(line)
		b.WriteByte('\n')
	}
	os.WriteFile(log, []byte(b.String()), 0o644)
	md, err := exec.Command(bin, "report", log).Output()
	if err != nil && len(md) == 0 {
		t.Fatal(err)
	}
	if u := testutil.TerminalUnsafe(string(md)); u != "" {
		t.Errorf("the Markdown report carries %q raw", u)
	}
	shown := map[string]bool{}
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "| job-003") {
			shown[strings.SplitN(l, "|", 3)[1]] = true
		}
	}
	if len(shown) != len(ids) {
		t.Errorf("%d distinct job cells for %d jobs:\n%s", len(shown), len(ids), md)
	}
	js, err := exec.Command(bin, "report", "--format", "json", log).Output()
	if err != nil && len(js) == 0 {
		t.Fatal(err)
	}
	if u := testutil.TerminalUnsafe(string(js)); u != "" {
		t.Errorf("the JSON report carries %q raw", u)
	}
}
