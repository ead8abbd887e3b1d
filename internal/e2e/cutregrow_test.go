package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestAFileCutAndRegrownWithinOnePollIsReadOnce: R7b-5's in-place case —
// a followed file truncated and written past the old offset before the
// next poll kept its inode and a size past the offset, so the follower
// read on from the stale offset (52 lines billed from the middle of the
// new content, one of them cut: invalid_json), then from the start once
// its first bytes differed: lines billed twice. The cut is found before
// reading on: each line is billed once.
func TestAFileCutAndRegrownWithinOnePollIsReadOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		pad  string // the new lines' padding: longer, so the old offset falls mid-line
		head bool   // the new content starts with the old first ten lines: its first KiB is the old one's, only the bytes before the offset differ
	}{{"new first line", "aaaaaaa", false}, {"same first KiB", "aaaaaaa", true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			log, report := filepath.Join(dir, "a.log"), filepath.Join(dir, "r.json")
			line := func(n int, pad string) string {
				return fmt.Sprintf(`{"ts":"2026-06-02T00:00:00Z","event":"llm_call","job_id":"job-A","model":"gpt-4o","status":200,"input_tokens":1000,"output_tokens":100,"n":%d,"pad":%q}`+"\n", n, pad)
			}
			var old strings.Builder
			for n := 1; n <= 100; n++ {
				old.WriteString(line(n, "aaaa"))
			}
			os.WriteFile(log, []byte(old.String()), 0o644)
			d := startDaemon(t, "--journal", filepath.Join(dir, "j.jsonl"), "--poll-interval", "1500ms",
				"--report-out", report, "--kill-exec", "true", "--job-ceiling", "0.01", log)
			// The first poll read the file: the job went over its ceiling.
			testutil.WaitFor(t, "the first poll's kill", 20*time.Second, func() bool { return strings.Contains(d.out(), "job_ceiling") })
			var regrown strings.Builder
			first := 101
			if c.head {
				for n := 1; n <= 10; n++ {
					regrown.WriteString(line(n, "aaaa"))
				}
				first = 111
			}
			for n := first; n <= 250; n++ {
				regrown.WriteString(line(n, c.pad))
			}
			// Cut and written again at once, well inside one poll.
			if err := os.WriteFile(log, []byte(regrown.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3500 * time.Millisecond)
			d.stop(syscall.SIGTERM)
			var r struct {
				Jobs []struct {
					JobID    string `json:"job_id"`
					Attempts int64  `json:"attempts"`
				} `json:"jobs"`
				Source struct {
					Skipped map[string]int64 `json:"skipped_by_reason"`
				} `json:"source"`
			}
			b, _ := os.ReadFile(report)
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%v: %s\n%s", err, b, d.err())
			}
			const want = 250 // the old file's 100, the new one's 150
			if len(r.Jobs) != 1 || r.Jobs[0].Attempts != want {
				t.Errorf("jobs %+v, want job-A with %d attempts (each line once)\n%s", r.Jobs, want, d.err())
			}
			if len(r.Source.Skipped) != 0 {
				t.Errorf("skipped %v, want none (no line read from its middle)", r.Source.Skipped)
			}
		})
	}
}

