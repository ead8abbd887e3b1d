package e2e

import (
	"os/exec"
	"testing"
)

// TestReportOfADirectoryIsDeterministic: one directory, one report, every
// time. Two retry layers resolved to one declared owner kept whichever
// Go's map gave first, so a report of correlate/testdata/assumptions named
// job article-00 or summarize-30 (and another time) from run to run, about
// one run in three: 16 processes, each with its own map seed, see both.
func TestReportOfADirectoryIsDeterministic(t *testing.T) {
	bin := burnrate(t)
	var first string
	for i := range 16 {
		cmd := exec.Command(bin, "report", "--format", "json", "../../correlate/testdata/assumptions")
		cmd.Env = append(cmd.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatal(err)
			}
		}
		if i == 0 {
			first = string(out)
		} else if string(out) != first {
			t.Fatalf("report %d of the same directory differs from the first", i)
		}
	}
}
