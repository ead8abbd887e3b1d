package alerts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/statedir/flock"
)

// ActionState is where an action is on its way; the journal, headless
// JSON and the webhook's receiver all see these names.
type ActionState string

// Action states. Only acknowledged and rejected end an action for good:
// everything else is sent again by a later start that may act.
const (
	StateRequested    ActionState = "requested" // journaled, waiting for or in delivery
	StateSent         ActionState = "sent"
	StateAcknowledged ActionState = "acknowledged" // the receiver answered 2xx / the command exited 0
	StateRejected     ActionState = "rejected"     // the receiver answered a permanent 4xx: resending cannot help
	StateFailed       ActionState = "failed"       // retries or deadline ran out; a later start sends it again
	// StateMisconfigured: the receiver's address or credentials are wrong
	// (a redirect, 401, 403, 404, 405). The kill was never judged, so a
	// later start — after the operator fixes the setting — sends it again.
	StateMisconfigured ActionState = "misconfigured"
	// StateGaveUp: a kill command whose outcome was lost twice; never run
	// again blind (an operator checks by hand).
	StateGaveUp ActionState = "gave_up"
	// StateHeld: not fired, because its record could not be journaled
	// first (a full disk): fired once the journal writes again. Said in
	// results only; the journal cannot hold it, by definition.
	StateHeld ActionState = "held"
	// StateRetrying: a delivery failed with a retryable error and the
	// running daemon sends it again after a backoff; the journal says
	// failed meanwhile, so a crash leaves it for the next start.
	StateRetrying  ActionState = "retrying"
	StateRefused   ActionState = "refused"    // this process would not act (read-only, unsafe value, no hook)
	StateWouldFire ActionState = "would_fire" // --dry-run
)

// KillState is a job's kill as the dashboard shows it.
type KillState struct {
	State ActionState
	// StillLogging is set when the job logged attempts after its kill.
	StillLogging bool
}

// Line is an alert or an action result, for the dashboard's alerts pane.
type Line struct {
	At       int64 // log time
	Severity correlate.Severity
	Text     string
}

// Record is one line of the journal.
type Record struct {
	Time  string `json:"time"`   // wall clock when written
	LogAt string `json:"log_at"` // log time of the alert
	// LogHigh is the latest record time the run had read when the alert
	// fired (Alert.LogHigh); absent in journals written before it.
	LogHigh  string      `json:"log_high,omitempty"`
	Key      string      `json:"key"`    // the Idempotency-Key
	Action   string      `json:"action"` // kill_webhook, kill_exec, notify
	Rule     string      `json:"rule"`
	Scope    string      `json:"scope"`
	RunID    string      `json:"run_id"`
	JobID    string      `json:"job_id"`
	JobType  string      `json:"job_type"`
	State    ActionState `json:"state"`
	Attempts int         `json:"attempts,omitempty"`
	Status   int         `json:"status,omitempty"`
	ExitCode *int        `json:"exit_code,omitempty"`
	Stdout   string      `json:"stdout,omitempty"` // a kill command's stdout: its first 4 KiB
	Stderr   string      `json:"stderr,omitempty"` // its stderr: the first 4 KiB and the last 1 KiB
	Error    string      `json:"error,omitempty"`
	// Resent counts the starts that ran this action again without knowing
	// how the previous run of it ended (a crash, or a result the journal
	// could not record). A command is re-run at most once that way: it is
	// not idempotent the way a keyed webhook is.
	Resent int `json:"resent,omitempty"`
	// TimedOut: the command was killed at exec_timeout, so whether it
	// did its work is unknown; a later start counts it like a lost
	// outcome (Resent), so it runs at most once more across all starts.
	TimedOut bool `json:"timed_out,omitempty"`
	// Pgid and PgidStart name a kill command's process group while it
	// runs (the "sent" record): the group's ID and its leader's start time
	// in clock ticks since boot (/proc/PID/stat field 22), so a PID reused
	// by another process is not taken for it. A start that finds the group
	// still alive ends it before it runs the command again.
	Pgid      int    `json:"pgid,omitempty"`
	PgidStart uint64 `json:"pgid_start,omitempty"`
	// Mark is the value of BURNRATE_KILL_RUN in the command's environment
	// (runMarkEnv): a start ends only processes whose environment holds
	// it. Absent in journals written before it: the group and start time
	// alone then.
	Mark string `json:"mark,omitempty"`
	// Procs are the command's descendants seen while it ran, by PID and
	// start time (a later "sent" record each time one is seen): a child
	// that called setsid has left the group, and a start ends those still
	// alive too before it runs the command again.
	Procs []Proc `json:"procs,omitempty"`
	// Alert is carried by requested records, so that a later start can
	// send an action this process never finished, even when the log that
	// raised it is not read again.
	Alert *Alert `json:"alert,omitempty"`
	AtNS  int64  `json:"at_ns,omitempty"`
}

