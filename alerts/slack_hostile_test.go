package alerts

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestNotifyTextHostileCorpus (issue 36): the notify webhook's text is
// what a Slack-compatible receiver shows as mrkdwn; a job ID or reason
// holding <!channel>, <@U123> or <https://x|y> pinged the channel, named
// a user or forged a link. Its text has no live < or > and no raw
// control, bidi or zero-width character; the program fields stay exact.
func TestNotifyTextHostileCorpus(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		a := goldenAlert
		a.JobID, a.Reason = s, "job "+s+" over its ceiling"
		var body NotifyBody
		if err := json.Unmarshal(notifyBody(a), &body); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(body.Text, "<>") {
			t.Errorf("%q: Slack text %q has a live < or >", s, body.Text)
		}
		if u := testutil.TerminalUnsafe(body.Text); u != "" {
			t.Errorf("%q: Slack text %q keeps %q raw", s, body.Text, u)
		}
		if body.JobID != s && utf8.ValidString(s) { // JSON holds no invalid UTF-8
			t.Errorf("job_id %q, want %q exactly: a program reads it", body.JobID, s)
		}
	}
}
