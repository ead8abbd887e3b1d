package report

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// maxReportBytes bounds one report read back (report --merge, budget
// layers --from-assumptions): a million jobs are about 400 MB of JSON.
const maxReportBytes = 1 << 30

// ReadFile reads one regular file of at most a gibibyte: a report JSON
// written earlier. Its errors name report --merge, the first reader.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report --merge: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("report --merge: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("report --merge %s: not a regular file (give the replicas' report files)", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report --merge %s: %w", path, err)
	}
	if len(b) > maxReportBytes {
		return nil, fmt.Errorf("report --merge %s: over %d MiB, more than any report of a million jobs: not a replica's report", path, maxReportBytes>>20)
	}
	return b, nil
}

// ReadMergeInputs reads report --merge's replicas' JSON reports, and
// checks them against replicas (--replicas) when it names any: a replica
// named and missing, or present and not named, is refused.
func ReadMergeInputs(paths, replicas []string) ([]correlate.MergeInput, error) {
	if len(paths) < 2 {
		return nil, fmt.Errorf("report --merge needs two or more replicas' JSON reports (watch --report-out), got %d", len(paths))
	}
	in := make([]correlate.MergeInput, 0, len(paths))
	for _, p := range paths {
		b, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r correlate.Report
		if err := json.Unmarshal(b, &r); err != nil || r.Source.Files == nil {
			return nil, fmt.Errorf("report --merge %s: not a burnrate report JSON (watch --report-out or report --format json writes one)", p)
		}
		in = append(in, correlate.MergeInput{Name: p, Report: &r, Digest: sha256.Sum256(b)})
	}
	if len(replicas) > 0 {
		have := map[string]bool{}
		for _, m := range in {
			have[m.Report.Replica] = true
		}
		for _, name := range replicas {
			if !have[name] {
				return nil, fmt.Errorf("report --merge: no report of replica %q among %s: its shard's calls and spend would be missing from the totals (find its --report-out, or leave it out of --replicas knowingly)", name, strings.Join(paths, ", "))
			}
		}
		for name := range have {
			if !slices.Contains(replicas, name) {
				return nil, fmt.Errorf("report --merge: a report is of replica %q, which --replicas does not name", name)
			}
		}
	}
	return in, nil
}

// ReadBaseline reads report --baseline's report JSON, written earlier.
func ReadBaseline(path string) (*correlate.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	var r correlate.Report
	if err := json.Unmarshal(b, &r); err != nil || r.Source.Files == nil {
		return nil, fmt.Errorf("--baseline %s: not a burnrate report JSON (write one with burnrate report --format json)", path)
	}
	return &r, nil
}
