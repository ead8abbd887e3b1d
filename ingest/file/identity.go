package file

import (
	"io/fs"
	"os"
	"syscall"
)

// fileID is a file's identity: its device and inode, whatever paths,
// symlinks or hard links name it.
type fileID struct{ dev, ino uint64 }

func identity(path string) (fileID, bool) {
	stat := os.Stat
	if path == "-" {
		stat = func(string) (os.FileInfo, error) { return os.Stdin.Stat() } // < a.jsonl is that file
	}
	st, err := stat(path)
	if err != nil {
		return fileID{}, false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.Mode().IsRegular() {
		return fileID{}, false
	}
	return fileID{uint64(sys.Dev), sys.Ino}, true
}

// Duplicate is a path left out because another path names the same file.
type Duplicate struct{ Path, Kept string }

// Note says so, for stderr and the dashboard.
func (d Duplicate) Note() string {
	return d.Path + " and " + d.Kept + " are the same file: read once, as " + d.Kept
}

// OnePathPerFile keeps one path per file (device and inode): a glob and the
// file's own name, a current.jsonl symlink beside the dated file, a hard
// link, a path given twice — each file is read, and billed, once. A path
// that is not a symlink is preferred over one that is (the dated file
// stays the same file when the link moves on), then the first given; the
// order of what is kept is the order given. Paths that do not name a
// regular file (stdin, a glob not expanded, a missing file) are kept, for
// the caller to report.
func OnePathPerFile(paths []string) (kept []string, dups []Duplicate) {
	return OnePathPerFileKeeping(paths, nil)
}

// OnePathPerFileKeeping is OnePathPerFile for a follower: a path it is
// reading already (reading reports it) stays the file's path whatever
// appears later — a hard link found by a glob after a symlink was being
// followed was read again from its start, and the file billed twice.
func OnePathPerFileKeeping(paths []string, reading func(string) bool) (kept []string, dups []Duplicate) {
	owner := map[fileID]string{}
	isLink := func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && st.Mode()&os.ModeSymlink != 0
	}
	// Owners first: paths being read, then non-symlinks in order, then
	// symlinks.
	for pass := range 3 {
		for _, p := range paths {
			id, ok := identity(p)
			if !ok {
				continue
			}
			read := reading != nil && reading(p)
			if (pass == 0) != read || (pass == 1 && isLink(p)) || (pass == 2 && !isLink(p)) {
				continue
			}
			if _, taken := owner[id]; !taken {
				owner[id] = p
			}
		}
	}
	// seen: a path named twice (its own name and a glob that matches it)
	// is kept, or said to be a duplicate, once.
	seen := map[string]bool{}
	for _, p := range paths {
		id, ok := identity(p)
		switch {
		case !ok:
			kept = append(kept, p)
		case seen[p]:
		case owner[id] == p:
			kept = append(kept, p)
		default:
			dups = append(dups, Duplicate{Path: p, Kept: owner[id]})
		}
		seen[p] = true
	}
	return kept, dups
}

// Kind names a mode's file type for messages: "a named pipe (FIFO)",
// "a directory", ….
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}
