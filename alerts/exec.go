package alerts

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// DefaultExecTimeout bounds a kill command.
const DefaultExecTimeout = 30 * time.Second

// plainToken is what a value must look like before it is put into a
// command's argv: log-derived text is untrusted.
var plainToken = regexp.MustCompile(`^[A-Za-z0-9._:/@-]+$`)

// SafeValue says why a log-derived value may not be substituted into a
// command, or "" when it may: it must be a plain token, must not start
// with "-" (it would become an option: a job ID "--all" turns
// "kubectl delete job {job_id}" into "delete every job") or "/" (a path of
// its own: /etc/passwd), and must have no
// "." or ".." path element (a job ID "../victim" walks out of
// "/srv/jobs/{job_id}").
func SafeValue(v string) string {
	switch {
	case v == "":
		return "is empty"
	case !plainToken.MatchString(v):
		return "is not a plain token (letters, digits, -_.:/@)"
	case v[0] == '-':
		return "starts with \"-\" and would be read as an option"
	case v[0] == '/':
		return "starts with \"/\" and would be read as a path (/etc/passwd)"
	}
	for _, el := range strings.Split(v, "/") {
		if el == ".." || el == "." {
			return "has a \"" + el + "\" path element"
		}
	}
	return ""
}

// ErrRefused marks an action that was not run because a value was unsafe.
var ErrRefused = errors.New("refused")

// ExecTemplate is a kill command split into argv once, at start-up. Fields
// are substituted inside single arguments; no shell ever sees them.
type ExecTemplate struct {
	argv    []string
	Timeout time.Duration
	// SessionIDs holds {job_id} to the full UUID form Claude Code writes
	// (burnrate claude): a short ID such as "e" passes SafeValue but is a
	// substring of every other session's command line.
	SessionIDs bool
}

// sessionID is a Claude Code session ID: a UUID, in full.
var sessionID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ParseExec splits a template such as `kubectl delete job {job_id}` into
// argv, honouring single and double quotes (nothing else: no variables,
// no globs, no backslash escapes outside double quotes).
func ParseExec(tmpl string, timeout time.Duration) (*ExecTemplate, error) {
	return ParseExecNamed("--kill-exec", tmpl, timeout)
}

// execFields are the placeholders a kill command may use. A run-wide
// kill has no job: {run_id} and the spend are its subject.
var execFields = []string{"{job_id}", "{job_type}", "{scope}", "{rule}", "{run_id}", "{spend_usd}", "{ceiling_usd}"}

// ParseExecNamed is ParseExec for the setting called name in its errors
// (--kill-exec, --run-kill-exec).
func ParseExecNamed(name, tmpl string, timeout time.Duration) (*ExecTemplate, error) {
	argv, err := SplitWords(tmpl, "")
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", name, tmpl, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s is empty: give a command such as 'kubectl delete job {job_id}'", name)
	}
	for _, a := range argv {
		for _, f := range execFields {
			a = strings.ReplaceAll(a, f, "")
		}
		if strings.ContainsAny(a, "{}") {
			return nil, fmt.Errorf("%s %q: unknown placeholder in %q; use %s", name, tmpl, a, strings.Join(execFields, ", "))
		}
	}
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	return &ExecTemplate{argv: argv, Timeout: timeout}, nil
}

// Argv substitutes the fields, refusing any value that is not a plain token.
func (t *ExecTemplate) Argv(a Alert) ([]string, error) {
	// Amounts as plain decimals ('f' never writes an exponent), so they
	// pass SafeValue like any other value.
	fields := map[string]string{"{job_id}": a.JobID, "{job_type}": a.JobType, "{scope}": a.Scope, "{rule}": a.Rule, "{run_id}": a.RunID,
		"{spend_usd}": strconv.FormatFloat(a.SpendUSD, 'f', -1, 64), "{ceiling_usd}": strconv.FormatFloat(a.CeilingUSD, 'f', -1, 64)}
	if t.SessionIDs && !sessionID.MatchString(a.JobID) {
		for _, arg := range t.argv {
			if strings.Contains(arg, "{job_id}") {
				return nil, fmt.Errorf("%w: session %q is not a full session ID (a UUID); a session kill runs only for one, so it cannot match another session; the command was not run", ErrRefused, a.JobID)
			}
		}
	}
	out := make([]string, len(t.argv))
	for i, arg := range t.argv {
		for f, v := range fields {
			if !strings.Contains(arg, f) {
				continue
			}
			if (f == "{job_id}" || f == "{run_id}") && ingest.IsCappedID(v) {
				return nil, fmt.Errorf("%w: the %s is longer than %d bytes and was kept as its prefix and a digest (%q): no command can name it; the command was not run, stop it by hand", ErrRefused, strings.Trim(f, "{}"), ingest.MaxIDBytes, v[len(v)-48:])
			}
			if why := SafeValue(v); why != "" {
				return nil, fmt.Errorf("%w: %s %q %s; the command was not run", ErrRefused, strings.Trim(f, "{}"), v, why)
			}
			arg = strings.ReplaceAll(arg, f, v)
		}
		out[i] = arg
	}
	return out, nil
}

