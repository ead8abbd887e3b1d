package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// The report knows what the night did (issue 39): a job killed live at its
// ceiling was listed "succeeded" by report --config, with no word of the
// ceiling. The report now runs the config's rules over the night exactly
// as the live run did — the alerts layer's own Rules, observing every
// event right after it is applied — and, given the alerts journal, says
// which kills were made.

// nightRules are the config's limits and kill rules, observing a report's
// correlation; nil when the config sets none.
type nightRules struct {
	rules     *alerts.Rules
	limits    string
	crossings []correlate.Crossing
	total     int
}

// maxNightCrossings bounds the crossings a report lists (a night of
// 100,000 jobs over their ceiling is counted, not printed).
const maxNightCrossings = 1000

// newNightRules builds the rules of the config file f, or nil when it sets
// no limit and no kill rule of its own. A config a live run would refuse
// (a bad limit, or a hook this machine cannot use: a secret's variable
// unset on the analyst's laptop) leaves the section out, said on stderr:
// the rest of the report does not depend on it.
func newNightRules(f *config.File) (*nightRules, error) {
	acts, err := f.Alerts(config.ActionFlags{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "burnrate: the config's limits and kill rules were not applied to the report (%s)\n", display.Text(err.Error()))
		return nil, nil
	}
	rc := acts.Rules
	var limits []string
	usd := func(v float64) string { return correlate.USD(v) }
	if rc.JobCeilingUSD > 0 {
		limits = append(limits, "job ceiling "+usd(rc.JobCeilingUSD))
	}
	for _, jt := range sortedKeys(rc.JobTypeJobCeilingUSD) {
		limits = append(limits, fmt.Sprintf("job ceiling %s for %s jobs", usd(rc.JobTypeJobCeilingUSD[jt]), jt))
	}
	for _, jt := range sortedKeys(rc.JobTypeCeilingUSD) {
		limits = append(limits, fmt.Sprintf("job type %s ceiling %s", jt, usd(rc.JobTypeCeilingUSD[jt])))
	}
	if rc.RunCeilingUSD > 0 {
		limits = append(limits, "run ceiling "+usd(rc.RunCeilingUSD))
	}
	if rc.BurnRateUSDPerMin > 0 {
		limits = append(limits, fmt.Sprintf("burn rate %s/min", usd(rc.BurnRateUSDPerMin)))
	}
	if rc.ProjectedCeilingUSD > 0 {
		limits = append(limits, "projected ceiling "+usd(rc.ProjectedCeilingUSD))
	}
	findingKill := false
	for _, k := range rc.KillOn {
		if strings.HasPrefix(k, "finding:") {
			findingKill = true
		}
	}
	if len(limits) == 0 && !findingKill {
		return nil, nil
	}
	n := &nightRules{limits: strings.Join(limits, ", ")}
	if len(rc.KillOn) > 0 {
		n.limits += "; kill_on " + strings.Join(rc.KillOn, ", ")
	}
	n.rules = alerts.NewRules(rc, nil, func(a alerts.Alert) {
		// Findings alert once per run and are in the report's findings;
		// a crossing is a limit, or a finding a kill rule names.
		if strings.HasPrefix(a.Rule, "finding:") && !a.Kill {
			return
		}
		n.total++
		if len(n.crossings) >= maxNightCrossings {
			return
		}
		at := ""
		if a.At > 0 {
			at = time.Unix(0, a.At).UTC().Format(time.RFC3339Nano)
		}
		n.crossings = append(n.crossings, correlate.Crossing{Rule: a.Rule, Scope: a.Scope, JobID: a.JobID, JobType: a.JobType, At: at,
			SpendUSD: a.SpendUSD, CeilingUSD: a.CeilingUSD, KillRule: a.Kill, Reason: a.Reason})
	})
	return n, nil
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// observer is the consumer that applies each batch and lets the rules see
// every event right after it, as the engine does live.
type observer struct {
	st    *correlate.State
	after func(*correlate.Job, *ingest.Event)
}

func (o observer) Consume(b ingest.Batch) {
	o.st.ApplyBatch(b, o.after)
	ingest.Recycle(b)
}

// killActions are the journal's actions that stop something.
var killActions = []string{"kill_webhook", "kill_exec", "run_kill_exec"}

// readKills reads the alerts journal at path and returns the kills of the
// report's jobs (and runs), marking each job a kill reached as killed.
// The journal is only read: no lock, no write, and a missing file is an
// error (a report never creates one).
func readKills(path string, st *correlate.State) ([]correlate.KillMade, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("--journal %s: %w (give the alerts journal the live run wrote: watch --journal, or journal = in its config)", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--journal %s: not a regular file (a symbolic link or a device); give the journal itself", path)
	}
	j, err := alerts.OpenJournalReadOnly(path)
	if err != nil {
		return nil, err
	}
	for _, w := range j.Warnings() {
		fmt.Fprintln(os.Stderr, "burnrate:", w)
	}
	runs := map[string]bool{}
	for _, job := range st.Jobs() {
		if job.RunID != "" {
			runs[job.RunID] = true
		}
	}
	var kills []correlate.KillMade
	for _, r := range j.Records() {
		if !slices.Contains(killActions, r.Action) {
			continue
		}
		k := correlate.KillMade{JobID: r.JobID, RunID: r.RunID, Rule: r.Rule, Action: r.Action, State: string(r.State), At: r.LogAt}
		if r.JobID == "" {
			if runs[r.RunID] {
				kills = append(kills, k) // a run-wide kill of a run in this report
			}
			continue
		}
		job := st.Job(r.JobID)
		if job == nil || (job.RunID != "" && r.RunID != "" && job.RunID != r.RunID && !derivedRun(r.RunID)) {
			continue // another night's job, or another run's
		}
		kills = append(kills, k)
		if r.State == alerts.StateAcknowledged {
			at := int64(1)
			if t, err := time.Parse(time.RFC3339Nano, r.LogAt); err == nil && t.UnixNano() > 0 {
				at = t.UnixNano()
			}
			job.KilledTS = at
		}
	}
	slices.SortFunc(kills, func(a, b correlate.KillMade) int {
		return strings.Compare(a.At+"\x00"+a.JobID+"\x00"+a.Action, b.At+"\x00"+b.JobID+"\x00"+b.Action)
	})
	return kills, nil
}

// derivedRun reports a run ID the live run made up from its inputs (no
// run_id in the log): it cannot be matched against the log's.
func derivedRun(id string) bool { return strings.HasPrefix(id, "derived-") }
