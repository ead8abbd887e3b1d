package correlate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// retryAfterLog is one job's attempts of one call as an application logs
// an OpenAI client's responses with their headers (httpx's header values
// are strings): each step is the wait after the answer before it, and the
// Retry-After that answer asked for ("" none). The last attempt succeeds.
func retryAfterLog(job string, start time.Time, steps ...[2]string) []string {
	var out []string
	ts := start
	for i, s := range steps {
		if i > 0 {
			d, err := time.ParseDuration(s[0])
			if err != nil {
				panic(err)
			}
			ts = ts.Add(d)
		}
		status, hdr := 429, ""
		if s[1] != "" {
			hdr = fmt.Sprintf(`,"headers":{"retry-after":%q,"x-ratelimit-remaining-requests":"0"}`, s[1])
		}
		usage := ""
		if i == len(steps)-1 {
			status, hdr, usage = 200, "", `,"usage":{"prompt_tokens":900,"completion_tokens":120}`
		}
		out = append(out, fmt.Sprintf(`{"ts":%q,"job_id":%q,"provider":"openai","model":"gpt-4o-mini","status":%d%s%s}`, ts.Format(time.RFC3339Nano), job, status, hdr, usage))
	}
	return out
}

// TestRetryAfterObserved: NAME.retryAfter is read only where the log
// gives the header and the next attempt's time, and says which of the
// behaviours the libraries really have: honoured (openai-python up to
// 120 s since v2.52.0), capped (openai-go's 8 s DefaultMaxServerDelay),
// honoured up to a ceiling past which the SDK's own backoff runs
// (openai-python's 60 s before v2.52.0), ignored.
func TestRetryAfterObserved(t *testing.T) {
	night := time.Date(2026, 7, 1, 1, 0, 0, 0, time.UTC)
	var lines []string
	for _, c := range []struct {
		name  string
		steps [][][2]string
		want  string
	}{
		{"honoured", [][][2]string{{{"", "20"}, {"20s", ""}}, {{"", "3"}, {"3.05s", "7"}, {"6.99s", ""}}}, "honoured"},
		{"capped", [][][2]string{{{"", "20"}, {"8s", "30"}, {"8.2s", ""}}, {{"", "5"}, {"5s", ""}}}, "capped at 8.2s"},
		{"up to", [][][2]string{{{"", "30"}, {"30s", "90"}, {"1.3s", ""}}, {{"", "120"}, {"4s", ""}}}, "honoured up to 30s"},
		{"ignored", [][][2]string{{{"", "30"}, {"0.5s", "30"}, {"2.1s", ""}}}, "ignored"},
		{"one case", [][][2]string{{{"", "20"}, {"8s", ""}}}, "cut short (waited 8s of 20s)"},
	} {
		lines = lines[:0]
		for i, job := range c.steps {
			lines = append(lines, retryAfterLog(fmt.Sprintf("%s-%d", strings.ReplaceAll(c.name, " ", "-"), i), night.Add(time.Duration(i)*time.Hour), job...)...)
		}
		r := apply(t, DefaultConfig(), lines...)
		var got *AssumptionReport
		for i := range r.Assumptions {
			if r.Assumptions[i].Key == "openai-sdk.retryAfter" {
				got = &r.Assumptions[i]
			}
		}
		// Observed at the first retry that followed a Retry-After.
		if got == nil || got.Observed != c.want || !strings.HasPrefix(got.ObservedAt, "2026-07-01T01:00:") || got.ObservedAt == "2026-07-01T01:00:00Z" {
			t.Errorf("%s: %+v, want %q", c.name, got, c.want)
			continue
		}
		if !strings.Contains(got.Evidence, "Retry-After") || !strings.Contains(got.Evidence, c.name[:2]) {
			t.Errorf("%s: evidence %q", c.name, got.Evidence)
		}
	}
}

// TestRetryAfterNeedsBothTimes: a Retry-After with no attempt after it
// (the SDK gave up, or the log ends), a success's Retry-After, and a
// retry logged before the answer it follows (files merged out of order)
// are no evidence: no retryAfter row is invented.
func TestRetryAfterNeedsBothTimes(t *testing.T) {
	r := apply(t, DefaultConfig(),
		`{"ts":"2026-07-01T01:00:00Z","job_id":"gave-up","provider":"openai","model":"gpt-4o-mini","status":429,"headers":{"retry-after":"300"}}`,
		`{"ts":"2026-07-01T01:01:00Z","job_id":"ok","provider":"openai","model":"gpt-4o-mini","status":200,"headers":{"retry-after":"5"},"usage":{"prompt_tokens":9,"completion_tokens":1}}`,
		`{"ts":"2026-07-01T01:01:01Z","job_id":"ok","provider":"openai","model":"gpt-4o-mini","status":200,"usage":{"prompt_tokens":9,"completion_tokens":1}}`,
		`{"ts":"2026-07-01T01:05:00Z","job_id":"merged","provider":"openai","model":"gpt-4o-mini","status":429,"headers":{"retry-after":"20"}}`,
		`{"ts":"2026-07-01T01:04:00Z","job_id":"merged","provider":"openai","model":"gpt-4o-mini","status":200,"usage":{"prompt_tokens":9,"completion_tokens":1}}`,
	)
	for _, a := range r.Assumptions {
		if strings.HasSuffix(a.Key, ".retryAfter") {
			t.Errorf("invented %+v", a)
		}
	}
}

func TestSecondsText(t *testing.T) {
	for ms, want := range map[int64]string{8000: "8s", 7500: "7.5s", 8249: "8.2s", 120000: "120s", 0: "0s", 49: "0s", 50: "0.1s"} {
		if got := seconds(ms); got != want {
			t.Errorf("seconds(%d) = %s, want %s", ms, got, want)
		}
	}
}

// TestBotocoreIsAnSDKLayer: retry.owner declared as the queue while
// botocore retried (its amz-sdk-request attempts) is a contradiction, as
// for any SDK; declared as botocore itself, it is the design.
func TestBotocoreIsAnSDKLayer(t *testing.T) {
	for owner, want := range map[string]bool{"queue": true, "botocore": false, "aws-sdk-owner": false} {
		st := New(DefaultConfig())
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.TS = ingest.KindAssumption, time.Date(2026, 7, 1, 1, 0, 0, 0, time.UTC).UnixNano()
		ev.SetAssumption("assumptions record", "retry.owner", owner)
		st.Apply(&ev)
		for i := int16(1); i <= 3; i++ {
			ev.Reset()
			ev.Kind, ev.TS, ev.JobID, ev.Model, ev.Provider = ingest.KindLLMCall, time.Date(2026, 7, 1, 1, 0, int(i), 0, time.UTC).UnixNano(), "j", "anthropic.claude-3-5-sonnet-20240620-v1:0", "aws.bedrock"
			ev.Status, ev.Attempt, ev.AttemptBy = 429, i, ingest.AttemptByBotocore
			if i == 3 {
				ev.Status = 200
			}
			st.Apply(&ev)
		}
		r := st.Report()
		if got := findingOf(r, "assumption_violated") != nil; got != want {
			t.Errorf("retry.owner %s: violated %v, want %v (%+v)", owner, got, want, r.Assumptions)
		}
	}
}
