package e2e

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Issue 39, evidence that never guesses: anthropic-python's retry lines
// under asyncio name no request and no job. A response that fits an
// earlier job's announced retry may as well be a later job's first
// request: such a link is made by timing alone, and must never convict a
// job (assumption_violated, critical, exit 1) nor arm a kill.

// pyLine is one line of a simulated asyncio batch, at its time.
type pyLine struct {
	at   time.Duration
	seq  int
	text string
}

// asyncioBatch writes the log of jobs started every `every`, each making
// `calls` calls through anthropic-python's client (max_retries 2: up to
// 3 attempts; its backoff, 0.5 s doubling to 8 s less up to 25% jitter),
// all in flight at once on one event loop, in the lines the SDK writes
// (_base_client.py: log.info("Retrying request to %s in %f seconds"),
// httpx's "HTTP Request: %s %s \"%s %d %s\"") and the app's JSON lines.
// It returns the calls each job made on the wire and the most attempts
// any call took (never above 3).
func asyncioBatch(t *testing.T, path string, seed int64, jobs int, every time.Duration, calls int) (wire map[string]int, most int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	base := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)
	var lines []pyLine
	add := func(at time.Duration, text string) {
		lines = append(lines, pyLine{at: at, seq: len(lines), text: text})
	}
	stamp := func(at time.Duration) string {
		return base.Add(at).Format("2006-01-02 15:04:05,000")
	}
	wire = map[string]int{}
	for j := range jobs {
		job := fmt.Sprintf("doc-%03d", j)
		at := time.Duration(j) * every
		add(at, fmt.Sprintf(`{"ts":%q,"job_id":%q,"event":"job_started"}`, base.Add(at).Format(time.RFC3339Nano), job))
		ok := true
		for range calls {
			at += 50 * time.Millisecond
			attempt := 0
			for {
				attempt++
				wire[job]++
				most = max(most, attempt)
				status, reason := 200, "OK"
				latency := time.Duration(5+rng.Intn(80)) * time.Second // a long completion
				if rng.Float64() < 0.35 {
					status, reason = 529, "Overloaded"
					latency = time.Duration(100+rng.Intn(900)) * time.Millisecond
				}
				at += latency
				add(at, fmt.Sprintf(`%s - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 %d %s"`, stamp(at), status, reason))
				if status == 200 {
					break
				}
				if attempt == 3 {
					ok = false
					break
				}
				wait := min(0.5*float64(int(1)<<(attempt-1)), 8) * (1 - 0.25*rng.Float64())
				at += time.Millisecond
				add(at, fmt.Sprintf(`%s - anthropic._base_client - INFO - Retrying request to /v1/messages in %f seconds`, stamp(at), wait))
				at += time.Duration(wait * float64(time.Second))
			}
			if !ok {
				break
			}
		}
		at += 10 * time.Millisecond
		event := "job_succeeded"
		if !ok {
			event = "job_failed"
		}
		add(at, fmt.Sprintf(`{"ts":%q,"job_id":%q,"event":%q}`, base.Add(at).Format(time.RFC3339Nano), job, event))
	}
	sort.Slice(lines, func(a, b int) bool {
		if lines[a].at != lines[b].at {
			return lines[a].at < lines[b].at
		}
		return lines[a].seq < lines[b].seq
	})
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return wire, most
}

// TestTimingLinksConvictNoJob: 200 jobs, one every 50 s, each with 3
// calls of slow 200s and 529s, every call within the declared
// anthropic-sdk.maxRetries 2 (the operator's file). Read from the SDK's
// lines alone (no request IDs), no job is found to break it: no
// assumption_violated, exit 0. The links timing made are counted.
func TestTimingLinksConvictNoJob(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("BURNRATE_KEEP_LOGS"); d != "" {
		dir = d // to read them with another build
	}
	seeds := int64(3)
	if testing.Short() {
		seeds = 1
	}
	if os.Getenv("BURNRATE_SEEDS") == "20" {
		seeds = 20 // the target: 0 false findings across 20 seeds
	}
	for seed := int64(1); seed <= seeds; seed++ {
		log := filepath.Join(dir, fmt.Sprintf("asyncio-%d.log", seed))
		wire, most := asyncioBatch(t, log, seed, 200, 50*time.Second, 3)
		if most > 3 {
			t.Fatalf("the simulation broke its own max_retries: %d", most)
		}
		assumptions := filepath.Join(dir, "operator.assumptions.toml")
		os.WriteFile(assumptions, []byte("[anthropic-sdk]\nmaxRetries = 2\n"), 0o600)
		r, err := declaredReport(t, "--assumptions", assumptions, log)
		if err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if f := finding(r, "assumption_violated"); f != nil {
			t.Errorf("seed %d: assumption_violated on a night within the declaration: %d jobs, e.g. %s", seed, len(f.Jobs), f.Example)
		}
		total, calls := 0, 0
		for _, n := range wire {
			total += n
		}
		for _, j := range r.Jobs {
			calls += int(j.Attempts)
		}
		if calls != total {
			t.Errorf("seed %d: %d calls read, %d on the wire", seed, calls, total)
		}
		// The links timing made are counted, and their jobs' counts say so.
		if r.Totals.TimingLinks == 0 || r.Totals.AmbiguousJobs == 0 {
			t.Errorf("seed %d: %d timing links in %d jobs: jobs in flight link by timing alone", seed, r.Totals.TimingLinks, r.Totals.AmbiguousJobs)
		}
		for _, j := range r.Jobs {
			if j.Count == "" {
				t.Errorf("seed %d: %s has no count kind", seed, j.JobID)
				break
			}
		}
		// Nor is a job found above a declared stack on them: an
		// operation timing stitched together is no undeclared layer.
		stack := filepath.Join(dir, "stack.toml")
		os.WriteFile(stack, []byte("[[layer]]\nname = \"anthropic-sdk\"\nattempts = 3\n"), 0o600)
		r, err = declaredReport(t, "--stack", stack, log)
		if f := finding(r, "undeclared_retry_layer"); f != nil || err != nil {
			t.Errorf("seed %d: --stack of 3 attempts: %v, %+v", seed, err, f)
		}
	}
}