// Journal limits.
const (
	// maxRecordBytes bounds one journal line; a longer one is garbage,
	// skipped (read past in bounded memory) with a warning.
	maxRecordBytes = 1 << 20
	// compactAbove is the size past which the journal is rewritten to its
	// live state: the last record of every action that can still matter.
	// The threshold is also at least twice the size the last compaction
	// left, so a large live state is rewritten once per doubling, never
	// once per append: an append stays O(record).
	compactAbove = 16 << 20
	// keepDone is how long a finished action is kept through compaction;
	// keys carry the run, so an older one only matters to a replay of
	// that same night.
	keepDone = 30 * 24 * time.Hour
)

// Journal is an append-only, fsync'd record of every action attempt and
// result. Read back at start-up it does two things: a finished action
// (acknowledged, rejected) is never sent again, and an unfinished one
// (requested, sent, failed) is sent again under the same key.
type Journal struct {
	mu       sync.Mutex
	f        *os.File
	path     string
	size     int64
	live     int64             // bytes the last compaction left
	last     map[string]Record // key → latest record
	warnings []string

	lock     *os.File // the held flock on path+".lock"; nil when read-only
	fileLock *os.File // the held flock on the journal file itself (see lockJournalFile)
	readOnly bool
	badLines int // lines skipped as not records

	// Compaction runs on its own goroutine: appends made while it writes
	// the new file are kept in tail and written after the live state, so
	// the engine goroutine never waits for a rewrite.
	compacting bool
	tail       [][]byte
	compactReq chan struct{}
	compactErr error
	// noFallocate is set when the file system cannot reserve room beyond
	// the end of the file (see room): the file-size limit is still checked.
	noFallocate bool
	// unreserved is set while the room kept for outcomes could not be
	// allocated (RoomProblem); tight when it was, but not the slack past
	// it (a nearly full disk).
	unreserved string
	tight      bool
	// allocated is the offset up to which f's blocks are known allocated
	// (see room): an append within it makes no system call.
	allocated int64
	closed    chan struct{}
	closeOnce sync.Once
	compactWG sync.WaitGroup
}

// ErrJournalLocked is returned when another process holds the journal.
var ErrJournalLocked = errors.New("journal in use by another process")

// Blocks reports whether an action in this state must never be sent again.
// Refusals and dry runs are this process's own settings, and failures are
// transient: none of them may stop a later run that can act.
func (s ActionState) Blocks() bool {
	return s == StateAcknowledged || s == StateRejected || s == StateGaveUp
}

