//go:build unix

package audit

import (
	"os"
	"syscall"
)

// openNoFollow refuses a path whose last element became a symlink after
// the walk, and does not block on a FIFO swapped in for a file.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
