package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// agentsData are the agents' files of issue 35: real sessions where one
// was published (Copilot CLI 1.0.78: WildChildForLife/lantern@0391e0df
// fixtures/copilot-home, text elided; Pi: badlogic/pi-mono@83378aad
// packages/coding-agent/test/fixtures, the first 120 lines, text elided),
// and fixtures written field for field after the producer's source
// (OpenCode: anomalyco/opencode packages/opencode/src/session/
// message-v2.ts and cli/cmd/run.ts; Roo Code: RooCodeInc/Roo-Code
// src/core/task/Task.ts attemptApiRequest and packages/types ClineMessage; Continue: continuedev/continue
// packages/config-yaml/src/schemas/data/tokensGenerated; Qwen Code:
// QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts;
// Amp, closed source: the shapes ryoppippi/ccusage@5816e640 reads,
// rust/crates/ccusage/src/adapter/amp README and parser fixtures).
const agentsData = "../../ingest/decode/testdata/agents"

type agentTotals struct {
	Totals struct {
		Attempts         int64   `json:"attempts"`
		Jobs             int     `json:"jobs"`
		SpendUSD         float64 `json:"spend_usd"`
		InputTokens      int64   `json:"input_tokens"`
		OutputTokens     int64   `json:"output_tokens"`
		CacheReadTokens  int64   `json:"cache_read_tokens"`
		CacheWriteTokens int64   `json:"cache_creation_tokens"`
	} `json:"totals"`
	Jobs []struct {
		ID     string `json:"job_id"`
		Layers []int  `json:"layers"`
	} `json:"jobs"`
}

// TestAgentsOfIssue35: each agent's files read by the binary as a user
// runs it (report --format json DIR): calls (attempts), jobs, tokens and
// spend. Before issue 35's decoders these read as nothing, or as one call
// retried (Continue).
func TestAgentsOfIssue35(t *testing.T) {
	for _, tc := range []struct {
		path                     string
		attempts                 int64
		jobs                     int
		in, out, read, write     int64
		spend                    float64 // the producer's cost where it recorded one, else LiteLLM's prices; 0 unpriced
		jobIDs                   []string
		maxAttemptsPerCallAtMost int
	}{
		// Two real sessions; qwen3:0.6b (local, through Ollama) has no price.
		{path: "copilot/session-state", attempts: 4, jobs: 2, in: 8200, out: 1409, spend: 0,
			jobIDs: []string{"copilot:049410b4-c1df-44ee-87a5-caa1c349091e", "copilot:f27af309-ccf3-41da-8f07-b3dcbffd4c90"}},
		// Pi's own cost.total, summed: $1.332697 + $3.785133. The
		// branched session's entries are copies of its source's
		// (branchedFrom), billed to that session.
		{path: "pi/sessions", attempts: 106, jobs: 2, in: 3023, out: 53069, read: 5868223, write: 276855, spend: 5.11783045,
			jobIDs: []string{"pi:d703a1a9-1b7b-4fb1-b512-c9738b1fe617", "pi:d97339c6-6c10-4827-846b-9ff1d9c3dc37"}},
		// Three answered calls and one overloaded request retried; the
		// subagent's session folded into its parent; OpenRouter's input
		// of a version before the cache fix (5,000 with 4,000 cached)
		// priced at gpt-4.1's rates ($0.0056) beside OpenCode's own costs.
		{path: "opencode/storage", attempts: 4, jobs: 1, in: 1812, out: 920, read: 23200, write: 2400, spend: 0.02422,
			jobIDs: []string{"opencode:ses_5a1f3c2d7ffeYq4mK0aT9xWb2R"}},
		// Two steps and a failed request, OpenCode's costs.
		{path: "opencode/run-format-json.jsonl", attempts: 3, jobs: 1, in: 1232, out: 416, read: 37747, spend: 0.0174},
		// Seven lines, seven calls: two alike in a row are two calls.
		{path: "continue/dev_data", attempts: 7, jobs: 3, in: 7410, out: 1262, spend: 0.032471, maxAttemptsPerCallAtMost: 1},
		// Roo Code: a request retried twice on its own (the countdowns
		// that end "Retrying now..."), a rate-limit wait and a cancelled
		// countdown that sent nothing; Roo's own costs.
		{path: "roo/tasks", attempts: 4, jobs: 1, in: 8, out: 630, read: 9800, write: 9800, spend: 0.049206},
		// Amp: a thread of the current schema (a message's usage each,
		// one of no count) and one of the older usageLedger, its cache
		// from the message the event produced; LiteLLM's prices.
		{path: "amp/threads", attempts: 3, jobs: 2, in: 1215, out: 520, read: 24172, write: 986, spend: 0.0092847},
		// A /branch copy billed once, to the session that made the call.
		{path: "qwen/projects", attempts: 3, jobs: 1, in: 3730, out: 414, read: 23800, spend: 0.0261,
			jobIDs: []string{"qwen:9d4b2a10-6f3e-4c55-8b21-0a7e5d3c2b19"}},
	} {
		t.Run(strings.ReplaceAll(tc.path, "/", "_"), func(t *testing.T) {
			out, err := run(t, "report", "--format", "json", filepath.Join(agentsData, tc.path))
			if err != nil && err != errCritical {
				t.Fatal(err)
			}
			var r agentTotals
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			g := r.Totals
			if g.Attempts != tc.attempts || g.Jobs != tc.jobs || g.InputTokens != tc.in || g.OutputTokens != tc.out ||
				g.CacheReadTokens != tc.read || g.CacheWriteTokens != tc.write {
				t.Errorf("attempts %d jobs %d tokens %d/%d/%d/%d, want %d %d %d/%d/%d/%d", g.Attempts, g.Jobs,
					g.InputTokens, g.OutputTokens, g.CacheReadTokens, g.CacheWriteTokens,
					tc.attempts, tc.jobs, tc.in, tc.out, tc.read, tc.write)
			}
			if math.Abs(g.SpendUSD-tc.spend) > 0.005*tc.spend+1e-9 {
				t.Errorf("spend $%.8f, want $%.8f", g.SpendUSD, tc.spend)
			}
			var ids []string
			for _, j := range r.Jobs {
				ids = append(ids, j.ID)
				if tc.maxAttemptsPerCallAtMost > 0 && len(j.Layers) > 0 && j.Layers[0] > tc.maxAttemptsPerCallAtMost {
					t.Errorf("job %s: %v attempts per call: each line is its own call", j.ID, j.Layers)
				}
			}
			for _, want := range tc.jobIDs {
				found := false
				for _, id := range ids {
					found = found || id == want
				}
				if !found {
					t.Errorf("jobs %v, want %s among them", ids, want)
				}
			}
		})
	}
}

