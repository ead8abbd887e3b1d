package alerts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// lockJournalFile takes an exclusive, non-blocking flock on the journal
// file itself, through a descriptor of its own: the lock on path+".lock"
// is per name, and a journal reached by two names that are one file — a
// bind mount of it into a container, say — would give two processes two
// locks and both would run every kill. The file's own lock is one per
// file however it is reached. Compaction moves it to the new file before
// the rename (see compactNow).
func lockJournalFile(path string, journal *os.File) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	a, aerr := f.Stat()
	b, berr := journal.Stat()
	if aerr != nil || berr != nil || !os.SameFile(a, b) {
		f.Close()
		return nil, fmt.Errorf("journal %s was replaced while it was opened; start again", path)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if pid := flockHolder(a); pid > 0 {
				holder = "PID " + strconv.Itoa(pid)
			}
			return nil, fmt.Errorf("%w: journal %s is held by %s through another name for the same file (a bind mount, or another path to it); two processes on one journal would both run every kill: give this one its own --journal, or stop the other", ErrJournalLocked, path, holder)
		}
		return nil, fmt.Errorf("journal %s: lock: %w", path, err)
	}
	return f, nil
}

// flockHolder finds the PID holding a flock on the file in /proc/locks
// (0 when it cannot: another PID namespace, no /proc). A line reads
// "1: FLOCK  ADVISORY  WRITE 4242 08:01:5407605 0 EOF".
func flockHolder(st os.FileInfo) int {
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
