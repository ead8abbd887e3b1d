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
	"sync"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
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
	StateRefused      ActionState = "refused"      // this process would not act (read-only, unsafe value, no hook)
	StateWouldFire    ActionState = "would_fire"   // --dry-run
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
	Time     string      `json:"time"`   // wall clock when written
	LogAt    string      `json:"log_at"` // log time of the alert
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
	Stderr   string      `json:"stderr,omitempty"`
	Error    string      `json:"error,omitempty"`
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
	// live state: the last record of every action.
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
	last     map[string]Record // key → latest record
	warnings []string
}

// Blocks reports whether an action in this state must never be sent again.
// Refusals and dry runs are this process's own settings, and failures are
// transient: none of them may stop a later run that can act.
func (s ActionState) Blocks() bool { return s == StateAcknowledged || s == StateRejected }

// OpenJournal opens (creating) the journal at path and reads it back. A
// torn line (a write cut short by a crash), a garbage line or one over
// 1 MiB is skipped with a warning naming the file and line (Warnings);
// it never swallows the record after it.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w (set journal = \"PATH\" in the config, or --journal, to put it where this user may write)", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w (set journal = \"PATH\" in the config, or --journal, to put it where this user may write)", path, err)
	}
	j := &Journal{f: f, path: path, last: map[string]Record{}}
	if err := j.read(); err != nil {
		f.Close()
		return nil, err
	}
	if j.size > compactAbove {
		if err := j.compactLocked(); err != nil {
			j.warnings = append(j.warnings, fmt.Sprintf("journal %s: compaction failed, keeping the file as it is: %v", path, err))
		}
	}
	return j, nil
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
	if !endsWithNewline {
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
	if prev, ok := j.last[r.Key]; ok && r.Alert == nil {
		r.Alert, r.AtNS = prev.Alert, prev.AtNS
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

func (j *Journal) warn(lineNo int, what string) {
	j.warnings = append(j.warnings, fmt.Sprintf("journal %s line %d: %s", j.path, lineNo, what))
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
		if (r.State == StateRequested || r.State == StateSent || r.State == StateFailed) && r.Alert != nil && r.Time >= cutoff {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Record) int {
		if c := cmpString(a.Time, b.Time); c != 0 {
			return c
		}
		return cmpString(a.Key, b.Key)
	})
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Append writes a record and syncs it to disk before returning.
func (j *Journal) Append(r Record) error {
	if j == nil {
		return nil
	}
	r.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("journal closed")
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.size += int64(len(b) + 1)
	j.keep(r)
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if j.size > compactAbove {
		if err := j.compactLocked(); err != nil {
			return fmt.Errorf("journal %s: compaction: %w", j.path, err)
		}
	}
	return nil
}

// compactLocked rewrites the journal to its live state — the latest record
// of each action, finished ones only while younger than keepDone — into a
// temporary file that is synced and renamed over the old one, so a crash
// leaves either the old journal or the new, never half of one.
func (j *Journal) compactLocked() error {
	cutoff := time.Now().Add(-keepDone).UTC().Format(time.RFC3339Nano)
	keys := make([]string, 0, len(j.last))
	for k, r := range j.last {
		if r.State.Blocks() && r.Time < cutoff {
			delete(j.last, k)
			continue
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmpString(j.last[a].Time, j.last[b].Time) })
	tmp, err := os.CreateTemp(filepath.Dir(j.path), ".journal-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	w := bufio.NewWriter(tmp)
	var size int64
	for _, k := range keys {
		b, err := json.Marshal(j.last[k])
		if err != nil {
			tmp.Close()
			return err
		}
		w.Write(append(b, '\n'))
		size += int64(len(b) + 1)
	}
	if err := w.Flush(); err != nil {
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
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(j.path)); err == nil {
		d.Sync()
		d.Close()
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.f.Close()
	j.f, j.size = f, size
	return nil
}

// Close flushes and closes; it is safe to call twice.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
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
	return err
}
