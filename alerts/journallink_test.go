package alerts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
