package alerts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillCommandStdoutAndStderrJournaledApart: audit a2 — stdout and
// stderr shared one 4 KiB buffer, so a command that printed 2 MB and then
// its error on stderr journaled 4 KiB of stdout as "stderr" and lost the
// error. A real command, through the dispatcher, into the journal.
func TestKillCommandStdoutAndStderrJournaledApart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.jsonl")
	script := filepath.Join(dir, "loud.sh")
	// 2 MB of "a" on stdout, 6 KiB of "b" on stderr, then the error.
	body := "#!/bin/sh\nhead -c 2000000 /dev/zero | tr '\\0' a\nhead -c 6000 /dev/zero | tr '\\0' b >&2\necho >&2\necho ERRMSG >&2\nexit 3\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	tmpl, err := ParseExec(script+" {job_id}", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	var log resultLog
	d := NewDispatcher(Hooks{KillExec: tmpl}, nil, j, log.add)
	d.Start(context.Background())
	a := Alert{Rule: RuleJobCeiling, Scope: "job", RunID: "r1", JobID: "job-1"}
	d.Kill(a)
	d.Wait()
	d.Shutdown(context.Background())
	if last := log.last(); last.State != StateFailed || !strings.Contains(last.Detail, "stderr ends: ERRMSG") {
		t.Errorf("result %s %q: want failed, naming the command's last stderr line", last.State, last.Detail)
	}
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r, ok := j.Last(IdempotencyKey(actionKillExec, a))
	if !ok {
		t.Fatal("no journal record for the kill")
	}
	if r.ExitCode == nil || *r.ExitCode != 3 {
		t.Errorf("exit code %v, want 3", r.ExitCode)
	}
	if want := strings.Repeat("a", execOutputMax) + "\n[… 1995904 more bytes not kept]"; r.Stdout != want {
		t.Errorf("stdout journaled %d bytes (…%q), want the first %d bytes of 'a' and the count of the rest", len(r.Stdout), r.Stdout[max(0, len(r.Stdout)-40):], execOutputMax)
	}
	if strings.Contains(r.Stderr, "a") {
		t.Errorf("stdout leaked into the stderr field")
	}
	if !strings.HasPrefix(r.Stderr, strings.Repeat("b", execOutputMax)) || !strings.HasSuffix(r.Stderr, "ERRMSG") {
		t.Errorf("stderr field (%d bytes) does not keep its start and its end (ERRMSG): …%q", len(r.Stderr), r.Stderr[max(0, len(r.Stderr)-80):])
	}
	if !strings.Contains(r.Stderr, "bytes not kept") {
		t.Errorf("stderr field does not say bytes were dropped between its start and its end")
	}
	if len(r.Stderr) > execOutputMax+execStderrTail+64 {
		t.Errorf("stderr field is %d bytes: not bounded", len(r.Stderr))
	}
}

// TestHeadTailBufferKeepsStartAndEnd writes in every size, across the
// boundaries, and compares with the whole stream.
func TestHeadTailBufferKeepsStartAndEnd(t *testing.T) {
	var whole strings.Builder
	for i := 0; i < 3000; i++ {
		whole.WriteByte(byte('A' + i%26))
	}
	s := whole.String()
	for _, chunk := range []int{1, 7, 10, 99, 100, 101, 3000} {
		for _, total := range []int{0, 50, 100, 120, 150, 3000} {
			b := &headTailBuffer{head: 100, tail: 20}
			for off := 0; off < total; off += chunk {
				b.Write([]byte(s[off:min(total, off+chunk)]))
			}
			got := b.String()
			switch {
			case total <= 120:
				if got != s[:total] {
					t.Errorf("chunk %d total %d: %q, want the whole %q", chunk, total, got, s[:total])
				}
			default:
				if !strings.HasPrefix(got, s[:100]) || !strings.HasSuffix(got, s[total-20:total]) || !strings.Contains(got, "bytes not kept") {
					t.Errorf("chunk %d total %d: %q", chunk, total, got)
				}
			}
		}
	}
	b := &headTailBuffer{head: 4}
	b.Write([]byte("abcdefgh"))
	if got := b.String(); got != "abcd\n[… 4 more bytes not kept]" {
		t.Errorf("head only: %q", got)
	}
}
