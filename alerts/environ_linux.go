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