// TestOpenCodeLive: an unattended opencode run piped into burnrate
// opencode is watched live — its steps are calls of its session's job,
// and a job ceiling fires on OpenCode's own cost — and a terminal on stdin
// (nothing piped, no file) is refused with how to pipe it.
func TestOpenCodeLive(t *testing.T) {
	in, err := os.Open(filepath.Join(agentsData, "opencode/run-format-json.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(burnrate(t), "opencode", "--headless", "--job-ceiling", "0.01")
	cmd.Stdin = in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitCritical {
			t.Fatalf("%v: %s", err, errb.String())
		}
	}
	if !strings.Contains(out.String(), `"rule":"job_ceiling"`) || !strings.Contains(out.String(), `"job_id":"opencode:ses_5a20aa01effeRunJs0nStr3am1"`) {
		t.Errorf("no job ceiling alert for the piped session:\n%s\n%s", out.String(), errb.String())
	}
	_, err = run(t, "opencode", "--headless")
	if err == nil || !strings.Contains(err.Error(), "pipe opencode run --format json") {
		t.Errorf("nothing piped: %v, want it refused with how to pipe", err)
	}
}

// TestOpenCodeKillRecipe: docs/agents.md's recipe — the agent started
// with its PID written by the shell, burnrate opencode following its
// events with --kill-exec 'pkill -TERM -F opencode.pid' — stops the
// agent's own process when its session passes the job ceiling (a sleep
// stands for opencode: the kill names the PID file, nothing from the log).
func TestOpenCodeKillRecipe(t *testing.T) {
	if _, err := exec.LookPath("pkill"); err != nil {
		t.Skip("no pkill here")
	}
	dir := t.TempDir()
	events, err := os.ReadFile(filepath.Join(agentsData, "opencode/run-format-json.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	runFile := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(runFile, events, 0o644); err != nil {
		t.Fatal(err)
	}
	agent := exec.Command("sleep", "300")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- agent.Wait() }()
	defer agent.Process.Kill()
	pidFile := filepath.Join(dir, "opencode.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(agent.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := exec.Command(burnrate(t), "opencode", "--headless", "--job-ceiling", "0.01",
		"--kill-exec", "pkill -TERM -F "+pidFile, "--journal", filepath.Join(dir, "journal.jsonl"), runFile)
	var out testutil.LockedBuffer
	w.Stdout, w.Stderr = &out, &out
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Process.Signal(os.Interrupt); w.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the agent was not stopped:\n%s", out.String())
	}
}

