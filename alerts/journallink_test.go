package alerts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestHardLinkedJournalIsNeitherOpenedNorSplitByCompaction: audit a2 —
// the lock is per name, so a journal with two names had two locks. Open
// refuses it; a link made after open stops compaction, whose rename
// would have left the other name on the old records.
func TestHardLinkedJournalIsNeitherOpenedNorSplitByCompaction(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, "j.jsonl"), filepath.Join(dir, "j-link.jsonl")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Record{Key: "k1", Action: actionKillWebhook, State: StateRequested}); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, other); err != nil {
		t.Fatal(err)
	}
	if err := j.compactNow(); !errors.Is(err, ErrJournalLinked) {
		t.Errorf("compaction of a journal given a second name: %v, want ErrJournalLinked", err)
	}
	a, _ := os.Stat(path)
	b, _ := os.Stat(other)
	if !os.SameFile(a, b) {
		t.Errorf("compaction split the two names into two files")
	}
	j.Close()
	for _, p := range []string{path, other} {
		if _, err := OpenJournal(p); !errors.Is(err, ErrJournalLinked) {
			t.Errorf("OpenJournal(%s) with two names: %v, want ErrJournalLinked", filepath.Base(p), err)
		}
		if _, err := OpenJournalReadOnly(p); err != nil {
			t.Errorf("read-only open of a linked journal: %v (it never locks or writes)", err)
		}
	}
	if _, err := os.Stat(other + ".lock"); err == nil {
		t.Errorf("a refused journal got a lock file beside it")
	}
	os.Remove(other)
	j, err = OpenJournal(path)
	if err != nil {
		t.Fatalf("one name again: %v", err)
	}
	defer j.Close()
	if r, ok := j.Last("k1"); !ok || r.State != StateRequested {
		t.Errorf("record lost: %+v %v", r, ok)
	}
}

// TestJournalFileItselfIsLocked: a journal reached by another name for
// the same file (a bind mount) has another path+".lock", so the file
// itself is locked too. A real process holding it (util-linux flock, as a
// second burnrate through a bind mount would) makes OpenJournal refuse,
// naming its PID; the lock moves to the new file at compaction.
func TestJournalFileItselfIsLocked(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Fatal("flock (util-linux) is needed to hold the journal from another process:", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("flock", "--exclusive", path, "sleep", "30")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its sleep inherits the lock: end both
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); holder.Wait() }
	defer stop()
	held := func() bool { return exec.Command("flock", "--nonblock", path, "true").Run() != nil }
	testutil.WaitFor(t, "flock to take the journal", 5*time.Second, held)
	_, err := OpenJournal(path)
	if !errors.Is(err, ErrJournalLocked) || !strings.Contains(err.Error(), "PID "+strconv.Itoa(holder.Process.Pid)) || !strings.Contains(err.Error(), "another name for the same file") {
		t.Fatalf("OpenJournal with the file held by PID %d: %v", holder.Process.Pid, err)
	}
	stop()
	testutil.WaitFor(t, "the holder's lock to go", 5*time.Second, func() bool { return !held() })

	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if !held() {
		t.Error("an open journal's file is not locked")
	}
	j.Append(Record{Key: "k1", Action: actionKillWebhook, State: StateRequested})
	before, _ := os.Stat(path)
	if err := j.compactNow(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if os.SameFile(before, after) {
		t.Fatal("compaction did not replace the file; this test needs it to")
	}
	if !held() {
		t.Error("after compaction the new journal file is not locked")
	}
	j.Close()
	if held() {
		t.Error("Close left the journal file locked")
	}
}
