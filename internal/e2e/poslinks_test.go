package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestPatternLineJobByPositionNeverKills: R7-17 — a --pattern line that
// names no job took the job of the JSON line before it; a worker pool
// writing one stream put job B's cost lines after job A's heartbeats, and
// job A was killed at its ceiling. A job taken by position is shown and
// counted ambiguous, never a kill; the same lines naming their job kill
// that job.
func TestPatternLineJobByPositionNeverKills(t *testing.T) {
	bin := burnrate(t)
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprint("job named: ", named), func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			b.WriteString(`{"ts":"2026-06-02T00:00:00Z","event":"job_started","job_id":"job-A","job_type":"t"}` + "\n")
			b.WriteString(`{"ts":"2026-06-02T00:00:01Z","event":"job_started","job_id":"job-B","job_type":"t"}` + "\n")
			for i := range 8 {
				fmt.Fprintf(&b, `{"ts":"2026-06-02T00:00:%02dZ","event":"job_heartbeat","job_id":"job-A","job_type":"t"}`+"\n", 2+2*i)
				job := ""
				if named {
					job = " job=job-B"
				}
				fmt.Fprintf(&b, "2026-06-02T00:00:%02dZ model call done cost=0.20 status=200 model=gpt-4o%s\n", 3+2*i, job)
			}
			logPath, journal := filepath.Join(dir, "pool.log"), filepath.Join(dir, "journal.jsonl")
			testutil.WriteFile(t, logPath, b.String())
			pat := `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+)$`
			if named {
				pat = `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+) job=(?P<job_id>\S+)$`
			}
			rc := newReceiver(t, false)
			cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.5", "--kill-webhook", rc.URL, "--journal", journal, "--pattern", pat, logPath)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if named {
				waitUntil(t, "job-B's kill", 20*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1 })
			} else {
				// Nothing must come: the whole file is read well within this.
				time.Sleep(3 * time.Second)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("exit: %v\n%s", err, stderr.String())
			}
			_, kills := rc.snapshot()
			var jobs []string
			for _, k := range kills {
				jobs = append(jobs, fmt.Sprint(k["job_id"]))
			}
			want := "[]"
			if named {
				want = "[job-B]"
			}
			if got := fmt.Sprint(jobs); got != want {
				t.Errorf("kills of %s, want %s\n%s", got, want, stderr.String())
			}
			// Said before the night, not found out after it (R7b-4).
			if said := strings.Contains(stderr.String(), "names no job"); said == named {
				t.Errorf("the warning that the pattern names no job said: %v, want %v\n%s", said, !named, stderr.String())
			}
		})
	}
}

// TestPatternLineTypeByPositionNeverKills: R8-7 — R7-17 kept spend placed
// by position off the job ceiling, but the job-type ceiling still summed
// it: job B's positional cost lines, after job A's heartbeats (type
// "cheap"), fired a type-wide kill of every "cheap" job. The type's
// ceiling weighs only spend whose job the record named; the same lines
// naming job A kill the type.
func TestPatternLineTypeByPositionNeverKills(t *testing.T) {
	bin := burnrate(t)
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprint("job named: ", named), func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			b.WriteString(`{"ts":"2026-06-02T00:00:00Z","event":"job_started","job_id":"job-B","job_type":"report"}` + "\n")
			b.WriteString(`{"ts":"2026-06-02T00:00:01Z","event":"job_started","job_id":"job-A","job_type":"cheap"}` + "\n")
			for i := range 10 {
				fmt.Fprintf(&b, `{"ts":"2026-06-02T00:00:%02dZ","event":"job_heartbeat","job_id":"job-A","job_type":"cheap"}`+"\n", 2+2*i)
				job := ""
				if named {
					job = " job=job-A"
				}
				fmt.Fprintf(&b, "2026-06-02T00:00:%02dZ model call done cost=0.20 status=200 model=gpt-4o%s\n", 3+2*i, job)
			}
			logPath, journal, conf := filepath.Join(dir, "pool.log"), filepath.Join(dir, "journal.jsonl"), filepath.Join(dir, "burnrate.toml")
			testutil.WriteFile(t, logPath, b.String())
			testutil.WriteFile(t, conf, "[job_types.cheap]\nceiling_usd = 1\n[actions]\nkill_on = [\"job_type_ceiling\"]\n")
			pat := `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+)$`
			if named {
				pat = `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+) job=(?P<job_id>\S+)$`
			}
			rc := newReceiver(t, false)
			cmd := exec.Command(bin, "watch", "--headless", "--config", conf, "--kill-webhook", rc.URL, "--journal", journal, "--pattern", pat, logPath)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if named {
				waitUntil(t, "the type's kill", 20*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1 })
			} else {
				time.Sleep(3 * time.Second) // the whole file is read well within this
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("exit: %v\n%s", err, stderr.String())
			}
			_, kills := rc.snapshot()
			var types []string
			for _, k := range kills {
				types = append(types, fmt.Sprint(k["job_type"]))
			}
			want := "[]"
			if named {
				want = "[cheap]"
			}
			if got := fmt.Sprint(types); got != want {
				t.Errorf("kills of types %s, want %s\n%s", got, want, stderr.String())
			}
		})
	}
}