// TestAgentHomeFlags: report --opencode --copilot --pi --qwen read each
// agent's home from its environment variable (the same files as above:
// 4 + 4 + 106 + 3 attempts), and a flag whose home is missing says where
// it looked.
func TestAgentHomeFlags(t *testing.T) {
	abs, err := filepath.Abs(agentsData)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(burnrate(t), "report", "--format", "json", "--opencode", "--copilot", "--pi", "--qwen")
	cmd.Env = append(os.Environ(), "OPENCODE_DATA_DIR="+filepath.Join(abs, "opencode"), "COPILOT_HOME="+filepath.Join(abs, "copilot"),
		"PI_CODING_AGENT_DIR="+filepath.Join(abs, "pi"), "QWEN_DATA_DIR="+filepath.Join(abs, "qwen"))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitCritical {
			t.Fatal(err)
		}
	}
	var r agentTotals
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if r.Totals.Attempts != 117 || r.Totals.Jobs != 6 {
		t.Errorf("attempts %d jobs %d, want 117 and 6", r.Totals.Attempts, r.Totals.Jobs)
	}
	cmd = exec.Command(burnrate(t), "report", "--pi")
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+t.TempDir())
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "PI_CODING_AGENT_DIR") {
		t.Errorf("a missing Pi home: %v %s", err, msg)
	}
}

// TestPiFollowedLive: burnrate watch on Pi's sessions directory follows a
// session as Pi appends to it — the session started before burnrate was,
// its new response (Pi's own cost $60) takes its job over the ceiling.
func TestPiFollowedLive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "--home-me-app--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "2026-03-01T10-00-00-000Z_6c1f2e3d-4b5a-4978-8695-a4b3c2d1e0f9.jsonl")
	head := `{"type":"session","version":3,"id":"6c1f2e3d-4b5a-4978-8695-a4b3c2d1e0f9","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/home/me/app"}` + "\n"
	if err := os.WriteFile(file, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	w := exec.Command(burnrate(t), "watch", "--headless", "--job-ceiling", "50", filepath.Dir(dir))
	var out testutil.LockedBuffer
	w.Stdout, w.Stderr = &out, &out
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Process.Signal(os.Interrupt); w.Wait() }()
	time.Sleep(500 * time.Millisecond)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-03-01T10:00:09.000Z","message":{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-5","usage":{"input":3,"output":412,"cacheRead":21080,"cacheWrite":1840,"totalTokens":23335,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":60}},"stopReason":"stop","timestamp":1772359209000}}` + "\n")
	f.Close()
	testutil.WaitFor(t, "the job ceiling alert of the live Pi session", 20*time.Second, func() bool {
		s := out.String()
		return strings.Contains(s, `"rule":"job_ceiling"`) && strings.Contains(s, `"job_id":"pi:6c1f2e3d-4b5a-4978-8695-a4b3c2d1e0f9"`)
	})
}

// TestGenericReaderInTheReport: a log in no known format whose records
// hold a usage object beside a model is read — each record one call, the
// producer's cost kept — and the report's sources say the generic reader
// read them and at which JSON path; its other lines (no model, no count)
// are no calls.
func TestGenericReaderInTheReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent-steps.jsonl")
	log := `{"step":1,"at":"2026-03-01T10:00:00Z","result":{"model":"gpt-4.1-mini","usage":{"prompt_tokens":812,"completion_tokens":64,"prompt_tokens_details":{"cached_tokens":512}},"cost":0.000241}}
{"step":2,"at":"2026-03-01T10:00:05Z","result":{"model":"gpt-4.1-mini","usage":{"prompt_tokens":900,"completion_tokens":80}}}
{"step":3,"at":"2026-03-01T10:00:06Z","note":"no model here","stats":{"usage":{"calls":5}}}
{"step":4,"at":"2026-03-01T10:00:07Z","result":{"model":"gpt-4.1-mini","usage":{"requests":1}}}
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "report", "--format", "json", path)
	if err != nil && err != errCritical {
		t.Fatal(err)
	}
	var r struct {
		agentTotals
		Source struct {
			Hints []string `json:"hints"`
		} `json:"source"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if g := r.Totals; g.Attempts != 2 || g.InputTokens != 300+900 || g.CacheReadTokens != 512 || g.OutputTokens != 144 {
		t.Errorf("attempts %d tokens %d/%d/%d, want 2 calls, 1200 in, 512 cache read, 144 out", g.Attempts, g.InputTokens, g.CacheReadTokens, g.OutputTokens)
	}
	if len(r.Source.Hints) != 1 || !strings.Contains(r.Source.Hints[0], "2 call(s)") || !strings.Contains(r.Source.Hints[0], "$.result.usage") {
		t.Errorf("hints %q: want the generic reader's, with its count and path", r.Source.Hints)
	}
}

