package alerts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// Manual is the kill action behind the dashboard's x key: the same hooks,
// journal, keys and still-logging tracking as the rules, for the job an
// operator chose.
type Manual struct {
	rules *Rules
	hooks Hooks
}

// NewManual wraps the rules (and through them the dispatcher) for the dashboard.
func NewManual(r *Rules) *Manual { return &Manual{rules: r, hooks: r.disp.hooks} }

// Describe says what y would do, before anything happens.
func (m *Manual) Describe(jobID, jobType string) string {
	if m.hooks.ReadOnly {
		return "read-only mode: kills are disabled; nothing will be sent"
	}
	var what []string
	if m.hooks.KillWebhook != "" {
		what = append(what, "POST "+RedactURL(m.hooks.KillWebhook))
	}
	if t := m.hooks.KillExec; t != nil {
		argv, err := t.Argv(Alert{JobID: jobID, JobType: jobType, Scope: "job", Rule: RuleManual})
		if err != nil {
			what = append(what, "exec refused: "+err.Error())
		} else {
			what = append(what, Redact(fmt.Sprintf("exec %q", argv))) // a token in the template stays off the screen
		}
	}
	if m.hooks.DryRun {
		return "dry run, would: " + strings.Join(what, " and ")
	}
	return "will " + strings.Join(what, " and ")
}

// Kill queues the kill of the job in row, at log time at; it returns at once.
func (m *Manual) Kill(row correlate.JobRow, at int64) error {
	if m.hooks.ReadOnly {
		return errors.New("read-only mode: kills are disabled")
	}
	m.rules.KillManual(row.ID, row.Type, row.RunID, row.Spend.USD(), int64(row.Calls+row.ToolCalls), at)
	return nil
}