// OpenJournal opens (creating) the journal at path and reads it back. A
// torn line (a write cut short by a crash), a garbage line or one over
// 1 MiB is skipped with a warning naming the file and line (Warnings);
// it never swallows the record after it.
//
// The process that opens a journal owns it: an exclusive lock on
// path+".lock" (a file that is never renamed, so compaction cannot move
// the lock away) is held until Close. A second process gets
// ErrJournalLocked naming the holder's PID: two processes on one journal
// would both run every kill, and one's compaction would drop the other's
// records.
func OpenJournal(path string) (*Journal, error) {
	hint := "(set journal = \"PATH\" in the config, or --journal, to put it where this user may write)"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w %s", path, err, hint)
	}
	// O_NOFOLLOW: a journal path that is a symlink could make this
	// process append to, and compaction rewrite, a file it was never
	// meant to touch. The file is checked before the lock is taken, so a
	// refused one gets no lock file beside it.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = errors.New("is a symbolic link; give the real path")
		}
		return nil, fmt.Errorf("journal %s: %w %s", path, err, hint)
	}
	if err := checkJournalFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := checkOneName(f, path, "open"); err != nil {
		f.Close()
		return nil, err
	}
	lock, err := lockJournal(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	fileLock, err := lockJournalFile(path, f)
	if err != nil {
		f.Close()
		unlockJournal(lock)
		return nil, err
	}
	j := &Journal{f: f, path: path, last: map[string]Record{}, lock: lock, fileLock: fileLock, compactReq: make(chan struct{}, 1), closed: make(chan struct{})}
	if err := j.read(); err != nil {
		f.Close()
		unlockJournal(lock)
		unlockJournal(fileLock)
		return nil, err
	}
	if j.badLines > 100 && j.badLines > len(j.last) {
		// Mostly not records: a journal does not look like that, and
		// compaction would drop every line of it.
		f.Close()
		unlockJournal(lock)
		unlockJournal(fileLock)
		return nil, fmt.Errorf("%w: journal %s has %d lines that are not journal records and %d that are: not read, written or compacted; point --journal at a new file", ErrNotAJournal, path, j.badLines, len(j.last))
	}
	if j.badLines > maxWarnings {
		j.warnings = append(j.warnings, fmt.Sprintf("journal %s: %d lines in all were skipped", path, j.badLines))
	}
	// The room kept for outcomes, taken now: a file system that cannot
	// keep it, or a journal that has none, is said at start (Warnings),
	// not at the first kill.
	if err := j.room(j.f, j.size, ReserveBytes); err != nil {
		j.unreserved = fmt.Sprintf("%v: until it has room, kills are held, not fired", err)
		j.warnings = append(j.warnings, j.unreserved)
	} else if j.tight {
		// The room is kept, not the slack past it: the disk is nearly
		// full, and said so now rather than at the first kill.
		j.warnings = append(j.warnings, fmt.Sprintf("journal %s: its file system is nearly full: the %d bytes kept for kills under way are allocated, but not the %d past them; a spool beside it (watch on stdin, OTLP or --from-end) writes only while more than %d bytes are free", j.path, ReserveBytes, allocSlack, JournalNeedsFree))
	}
	j.live = j.size
	if j.size > compactAbove {
		// At start nothing else writes: compact before the first append.
		if err := j.compactNow(); err != nil {
			j.warnings = append(j.warnings, fmt.Sprintf("journal %s: compaction failed, keeping the file as it is: %v", path, err))
		}
	}
	j.compactWG.Add(1)
	go j.compactor()
	return j, nil
}

// ErrNotAJournal refuses a file that holds something else: "--journal"
// pointed at an application log printed a warning per line, and its
// compaction would have truncated the log.
var ErrNotAJournal = errors.New("not a burnrate journal")

// checkJournalFile refuses what is not a journal: anything but a regular
// file, one another user owns or every user may write, or one whose first
// complete line is not a journal record (a blank first line or a slog
// line that happens to begin like one do not pass: the record must parse,
// with its key, action and state). A file that is a single torn line — a
// crash during the very first write — passes when it begins like a record.
func checkJournalFile(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("journal %s is not a regular file: give the path of a file", path)
	}
	if st.Mode().Perm()&0o002 != 0 {
		// Anyone could append an "acknowledged" record and so block a
		// kill, or a "requested" one and so cause one.
		return fmt.Errorf("journal %s is writable by every user (mode %04o): anyone could block or forge a kill; chmod o-w it", path, st.Mode().Perm())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("journal %s is owned by user %d, not this user (%d): its owner could block or forge a kill; give this process a journal of its own", path, sys.Uid, os.Geteuid())
	}
	if st.Size() == 0 {
		return nil
	}
	head := make([]byte, 64<<10)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	sawTorn := false
	for len(head) > 0 {
		line, rest, complete := bytes.Cut(head, []byte{'\n'})
		trimmed := bytes.TrimSpace(line)
		var r Record
		// A torn record begins like one and is not valid JSON: a crash
		// cut it. (A slog line begins the same way, but is whole.)
		torn := bytes.HasPrefix(trimmed, recordStart) && !json.Valid(trimmed)
		switch {
		case len(trimmed) == 0 && complete:
			head = rest
			continue
		case (parseRecord(trimmed, &r) || recoverGlued(trimmed, &r)) && r.Action != "":
			return nil
		case torn && complete:
			sawTorn = true
			head = rest
			continue
		case torn && int64(n) == st.Size():
			return nil // the file is records torn by crashes, and nothing else
		}
		break
	}
	if sawTorn && len(head) == 0 && int64(n) == st.Size() {
		return nil
	}
	return fmt.Errorf("%w: journal %s does not begin with a journal record, so it was not read, written or compacted; point --journal at a new file (or the journal you meant)", ErrNotAJournal, path)
}

