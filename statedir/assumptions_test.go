package statedir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestATornAssumptionsLineIsNotGlued: red team of issue 27 — a line cut
// short (a crash, a full disk) had the next night's line glued onto it, and
// every later night compared with the old line: a false assumption_changed
// night after night. The next line starts on a line of its own.
func TestATornAssumptionsLineIsNotGlued(t *testing.T) {
	path := filepath.Join(t.TempDir(), AssumptionsLogName)
	night := func(v string) *correlate.Report {
		return &correlate.Report{RunID: "n", Assumptions: []correlate.AssumptionReport{{Key: "anthropic-sdk.maxRetries", Declared: v}}}
	}
	if err := AppendAssumptions(path, night("0"), time.Now()); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"written_at":"2026-12-02T01:00:00Z","assumptions":[{"key":"anthropic-sdk.max`) // torn
	f.Close()
	if err := AppendAssumptions(path, night("2"), time.Now()); err != nil {
		t.Fatal(err)
	}
	last, err := LastAssumptions(path)
	if err != nil || len(last) != 1 || last[0].Declared != "2" {
		t.Errorf("after a torn line the last whole line reads %+v (%v), want the newest night's", last, err)
	}
}

// TestARunWrittenAgainIsComparedWithTheNightBefore: a run stopped and
// resumed (its spend carried) writes its line again at its end; its
// baseline is the night before it, not its own earlier line.
func TestARunWrittenAgainIsComparedWithTheNightBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assumptions.jsonl")
	rows := func(v string) []correlate.AssumptionReport {
		return []correlate.AssumptionReport{{Key: "anthropic-sdk.maxRetries", Declared: v}}
	}
	var b bytes.Buffer
	for _, l := range []AssumptionsLine{{RunID: "n1", Assumptions: rows("0")}, {RunID: "n2", Assumptions: rows("2")}} {
		line, _ := json.Marshal(l)
		b.Write(append(line, '\n'))
	}
	os.WriteFile(path, b.Bytes(), 0o600)
	l := NewAssumptionsLog(filepath.Join(filepath.Dir(path), "journal.jsonl"), true, true, correlate.DefaultConfig())
	if got := l.Baseline("n2"); len(got) != 1 || got[0].Declared != "0" {
		t.Errorf("n2 resumed: baseline %+v, want n1's", got)
	}
	if got := l.Baseline("n3"); len(got) != 1 || got[0].Declared != "2" {
		t.Errorf("n3: baseline %+v, want n2's", got)
	}
}
