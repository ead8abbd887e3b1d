package alerts

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// ActionState is where an action is on its way; the journal, headless
// JSON and the webhook's receiver all see these names.
type ActionState string

// Action states, in the order a kill moves through them.
const (
	StateRequested    ActionState = "requested"
	StateSent         ActionState = "sent"
	StateAcknowledged ActionState = "acknowledged"
	StateFailed       ActionState = "failed"
	StateRefused      ActionState = "refused"
	StateWouldFire    ActionState = "would_fire" // --dry-run
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
	JobID    string      `json:"job_id"`
	JobType  string      `json:"job_type"`
	State    ActionState `json:"state"`
	Attempts int         `json:"attempts,omitempty"`
	Status   int         `json:"status,omitempty"`
	ExitCode *int        `json:"exit_code,omitempty"`
	Stderr   string      `json:"stderr,omitempty"`
	Error    string      `json:"error,omitempty"`
}

// Journal is an append-only, fsync'd record of every action attempt and
// result. Read back at start-up, it keeps a restarted burnrate — which
// replays its logs from the start — from killing a job twice.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
	done map[string]ActionState // key → final state seen
}

// final states end an action; an action that was only requested when the
// process stopped is sent again (its Idempotency-Key makes that safe).
func final(state ActionState) bool {
	return state == StateAcknowledged || state == StateFailed || state == StateRefused
}

// OpenJournal opens (creating) the journal at path and reads it back.
// Malformed lines — a write cut short by a crash — are skipped.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w (set journal = \"PATH\" in the config to put it elsewhere)", path, err)
	}
	j := &Journal{f: f, path: path, done: map[string]ActionState{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && final(r.State) {
			j.done[r.Key] = r.State
		}
	}
	return j, nil
}

// DefaultJournalPath is beside the config file, else in the user state dir.
func DefaultJournalPath(configPath string) string {
	if configPath != "" {
		return filepath.Join(filepath.Dir(configPath), "burnrate-journal.jsonl")
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "burnrate", "journal.jsonl")
	}
	return "burnrate-journal.jsonl"
}

// Done returns the final state of an action recorded before, if any.
func (j *Journal) Done(key string) (ActionState, bool) {
	if j == nil {
		return "", false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.done[key]
	return s, ok
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
	if final(r.State) {
		j.done[r.Key] = r.State
	}
	return j.f.Sync()
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