// ExecResult records what a command did.
type ExecResult struct {
	Argv     []string
	ExitCode int
	// Stdout and Stderr are what the command wrote to each stream, kept
	// apart: a command that prints a lot and then says why it failed on
	// stderr must not have its error pushed out by its own output. Each
	// holds the first execOutputMax bytes; Stderr also keeps its last
	// execStderrTail bytes, since the reason is usually at the end.
	Stdout string
	Stderr string
	Err    error
	// TimedOut: killed at the timeout; whether it did its work is unknown.
	TimedOut bool
}

// execOutputMax bounds what is kept of the start of each output stream;
// execStderrTail what is kept of the end of stderr past that.
const (
	execOutputMax  = 4096
	execStderrTail = 1024
)

// execWaitDelay is how long Run waits, after the command exited or was
// killed, for its output pipes to close. A child it left in the background
// inherits them and may hold them open for ever; past this delay they are
// closed and the result taken as it is.
const execWaitDelay = 2 * time.Second

// Run executes the command for an alert directly (never through a shell),
// in a process group of its own: at the timeout, and when the stop
// interrupts it, the whole group gets SIGKILL, so a shell script's
// children die with it instead of outliving the timeout.
//
// started, when not nil, is called once the command runs, with its
// process group and its leader's start time (see Record.Pgid), before
// Run waits for it: the dispatcher journals them, so a start after a
// crash can end a group that outlived burnrate.
func (t *ExecTemplate) Run(ctx context.Context, a Alert, started func(pgid int, start uint64, mark string)) ExecResult {
	return t.RunTracked(ctx, a, started, nil)
}

// RunTracked is Run that also follows the command's descendants
// (family.go): spawned, when not nil, is called with all of them seen so
// far each time a new one is seen (the dispatcher journals them), never
// after RunTracked returns. At the timeout and at the stop they are ended
// with the group, setsid'd or not.
//
// Each run's environment carries a mark of its own (runMarkEnv): a start
// after a crash ends only processes whose environment holds the journaled
// mark — a group ID and a start time alone name another process group
// after a reboot or a wrapped PID (red team R8-14).
func (t *ExecTemplate) RunTracked(ctx context.Context, a Alert, started func(pgid int, start uint64, mark string), spawned func([]Proc)) ExecResult {
	argv, err := t.Argv(a)
	if err != nil {
		return ExecResult{ExitCode: -1, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// Pdeathsig: a burnrate killed by SIGKILL takes the command with it,
	// so the restart's one re-run cannot overlap a copy still running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var fam tracked
	cmd.Cancel = func() error {
		// The negative PID is the group: the command and every child it
		// started that did not leave the group. Then those that did.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		fam.add(descendants(cmd.Process.Pid))
		fam.kill()
		return err
	}
	cmd.WaitDelay = execWaitDelay
	// burnrate's environment minus its own secrets (the HMAC key, the
	// OTLP and /metrics tokens): a command that fails under "curl -v" or
	// "set -x", or runs "env", must not hand them to the journal.
	mark := newRunMark()
	cmd.Env = append(commandEnv(), runMarkEnv+"="+mark)
	// Two buffers: a shared one journaled 4 KiB of stdout as "stderr"
	// and lost the error message written after it. os/exec copies each
	// stream on its own goroutine, so each buffer has one writer.
	stdout := &headTailBuffer{head: execOutputMax}
	stderr := &headTailBuffer{head: execOutputMax, tail: execStderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	becomeSubreaper()
	// A child the command left in the background after exiting 0 is let
	// be (it may be the kill itself, detached); WaitDelay only stops it
	// from holding this worker through the pipes it inherited.
	if err = startLeader(cmd.Start, func() int { return cmd.Process.Pid }); err == nil {
		pid := cmd.Process.Pid
		if started != nil {
			// Setpgid: the group's ID is the leader's PID.
			st, _ := procStart(pid)
			started(pid, st, mark)
		}
		stop, polled := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(polled)
			// Often at first (a child is usually started at once), then
			// less: a walk of /proc costs a few ms, and a hung command
			// may run until exec_timeout.
			every := familyPoll
			for {
				select {
				case <-stop:
					return
				case <-time.After(every):
					if fam.add(descendants(pid)) && spawned != nil {
						spawned(fam.list())
					}
					every = min(familyPollCap, every*3/2)
				}
			}
		}()
		err = cmd.Wait()
		close(stop)
		<-polled
		endLeader(pid)
		if ctx.Err() != nil {
			// The timeout or the stop: what is left of the family goes
			// too — a setsid'd child the poll saw, its children, and an
			// orphan adopted since the command began that the poll
			// missed, when no other command runs whose it could be.
			st, _ := procStart(pid)
			fam.add(orphansSince(st))
			fam.kill()
		}
		reapOrphans()
	}
	// Redacted before anyone sees them: "curl -v" prints the request's
	// Authorization header, "set -x" the token it was given.
	res := ExecResult{Argv: argv, Stdout: strings.TrimSpace(Redact(stdout.String())), Stderr: strings.TrimSpace(Redact(stderr.String()))}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	} else {
		res.ExitCode = -1
	}
	switch {
	case errors.Is(err, exec.ErrWaitDelay) && res.ExitCode == 0:
		// The command itself exited 0 (before the timeout, or it would
		// show a signal); only a lingering child kept its output open.
	case ctx.Err() == context.DeadlineExceeded:
		res.Err = fmt.Errorf("timed out after %s; its process group was killed (whether it did its work is unknown)", t.Timeout)
		res.TimedOut = true
	case err != nil:
		res.Err = fmt.Errorf("%s: %w", argv[0], err)
	}
	if res.Err != nil {
		if msg := Redact(res.Err.Error()); msg != res.Err.Error() {
			res.Err = redactedError{msg: msg, err: res.Err}
		}
	}
	return res
}

// tracked is a command's descendants seen so far.
type tracked struct {
	mu    sync.Mutex
	procs []Proc
}

// add takes in ps; true when one was new (and there was room).
func (f *tracked) add(ps []Proc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	grew := false
	for _, p := range ps {
		if len(f.procs) >= maxProcs {
			break
		}
		if !slices.Contains(f.procs, p) {
			f.procs = append(f.procs, p)
			grew = true
			adopt(p)
		}
	}
	return grew
}

func (f *tracked) list() []Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.procs)
}