// TestUnattributedCallsAreNeverAKillSubject: red team R8-34 — the calls
// that name no job ("(unattributed)": any app's, several apps') were a
// job to the job ceiling, and a kill was POSTed for job_id
// "(unattributed)". They are said over the ceiling, a warning, never a
// kill; the run ceiling weighs them.
func TestUnattributedCallsAreNeverAKillSubject(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, `{"ts":"2026-06-02T00:00:%02dZ","event":"llm_call","job_id":"job-A","model":"gpt-4o","status":200,"input_tokens":10000,"output_tokens":500}`+"\n", i)
	}
	for i := range 30 { // $0.03 each, no job
		fmt.Fprintf(&b, `{"ts":"2026-06-02T00:01:%02dZ","event":"llm_call","job_id":"","model":"gpt-4o","status":200,"input_tokens":10000,"output_tokens":500}`+"\n", i)
	}
	logPath, journal := filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "journal.jsonl")
	testutil.WriteFile(t, logPath, b.String())
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "0.5", "--kill-webhook", rc.URL, "--journal", journal, logPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the whole file is read well within this
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}
	if _, kills := rc.snapshot(); len(kills) != 0 {
		t.Errorf("kills %v: the calls that name no job are no job to stop", kills)
	}
	if !strings.Contains(stdout.String(), `"rule":"job_ceiling_guessed"`) || !strings.Contains(stdout.String(), `"job_id":"(unattributed)"`) {
		t.Errorf("nothing says the unattributed calls passed the ceiling:\n%s", stdout.String())
	}
}

// TestAKillCarriesTheSpendThatWeighed: red team R8-26 — a job killed on
// the spend its records named reported, in the kill, a spend that also
// held what was placed in it by position ($2.20 where $1.00 crossed): the
// kill's spend_usd is what weighed, the rest said apart in its reason.
func TestAKillCarriesTheSpendThatWeighed(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"ts":"2026-06-02T00:00:00Z","event":"job_started","job_id":"job-A"}` + "\n")
	for i := range 6 { // $1.20 by position
		fmt.Fprintf(&b, "2026-06-02T00:00:%02dZ model call done cost=0.20 status=200 model=gpt-4o\n", 1+i)
	}
	for i := range 12 { // $0.10 each, named
		fmt.Fprintf(&b, `{"ts":"2026-06-02T00:01:%02dZ","event":"llm_call","job_id":"job-A","model":"gpt-4o","status":200,"cost_usd":0.10}`+"\n", i)
	}
	logPath, journal := filepath.Join(dir, "mix.log"), filepath.Join(dir, "journal.jsonl")
	testutil.WriteFile(t, logPath, b.String())
	pat := `^(?P<ts>\S+) model call done cost=(?P<cost_usd>[0-9.]+) status=(?P<status>\d+) model=(?P<model>\S+)$`
	rc := newReceiver(t, false)
	cmd := exec.Command(bin, "watch", "--headless", "--job-ceiling", "1", "--kill-webhook", rc.URL, "--journal", journal, "--pattern", pat, logPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "job-A's kill", 20*time.Second, func() bool { k, _ := rc.snapshot(); return len(k) >= 1 })
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	_, kills := rc.snapshot()
	if len(kills) != 1 {
		t.Fatalf("kills %v", kills)
	}
	if s, _ := kills[0]["spend_usd"].(float64); s < 0.99 || s > 1.01 {
		t.Errorf("the kill's spend_usd %v, the named spend that crossed is $1.00", kills[0]["spend_usd"])
	}
	if r, _ := kills[0]["reason"].(string); !strings.Contains(r, "not weighed") {
		t.Errorf("the kill's reason does not say what was not weighed: %q", r)
	}
}
