//go:build !unix

package audit

import "os"

// openNoFollow: without O_NOFOLLOW the walk's Lstat is the only guard.
func openNoFollow(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return os.Open(p)
}
