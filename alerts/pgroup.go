package alerts

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// A kill command runs in a process group of its own, journaled while it
// runs (Record.Pgid). Pdeathsig takes the group's leader with a burnrate
// that is SIGKILLed, but not the leader's children (a shell script's
// "sleep", a "kubectl" it started): they live on in the group. A start
// that is about to run the command again ends that group first, so the
// two runs never overlap.

// groupGrace is how long a group has between SIGTERM and SIGKILL.
const groupGrace = 2 * time.Second

// procStat reads a process's group and start time (clock ticks since
// boot) from /proc/PID/stat. The command name (field 2) is in parentheses
// and may hold spaces and parentheses itself: the fields are read after
// its last ')'.
func procStat(pid int) (pgrp int, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	// After the name: state(3) ppid(4) pgrp(5) … starttime(22).
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	if string(f[0]) == "Z" {
		// A zombie has done all it will: dead, waiting to be reaped.
		return 0, 0, fmt.Errorf("/proc/%d: a zombie", pid)
	}
	if pgrp, err = strconv.Atoi(string(f[2])); err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: pgrp: %w", pid, err)
	}
	if start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	return pgrp, start, nil
}

func procStart(pid int) (uint64, error) {
	_, st, err := procStat(pid)
	return st, err
}

// groupMembers lists the live processes of group pgid that are the
// recorded group's: started no earlier than its leader. When a process
// with the group's ID is alive and started at another time, the ID was
// reused (the recorded group is gone, its members dead, or the kernel
// could not have reused the ID), and nothing is ours.
//
// With a mark (Record.Mark), a member must carry it in its environment,
// and a group any live member of which does not is not ours at all: after
// a reboot start times count from another boot, and a PID wraps within
// one, so an unrelated group can have the recorded ID and members started
// after the recorded leader (red team R8-14: a restart SIGKILLed two
// innocent processes).
func groupMembers(pgid int, leaderStart uint64, mark string) []int {
	if pgid <= 1 {
		return nil
	}
	if _, st, err := procStat(pgid); err == nil && st != leaderStart {
		return nil
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		pg, st, err := procStat(pid)
		if err != nil || pg != pgid || st < leaderStart {
			continue
		}
		if !hasRunMark(pid, mark) {
			return nil
		}
		out = append(out, pid)
	}
	return out
}

// runMarkEnv names the environment variable that marks one run of a kill
// command (ExecTemplate.RunTracked): its children inherit it.
const runMarkEnv = "BURNRATE_KILL_RUN"

// newRunMark is a mark no other run has: 128 random bits.
func newRunMark() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ""
	}
	return hex.EncodeToString(b[:])
}

// maxEnvironBytes bounds the read of a process's environment.
const maxEnvironBytes = 1 << 20

// hasRunMark: mark is "" (a journal from before marks: the group and
// start time alone), or pid's environment holds runMarkEnv=mark. An
// environment that cannot be read (another user's process, one that
// exited) does not hold it.
func hasRunMark(pid int, mark string) bool {
	if mark == "" {
		return true
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
	want := []byte(runMarkEnv + "=" + mark)
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// endGroup ends what is left of a recorded group: SIGTERM to the group,
// then, after groupGrace, SIGKILL. It returns how many processes were
// found, and an error when some outlived the SIGKILL.
func endGroup(pgid int, leaderStart uint64, mark string) (int, error) {
	found := groupMembers(pgid, leaderStart, mark)
	if len(found) == 0 {
		return 0, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return len(found), fmt.Errorf("SIGTERM to process group %d: %w", pgid, err)
	}
	for end := time.Now().Add(groupGrace); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if len(groupMembers(pgid, leaderStart, mark)) == 0 {
			return len(found), nil
		}
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return len(found), fmt.Errorf("SIGKILL to process group %d: %w", pgid, err)
	}
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if len(groupMembers(pgid, leaderStart, mark)) == 0 {
			return len(found), nil
		}
	}
	return len(found), fmt.Errorf("process group %d outlived SIGKILL", pgid)
}
