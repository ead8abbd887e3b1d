package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// observedReport runs report --format json on files and decodes the report.
func observedReport(t *testing.T, files ...string) correlate.Report {
	t.Helper()
	out, err := run(t, append([]string{"report", "--format", "json"}, files...)...)
	if err != nil && !strings.Contains(err.Error(), "critical") {
		t.Fatal(err)
	}
	var r correlate.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return r
}

func findingsOf(r correlate.Report, kind string) []correlate.FindingReport {
	var out []correlate.FindingReport
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func assumptionRows(r correlate.Report) map[string]correlate.AssumptionReport {
	rows := map[string]correlate.AssumptionReport{}
	for _, a := range r.Assumptions {
		if a.JobType == "" {
			rows[a.Key] = a
		}
	}
	return rows
}

// TestClaudeCodeBumpAcrossTheWatchdog: a Claude Code transcript (records
// field for field as Claude Code writes them: version, sessionId,
// message.usage, requestId) whose version moves from 2.1.195 to 2.1.196
// crosses the change anthropics/claude-code's CHANGELOG.md records for
// 2.1.196 ("The streaming idle watchdog is now on by default for all
// providers"): default_changed_upstream at the first record under 2.1.196.
func TestClaudeCodeBumpAcrossTheWatchdog(t *testing.T) {
	r := observedReport(t, assumeFixtures+"claude-code-watchdog-bump.jsonl")
	if v := assumptionRows(r)["claude-code.version"]; v.Observed != "2.1.196" || v.Previous != "2.1.195" {
		t.Errorf("claude-code.version: %+v", v)
	}
	up := findingsOf(r, "default_changed_upstream")
	if len(up) != 1 || !strings.Contains(up[0].Example, "watchdog") || !strings.HasPrefix(up[0].FirstAt, "2026-06-29T23:00:05") {
		t.Fatalf("default_changed_upstream: %+v", up)
	}
}

// TestLiteLLMRetriesAreTheRouters: LiteLLM's proxy answers
// x-litellm-attempted-retries and x-litellm-max-retries (BerriAI/litellm
// litellm/router_utils/add_retry_fallback_headers.py
// add_retry_headers_to_response; docs/my-website/docs/proxy/response_headers.md),
// string-valued as an HTTP client logs them. Those are the Router's
// retries: a run that declares anthropic-sdk.maxRetries 0 and
// retry.owner litellm-router keeps its premises — no assumption_violated
// (the SDK was charged with them), no assumption_missing (the owner is
// declared) — and the Router's layer is observed: 2 retries made, 3
// configured (litellm-router.numRetries, after its num_retries).
func TestLiteLLMRetriesAreTheRouters(t *testing.T) {
	r := observedReport(t, assumeFixtures+"litellm-proxy-2026-07-02.jsonl")
	rows := assumptionRows(r)
	if m := rows["litellm-router.maxRetries"]; m.Observed != "2" || !strings.Contains(m.Evidence, "x-litellm-attempted-retries") || !strings.Contains(m.Evidence, "article-17") {
		t.Errorf("litellm-router.maxRetries: %+v", m)
	}
	if n := rows["litellm-router.numRetries"]; n.Observed != "3" || n.Evidence != "x-litellm-max-retries" || n.ObservedAt != "2026-07-02T01:00:04.21Z" {
		t.Errorf("litellm-router.numRetries: %+v", n)
	}
	if s := rows["anthropic-sdk.maxRetries"]; s.Declared != "0" || s.Observed != "" {
		t.Errorf("the SDK's row: %+v (the Router's retries are not the SDK's)", s)
	}
	for _, k := range []string{"assumption_violated", "assumption_missing"} {
		if f := findingsOf(r, k); len(f) != 0 {
			t.Errorf("%s: %+v", k, f)
		}
	}
}

// TestBotocoreObservedKeys: two nights of a boto3 Bedrock client over
// OTLP, its headers as botocore writes them — amz-sdk-request joined from
// ttl, attempt and max (boto/botocore botocore/handlers.py
// add_retry_headers; no max on the first attempt before 1.43.66), the user
// agent of botocore/useragent.py with cfg/retry-mode. The attempts are
// botocore's layer (botocore.maxRetries, not a "-sdk" guess), max= is its
// configured attempts (botocore.maxAttempts, the key `burnrate audit`
// derives for the botocore row), the agent gives botocore.version and
// botocore.retryMode; 1.42.9 → 1.43.3 crosses AWS_NEW_RETRIES_2026.
func TestBotocoreObservedKeys(t *testing.T) {
	r := observedReport(t, assumeFixtures+"otlp-botocore-two-nights.jsonl")
	rows := assumptionRows(r)
	for key, want := range map[string][2]string{
		"botocore.maxAttempts": {"3", "5"}, "botocore.retryMode": {"standard", "legacy"}, "botocore.version": {"1.43.3", "1.42.9"},
	} {
		if a := rows[key]; a.Observed != want[0] || a.Previous != want[1] || !strings.HasPrefix(a.ChangedAt, "2026-07-02T01:00:0") {
			t.Errorf("%s: %+v, want %s after %s on night 2", key, a, want[0], want[1])
		}
	}
	if m := rows["botocore.maxRetries"]; m.Observed != "4" || !strings.Contains(m.Evidence, "amz-sdk-request") || !strings.Contains(m.Evidence, "article-0701") {
		t.Errorf("botocore.maxRetries: %+v", m)
	}
	for k := range rows {
		if strings.HasSuffix(k, "-sdk.maxRetries") {
			t.Errorf("%s: the AWS SDK's attempts charged to a provider SDK", k)
		}
	}
	up := findingsOf(r, "default_changed_upstream")
	if len(up) != 1 || !strings.Contains(up[0].Example, "AWS_NEW_RETRIES_2026") || up[0].FirstAt != "2026-07-02T01:00:00Z" {
		t.Fatalf("default_changed_upstream: %+v", up)
	}
}

// TestBotocoreDerivedBesideObserved: the audit's botocore row (a boto3
// client never configured: legacy mode's 5 attempts) and the traffic's
// amz-sdk-request max=3 meet in one row, botocore.maxAttempts: what the
// code was read to do beside what the SDK told the server.
func TestBotocoreDerivedBesideObserved(t *testing.T) {
	r := observedReport(t, "--audit", "../audit/testdata/boto3-bedrock", assumeFixtures+"otlp-botocore-two-nights.jsonl")
	a := assumptionRows(r)["botocore.maxAttempts"]
	if a.Derived != "5" || !strings.Contains(a.DerivedFrom, "app.py:3") || a.Observed != "3" {
		t.Errorf("botocore.maxAttempts: %+v", a)
	}
}