// TestACopytruncateWithTheSameStartAndLineEndsIsSeen: R8-10 — an app's
// start-up dump (the same 1,100 bytes after every restart) and lines of
// one length whose last 64 bytes are the same: logrotate's copytruncate
// followed by the app's restart left a file that started as the old one
// and matched it in the 64 bytes before the old offset, so the follower
// read on from there — 100 of the new 150 calls skipped in silence. The
// cut is seen by the last 4 KiB before the offset (whole lines, job IDs
// and all) and by marks at each power of two read: the new file is read
// from its start, the old one's rest from its copy.
func TestACopytruncateWithTheSameStartAndLineEndsIsSeen(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "a.log"), filepath.Join(dir, "r.json")
	var banner strings.Builder
	for i := range 14 {
		fmt.Fprintf(&banner, `{"ts": "2026-12-08T00:00:00Z", "event": "app_config", "k": "setting-%02d", "v": "%s"}`+"\n", i, strings.Repeat("x", 40))
	}
	line := func(job string, i int) string {
		return fmt.Sprintf(`{"ts": "2026-12-08T01:%02d:%02dZ", "job_id": %q, "seq": "%05d", "event": "llm_call", "model": "gpt-4o", "status": 200, "input_tokens": 10000, "output_tokens": 500}`+"\n", i/60, i%60, job, i)
	}
	var old, regrown strings.Builder
	old.WriteString(banner.String())
	regrown.WriteString(banner.String())
	for i := range 100 {
		old.WriteString(line("job-A", i))
	}
	for i := range 150 {
		regrown.WriteString(line("job-B", i))
	}
	os.WriteFile(log, []byte(old.String()), 0o644)
	d := startDaemon(t, "--journal", filepath.Join(dir, "j.jsonl"), "--poll-interval", "1500ms",
		"--report-out", report, "--kill-exec", "true", "--job-ceiling", "0.05", log)
	testutil.WaitFor(t, "the first poll's kill", 20*time.Second, func() bool { return strings.Contains(d.out(), "job_ceiling") })
	os.WriteFile(log+".1", []byte(old.String()), 0o644) // logrotate's copy
	if err := os.WriteFile(log, []byte(regrown.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3500 * time.Millisecond)
	d.stop(syscall.SIGTERM)
	var r struct {
		Jobs []struct {
			JobID    string `json:"job_id"`
			Attempts int64  `json:"attempts"`
		} `json:"jobs"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s\n%s", err, b, d.err())
	}
	got := map[string]int64{}
	for _, j := range r.Jobs {
		got[j.JobID] = j.Attempts
	}
	if got["job-A"] != 100 || got["job-B"] != 150 {
		t.Errorf("jobs %v, want job-A 100 and job-B 150 (each line once)\n%s", got, d.err())
	}
}

// TestAFileRewrittenWithTheSameBytesIsNotReadAgain: the other side of the
// cut check — a writer that rewrites its whole log in place (O_TRUNC, the
// same records, then new ones) left every byte before the offset as it
// was: nothing to read again, the new lines once. 150 calls, not 250.
func TestAFileRewrittenWithTheSameBytesIsNotReadAgain(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "a.log"), filepath.Join(dir, "r.json")
	var all strings.Builder
	for i := range 150 {
		fmt.Fprintf(&all, `{"ts":"2026-06-02T00:%02d:%02dZ","event":"llm_call","job_id":"job-%d","model":"gpt-4o","status":200,"input_tokens":1000,"output_tokens":100,"pad":"%s"}`+"\n", i/60, i%60, i%3, strings.Repeat("p", 200))
	}
	lines := strings.SplitAfter(all.String(), "\n")
	os.WriteFile(log, []byte(strings.Join(lines[:100], "")), 0o644)
	d := startDaemon(t, "--journal", filepath.Join(dir, "j.jsonl"), "--poll-interval", "1500ms",
		"--report-out", report, "--kill-exec", "true", "--job-ceiling", "0.01", log)
	testutil.WaitFor(t, "the first poll's kill", 20*time.Second, func() bool { return strings.Contains(d.out(), "job_ceiling") })
	if err := os.WriteFile(log, []byte(all.String()), 0o644); err != nil { // O_TRUNC, the same 100 lines, 50 more
		t.Fatal(err)
	}
	time.Sleep(3500 * time.Millisecond)
	d.stop(syscall.SIGTERM)
	var r struct {
		Totals struct {
			Attempts int64 `json:"attempts"`
		} `json:"totals"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s\n%s", err, b, d.err())
	}
	if r.Totals.Attempts != 150 {
		t.Errorf("%d attempts, want 150 (the same bytes are not read again)\n%s", r.Totals.Attempts, d.err())
	}
}
