package alerts

import (
	"sync"
	"syscall"
)

var hideOnce sync.Once

// hideEnviron makes burnrate's /proc/PID/environ (and cmdline, mem, fds)
// unreadable to other processes of the same user, which a kill command
// is: commandEnv keeps BURNRATE_WEBHOOK_SECRET and the tokens out of the
// command's own environment, but "cat /proc/$PPID/environ" read them back
// from burnrate's (issue 34's red team). PR_SET_DUMPABLE 0 is what
// ssh-agent and gpg-agent set for the same reason; it also stops core
// dumps and same-user ptrace of burnrate, which a process holding keys
// should not allow anyway. The command itself is dumpable again: execve
// resets the flag.
func hideEnviron() {
	hideOnce.Do(func() {
		const prSetDumpable = 4 // linux/prctl.h PR_SET_DUMPABLE
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
	})
}

var subreaperOnce sync.Once

// becomeSubreaper makes burnrate the child subreaper of what its kill
// commands start: a child a command detached ("setsid sleep 1000 &", a
// daemonizing kubectl) is reparented to burnrate when its parent exits,
// not to init, so the stop and exec_timeout can find and end it
// (family.go), and burnrate reaps it when it exits. Set before the first
// command runs and kept: an orphan adopted stays burnrate's to reap.
func becomeSubreaper() bool {
	ok := true
	subreaperOnce.Do(func() {
		const prSetChildSubreaper = 36 // linux/prctl.h PR_SET_CHILD_SUBREAPER
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
			ok = false
		}
		if ok {
			go reapLoop()
		}
	})
	return ok
}
