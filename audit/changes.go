package audit

import (
	"strconv"
	"strings"
)

// DefaultChange is a change of a library's retry behaviour between two of
// its versions: what the assumptions log's default_changed_upstream
// fires on, when the traffic shows a package version moving across it.
// Like the Defaults rows, each cites the source it was read from.
type DefaultChange struct {
	ID string // the Defaults row
	// LastBefore is the last version with the old behaviour: a move from
	// it (or earlier) to a later one crosses the change, and back.
	LastBefore string
	Before     string
	After      string
	Source     string
}

// DefaultChanges are the recorded changes. Only changes read from the
// library's own history are here; a release note alone is not enough.
var DefaultChanges = []DefaultChange{
	{ID: "openai-go", LastBefore: "3.52.0",
		Before: "a server's Retry-After honoured however long",
		After:  "Retry-After (and polling intervals) capped at 8 s (DefaultMaxServerDelay) unless the caller sets a longer one",
		Source: "openai/openai-go internal/requestconfig/requestconfig.go, commit 6d39b8b \"fix: bound retry and polling delays (#828)\" (2026-08-21), after v3.52.0 (2026-08-17)"},
	{ID: "openai-python", LastBefore: "2.51.0",
		Before: "Retry-After honoured up to 60 s; a longer one ignored for the SDK's own short exponential backoff",
		After:  "Retry-After honoured up to 120 s (MAX_RETRY_AFTER_DELAY = 2 * 60); a longer one is not retried, the API error surfaces",
		Source: "openai/openai-python src/openai/_base_client.py _calculate_retry_timeout, src/openai/_constants.py, commit 7fa7946 \"fix(client): honor Retry-After delays up to two minutes (#3555)\" (2026-07-30), released in v2.52.0 (2026-07-31, CHANGELOG.md); v2.51.0 the last before"},
	{ID: "botocore", LastBefore: "1.43.2",
		Before: "retry mode legacy by default (5 attempts, botocore/data/_retry.json)",
		After:  "AWS_NEW_RETRIES_2026=true (an opt-in environment variable) makes standard mode, 3 attempts (DEFAULT_MAX_ATTEMPTS), the default; without it legacy stays",
		Source: "boto/botocore botocore/configprovider.py (_resolve_new_retries, _DEFAULT_RETRY_MODE = 'standard' if NEW_RETRIES_ENABLED else 'legacy'), commit b8db539 \"Implement updated retry behavior gated behind opt-in environment variable (#3678)\" (2026-05-04), first in 1.43.3 (2026-05-04); 1.43.2 the last before"},
	{ID: "claude-code", LastBefore: "2.1.185",
		Before: "no cap on CLAUDE_CODE_MAX_RETRIES",
		After:  "CLAUDE_CODE_MAX_RETRIES capped at 15; unattended sessions are pointed at CLAUDE_CODE_RETRY_WATCHDOG (which lifts the cap from 2.1.199)",
		Source: "anthropics/claude-code CHANGELOG.md, 2.1.186: \"Changed `CLAUDE_CODE_MAX_RETRIES` to cap at 15\" (commit 1228199, 2026-06-22); 2.1.199: \"lifts the cap of 15\" under CLAUDE_CODE_RETRY_WATCHDOG (commit 125d63f, 2026-07-02)"},
	{ID: "claude-code", LastBefore: "2.1.195",
		Before: "the streaming idle watchdog not on by default for every provider",
		After:  "the streaming idle watchdog on by default for all providers: a response stream with no events for 5 minutes is aborted and retried, regenerated from scratch (CLAUDE_ENABLE_STREAM_WATCHDOG=0 disables): another retry layer",
		Source: "anthropics/claude-code CHANGELOG.md, 2.1.196: \"The streaming idle watchdog is now on by default for all providers\" (commit c80896c, 2026-06-29); the watchdog's threshold became configurable in 2.1.84 (CLAUDE_STREAM_IDLE_TIMEOUT_MS, default 90 s; commit a0d9b87, 2026-03-26)"},
}

// ChangesAcross returns the recorded changes of row id that a move from
// version from to version to crosses, either way. Versions are compared
// by their dotted numbers ("v3.52.0" is 3.52.0); one that does not read
// crosses nothing.
func ChangesAcross(id, from, to string) []DefaultChange {
	var out []DefaultChange
	for _, c := range DefaultChanges {
		if c.ID != id {
			continue
		}
		a, okA := compareVersions(from, c.LastBefore)
		b, okB := compareVersions(to, c.LastBefore)
		if okA && okB && (a <= 0) != (b <= 0) {
			out = append(out, c)
		}
	}
	return out
}

// compareVersions compares dotted version numbers (a leading v and a
// pre-release or build suffix ignored).
func compareVersions(a, b string) (int, bool) {
	pa, okA := versionParts(a)
	pb, okB := versionParts(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range max(len(pa), len(pb)) {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}

func versionParts(v string) ([]int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	fields := strings.Split(v, ".")
	if len(fields) == 0 || len(fields) > 6 {
		return nil, false
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
