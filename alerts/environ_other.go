//go:build !linux

package alerts

// hideEnviron: only Linux exposes a process's environment to its
// children through /proc; elsewhere there is nothing to hide here.
func hideEnviron() {}

// becomeSubreaper: only Linux has a child subreaper; elsewhere a
// detached child of a kill command is ended through its journaled PID.
func becomeSubreaper() bool { return false }