// ErrJournalLinked refuses a journal file that has more than one name.
var ErrJournalLinked = errors.New("journal has more than one name")

// checkOneName refuses a journal file with hard links. The lock is taken
// on a file named after the journal's path, so two processes that reach
// one journal by two names would take two locks and both run every kill
// (audit a2: both POSTed it); and compaction renames a new file over one
// name, leaving the other on the old records. A file with one name has
// one lock. (A symlink is refused by O_NOFOLLOW; a directory reached two
// ways resolves to the same lock file, which the kernel locks as one.)
func checkOneName(f *os.File, path, doing string) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal %s: %w", path, err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || sys.Nlink <= 1 {
		return nil
	}
	what := "not opened"
	if doing == "compact" {
		what = "not compacted (the rename would split the names into two journals); kills are still journaled"
	}
	return fmt.Errorf("%w: journal %s has %d hard links (inode %d): %s, because the lock is per name — a second burnrate reaching it by another name would take another lock and run every kill again; give --journal a file with one name (copy it to a new path, or remove the other names: find / -xdev -inum %d)",
		ErrJournalLinked, path, sys.Nlink, sys.Ino, what, sys.Ino)
}

// OpenJournalReadOnly reads a journal without owning it, for a process
// that has no hook and so can never append: a dashboard beside the
// daemon that kills. It takes no lock and never writes.
func OpenJournalReadOnly(path string) (*Journal, error) {
	j := &Journal{path: path, last: map[string]Record{}, readOnly: true}
	// Created if missing (empty), so the state directory is proven
	// writable at start, not at the first kill of a later configuration.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w (set journal = \"PATH\" in the config, or --journal, to put it where this user may write)", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = errors.New("is a symbolic link; give the real path")
		}
		return nil, fmt.Errorf("journal %s: %w (set journal = \"PATH\" in the config, or --journal, to put it where this user may write)", path, err)
	}
	if err := checkJournalFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	defer f.Close()
	j.f = f
	err = j.read()
	j.f = nil
	return j, err
}

// read loads every record; it ends a torn last line with a newline so the
// next record cannot glue onto it.
func (j *Journal) read() error {
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	r := bufio.NewReaderSize(j.f, 64<<10)
	var line []byte
	lineNo := 0
	tooLong := false
	endsWithNewline := true
	for {
		chunk, err := r.ReadSlice('\n')
		j.size += int64(len(chunk))
		if len(chunk) > 0 {
			endsWithNewline = chunk[len(chunk)-1] == '\n'
		}
		switch {
		case tooLong:
		case len(line)+len(chunk) > maxRecordBytes:
			tooLong, line = true, line[:0]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 || len(line) > 0 || tooLong {
			lineNo++
			torn := err != nil && !endsWithNewline
			j.take(lineNo, line, tooLong, torn)
		}
		line, tooLong = line[:0], false
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return fmt.Errorf("journal %s: %w", j.path, err)
			}
			break
		}
	}
	if !endsWithNewline && !j.readOnly {
		// A crash cut the last write short: end that line, so the next
		// record starts on its own.
		if _, err := j.f.Write([]byte{'\n'}); err != nil {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
		j.size++
	}
	return nil
}

