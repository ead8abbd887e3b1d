package alerts

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A kill command's family: its process group is not all of it. A child
// that called setsid ("setsid sleep 1000 &", a daemonizing tool) has
// left the group, so neither the SIGKILL to the group at exec_timeout nor
// Pdeathsig nor the start's endGroup reached it: it outlived the timeout,
// the stop, and burnrate's SIGKILL. So:
//
//   - burnrate is the child subreaper while commands run (becomeSubreaper):
//     an orphaned descendant is reparented to it, not to init;
//   - while a command runs, its descendants (by parent links in /proc,
//     from its leader) are polled and journaled with their start times
//     (Record.Procs), so a start after a SIGKILL ends those still alive
//     before the command runs again;
//   - at exec_timeout and at the stop, the group is killed, then every
//     descendant seen, and an orphan adopted since the command began
//     that left burnrate's session, when no other command runs;
//   - orphans adopted are reaped once they exit (a zombie each
//     otherwise): in the binary (OwnAllChildren) every child but a
//     running command's leader, else only the descendants seen.

// Proc names a process by PID and start time (clock ticks since boot),
// so a PID reused by another process is not taken for it.
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// maxProcs bounds the descendants journaled for one command (a record
// stays under sentRecordBytes).
const maxProcs = 64

// familyPoll is how soon a running command's descendants are first looked
// for; the look is made less often from then on, up to familyPollCap.
const (
	familyPoll    = 50 * time.Millisecond
	familyPollCap = time.Second
)

// family is the process-wide registry of running command leaders. Its
// lock is held across a command's Start and its registration, and by the
// reaper, so the reaper never takes a leader's exit status from os/exec.
var family struct {
	mu      sync.Mutex
	leaders map[int]bool
	// ours are the descendants of commands seen (tracked): the only
	// exited children reapOrphans waits for — a process that runs other
	// children (a test) keeps their exit statuses.
	ours map[Proc]bool
}

// maxOurs bounds family.ours (a reaped process leaves it).
const maxOurs = 4096

// adopt records p as a command's descendant, for reapOrphans.
func adopt(p Proc) {
	family.mu.Lock()
	defer family.mu.Unlock()
	if family.ours == nil {
		family.ours = map[Proc]bool{}
	}
	if len(family.ours) < maxOurs {
		family.ours[p] = true
	}
}

// startLeader runs start (cmd.Start) and registers the leader it made.
func startLeader(start func() error, pid func() int) error {
	family.mu.Lock()
	defer family.mu.Unlock()
	if err := start(); err != nil {
		return err
	}
	if family.leaders == nil {
		family.leaders = map[int]bool{}
	}
	family.leaders[pid()] = true
	return nil
}

// endLeader forgets a leader once os/exec has waited for it.
func endLeader(pid int) {
	family.mu.Lock()
	delete(family.leaders, pid)
	family.mu.Unlock()
}

// procInfo is a process's parent, state and start time from
// /proc/PID/stat (the fields after the command name's last ')').
func procInfo(pid int) (ppid int, state byte, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) == 0 {
		return 0, 0, 0, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return ppid, f[0][0], start, true
}

type procEntry struct {
	pid, ppid, sid int
	state          byte
	start          uint64
}

func allProcs() []procEntry {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	out := make([]procEntry, 0, len(dirs))
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if ppid, st, start, ok := procInfo(pid); ok {
			out = append(out, procEntry{pid: pid, ppid: ppid, sid: procSession(pid), state: st, start: start})
		}
	}
	return out
}

// descendants are the live processes below root (root excluded), by
// parent links.
func descendants(root int) []Proc {
	procs := allProcs()
	kids := map[int][]procEntry{}
	for _, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], p)
	}
	var out []Proc
	seen := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		for _, c := range kids[pid] {
			if seen[c.pid] || c.state == 'Z' {
				continue
			}
			seen[c.pid] = true
			out = append(out, Proc{c.pid, c.start})
			walk(c.pid)
		}
	}
	if root > 0 {
		walk(root)
	}
	return out
}

// orphansSince are the live orphans burnrate adopted that left its
// session (setsid) and started at or after start (a leader's start
// time), when no command is running: then they can only be the
// just-ended command's family. A child of burnrate's own session is none
// of theirs (a command's descendant that did not setsid stays in its
// group, which got the SIGKILL).
func orphansSince(start uint64) []Proc {
	family.mu.Lock()
	busy := len(family.leaders) > 0
	family.mu.Unlock()
	if busy {
		return nil
	}
	self, ourSID := os.Getpid(), procSession(os.Getpid())
	var out []Proc
	for _, p := range allProcs() {
		if p.ppid == self && p.state != 'Z' && p.start >= start && p.sid != ourSID {
			out = append(out, Proc{p.pid, p.start})
			out = append(out, descendants(p.pid)...)
		}
	}
	return out
}

