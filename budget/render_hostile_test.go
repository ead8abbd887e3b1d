package budget

import (
	"bytes"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestPrintHostileCorpus (issue 36): a model or job type from a log, and
// a layer name or note from a report read back (--from-assumptions),
// reach the terminal through display.Text.
func TestPrintHostileCorpus(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		var b bytes.Buffer
		PrintMeasured(&b, Measured{Models: []ModelRate{{Model: s}}, JobTypes: []JobTypeStack{{JobType: s}}})
		PrintLayers(&b, Layers{Stack: Stack{{Name: s, Attempts: 3, Timeout: time.Second}, {Name: s + "2", Attempts: 3, Timeout: time.Second}},
			Threshold: 2, From: s, Assumed: []string{s}})
		if u := testutil.TerminalUnsafe(b.String()); u != "" {
			t.Errorf("%q: %q reached the terminal raw:\n%s", s, u, b.String())
		}
	}
}
