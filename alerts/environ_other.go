//go:build !linux

package alerts

// hideEnviron: only Linux exposes a process's environment to its
// children through /proc; elsewhere there is nothing to hide here.
func hideEnviron() {}