// redTeamTwoJobs: doc-A's first 529 and its retry announced; doc-B starts
// and its first 529 arrives while doc-A's retry (a slow 200) is still
// pending. Read by timing alone, doc-B's 529 was doc-A's retry: doc-A 6
// calls, doc-B 0, a critical assumption_violated and a kill of doc-A.
const redTeamTwoJobs = `{"ts":"2026-03-10T02:00:01.000Z","job_id":"doc-A","event":"job_started"}
2026-03-10 02:00:01,100 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 Overloaded"
2026-03-10 02:00:01,101 - anthropic._base_client - INFO - Retrying request to /v1/messages in 0.800000 seconds
{"ts":"2026-03-10T02:00:02.000Z","job_id":"doc-B","event":"job_started"}
2026-03-10 02:00:02,100 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 Overloaded"
2026-03-10 02:00:02,101 - anthropic._base_client - INFO - Retrying request to /v1/messages in 0.700000 seconds
2026-03-10 02:00:02,900 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 Overloaded"
2026-03-10 02:00:02,901 - anthropic._base_client - INFO - Retrying request to /v1/messages in 1.500000 seconds
2026-03-10 02:00:04,500 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"
{"ts":"2026-03-10T02:00:04.600Z","job_id":"doc-B","event":"job_succeeded"}
2026-03-10 02:00:06,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"
{"ts":"2026-03-10T02:00:06.100Z","job_id":"doc-A","event":"job_succeeded"}
`

// TestTimingLinkKillsNoInnocentJob: the red team's two jobs, and the
// 200-job night, replayed live with kill_on finding:assumption_violated
// and the operator's anthropic-sdk.maxRetries 2: no kill, and the report
// gives doc-A its 2 calls and doc-B its 3, with no critical finding.
func TestTimingLinkKillsNoInnocentJob(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	two := filepath.Join(dir, "two-jobs.log")
	if err := os.WriteFile(two, []byte(redTeamTwoJobs), 0o600); err != nil {
		t.Fatal(err)
	}
	night := filepath.Join(dir, "night.log")
	asyncioBatch(t, night, 1, 200, 50*time.Second, 3)
	assumptions := filepath.Join(dir, "operator.assumptions.toml")
	os.WriteFile(assumptions, []byte("[anthropic-sdk]\nmaxRetries = 2\n"), 0o600)

	r, err := declaredReport(t, "--assumptions", assumptions, two)
	if err != nil || r.HasCritical() {
		t.Errorf("two jobs: %v, findings %+v", err, r.Findings)
	}
	got := map[string]int32{}
	for _, j := range r.Jobs {
		got[j.JobID] = j.Attempts
	}
	if got["doc-A"] != 2 || got["doc-B"] != 3 {
		t.Errorf("calls per job %v, the wire had doc-A 2, doc-B 3", got)
	}

	for _, log := range []string{two, night} {
		rc := newReceiver(t, false)
		cfg := filepath.Join(dir, "kill.toml")
		os.WriteFile(cfg, []byte(fmt.Sprintf("[actions]\nkill_webhook = %q\nkill_on = [\"finding:assumption_violated\"]\n", rc.URL)), 0o600)
		cmd := exec.Command(bin, "replay", "--headless", "--speed", "max", "--config", cfg, "--journal", filepath.Join(dir, filepath.Base(log)+".journal"), "--assumptions", assumptions, log)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if _, exit := err.(*exec.ExitError); !exit {
				t.Fatalf("replay: %v\n%s", err, stderr.String())
			}
		}
		if _, kills := rc.snapshot(); len(kills) != 0 {
			t.Errorf("%s: %d kills of jobs that kept within the declaration: %v", filepath.Base(log), len(kills), kills)
		}
	}
}
