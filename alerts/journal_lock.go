package alerts

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/burnrate-dev/burnrate/statedir/flock"
)

// lockJournal takes the state directory's lock (flock.Lock) on
// path+".lock", so a second process on one journal is refused with the
// PID of the one that holds it.
func lockJournal(path string) (*os.File, error) {
	lp := path + ".lock"
	f, err := flock.Lock(lp)
	var held *flock.HeldError
	switch {
	case err == nil:
		return f, nil
	case !errors.As(err, &held):
		if errors.Is(err, syscall.ELOOP) {
			err = errors.New("is a symbolic link")
		}
		return nil, fmt.Errorf("journal lock %s: %w (set --journal to a directory this user owns)", lp, err)
	case errors.Is(err, syscall.EWOULDBLOCK):
		return nil, fmt.Errorf("%w: journal %s is held by %s (lock %s); two processes on one journal would both run every kill: give this one its own --journal, or stop the other", ErrJournalLocked, path, held.Holder, lp)
	default:
		return nil, fmt.Errorf("journal lock %s: %w", lp, held.Err)
	}
}

func unlockJournal(f *os.File) { flock.Unlock(f) }

// lockJournalFile takes the lock on the journal file itself (flock.LockFile):
// the lock on path+".lock" is per name, and a journal reached by two names
// that are one file — a bind mount of it into a container, say — would
// give two processes two locks and both would run every kill. Compaction
// moves it to the new file before the rename (see compactNow).
func lockJournalFile(path string, journal *os.File) (*os.File, error) {
	f, err := flock.LockFile(path, journal)
	var held *flock.HeldError
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, flock.ErrReplaced):
		return nil, fmt.Errorf("journal %s was replaced while it was opened; start again", path)
	case !errors.As(err, &held):
		return nil, fmt.Errorf("journal %s: %w", path, err)
	case errors.Is(err, syscall.EWOULDBLOCK):
		return nil, fmt.Errorf("%w: journal %s is held by %s through another name for the same file (a bind mount, or another path to it); two processes on one journal would both run every kill: give this one its own --journal, or stop the other", ErrJournalLocked, path, held.Holder)
	default:
		return nil, fmt.Errorf("journal %s: lock: %w", path, held.Err)
	}
}
