package alerts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// lockJournal takes an exclusive, non-blocking flock on path+".lock" and
// writes this process's PID into it, so the refusal a second process gets
// names who holds it. The kernel drops the lock when the holder dies, even
// by SIGKILL: a crash never leaves a journal that no one may open.
func lockJournal(path string) (*os.File, error) {
	lp := path + ".lock"
	f, err := os.OpenFile(lp, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = errors.New("is a symbolic link")
		}
		return nil, fmt.Errorf("journal lock %s: %w (set --journal to a directory this user owns)", lp, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(lp); rerr == nil {
			if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b))); perr == nil && pid > 0 {
				holder = "burnrate PID " + strconv.Itoa(pid)
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: journal %s is held by %s (lock %s); two processes on one journal would both run every kill: give this one its own --journal, or stop the other", ErrJournalLocked, path, holder, lp)
		}
		return nil, fmt.Errorf("journal lock %s: %w", lp, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func unlockJournal(f *os.File) {
	if f == nil {
		return
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}
