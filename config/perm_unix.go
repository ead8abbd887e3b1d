package config

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// othersMayWrite refuses a file another user could have written: mode o+w,
// or an owner who is neither this user nor root.
func othersMayWrite(st fs.FileInfo) error {
	if st.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("is writable by every user (mode %04o): anyone could change what it says; chmod o-w it", st.Mode().Perm())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("is owned by user %d, not this user (%d) or root: its owner could change what it says; chown it, or copy it to a file of your own", sys.Uid, os.Geteuid())
	}
	return nil
}