// TestOpenCodeDatabase: OpenCode 1.2 and later keep their sessions in
// opencode.db (SQLite, WAL) beside — or instead of — the storage files.
// report --opencode reads both from OPENCODE_DATA_DIR: the storage
// fixture's calls once whether they are in the files, the database or
// both (a message billed once by its ID), and a message only in the
// database added. The database is built here by the SQLite driver with
// OpenCode's tables (testutil.OpenCodeSchema).
func TestOpenCodeDatabase(t *testing.T) {
	storage, err := filepath.Abs(filepath.Join(agentsData, "opencode/storage"))
	if err != nil {
		t.Fatal(err)
	}
	report := func(dir string, args ...string) agentTotals {
		t.Helper()
		cmd := exec.Command(burnrate(t), append([]string{"report", "--format", "json"}, args...)...)
		cmd.Env = append(os.Environ(), "OPENCODE_DATA_DIR="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitCritical {
				t.Fatalf("%v: %s", err, stderr.String())
			}
		}
		var r agentTotals
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return r
	}
	filesOnly := report(filepath.Dir(storage), "--opencode")
	if filesOnly.Totals.Attempts != 4 {
		t.Fatalf("storage files: %d attempts, want 4", filesOnly.Totals.Attempts)
	}

	// A new install: the database alone.
	dbOnly := t.TempDir()
	db := testutil.OpenCodeDB(t, filepath.Join(dbOnly, "opencode.db"))
	testutil.OpenCodeImport(t, db, storage)
	// Both: the storage files (a link to the fixture) and a database
	// holding the same messages and one more.
	both := t.TempDir()
	if err := os.Symlink(storage, filepath.Join(both, "storage")); err != nil {
		t.Fatal(err)
	}
	db2 := testutil.OpenCodeDB(t, filepath.Join(both, "opencode.db"))
	testutil.OpenCodeImport(t, db2, storage)
	more := `{"role":"assistant","modelID":"claude-sonnet-4-5","providerID":"anthropic","time":{"created":1767225700000,"completed":1767225701000},"tokens":{"input":1000,"output":100,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.0045}`
	if err := testutil.OpenCodeMessage(db2, "msg_a5e0c3d90009Zz9", "ses_5a1f3c2d7ffeYq4mK0aT9xWb2R", 1767225700000, more); err != nil {
		t.Fatal(err)
	}

	g, f := report(dbOnly, "--opencode").Totals, filesOnly.Totals
	if g.Attempts != f.Attempts || g.Jobs != f.Jobs || g.InputTokens != f.InputTokens || g.OutputTokens != f.OutputTokens ||
		g.CacheReadTokens != f.CacheReadTokens || g.CacheWriteTokens != f.CacheWriteTokens || math.Abs(g.SpendUSD-f.SpendUSD) > 1e-9 {
		t.Errorf("database alone: %+v, want the storage files' %+v", g, f)
	}
	b := report(both, "--opencode").Totals
	if b.Attempts != f.Attempts+1 || b.Jobs != f.Jobs || b.InputTokens != f.InputTokens+1000 || b.OutputTokens != f.OutputTokens+100 ||
		b.CacheReadTokens != f.CacheReadTokens || math.Abs(b.SpendUSD-(f.SpendUSD+0.0045)) > 0.0001 {
		t.Errorf("files and database: %+v, want the files' %+v billed once and one call of 1000/100 more", b, f)
	}
	// The database named on the command line is read as well.
	if n := report(dbOnly, filepath.Join(dbOnly, "opencode.db")).Totals.Attempts; n != f.Attempts {
		t.Errorf("opencode.db as an argument: %d attempts, want %d", n, f.Attempts)
	}
}