// procSession is pid's session ID (/proc/PID/stat field 6), -1 unknown.
func procSession(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 {
		return -1
	}
	sid, err := strconv.Atoi(string(f[3]))
	if err != nil {
		return -1
	}
	return sid
}

// endProcs ends the processes of ps still alive as the ones named (same
// PID and start time): SIGTERM, then after groupGrace SIGKILL. It returns
// how many were alive, and an error when some outlived the SIGKILL.
func endProcs(ps []Proc, grace time.Duration, mark string) (int, error) {
	alive := func() []Proc {
		var out []Proc
		for _, p := range ps {
			if p.PID <= 1 || p.PID == os.Getpid() {
				continue
			}
			if _, st, start, ok := procInfo(p.PID); ok && st != 'Z' && start == p.Start && hasRunMark(p.PID, mark) {
				out = append(out, p)
			}
		}
		return out
	}
	found := alive()
	if len(found) == 0 {
		return 0, nil
	}
	signal := func(sig syscall.Signal) {
		for _, p := range alive() {
			syscall.Kill(p.PID, sig)
		}
	}
	if grace > 0 {
		signal(syscall.SIGTERM)
		for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			reapOrphans()
			if len(alive()) == 0 {
				return len(found), nil
			}
		}
	}
	signal(syscall.SIGKILL)
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		reapOrphans()
		if len(alive()) == 0 {
			return len(found), nil
		}
	}
	return len(found), errors.New("some outlived SIGKILL")
}

// reapAll is set by OwnAllChildren: the process starts children only
// through this package (startLeader), so any other child is an orphan it
// adopted as subreaper.
var reapAll atomic.Bool

// OwnAllChildren says the process starts every child it has through this
// package's commands (the burnrate binary: its kill commands are its only
// execs): then every exited child that is not a running command's leader
// is an orphan it adopted as subreaper, and is reaped — also one no poll
// of /proc saw ("( sleep 0.3 & ); exit 0" left 50 zombies for 50 kills,
// issue 34's red team). A process that runs other children (a test)
// does not call it, and keeps their exit statuses: only descendants seen
// (family.ours) are reaped there.
func OwnAllChildren() { reapAll.Store(true) }

// selfChildren are the PIDs of burnrate's children, from
// /proc/self/task/*/children (an orphan is reparented to one thread of
// the subreaper, not always the main one), or from a walk of /proc when
// the kernel has no such file.
func selfChildren() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var out []int
	read := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		read = true
		for _, w := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(w)); err == nil {
				out = append(out, pid)
			}
		}
	}
	if read {
		return out
	}
	self := os.Getpid()
	for _, p := range allProcs() {
		if p.ppid == self {
			out = append(out, p.pid)
		}
	}
	return out
}

// reapOrphans waits for burnrate's exited children that are orphans it
// adopted as subreaper: every child but a running command's leader under
// OwnAllChildren, else the commands' descendants seen (family.ours). A
// leader's exit is os/exec's to wait for: leaders are registered under
// family.mu across their Start, and the lock is held here, so no leader
// is ever waited for by this.
func reapOrphans() {
	all := reapAll.Load()
	if !all {
		family.mu.Lock()
		n := len(family.ours)
		family.mu.Unlock()
		if n == 0 {
			return
		}
	}
	family.mu.Lock()
	defer family.mu.Unlock()
	for _, pid := range selfChildren() {
		if family.leaders[pid] {
			continue
		}
		_, st, start, ok := procInfo(pid)
		if !ok || st != 'Z' {
			continue
		}
		q := Proc{pid, start}
		if !all && !family.ours[q] {
			continue
		}
		var ws syscall.WaitStatus
		if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
			delete(family.ours, q)
		}
	}
}

// reapLoop reaps adopted orphans for as long as burnrate runs: at each
// SIGCHLD (an orphan that exits signals its new parent), and every second
// in case one was coalesced with another.
func reapLoop() {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	tick := time.NewTicker(time.Second)
	for {
		select {
		case <-chld:
		case <-tick.C:
		}
		reapOrphans()
	}
}