// kill sends SIGKILL to every tracked process still alive as itself, and
// to what it started since.
func (f *tracked) kill() {
	ps := f.list()
	for _, p := range ps {
		if _, _, start, ok := procInfo(p.PID); ok && start == p.Start {
			ps = append(ps, descendants(p.PID)...)
		}
	}
	for _, p := range ps {
		adopt(p) // reaped by burnrate if it is reparented to it
	}
	endProcs(ps, 0, "")
}

// headTailBuffer keeps the first head bytes of a stream and, when tail
// is set, its last tail bytes, in bounded memory however much is written.
// It locks: Wait may read it while a lingering child still writes.
type headTailBuffer struct {
	mu         sync.Mutex
	head, tail int
	first      []byte
	last       []byte // a ring of tail bytes once full; lastAt is its start
	lastAt     int
	total      int64
}

func (b *headTailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.head - len(b.first); room > 0 {
		k := min(len(p), room)
		b.first = append(b.first, p[:k]...)
		p = p[k:]
	}
	if b.tail == 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= b.tail {
		// Only the end of this write can survive.
		b.last = append(b.last[:0], p[len(p)-b.tail:]...)
		b.lastAt = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(b.last) < b.tail {
			k := min(len(p), b.tail-len(b.last))
			b.last = append(b.last, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.last[b.lastAt:], p)
		b.lastAt = (b.lastAt + k) % b.tail
		p = p[k:]
	}
	return n, nil
}

// String is the head, then — when bytes were dropped between them — a
// line saying how many, then the tail.
func (b *headTailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := append(append([]byte(nil), b.last[b.lastAt:]...), b.last[:b.lastAt]...)
	dropped := b.total - int64(len(b.first)) - int64(len(tail))
	if dropped <= 0 {
		return string(b.first) + string(tail)
	}
	if len(tail) == 0 {
		return string(b.first) + fmt.Sprintf("\n[… %d more bytes not kept]", dropped)
	}
	return string(b.first) + fmt.Sprintf("\n[… %d bytes not kept …]\n", dropped) + string(tail)
}

// lastLine is the last non-blank line of s, cut to at most max bytes.
func lastLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if len(s) > max {
		s = strings.ToValidUTF8(s[len(s)-max:], "")
	}
	return s
}

// ErrRefusedChar: SplitWords met, outside quotes, a character it was told
// to refuse.
var ErrRefusedChar = errors.New("a character that is not run (a pipe, a variable or a substitution)")

// SplitWords splits a command line into words as a shell does for words
// and quotes, and nothing else: no variables, globs, pipes or escapes, so
// a value is never read as shell syntax. A character of refuse outside
// quotes is ErrRefusedChar; an open quote is an error naming it.
func SplitWords(s, refuse string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case strings.ContainsRune(refuse, r):
			return nil, fmt.Errorf("%q: %w", r, ErrRefusedChar)
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