func (j *Journal) take(lineNo int, line []byte, tooLong, torn bool) {
	line = bytes.TrimSpace(line)
	var r Record
	switch {
	case tooLong:
		j.warn(lineNo, "longer than 1 MiB, skipped")
	case len(line) == 0:
	case parseRecord(line, &r):
		j.keep(r)
	case recoverGlued(line, &r):
		// An older writer let a record glue onto a torn one: the record
		// after the tear is still whole.
		j.warn(lineNo, "a torn record before a whole one; the torn part was skipped")
		j.keep(r)
	case torn:
		j.warn(lineNo, "torn (cut short by a crash), skipped")
	default:
		j.warn(lineNo, "not a journal record, skipped")
	}
}

// keep makes r its action's latest record; results carry no alert, so the
// request's is kept with them.
func (j *Journal) keep(r Record) {
	prev, ok := j.last[r.Key]
	if ok && r.Alert == nil {
		r.Alert, r.AtNS = prev.Alert, prev.AtNS
	}
	if ok && r.Resent < prev.Resent {
		// The count of blind re-runs only grows: an outcome record
		// written without it must not reset it (a timed-out command
		// re-ran at every start that way).
		r.Resent = prev.Resent
	}
	j.last[r.Key] = r
}

func parseRecord(b []byte, r *Record) bool {
	*r = Record{}
	return json.Unmarshal(b, r) == nil && r.Key != "" && r.State != ""
}

// recordStart is how every record begins: Time is Record's first field.
var recordStart = []byte(`{"time":"`)

func recoverGlued(line []byte, r *Record) bool {
	i := bytes.LastIndex(line, recordStart)
	return i > 0 && parseRecord(line[i:], r)
}

// maxWarnings bounds the warnings kept (and printed) for one file.
const maxWarnings = 20

func (j *Journal) warn(lineNo int, what string) {
	j.badLines++
	if len(j.warnings) < maxWarnings {
		j.warnings = append(j.warnings, fmt.Sprintf("journal %s line %d: %s", j.path, lineNo, what))
	} else if len(j.warnings) == maxWarnings {
		j.warnings = append(j.warnings, fmt.Sprintf("journal %s: more lines were skipped; the count follows when the file is read", j.path))
	}
}

// Warnings lists what was wrong with the file when it was read.
func (j *Journal) Warnings() []string {
	if j == nil {
		return nil
	}
	return slices.Clone(j.warnings)
}

// DefaultJournalPath is in the service's state directory: systemd's
// $STATE_DIRECTORY, else $XDG_STATE_HOME/burnrate, else
// ~/.local/state/burnrate. Idempotency keys carry the run, so every run
// may share it.
func DefaultJournalPath() string {
	if dir := os.Getenv("STATE_DIRECTORY"); dir != "" {
		// systemd may pass several, colon-separated: the first is ours.
		if i := bytes.IndexByte([]byte(dir), ':'); i >= 0 {
			dir = dir[:i]
		}
		return filepath.Join(dir, "journal.jsonl")
	}
	if dir := os.Getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "burnrate", "journal.jsonl")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "burnrate", "journal.jsonl")
	}
	return "burnrate-journal.jsonl"
}

