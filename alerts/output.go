package alerts

import (
	"encoding/json"

	"github.com/burnrate-dev/burnrate/correlate"
)

// AlertLine is an alert as one headless JSON line ("type": "alert"); the
// field names are a contract with whatever reads burnrate's stdout.
type AlertLine struct {
	Type string `json:"type"`
	At   string `json:"at"`
	Alert
}

// ActionLine is an action's result as one headless JSON line ("type": "action").
type ActionLine struct {
	Type    string      `json:"type"`
	Action  string      `json:"action"`
	State   ActionState `json:"state"`
	Detail  string      `json:"detail"`
	Rule    string      `json:"rule"`
	Scope   string      `json:"scope"`
	JobID   string      `json:"job_id"`
	JobType string      `json:"job_type"`
	// JournalError says the journal could not record this step.
	JournalError string `json:"journal_error,omitempty"`
}

// JSON is the alert's headless line.
func (a Alert) JSON() []byte {
	b, _ := json.Marshal(AlertLine{Type: "alert", At: correlate.FormatTime(a.At), Alert: a})
	return b
}

// JSON is the result's headless line.
func (r Result) JSON() []byte {
	b, _ := json.Marshal(ActionLine{Type: "action", Action: r.Action, State: r.State, Detail: r.Detail,
		Rule: r.Alert.Rule, Scope: r.Alert.Scope, JobID: r.Alert.JobID, JobType: r.Alert.JobType, JournalError: r.JournalError})
	return b
}
