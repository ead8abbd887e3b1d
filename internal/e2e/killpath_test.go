package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// receiver is a kill webhook on loopback that records every request's
// Idempotency-Key and body.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	keys  map[string]int // Idempotency-Key → requests
	kills []map[string]any
	hang  chan struct{} // non-nil: hold every request until closed
}

func newReceiver(t *testing.T, hang bool) *receiver {
	rc := &receiver{keys: map[string]int{}}
	if hang {
		rc.hang = make(chan struct{})
	}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.keys[r.Header.Get("Idempotency-Key")]++
		var m map[string]any
		json.Unmarshal(body, &m)
		rc.kills = append(rc.kills, m)
		rc.mu.Unlock()
		if rc.hang != nil {
			select {
			case <-rc.hang:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(func() {
		if rc.hang != nil {
			close(rc.hang)
		}
		rc.Close()
	})
	return rc
}

func (rc *receiver) snapshot() (map[string]int, []map[string]any) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	keys := map[string]int{}
	for k, v := range rc.keys {
		keys[k] = v
	}
	return keys, append([]map[string]any(nil), rc.kills...)
}

// night writes a log of jobs calls of $0.50 each, one call per job, on day
// (YYYY-MM-DD), under one job type.
func night(t *testing.T, path, day string, jobs int) {
	t.Helper()
	var b strings.Builder
	for i := range jobs {
		fmt.Fprintf(&b, `{"ts":"%sT01:%02d:%02dZ","event":"llm_call","job_id":"job-%03d","job_type":"enrich","model":"claude-sonnet-4-6","status":200,"cost_usd":0.5}`+"\n", day, i/60, i%60, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSIGTERMThenRestartDeliversEveryPendingKillOnce: issue 11 — SIGTERM
// cancelled every delivery at once and journaled the pending kills as
// failed, so a restart sent 0 of 50. Now a stop waits for the drain
// window, leaves the rest requested, and the next start (following from
// the end, so the log cannot re-raise them) delivers each exactly once,
// under the original key.
func TestSIGTERMThenRestartDeliversEveryPendingKillOnce(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 50)
	hung := newReceiver(t, true)

	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.1", "--kill-webhook", hung.URL,
		"--journal", journal, "--drain-window", "1s", logPath)
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	alerts := make(chan int, 1)
	go func() {
		n := 0
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"type":"alert"`) {
				n++
				if n == 50 {
					alerts <- n
				}
			}
		}
	}()
	select {
	case <-alerts:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("50 kill alerts did not come; stderr:\n%s", stderr.String())
	}
	waitUntil(t, "the workers to hang on the receiver", 10*time.Second, func() bool { k, _ := hung.snapshot(); return len(k) >= 3 }) // the network deliveries: one worker is kept for kill commands
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	if took > 4*time.Second {
		t.Errorf("SIGTERM to exit took %s with a 1s drain window", took)
	}
	t.Logf("SIGTERM to exit with 50 pending kills: %s", took.Round(time.Millisecond))
	j, _ := os.ReadFile(journal)
	if bytes.Contains(j, []byte(`"state":"failed"`)) {
		t.Fatalf("the stop journaled kills as failed")
	}

	healthy := newReceiver(t, false)
	cmd2 := exec.Command(bin, "watch", "--headless", "--from-end", "--job-ceiling", "0.1", "--kill-webhook", healthy.URL,
		"--journal", journal, logPath)
	cmd2.Dir = dir
	cmd2.Stderr = &stderr
	if err := cmd2.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the restart to deliver 50 kills", 20*time.Second, func() bool { k, _ := healthy.snapshot(); return len(k) >= 50 })
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show up
	cmd2.Process.Signal(syscall.SIGTERM)
	cmd2.Wait()
	keys, _ := healthy.snapshot()
	firstKeys, _ := hung.snapshot()
	if len(keys) != 50 {
		t.Errorf("restart delivered %d distinct kills, want 50", len(keys))
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("key %s delivered %d times", k, n)
		}
	}
	for k := range firstKeys {
		if keys[k] != 1 {
			t.Errorf("key %s, sent before the stop, was not re-sent under the same key", k)
		}
	}
	t.Logf("kills delivered after restart: %d of 50", len(keys))
}

func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, what, within, cond)
}

// replayHeadless replays logs to the end with a kill webhook and a journal.
func replayHeadless(t *testing.T, journal, url string, extra []string, logs ...string) {
	t.Helper()
	args := append([]string{"replay", "--headless", "--speed", "max", "--kill-webhook", url, "--journal", journal}, extra...)
	if _, err := run(t, append(args, logs...)...); err != nil {
		t.Fatal(err)
	}
}

func runKills(kills []map[string]any) (n int, runs map[string]bool) {
	runs = map[string]bool{}
	for _, k := range kills {
		if k["scope"] == "run" {
			n++
			runs[k["run_id"].(string)] = true
		}
	}
	return n, runs
}

// TestNightAThenNightBBothFireTheRunCeiling: issue 11 — after one night's
// run-ceiling kill was acknowledged, every later night's was skipped as
// "already acknowledged". Keys now carry the run.
func TestNightAThenNightBBothFireTheRunCeiling(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "b", "night.jsonl")
	os.Mkdir(filepath.Join(dir, "b"), 0o755)
	night(t, a, "2026-03-10", 10)
	night(t, b, "2026-03-11", 10)
	journal := filepath.Join(dir, "journal.jsonl")
	rc := newReceiver(t, false)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1"}, a)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1"}, b)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1"}, a) // night A again: already acknowledged
	_, kills := rc.snapshot()
	if n, runs := runKills(kills); n != 2 || len(runs) != 2 {
		t.Errorf("%d run-ceiling kills over runs %v, want one for each night", n, runs)
	}
}

// TestReadOnlyThenARealRunKills: a --readonly (or --dry-run) run must not
// stop a later real run from killing.
func TestReadOnlyThenARealRunKills(t *testing.T) {
	dir := t.TempDir()
	logPath, journal := filepath.Join(dir, "night.jsonl"), filepath.Join(dir, "journal.jsonl")
	night(t, logPath, "2026-03-10", 10)
	rc := newReceiver(t, false)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1", "--readonly"}, logPath)
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1", "--dry-run"}, logPath)
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Fatalf("read-only and dry runs sent %d kills", len(kills))
	}
	replayHeadless(t, journal, rc.URL, []string{"--ceiling", "1"}, logPath)
	if _, kills := rc.snapshot(); len(kills) != 1 {
		t.Errorf("the real run sent %d kills after read-only and dry runs, want 1", len(kills))
	}
}

// TestTwoReplicasComputeIdenticalKeys: two instances reading the same log
// (from different mounts, with their own journals) send every kill under
// the same Idempotency-Key, so a receiver that dedups acts once.
func TestTwoReplicasComputeIdenticalKeys(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "a"), 0o755)
	os.Mkdir(filepath.Join(dir, "b"), 0o755)
	night(t, filepath.Join(dir, "a", "night.jsonl"), "2026-03-10", 20)
	data, _ := os.ReadFile(filepath.Join(dir, "a", "night.jsonl"))
	os.WriteFile(filepath.Join(dir, "b", "night.jsonl"), data, 0o644)
	rc := newReceiver(t, false)
	for _, r := range []string{"a", "b"} {
		replayHeadless(t, filepath.Join(dir, r, "journal.jsonl"), rc.URL, []string{"--ceiling", "3", "--job-ceiling", "0.4"},
			filepath.Join(dir, r, "night.jsonl"))
	}
	keys, kills := rc.snapshot()
	if len(kills) != 42 { // 20 job kills and one run kill, from each replica
		t.Fatalf("%d kills, want 42", len(kills))
	}
	for k, n := range keys {
		if n != 2 {
			t.Errorf("key %s sent %d times across two replicas, want 2 (same key from each)", k, n)
		}
	}
}
