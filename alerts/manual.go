package alerts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// Manual is the kill action behind the dashboard's x key: the same hooks,
// journal and idempotency as the rules, for the job an operator chose.
type Manual struct {
	disp  *Dispatcher
	hooks Hooks
}

// NewManual wraps a dispatcher for the dashboard.
func NewManual(d *Dispatcher) *Manual { return &Manual{disp: d, hooks: d.hooks} }

// Describe says what y would do, before anything happens.
func (m *Manual) Describe(jobID, jobType string) string {
	if m.hooks.ReadOnly {
		return "read-only mode: kills are disabled; nothing will be sent"
	}
	var what []string
	if m.hooks.KillWebhook != "" {
		what = append(what, "POST "+m.hooks.KillWebhook)
	}
	if t := m.hooks.KillExec; t != nil {
		argv, err := t.Argv(Alert{JobID: jobID, JobType: jobType, Scope: "job", Rule: RuleManual})
		if err != nil {
			what = append(what, "exec refused: "+err.Error())
		} else {
			what = append(what, fmt.Sprintf("exec %q", argv))
		}
	}
	if m.hooks.DryRun {
		return "dry run, would: " + strings.Join(what, " and ")
	}
	return "will " + strings.Join(what, " and ")
}

// Kill queues the kill; it returns at once.
func (m *Manual) Kill(jobID, jobType string, spendUSD float64, attempts, at int64) error {
	if m.hooks.ReadOnly {
		return errors.New("read-only mode: kills are disabled")
	}
	m.disp.Kill(Alert{Rule: RuleManual, Severity: correlate.SeverityCritical, Scope: "job", JobID: jobID, JobType: jobType,
		Reason: "killed from the dashboard by the operator", SpendUSD: spendUSD, Attempts: attempts, At: at, Kill: true})
	return nil
}
