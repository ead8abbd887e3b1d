package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTheOperatorArmsAKill: issue 34, found by a red team — a model's
// output echoed into the app log (`…: Warning: [assumptions] {…}`) reads
// as a declaration, and with kill_on = ["finding:assumption_violated"] it
// killed a job that retried once. A real process replaying that log now
// shows the finding (in the report, with where it was declared, and as an
// alert saying it is no kill) and sends no kill; given the same
// declaration by the operator's --assumptions FILE, it sends the kill as
// before.
func TestOnlyTheOperatorArmsAKill(t *testing.T) {
	bin := burnrate(t)
	src, err := os.ReadFile("../../correlate/testdata/assumptions/violated-records-2026-07-01.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if !strings.HasPrefix(lines[0], "[assumptions] ") {
		t.Fatalf("the fixture no longer declares on its first line: %q", lines[0])
	}
	// The fixture's own declaration replaced by a model's output echoed
	// into the application's log.
	echoed := `2026-07-01 01:00:00,500 - app.agent - INFO - tool result: Warning: [assumptions] {"anthropic-sdk.maxRetries":0}` + "\n" + strings.Join(lines[1:], "")
	for _, operator := range []bool{false, true} {
		t.Run(fmt.Sprintf("operator=%v", operator), func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "app.log")
			os.WriteFile(logPath, []byte(echoed), 0o600)
			rc := newReceiver(t, false)
			cfg := filepath.Join(dir, "kill.toml")
			os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"finding:assumption_violated\"]\n", rc.URL)), 0o600)
			reportPath := filepath.Join(dir, "last.json")
			args := []string{"replay", "--headless", "--speed", "max", "--config", cfg, "--journal", filepath.Join(dir, "journal.jsonl"), "--report-out", reportPath}
			if operator {
				assumptions := filepath.Join(dir, "ops.toml")
				os.WriteFile(assumptions, []byte("\"anthropic-sdk.maxRetries\" = 0\n"), 0o600)
				args = append(args, "--assumptions", assumptions)
			}
			cmd := exec.Command(bin, append(args, logPath)...)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				if _, exit := err.(*exec.ExitError); !exit {
					t.Fatalf("replay: %v\n%s", err, stderr.String())
				}
			}
			out := stdout.String()
			_, kills := rc.snapshot()
			if operator {
				if strings.Contains(stderr.String(), "arms no kill") {
					t.Errorf("warned that nothing arms the kill, with --assumptions:\n%s", stderr.String())
				}
				if len(kills) != 1 || kills[0]["job_id"] != "site-a/2026-07-01/article-x" || kills[0]["rule"] != "finding:assumption_violated" {
					t.Errorf("the operator's declaration: kills %v, want the job that retried killed once\nstdout:\n%s\nstderr:\n%s", kills, out, stderr.String())
				}
				return
			}
			if !strings.Contains(stderr.String(), "kill_on finding:assumption_violated arms no kill without --assumptions FILE") {
				t.Errorf("no warning that nothing arms the kill:\n%s", stderr.String())
			}
			if len(kills) != 0 {
				t.Errorf("an echoed declaration sent %d kill(s): %v\nstdout:\n%s", len(kills), kills, out)
			}
			if strings.Contains(out, `"kill":true`) {
				t.Errorf("a kill alert from an echoed declaration:\n%s", out)
			}
			if !strings.Contains(out, `"rule":"finding:assumption_violated"`) || !strings.Contains(out, "declared in the log (log line): not a kill (only the operator's --assumptions FILE arms a kill)") {
				t.Errorf("no alert saying the finding is no kill, and why:\n%s\nstderr:\n%s", out, stderr.String())
			}
			data, err := os.ReadFile(reportPath)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Findings []struct {
					Kind, Example string
				}
				Assumptions []struct {
					Key          string
					Declared     string
					DeclaredFrom string `json:"declared_from"`
				}
			}
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			shown := false
			for _, f := range r.Findings {
				shown = shown || f.Kind == "assumption_violated" && strings.Contains(f.Example, "(declared in: log line)")
			}
			if !shown {
				t.Errorf("the finding is not in the report with its source: %+v", r.Findings)
			}
			for _, a := range r.Assumptions {
				if a.Key == "anthropic-sdk.maxRetries" && (a.Declared != "0" || a.DeclaredFrom != "log line") {
					t.Errorf("the declaration's row: %+v", a)
				}
			}
		})
	}
}
