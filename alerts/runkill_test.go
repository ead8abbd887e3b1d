package alerts

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunKillExecNamesTheRun: issue 23 — a run-wide kill with --kill-exec
// … {job_id} was refused (a run has no job) and there was no way to give
// a run-level command. run_kill_exec runs for a run-scope kill with the
// run ID and spend substituted; a job kill still takes kill_exec.
func TestRunKillExecNamesTheRun(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	runT, err := ParseExecNamed("--run-kill-exec", `sh -c 'echo "run $0 $1 of $2" >> `+ran+`' {run_id} {spend_usd} {ceiling_usd}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	jobT, err := ParseExec(`sh -c 'echo "job $0" >> `+ran+`' {job_id}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var log resultLog
	d := NewDispatcher(Hooks{KillExec: jobT, RunKillExec: runT}, nil, j, log.add)
	d.Start(context.Background())
	d.Kill(Alert{Rule: RuleRunCeiling, Scope: "run", RunID: "night-2026-03-10", SpendUSD: 12.5, CeilingUSD: 12, At: 1, Kill: true})
	d.Kill(Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "night-2026-03-10", JobID: "job-7", SpendUSD: 0.6, CeilingUSD: 0.5, At: 2, Kill: true})
	d.Wait()
	d.Shutdown(context.Background())
	b, _ := os.ReadFile(ran)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	if want := []string{"job job-7", "run night-2026-03-10 12.5 of 12"}; !slices.Equal(lines, want) {
		t.Fatalf("commands ran %q, want %q", lines, want)
	}
	acked := 0
	for _, st := range log.states() {
		if st == StateAcknowledged {
			acked++
		}
	}
	if acked != 2 {
		t.Errorf("results %v: want both acknowledged", log.states())
	}
	// A run ID that is not a plain token is refused, never run.
	if _, err := runT.Argv(Alert{Scope: "run", RunID: "--all"}); err == nil {
		t.Error("a run ID starting with - must be refused")
	}
	if _, err := ParseExecNamed("--run-kill-exec", "stop {runid}", time.Second); err == nil || !strings.Contains(err.Error(), "--run-kill-exec") {
		t.Errorf("an unknown placeholder must be named with its setting: %v", err)
	}
}
