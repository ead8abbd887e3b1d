package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// othersMayReplace refuses a file in a directory another user could
// rename a file of their own over it in: a directory above it writable
// by every user without the sticky bit, or owned by another user than
// this one or root — as sshd's StrictModes does. The file's own mode
// alone let a 0644 config in a 0777 directory arm kills (red team R8-31).
func othersMayReplace(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil {
			return nil
		}
		if st.Mode().Perm()&0o002 != 0 && st.Mode()&os.ModeSticky == 0 {
			return fmt.Errorf("its directory %s is writable by every user (mode %04o) without the sticky bit: anyone could put a file of their own in its place; chmod o-w (or +t) it, or keep the file in a directory of your own", dir, st.Mode().Perm())
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() && st.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("its directory %s is owned by user %d and writable by others (mode %04o): they could put a file in its place; keep the file in a directory of your own", dir, sys.Uid, st.Mode().Perm())
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
