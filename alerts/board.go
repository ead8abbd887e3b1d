package alerts

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/burnrate-dev/burnrate/correlate"
)

// maxLines bounds the alerts kept for the dashboard.
const maxLines = 200

// Board is what the dashboard and /metrics read of the alerts: the last
// maxLines alert and result lines, and counts of alerts by rule and of
// results by action and state. Results arrive from the action workers and
// alerts from the engine goroutine, so it locks; readers get copies.
type Board struct {
	mu      sync.Mutex
	lines   []Line
	alerts  map[string]int64    // by rule
	actions map[[2]string]int64 // by action and state
	changes atomic.Uint64       // lines added, for a redraw without events
}

func newBoard() Board {
	return Board{alerts: map[string]int64{}, actions: map[[2]string]int64{}}
}

func (b *Board) add(at int64, sev correlate.Severity, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, Line{At: at, Severity: sev, Text: text})
	if len(b.lines) > maxLines {
		b.lines = slices.Delete(b.lines, 0, len(b.lines)-maxLines)
	}
	b.changes.Add(1)
}

func (b *Board) countAlert(rule string) {
	b.mu.Lock()
	b.alerts[rule]++
	b.mu.Unlock()
}

// result records an action's result as a line, at a severity that makes a
// misconfigured receiver or a failing journal stand out.
func (b *Board) result(res Result) {
	sev := correlate.SeverityInfo
	switch {
	case res.State == StateMisconfigured || res.State == StateGaveUp || res.JournalError != "":
		sev = correlate.SeverityCritical
	case res.State == StateFailed || res.State == StateRefused:
		sev = correlate.SeverityWarning
	}
	b.mu.Lock()
	b.actions[[2]string{res.Action, string(res.State)}]++
	b.mu.Unlock()
	subject := res.Alert.JobID
	if subject == "" {
		subject = res.Alert.Scope
	}
	text := fmt.Sprintf("%s %s for %s: %s", res.Action, res.State, subject, res.Detail)
	if res.JournalError != "" {
		text += " [journal write failed: " + res.JournalError + "]"
	}
	b.add(res.Alert.At, sev, text)
}

// Lines returns the alerts and results, newest first.
func (b *Board) Lines() []Line {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.lines)
	slices.Reverse(out)
	return out
}

// Counts returns alerts by rule and action results by action and state.
func (b *Board) Counts() (alerts map[string]int64, actions map[[2]string]int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.alerts), maps.Clone(b.actions)
}