// Last returns the latest record of an action, if the journal has one.
func (j *Journal) Last(key string) (Record, bool) {
	if j == nil {
		return Record{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.last[key]
	return r, ok
}

// Records returns the latest record of every action, ordered by key: for
// a report of what was done (report --journal).
func (j *Journal) Records() []Record {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Record, 0, len(j.last))
	for _, r := range j.last {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// ResendWithin is how old an unfinished action may be and still be sent
// by a new start: a kill for a job of last week is not a kill any more.
const ResendWithin = 24 * time.Hour

// Unfinished returns the actions whose latest state does not block a
// resend, that carry their alert and were last written within
// ResendWithin, oldest first: what a new start sends.
func (j *Journal) Unfinished() []Record {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	cutoff := time.Now().Add(-ResendWithin).UTC().Format(time.RFC3339Nano)
	var out []Record
	for _, r := range j.last {
		if r.State.resendable() && r.Alert != nil && r.Time >= cutoff {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Record) int {
		if c := strings.Compare(a.Time, b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// resendable states are sent again by a later start: the kill was never
// judged by its receiver.
func (s ActionState) resendable() bool {
	return s == StateRequested || s == StateSent || s == StateFailed || s == StateMisconfigured
}

// moot reports whether a record can never act again, so compaction may
// drop it: a dry run's or a refusal's (they block nothing), an unfinished
// action past the resend horizon (no start will send it), or a finished
// one older than keepDone (keys carry the run; only a replay of that
// same night could raise it again).
func (r Record) moot(resendCutoff, doneCutoff string) bool {
	switch {
	case r.State == StateWouldFire || r.State == StateRefused:
		return true
	case r.State.Blocks() || r.State == stateRunNamed:
		return r.Time < doneCutoff
	default:
		return r.Time < resendCutoff
	}
}

// Append writes a record and syncs it to disk before returning. It never
// rewrites the file: past the compaction threshold it asks the compactor
// goroutine, and returns. It first makes sure the room Reserve keeps for
// the outcomes of actions under way stays free after the record: when it
// cannot (a full disk, the file-size limit), nothing is written and the
// error wraps ErrNoRoom, so a kill that cannot be journaled first is not
// fired.
func (j *Journal) Append(r Record) error { return j.append(r, false) }

// AppendOutcome writes the outcome of an action that was fired (and the
// "sent" record of a command under way). It may use the room Reserve
// kept, so it succeeds on a full disk when Reserve succeeded before the
// firing: a fired kill's outcome is never the record that cannot be
// written.
func (j *Journal) AppendOutcome(r Record) error { return j.append(r, true) }

// Journal room. A fired action's outcome must reach the disk, or a restart
// would fire it again; so the journal keeps room for the outcomes of the
// actions that may be under way at once (one per worker), allocated past
// the end of the file (fallocate with FALLOC_FL_KEEP_SIZE: the file's
// size does not change, its blocks are its own), and fires nothing
// without it.
const (
	// maxOutcomeBytes bounds an outcome record: a command's kept output
	// (4 KiB + 5 KiB) escaped at worst six bytes for one fits, and a
	// longer record is shortened to fit (shrinkOutcome).
	maxOutcomeBytes = 64 << 10
	// sentRecordBytes bounds a command's "sent" record (no alert, no
	// output).
	sentRecordBytes = 4 << 10
	// ReserveBytes is the room kept past the end of the journal.
	ReserveBytes = actionWorkers * (maxOutcomeBytes + sentRecordBytes)
)

// ErrNoRoom: the journal cannot take the record and still keep the room
// for the outcomes of actions under way (a full file system, a quota, the
// file-size limit). Nothing was written.
var ErrNoRoom = errors.New("no room in the journal")

// Reserve makes sure ReserveBytes are free past the end of the journal; a
// worker calls it right before it fires an action, and does not fire on
// an error.
func (j *Journal) Reserve() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.readOnly:
		return fmt.Errorf("journal %s was opened read-only (this process has no hook)", j.path)
	case j.f == nil:
		return fmt.Errorf("journal %s is closed", j.path)
	}
	return j.room(j.f, j.size, ReserveBytes)
}

// allocSlack is allocated past the room kept, so that the room need not
// be allocated again at every append.
const allocSlack = 1 << 20

// JournalNeedsFree is the free space the spool beside the journal leaves
// on their file system (spool.Options.KeepFree): the room kept for
// outcomes and the slack the journal allocates past it, so that burnrate's
// own spool never fills the disk under a kill (red team R7-4).
const JournalNeedsFree = ReserveBytes + allocSlack

// RoomProblem is "" while the journal holds the room it keeps for the
// outcomes of kills under way; else why not (a full disk at start): until
// it has it, kills are held. The header and the stop say it.
func (j *Journal) RoomProblem() string {
	if j == nil {
		return ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.unreserved
}

// rlimInfinity is RLIM_INFINITY on Linux.
const rlimInfinity = ^uint64(0)

// room makes sure n bytes past size can be written to f: within the
// file-size limit (RLIMIT_FSIZE), and allocated on the file system.
func (j *Journal) room(f *os.File, size, n int64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil && lim.Cur != rlimInfinity && uint64(size+n) > lim.Cur {
		return fmt.Errorf("%w: journal %s would pass the file-size limit (%d bytes, RLIMIT_FSIZE) with the %d bytes kept for kills under way", ErrNoRoom, j.path, lim.Cur, ReserveBytes)
	}
	if j.noFallocate || (f == j.f && size+n <= j.allocated) {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	fallocate := func(n int64) (ferr error) {
		if err := rc.Control(func(fd uintptr) {
			for {
				ferr = syscall.Fallocate(int(fd), 1 /* FALLOC_FL_KEEP_SIZE */, size, n)
				if ferr != syscall.EINTR {
					return
				}
			}
		}); err != nil {
			return err
		}
		return ferr
	}
	// A slack beyond what is needed, so most appends find their room
	// allocated already and the fsync after them has no allocation to
	// write; without it if the disk has no more.
	ferr := fallocate(n + allocSlack)
	if ferr == nil {
		if f == j.f {
			j.allocated = size + n + allocSlack
			j.unreserved, j.tight = "", false
		}
		return nil
	}
	if errors.Is(ferr, syscall.ENOSPC) || errors.Is(ferr, syscall.EDQUOT) {
		ferr = fallocate(n)
	}
	switch {
	case ferr == nil:
		if f == j.f {
			j.allocated = size + n
			j.unreserved, j.tight = "", true
		}
		return nil
	case errors.Is(ferr, syscall.EOPNOTSUPP) || errors.Is(ferr, syscall.ENOSYS):
		// Said once: on such a file system a full disk can still cost an
		// outcome record, and a restart may then send that kill again.
		j.noFallocate = true
		j.warnings = append(j.warnings, fmt.Sprintf("journal %s: its file system cannot reserve room (fallocate: %v); on a full disk a kill's outcome may not be recorded", j.path, ferr))
		return nil
	}
	return fmt.Errorf("%w: journal %s: cannot keep %d bytes free for kills under way: %v; free space on its file system", ErrNoRoom, j.path, n, ferr)
}

// marshalRecord is a record's line as the journal writes it: JSON, with
// every character display.Text would escape written as a \u escape (R7-7).
// Job IDs, run IDs and an alert's reason come from the log; a person runs
// `tail -f` or `jq .` on this file, and a raw U+202E or C1 control would
// reorder or drive their terminal. The escape is the same JSON value, so a
// record reads back byte for byte (keys, identity and resends unchanged).
func marshalRecord(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return display.JSON(b), nil
}

// shrinkOutcome cuts a command's kept output until the record fits
// maxOutcomeBytes; what went is said in the record.
func shrinkOutcome(r Record) []byte {
	for _, keep := range []int{1024, 0} {
		b, _ := marshalRecord(r)
		if len(b) < maxOutcomeBytes {
			return b
		}
		r.Stdout, r.Stderr = cutTo(r.Stdout, keep), cutTo(r.Stderr, keep)
		if len(r.Error) > 1024 {
			r.Error = cutTo(r.Error, 1024)
		}
	}
	b, _ := marshalRecord(r)
	return b
}

func cutTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + " [… cut to fit the journal]"
}

func (j *Journal) append(r Record, outcome bool) error {
	if j == nil {
		return nil
	}
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := marshalRecord(r)
	if err != nil {
		return err
	}
	if outcome && len(b) >= maxOutcomeBytes {
		b = shrinkOutcome(r)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.readOnly:
		return fmt.Errorf("journal %s was opened read-only (this process has no hook), so it cannot record %s", j.path, r.State)
	case j.f == nil:
		return fmt.Errorf("journal %s is closed", j.path)
	}
	// The record, then the reserve after it. An outcome is written even
	// when the reserve cannot be kept whole: it is what the reserve is for.
	if err := j.room(j.f, j.size, int64(len(b))+ReserveBytes); err != nil && !outcome {
		return err
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.size += int64(len(b))
	j.keep(r)
	if j.compacting {
		j.tail = append(j.tail, b)
	}
	if j.size > max(compactAbove, 2*j.live) && !j.compacting {
		select {
		case j.compactReq <- struct{}{}:
		default:
		}
	}
	if err := j.compactErr; err != nil {
		j.compactErr = nil
		return fmt.Errorf("journal %s: the record was written, but compaction failed: %w", j.path, err)
	}
	return nil
}

func (j *Journal) compactor() {
	defer j.compactWG.Done()
	for {
		select {
		case <-j.closed:
			select {
			case <-j.compactReq:
				j.compactNow()
			default:
			}
			return
		case <-j.compactReq:
			if err := j.compactNow(); err != nil {
				j.mu.Lock()
				j.compactErr = err
				// Back off: try again only after another doubling.
				j.live = j.size
				j.mu.Unlock()
			}
		}
	}
}

// compactNow rewrites the journal to its live state — the latest record of
// each action that can still act (see Record.moot) — into a temporary file
// that is synced and renamed over the old one, so a crash leaves either
// the old journal or the new, never half of one. The live state is copied
// under the lock and written without it; records appended meanwhile are
// appended to the new file before the rename, under the lock, so none is
// lost.
func (j *Journal) compactNow() error {
	now := time.Now()
	resendCutoff := now.Add(-ResendWithin).UTC().Format(time.RFC3339Nano)
	doneCutoff := now.Add(-keepDone).UTC().Format(time.RFC3339Nano)
	j.mu.Lock()
	if j.f == nil {
		j.mu.Unlock()
		return nil
	}
	recs := make([]Record, 0, len(j.last))
	for k, r := range j.last {
		if r.moot(resendCutoff, doneCutoff) {
			delete(j.last, k)
			continue
		}
		recs = append(recs, r)
	}
	j.compacting, j.tail = true, nil
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		j.compacting, j.tail = false, nil
		j.mu.Unlock()
	}()

	slices.SortFunc(recs, func(a, b Record) int {
		if c := strings.Compare(a.Time, b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	tmp, err := os.CreateTemp(filepath.Dir(j.path), ".journal-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	w := bufio.NewWriter(tmp)
	var size int64
	for _, r := range recs {
		b, err := marshalRecord(r)
		if err != nil {
			tmp.Close()
			return err
		}
		n, _ := w.Write(append(b, '\n'))
		size += int64(n)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}

	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		tmp.Close()
		return nil
	}
	for _, b := range j.tail {
		if _, err := tmp.Write(b); err != nil {
			tmp.Close()
			return err
		}
		size += int64(len(b))
	}
	// The new file keeps the room the old one kept, or it does not
	// replace it.
	if err := j.room(tmp, size, ReserveBytes); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	// The new file is locked before its name becomes the journal's, so
	// there is no moment when a process reaching it by another name could
	// take it; nobody else knows the temporary name, so this cannot fail
	// for a holder.
	newLock, err := flock.LockFile(tmp.Name(), tmp)
	if err != nil {
		tmp.Close()
		return fmt.Errorf("locking the compacted journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		newLock.Close()
		return err
	}
	// A hard link made after start: the rename would leave the other
	// name on the old file, a second journal that a burnrate started by
	// that name would resend from.
	if err := checkOneName(j.f, j.path, "compact"); err != nil {
		newLock.Close()
		return err
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		newLock.Close()
		return err
	}
	unlockJournal(j.fileLock)
	j.fileLock = newLock
	if d, err := os.Open(filepath.Dir(j.path)); err == nil {
		d.Sync()
		d.Close()
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.f.Close()
	j.f, j.size, j.live = f, size, size
	j.allocated = 0 // the new file's room was kept above; known again at the next append
	return nil
}

// Close flushes and closes; it is safe to call twice.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	if j.readOnly {
		return nil
	}
	// The compactor finishes a compaction that was asked for first: a
	// clean stop leaves the small file, not the one past the threshold.
	j.closeOnce.Do(func() { close(j.closed) })
	j.compactWG.Wait()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	unlockJournal(j.fileLock)
	j.fileLock = nil
	unlockJournal(j.lock)
	j.lock = nil
	return err
}
