package statedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
)

// The assumptions log on disk: watch --headless appends one line per run
// to assumptions.jsonl beside its journal, so that the next night has a
// baseline without a flag (seed 003: "when a premise changed … the
// boundary shows up mechanically in the sequence of logs").

// AssumptionsLogName is the file beside the journal.
const AssumptionsLogName = "assumptions.jsonl"

// maxAssumptionsTail is how much of the file's end is read for the last
// run: more than any one line (1,280 bounded keys).
const maxAssumptionsTail = 4 << 20

// AssumptionsLine is one run's record.
type AssumptionsLine struct {
	WrittenAt   string                       `json:"written_at"`
	RunID       string                       `json:"run_id,omitempty"`
	FirstTS     string                       `json:"first_ts"`
	LastTS      string                       `json:"last_ts"`
	Assumptions []correlate.AssumptionReport `json:"assumptions"`
}

func assumptionsLogPath(journal string) string {
	return filepath.Join(filepath.Dir(journal), AssumptionsLogName)
}

// LastAssumptions reads the last run's assumptions from the log; none
// (and no error) when there is no log yet. A torn last line (a crash
// mid-write) is passed over for the whole line before it.
func LastAssumptions(path string) ([]correlate.AssumptionReport, error) {
	runs, err := recentAssumptions(path)
	if len(runs) == 0 {
		return nil, err
	}
	return runs[len(runs)-1].Assumptions, err
}

// recentAssumptions reads the whole lines of the log's tail, oldest first:
// a run written again after a restart is compared with the run before it,
// not with its own earlier line.
func recentAssumptions(path string) ([]AssumptionsLine, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("assumptions log %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("assumptions log %s is not a regular file: remove it", path)
	}
	off := max(0, st.Size()-maxAssumptionsTail)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, fmt.Errorf("assumptions log %s: %w", path, err)
	}
	lines := bytes.Split(b, []byte("\n"))
	var out []AssumptionsLine
	for i := len(lines) - 1; i >= 0 && len(out) < maxRecentRuns; i-- {
		if i == 0 && off > 0 {
			break // cut by the tail window: not a whole line
		}
		var l AssumptionsLine
		if len(bytes.TrimSpace(lines[i])) > 0 && json.Unmarshal(lines[i], &l) == nil && l.Assumptions != nil {
			out = append(out, l)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// maxRecentRuns is how many of the log's last runs are kept in memory.
const maxRecentRuns = 8

// AppendAssumptions writes r's assumptions as one line, in one write.
func AppendAssumptions(path string, r *correlate.Report, now time.Time) error {
	line, err := json.Marshal(AssumptionsLine{WrittenAt: now.UTC().Format(time.RFC3339), RunID: r.RunID,
		FirstTS: r.Source.FirstTS, LastTS: r.Source.LastTS, Assumptions: r.Assumptions})
	if err != nil {
		return err
	}
	// A run ID and an assumption's words may come from the log: written
	// with display.JSON's escapes, the line a person tails shows no raw
	// bidi or control character, and reads back as the same values (R7-7).
	line = display.JSON(line)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return fmt.Errorf("assumptions log %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("assumptions log %s is not a regular file: remove it", path)
	}
	// A line cut short (a crash, a full disk) must not glue this one onto
	// it: the next night would compare with neither. Start on a line of
	// its own.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if rf, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0); err == nil {
			if _, err := rf.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
				line = append([]byte{'\n'}, line...)
			}
			rf.Close()
		}
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("assumptions log %s: %w (free space; the next run compares with the last whole line)", path, err)
	}
	return f.Close()
}

// AssumptionsLog is the engine's assumptions log (engine.AssumptionsLog):
// the baseline is the last line of assumptions.jsonl at start, then each
// run this process recorded; a headless process appends a line per run
// as the next run supersedes it, and one for the run it stops in.
type AssumptionsLog struct {
	path  string
	write bool // only watch --headless (and replay --headless) keep the file
	cfg   correlate.Config
	mu    sync.Mutex
	// recent are the last runs recorded, oldest first: the file's tail,
	// then this process's.
	recent []AssumptionsLine
}

// NewAssumptionsLog reads the baseline beside the journal when read is
// set; a log it cannot read is said on stderr, never the end of the run.
func NewAssumptionsLog(journal string, read, write bool, cfg correlate.Config) *AssumptionsLog {
	l := &AssumptionsLog{path: assumptionsLogPath(journal), write: write, cfg: cfg}
	if read || write {
		recent, err := recentAssumptions(l.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "burnrate: warning:", display.Text(err.Error()))
		}
		l.recent = recent
	}
	return l
}

// Baseline is the last run recorded other than runID: a run resumed after
// a restart (its events replayed from the spool) is compared with the night before it,
// and its line written again at its end supersedes the one of its stop.
func (l *AssumptionsLog) Baseline(runID string) []correlate.AssumptionReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.recent) - 1; i >= 0; i-- {
		if l.recent[i].RunID != runID || runID == "" {
			return l.recent[i].Assumptions
		}
	}
	return nil
}

func (l *AssumptionsLog) Upstream(id, from, to string) []string { return UpstreamChanges(id, from, to) }

// Compare adds to a run's report what changed since its baseline
// (assumption_changed, default_changed_upstream).
func (l *AssumptionsLog) Compare(r *correlate.Report, baseline []correlate.AssumptionReport) {
	if baseline != nil {
		correlate.CompareAssumptions(r, baseline, l.cfg.SeverityOf)
	}
	correlate.FlagUpstreamChanges(r, UpstreamChanges, l.cfg.SeverityOf)
}

// Record compares a finished run's report with its baseline, appends its
// line when this process keeps the file, says the changes on stderr, and
// makes it the baseline of the next run.
func (l *AssumptionsLog) Record(r *correlate.Report, baseline []correlate.AssumptionReport) {
	l.Compare(r, baseline)
	if r.Source.Events == 0 {
		return // nothing was read: no run to record
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.write {
		if err := AppendAssumptions(l.path, r, time.Now()); err != nil {
			fmt.Fprintln(os.Stderr, "burnrate: warning:", display.Text(err.Error()))
		}
		for _, f := range r.Findings {
			if f.Kind == correlate.AssumptionChanged.String() || f.Kind == correlate.AssumptionViolated.String() || f.Kind == correlate.DefaultChangedUpstream.String() {
				fmt.Fprintf(os.Stderr, "burnrate: run %s: %s (%s): %s\n", display.Text(r.RunID), f.Kind, f.Severity, display.Text(f.Example))
			}
		}
	}
	rec := AssumptionsLine{RunID: r.RunID, Assumptions: r.Assumptions}
	if rec.Assumptions == nil {
		rec.Assumptions = []correlate.AssumptionReport{} // a run was recorded: the baseline is it, with nothing in it
	}
	l.recent = append(l.recent, rec)
	if len(l.recent) > maxRecentRuns {
		l.recent = slices.Delete(l.recent, 0, len(l.recent)-maxRecentRuns)
	}
}

// UpstreamChanges is audit.ChangesAcross in the words of a finding.
func UpstreamChanges(id, from, to string) []string {
	var out []string
	for _, c := range audit.ChangesAcross(id, from, to) {
		out = append(out, fmt.Sprintf("after %s, %s (before: %s; %s)", c.LastBefore, c.After, c.Before, c.Source))
	}
	return out
}
