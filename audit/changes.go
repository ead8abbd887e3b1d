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
