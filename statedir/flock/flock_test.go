package flock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestLockNamesItsHolder: a second taker is refused with the PID the lock
// file holds, and takes it once the first lets go. flock locks belong to
// an open file, so two opens in one process contend as two processes do.
func TestLockNamesItsHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl.lock")
	a, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(path)
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, syscall.EWOULDBLOCK) || held.Holder != "burnrate PID "+strconv.Itoa(os.Getpid()) {
		t.Fatalf("second Lock: %v, want a HeldError naming PID %d", err, os.Getpid())
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("the refusal does not name the file: %v", err)
	}
	Unlock(a)
	b, err := Lock(path)
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	Unlock(b)
	Unlock(nil) // no lock: nothing to do
}

// TestLockRefusesALink: a lock file is never reached through a symbolic
// link (one planted beside the journal would lock, and truncate, its
// target).
func TestLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "journal.jsonl.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := Lock(link); err == nil {
		Unlock(f)
		t.Fatal("a lock through a symbolic link was taken")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestLockFileIsPerFile: the file's own lock is one however the file is
// reached, and refuses another file under the name.
func TestLockFileIsPerFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := LockFile(path, f)
	if err != nil {
		t.Fatal(err)
	}
	defer Unlock(a)
	hard := filepath.Join(dir, "other-name.jsonl")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	_, err = LockFile(hard, f)
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("the same file by another name: %v, want a HeldError", err)
	}
	// /proc/locks names another process's PID (its own is left out, and
	// a sandbox may show none): here the holder is "another process".
	if held.Holder == "" || !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Errorf("holder %q, err %v", held.Holder, err)
	}
	other, err := os.Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := LockFile(path, other); !errors.Is(err, ErrReplaced) {
		t.Errorf("another file under the name: %v, want ErrReplaced", err)
	}
}
