package correlate_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// TestArenaLeavesReportsAsTheyWere: a State that keeps every job (its IDs
// and keys carved from the arena, its jobs from slabs) reports what a
// State that retires jobs, with a retention no job of the log reaches,
// reports — byte for byte, on the sample logs.
func TestArenaLeavesReportsAsTheyWere(t *testing.T) {
	for _, log := range []string{"seed000-incident.jsonl", "seed001-poisoned-400.jsonl.gz", "seed002-six-pipelines.jsonl", "healthy-night.jsonl"} {
		keep := correlate.DefaultConfig()
		retire := correlate.DefaultConfig()
		retire.JobRetention = 100_000 * time.Hour
		a, err := json.Marshal(reportOf(t, keep, samples+log))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(reportOf(t, retire, samples+log))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s: the report of a State keeping every job differs from one retiring none (%d and %d bytes)", log, len(a), len(b))
		}
	}
}
