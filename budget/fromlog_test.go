package budget

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// TestFromLogMatchesReport: --from-log reads the same p99 calls per job and
// the same layer stacks as `burnrate report`.
func TestFromLogMatchesReport(t *testing.T) {
	files, _ := filepath.Glob("../sample-logs/*.jsonl*")
	for _, f := range files {
		it, err := file.OpenFile(f, 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := correlate.New(correlate.DefaultConfig())
		file.Drain(it, st)
		it.Close()
		r := st.Report()
		m := Measure(r, nil)
		for i, jt := range r.JobTypes {
			got := m.JobTypes[i]
			if got.JobType != jt.JobType || got.CallsPerJobP99 != jt.CallsPerJobP99 || !slices.Equal(got.Layers, jt.Layers) {
				t.Errorf("%s: %+v vs report %+v", f, got, jt)
			}
		}
	}
}

func TestFromLogSeed000(t *testing.T) {
	it, _ := file.OpenFile("../sample-logs/seed000-incident.jsonl", 0, decode.Options{})
	defer it.Close()
	st := correlate.New(correlate.DefaultConfig())
	file.Drain(it, st)
	fix := Stack{{Name: "queue", Attempts: 4, Timeout: 1}, {Name: "sdk", Attempts: 1, Timeout: 1}}
	m := Measure(st.Report(), fix)
	// 1,027 of 1,043 calls answered 529.
	if m.P < 0.98 || m.P > 0.99 || m.Models[0].ByClass["overloaded_5xx"] != m.P {
		t.Errorf("p %v %+v", m.P, m.Models)
	}
	jt := m.JobTypes[0]
	if jt.ObservedWorstCase != 63 || jt.CallsPerJobP99 != 63 || !jt.OverConfigured {
		t.Errorf("%+v", jt)
	}
	if !m.Clustered {
		t.Errorf("a wall of 529s in a few minutes must read as clustered (dispersion %v)", m.Dispersion)
	}
}
