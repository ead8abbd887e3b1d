package matrix

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// JobCeilingUSD is the job ceiling the live (OTLP) setups run under, with
// a kill: the wire's spend says which of its kills were deserved. It sits
// inside the lab's range of job spend (a healthy Anthropic job spends
// $0.002–$0.011), so some jobs deserve a kill and most do not.
const JobCeilingUSD = 0.005

// PicoFromUSD converts dollars to picodollars.
func PicoFromUSD(usd float64) int64 { return int64(math.Round(usd * 1e12)) }

// Kill is one kill burnrate fired: a headless alert line with kill true.
type Kill struct {
	JobID string `json:"job_id"`
	Rule  string `json:"rule"`
	Scope string `json:"scope"`
}

// readKills reads watch --headless's stdout: JSON lines, of which alerts
// with "kill": true are kills. Other lines (status, warnings) are skipped.
func readKills(path string) ([]Kill, error) {
	kills, _, err := readAlerts(path)
	return kills, err
}

// FalseLiveCriticals judges the critical finding alerts watch sent live
// (rule finding:KIND, naming a job) against the ledger as the report's
// findings are (Refutes): an alert is out before the report can correct
// it — a job named by its trace ID while its root span had not come, a
// finding later withdrawn —, and an operator paged by it was paged.
func FalseLiveCriticals(t Truth, alerts []Kill) []string {
	var out []string
	for _, a := range alerts {
		kind, ok := strings.CutPrefix(a.Rule, "finding:")
		if !ok || a.JobID == "" {
			continue
		}
		if why := Refutes(t.Jobs[a.JobID], kind); why != "" {
			out = append(out, fmt.Sprintf("%s on %s (live alert): %s", kind, a.JobID, why))
		}
	}
	return out
}

// readAlerts reads watch's stdout: its kills, and its critical alerts.
func readAlerts(path string) (kills, critical []Kill, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("watch's output: %w", err)
	}
	defer f.Close()
	var out, crit []Kill
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		var a struct {
			Type     string `json:"type"`
			IsKill   bool   `json:"kill"`
			JobID    string `json:"job_id"`
			Rule     string `json:"rule"`
			Scope    string `json:"scope"`
			Severity string `json:"severity"`
		}
		if json.Unmarshal(sc.Bytes(), &a) != nil || a.Type != "alert" {
			continue
		}
		k := Kill{JobID: a.JobID, Rule: a.Rule, Scope: a.Scope}
		if a.Severity == "critical" {
			crit = append(crit, k)
		}
		if a.IsKill {
			out = append(out, k)
		}
	}
	return out, crit, sc.Err()
}

// MissedKills counts the jobs the wire shows at or over the ceiling that
// burnrate did not kill.
func MissedKills(t Truth, kills []Kill, ceilingPico int64) int {
	killed := map[string]bool{}
	for _, k := range kills {
		killed[k.JobID] = true
	}
	n := 0
	for id, w := range t.Jobs {
		if w.SpendPico >= ceilingPico && !killed[id] {
			n++
		}
	}
	return n
}

// InnocentKills counts the kills the ledger refutes: a ceiling kill of a
// job whose wire spend stayed below the ceiling, a finding's kill
// ("finding:KIND") of a job whose ledger shows no such fault (Refutes), a
// kill of a job the wire never saw. A run-wide kill names no job and is
// not judged here.
func InnocentKills(t Truth, kills []Kill, ceilingPico int64) int {
	n := 0
	for _, k := range kills {
		if k.Scope == "run" && k.JobID == "" {
			continue
		}
		w := t.Jobs[k.JobID]
		if kind, ok := strings.CutPrefix(k.Rule, "finding:"); ok {
			if Refutes(w, kind) != "" {
				n++
			}
			continue
		}
		if w == nil || w.SpendPico < ceilingPico {
			n++
		}
	}
	return n
}
