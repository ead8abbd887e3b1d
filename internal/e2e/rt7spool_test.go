package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestTheSpoolNeverHoldsAKill (red team R7-4): on a disk with about a
// megabyte free, the spool of a watch on stdin took all of it, and the
// journal beside it could no longer record a kill: the run ceiling's kill
// was held until the stop, never fired. The spool now leaves the
// journal's room free (counted and said as refused events), so the kill
// fires. The disk is a real 1 MiB tmpfs in a user and mount namespace.
func TestTheSpoolNeverHoldsAKill(t *testing.T) {
	if out, err := exec.Command("unshare", "-r", "-m", "true").CombinedOutput(); err != nil {
		t.Skipf("this test mounts a small tmpfs in a user and mount namespace, which this machine refuses (unshare -r -m: %v %s)", err, out)
	}
	// 1 MiB: the journal keeps its reserve but not the slack past it, and
	// the spool (on main) took the rest. 3 MiB: the spool writes until the
	// journal's need is all that is left, then stops.
	for _, size := range []int{1 << 20, 3 << 20} {
		t.Run(fmt.Sprintf("%d KiB", size>>10), func(t *testing.T) { spoolBesideAKill(t, size) })
	}
}

func spoolBesideAKill(t *testing.T, size int) {
	bin := burnrate(t)
	dir := t.TempDir()
	state, kills := filepath.Join(dir, "state"), filepath.Join(dir, "kills")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	// 30,000 calls at $0.03 each ($900), in 300 jobs: the spool would
	// take several megabytes; the run ceiling ($600) is crossed two
	// thirds in, long after the disk would be full.
	logPath := filepath.Join(dir, "night.jsonl")
	var b strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&b, `{"ts":%d,"event":"llm_call","job_id":"job-%03d","job_type":"nightly","run_id":"night","model":"claude-sonnet-4-6","status":200,"input_tokens":10000,"output_tokens":0}`+"\n", 1773104400+i, i%300)
	}
	testutil.WriteFile(t, logPath, b.String())
	killSh := filepath.Join(dir, "kill.sh")
	testutil.WriteFile(t, killSh, "echo run >> "+kills+"\n")
	script := fmt.Sprintf(`set -e
mount -t tmpfs -o size=%d tmpfs %s
chmod 700 %s
(cat %s; sleep 3) | %s watch --headless --journal %s/journal.jsonl --ceiling 600 --kill-exec 'sh %s' - > %s/out 2> %s/err || true
df -k %s > %s/df
du -sb %s/journal.spool > %s/du || true
`, size, state, state, logPath, bin, state, killSh, dir, dir, state, dir, state, dir)
	if out, err := exec.Command("unshare", "-r", "-m", "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	stderr, _ := os.ReadFile(filepath.Join(dir, "err"))
	stdout, _ := os.ReadFile(filepath.Join(dir, "out"))
	df, _ := os.ReadFile(filepath.Join(dir, "df"))
	t.Logf("at the stop:\n%s", df)
	runs, _ := os.ReadFile(kills)
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("the run ceiling's kill ran %d time(s), want once: the spool left the journal no room\nstderr:\n%.3000s", n, stderr)
	}
	if strings.Contains(string(stdout), `"state":"held"`) || strings.Contains(string(stderr), "held when burnrate stopped") {
		t.Errorf("a kill was held:\n%.3000s", stderr)
	}
	du, _ := os.ReadFile(filepath.Join(dir, "du"))
	var spooled int
	fmt.Sscan(string(du), &spooled)
	t.Logf("spool: %d bytes", spooled)
	if size > 2<<20 && spooled < 100<<10 {
		t.Errorf("on a %d KiB disk the spool wrote %d bytes: it stops at the journal's need, not before", size>>10, spooled)
	}
	if !strings.Contains(string(stderr), "not spooled") || !strings.Contains(string(stderr), "the journal") {
		t.Errorf("the events the spool refused for the journal's room are not said:\n%.3000s", stderr)
	}
}
