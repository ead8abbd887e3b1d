package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// assumptionsLine is one run's record.
type assumptionsLine struct {
	WrittenAt   string                       `json:"written_at"`
	RunID       string                       `json:"run_id,omitempty"`
	FirstTS     string                       `json:"first_ts"`
	LastTS      string                       `json:"last_ts"`
	Assumptions []correlate.AssumptionReport `json:"assumptions"`
}

func assumptionsLogPath(journal string) string {
	return filepath.Join(filepath.Dir(journal), AssumptionsLogName)
}

// lastAssumptions reads the last run's assumptions from the log; none
// (and no error) when there is no log yet. A torn last line (a crash
// mid-write) is passed over for the whole line before it.
func lastAssumptions(path string) ([]correlate.AssumptionReport, error) {
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
	for i := len(lines) - 1; i >= 0; i-- {
		if i == 0 && off > 0 {
			break // cut by the tail window: not a whole line
		}
		var l assumptionsLine
		if len(bytes.TrimSpace(lines[i])) > 0 && json.Unmarshal(lines[i], &l) == nil && l.Assumptions != nil {
			return l.Assumptions, nil
		}
	}
	return nil, nil
}

// appendAssumptions writes r's assumptions as one line, in one write.
func appendAssumptions(path string, r *correlate.Report, now time.Time) error {
	line, err := json.Marshal(assumptionsLine{WrittenAt: now.UTC().Format(time.RFC3339), RunID: r.RunID,
		FirstTS: r.Source.FirstTS, LastTS: r.Source.LastTS, Assumptions: r.Assumptions})
	if err != nil {
		return err
	}
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

// recordAssumptions compares a headless run's report with the last run in
// the assumptions log beside the journal (assumption_changed), appends
// this run's line, and returns the compared report. A log it cannot read
// or write is said on stderr, never the end of the run.
func recordAssumptions(journal string, r *correlate.Report, cfg correlate.Config) *correlate.Report {
	path := assumptionsLogPath(journal)
	prev, err := lastAssumptions(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "burnrate: warning:", display.Text(err.Error()))
	}
	if prev != nil {
		correlate.CompareAssumptions(r, prev, cfg.SeverityOf)
	}
	correlate.FlagUpstreamChanges(r, upstreamChanges, cfg.SeverityOf)
	if r.Source.Events == 0 {
		return r // nothing was read: no run to record
	}
	if err := appendAssumptions(path, r, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "burnrate: warning:", display.Text(err.Error()))
	}
	for _, f := range r.Findings {
		if f.Kind == correlate.AssumptionChanged.String() || f.Kind == correlate.AssumptionViolated.String() || f.Kind == correlate.DefaultChangedUpstream.String() {
			fmt.Fprintf(os.Stderr, "burnrate: %s (%s): %s\n", f.Kind, f.Severity, display.Text(f.Example))
		}
	}
	return r
}

// upstreamChanges is audit.ChangesAcross in the words of a finding.
func upstreamChanges(id, from, to string) []string {
	var out []string
	for _, c := range audit.ChangesAcross(id, from, to) {
		out = append(out, fmt.Sprintf("after %s, %s (before: %s; %s)", c.LastBefore, c.After, c.Before, c.Source))
	}
	return out
}
