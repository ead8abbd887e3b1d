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
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// forkPair writes a Claude Code session and a session forked from it
// (claude --resume --fork-session), as Claude Code writes them: the fork's
// transcript begins with copies of the parent's lines — same message.id,
// requestId, uuid, timestamp and usage, under the fork's sessionId, each
// with forkedFrom naming the parent — then the fork's own calls. The
// parent made 5 calls of $2 (80,000 output tokens of claude-opus-4-6);
// the fork makes 2 of its own at $0.50 from 25 minutes on and stops;
// when cont, the parent goes on (still open in another terminal) with 20
// calls of $0.25 from 38 minutes on, long after the fork stopped.
func forkPair(parent, fork string, cont bool) (parentLines, forkLines string) {
	rec := func(sess string, i int, ts time.Time, out int, from string) string {
		m := map[string]any{"type": "assistant", "sessionId": sess, "cwd": "/home/dev/proj", "version": "2.1.38",
			"uuid": fmt.Sprintf("u-%d", i), "requestId": fmt.Sprintf("req_%d", i), "timestamp": ts.Format(time.RFC3339Nano),
			"message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "model": "claude-opus-4-6",
				"usage": map[string]any{"input_tokens": 0, "output_tokens": out, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}
		if from != "" {
			m["forkedFrom"] = map[string]any{"sessionId": from, "messageUuid": fmt.Sprintf("u-%d", i)}
		}
		b, _ := json.Marshal(m)
		return string(b) + "\n"
	}
	t0 := time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)
	var a, b strings.Builder
	for i := range 5 {
		a.WriteString(rec(parent, i, t0.Add(time.Duration(i)*time.Minute), 80_000, ""))
		b.WriteString(rec(fork, i, t0.Add(time.Duration(i)*time.Minute), 80_000, parent))
	}
	for i := range 2 {
		b.WriteString(rec(fork, 100+i, t0.Add(25*time.Minute+time.Duration(i)*time.Minute), 20_000, ""))
	}
	if cont {
		for i := range 20 {
			a.WriteString(rec(parent, 200+i, t0.Add(38*time.Minute+time.Duration(i)*4*time.Minute), 10_000, ""))
		}
	}
	return a.String(), b.String()
}

var forkIDs = [][2]string{
	{"11111111-aaaa-4aaa-8aaa-000000000001", "99999999-bbbb-4bbb-8bbb-000000000009"},
	{"99999999-aaaa-4aaa-8aaa-000000000009", "11111111-bbbb-4bbb-8bbb-000000000001"},
}

// TestForkedSessionIsBilledToItsParent: issue 35's red team — a session
// forked from another while the other keeps running. "Billed to the
// session that stopped first" billed the fork its parent's $10 (and a
// ceiling stopped the fork). The parent going on or stopped, either file
// read first, either session's ID first: the parent is billed its calls,
// the fork its own, and the reports are byte-identical.
func TestForkedSessionIsBilledToItsParent(t *testing.T) {
	for _, cont := range []bool{true, false} {
		for _, ids := range forkIDs {
			parent, fork := forkPair(ids[0], ids[1], cont)
			want := map[string]string{ids[0]: "5 calls $10.00", ids[1]: "2 calls $1.00"}
			if cont {
				want[ids[0]] = "25 calls $15.00"
			}
			var reports, mds [2][]byte
			for k, files := range [][2]string{{parent, fork}, {fork, parent}} {
				dir := filepath.Join(t.TempDir(), "proj")
				os.MkdirAll(dir, 0o755)
				testutil.WriteFile(t, filepath.Join(dir, "a.jsonl"), files[0])
				testutil.WriteFile(t, filepath.Join(dir, "b.jsonl"), files[1])
				stable := filepath.Join(os.TempDir(), "burnrate-fork-"+strings.ReplaceAll(t.Name(), "/", "_"))
				os.RemoveAll(stable)
				if err := os.Rename(dir, stable); err != nil {
					t.Fatal(err)
				}
				out, err := run(t, "report", "--format", "json", stable)
				if err != nil && err != errCritical {
					t.Fatalf("report: %v", err)
				}
				md, _ := run(t, "report", stable)
				os.RemoveAll(stable)
				reports[k], mds[k] = []byte(out), []byte(md)
				var r struct {
					Jobs []struct {
						JobID    string  `json:"job_id"`
						Attempts int     `json:"attempts"`
						SpendUSD float64 `json:"spend_usd"`
					} `json:"jobs"`
				}
				json.Unmarshal([]byte(out), &r)
				got := map[string]string{}
				for _, j := range r.Jobs {
					got[j.JobID] = fmt.Sprintf("%d calls $%.2f", j.Attempts, j.SpendUSD)
				}
				if got[ids[0]] != want[ids[0]] || got[ids[1]] != want[ids[1]] {
					t.Errorf("parent goes on %v, ids %v, order %d: %v; want %v", cont, ids, k, got, want)
				}
			}
			if !bytes.Equal(reports[0], reports[1]) || !bytes.Equal(mds[0], mds[1]) {
				t.Errorf("parent goes on %v, ids %v: the reports differ with the files' order", cont, ids)
			}
		}
	}
}

