// Package flock is the one file lock of burnrate's state directory: an
// exclusive, non-blocking flock that names who holds it when it is
// refused. The alerts journal takes it (the event spool checks that its
// process holds it); it imports nothing
// of ours, so alerts can take it below the packages that import alerts.
package flock

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// HeldError is the refusal of a lock: Holder names the process that holds
// it ("burnrate PID 4242", "PID 4242" or "another process"), and Err is
// flock's own error (syscall.EWOULDBLOCK when another process holds it).
type HeldError struct {
	Path   string
	Holder string
	Err    error
}

func (e *HeldError) Error() string { return e.Path + " is held by " + e.Holder + ": " + e.Err.Error() }
func (e *HeldError) Unwrap() error { return e.Err }

// ErrReplaced: LockFile found another file under the name than the one
// it was given.
var ErrReplaced = errors.New("replaced while it was opened")

// Lock takes an exclusive, non-blocking flock on path, a lock file it
// creates (0600, never through a symbolic link), and writes this
// process's PID into it, so the refusal a second process gets names who
// holds it. The kernel drops the lock when the holder dies, even by
// SIGKILL: a crash never leaves a state no one may open.
//
// An open that fails returns os.OpenFile's error; a lock that fails a
// *HeldError whose holder is the PID the file holds.
func Lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b))); perr == nil && pid > 0 {
				holder = "burnrate PID " + strconv.Itoa(pid)
			}
		}
		f.Close()
		return nil, &HeldError{Path: path, Holder: holder, Err: err}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// LockFile takes the same lock on the file at path itself, through a
// descriptor of its own, and checks that it is the file same is open on.
// A lock file is per name: a file reached by two names that are one file
// (a bind mount into a container, say) would give two processes two
// locks. The file's own lock is one per file however it is reached.
//
// An open that fails returns os.OpenFile's error; another file under the
// name ErrReplaced; a lock that fails a *HeldError whose holder is read
// from /proc/locks.
func LockFile(path string, same *os.File) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	a, aerr := f.Stat()
	b, berr := same.Stat()
	if aerr != nil || berr != nil || !os.SameFile(a, b) {
		f.Close()
		return nil, ErrReplaced
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		holder := "another process"
		if pid := holderPID(a); pid > 0 {
			holder = "PID " + strconv.Itoa(pid)
		}
		return nil, &HeldError{Path: path, Holder: holder, Err: err}
	}
	return f, nil
}

// Unlock drops a lock Lock or LockFile took; nil is no lock.
func Unlock(f *os.File) {
	if f == nil {
		return
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// holderPID finds the PID holding a flock on the file in /proc/locks
// (0 when it cannot: another PID namespace, no /proc). A line reads
// "1: FLOCK  ADVISORY  WRITE 4242 08:01:5407605 0 EOF".
func holderPID(st os.FileInfo) int {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	suffix := ":" + strconv.FormatUint(sys.Ino, 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || !strings.HasSuffix(fs[5], suffix) {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 && pid != os.Getpid() {
			return pid
		}
	}
	return 0
}