// TestWatchNeverStopsTheFork: watch --job-ceiling 5, the fork's file
// written (and read) before its parent's: the fork holds the parent's
// $10 as copies until the parent's file is read, and was stopped for
// them. It never is; the parent, once read, is.
func TestWatchNeverStopsTheFork(t *testing.T) {
	for _, ids := range forkIDs {
		parent, fork := forkPair(ids[0], ids[1], true)
		dir := filepath.Join(t.TempDir(), "proj")
		os.MkdirAll(dir, 0o755)
		testutil.WriteFile(t, filepath.Join(dir, "fork.jsonl"), fork)
		w := exec.Command(burnrate(t), "watch", "--headless", "--dry-run", "--job-ceiling", "5", dir)
		var out testutil.LockedBuffer
		w.Stdout, w.Stderr = &out, &out
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		stopFork := `"rule":"job_ceiling","severity":"critical","scope":"job",`
		forkAlert := func() bool {
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.Contains(l, stopFork) && strings.Contains(l, `"job_id":"`+ids[1]+`"`) {
					return true
				}
			}
			return false
		}
		time.Sleep(1500 * time.Millisecond) // the fork's file read alone
		if forkAlert() {
			t.Errorf("ids %v: the fork was stopped for its parent's calls before the parent was read:\n%s", ids, out.String())
		}
		testutil.WriteFile(t, filepath.Join(dir, "parent.jsonl"), parent)
		testutil.WaitFor(t, "the parent's job ceiling alert", 20*time.Second, func() bool {
			s := out.String()
			return strings.Contains(s, `"rule":"job_ceiling"`) && strings.Contains(s, `"job_id":"`+ids[0]+`"`)
		})
		time.Sleep(500 * time.Millisecond)
		w.Process.Signal(os.Interrupt)
		w.Wait()
		if forkAlert() {
			t.Errorf("ids %v: the fork was stopped:\n%s", ids, out.String())
		}
	}
}

// TestForkCopiesUnderTheParentsSessionID: the shape Claude Code's own
// forks write (anthropics/claude-code#95234: "every row copied from the
// original session still carries the original session's id"; rows
// written after the fork carry the fork's): no forkedFrom, the copies name
// their parent. Each row is billed to the session it names, in either
// file order, and the parent's ceiling — never the fork's — is crossed.
func TestForkCopiesUnderTheParentsSessionID(t *testing.T) {
	ids := forkIDs[1] // the fork's ID sorts first: a rule by ID order would pick it
	parent, fork := forkPair(ids[0], ids[1], true)
	var b strings.Builder
	for _, l := range strings.SplitAfter(fork, "\n") {
		if strings.Contains(l, `"forkedFrom"`) {
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			delete(m, "forkedFrom")
			m["sessionId"] = ids[0]
			out, _ := json.Marshal(m)
			l = string(out) + "\n"
		}
		b.WriteString(l)
	}
	fork = b.String()
	var reports [2]string
	for k, files := range [][2]string{{parent, fork}, {fork, parent}} {
		dir := t.TempDir()
		a, f := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
		testutil.WriteFile(t, a, files[0])
		testutil.WriteFile(t, f, files[1])
		out, err := run(t, "report", "--format", "json", a, f)
		if err != nil && err != errCritical {
			t.Fatalf("report: %v", err)
		}
		var r struct {
			Jobs []struct {
				JobID    string  `json:"job_id"`
				Attempts int     `json:"attempts"`
				SpendUSD float64 `json:"spend_usd"`
			} `json:"jobs"`
		}
		json.Unmarshal([]byte(out), &r)
		got := map[string]string{}
		for _, j := range r.Jobs {
			got[j.JobID] = fmt.Sprintf("%d calls $%.2f", j.Attempts, j.SpendUSD)
		}
		if got[ids[0]] != "25 calls $15.00" || got[ids[1]] != "2 calls $1.00" {
			t.Errorf("order %d: %v; want the parent 25 calls $15.00, the fork 2 calls $1.00", k, got)
		}
		reports[k] = out
		live, _ := run(t, append([]string{"replay", "--headless", "--speed", "max", "--job-ceiling", "5", "--dry-run"}, files2(k, a, f)...)...)
		if !strings.Contains(live, `"job_id":"`+ids[0]+`"`) || strings.Contains(live, `"job_id":"`+ids[1]+`"`) {
			t.Errorf("order %d: the ceiling should be the parent's only:\n%s", k, live)
		}
	}
	if strings.Count(reports[0], `"job_id"`) != strings.Count(reports[1], `"job_id"`) {
		t.Errorf("the reports differ in jobs with the files' order")
	}
}

// files2 lists the two files in the order of case k.
func files2(k int, a, b string) []string {
	if k == 0 {
		return []string{a, b}
	}
	return []string{b, a}
}
