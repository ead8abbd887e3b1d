package engine

import (
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// A run ID derived from the date ("nightly-2026-12-01") rolls at
// midnight: a job still running then logged its next call under the next
// day's ID, became a second job in a second run, and each half stayed
// under its ceiling ($0.18 + $0.18, no kill; issue 34). A job belongs to
// the run of its first event. The rule that joins it across the roll:
//
//   - the two run IDs are the same once every date in them (YYYY-MM-DD,
//     YYYY_MM_DD, YYYY.MM.DD, YYYY/MM/DD or YYYYMMDD, a plausible year,
//     month and day) is blanked, and they have at least one date — so
//     two pipelines P and Q, or "etl-…" and "ml-…", are never joined;
//   - the event's job ID is a job of the earlier run that is still
//     running there: not ended by its lifecycle (succeeded or dead
//     lettered), and its last event no longer ago (log time) than the
//     job idle time — so the next night's
//     job-7, begun after last night's job-7 ended or went quiet, is a job
//     of its own;
//   - the earlier run is still open.
//
// Only runs whose ID holds a date are tracked, so a log whose run IDs
// hold none pays nothing for the rule.

// rolledAt is where a job of a dated run went: its run, its latest
// event's time, and whether its lifecycle ended it (succeeded or dead
// lettered; a failed job may be retried by its queue). Routing runs ahead
// of applying (a batch is routed, then applied run by run), so this is
// kept here rather than read from the run's State.
type rolledAt struct {
	run    *run
	lastTS int64
	ended  bool
}

// dateShape is id with each date in it blanked ("nightly-\x00"), or ""
// when id holds none.
func dateShape(id string) string {
	var b []byte
	found := false
	for i := 0; i < len(id); {
		if n := dateAt(id[i:]); n > 0 && (i == 0 || !isDigit(id[i-1])) && (i+n == len(id) || !isDigit(id[i+n])) {
			if b == nil {
				b = append(make([]byte, 0, len(id)), id[:i]...)
			}
			b = append(b, 0)
			i += n
			found = true
			continue
		}
		if b != nil {
			b = append(b, id[i])
		}
		i++
	}
	if !found {
		return ""
	}
	return string(b)
}

// dateAt is the length of the date s begins with, 0 for none.
func dateAt(s string) int {
	digits := func(s string, n int) (int, bool) {
		if len(s) < n {
			return 0, false
		}
		v := 0
		for i := range n {
			if !isDigit(s[i]) {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	y, ok := digits(s, 4)
	if !ok || y < 1970 || y > 2199 {
		return 0
	}
	i := 4
	sep := byte(0)
	if i < len(s) && strings.IndexByte("-_./", s[i]) >= 0 {
		sep = s[i]
		i++
	}
	m, ok := digits(s[i:], 2)
	if !ok || m < 1 || m > 12 {
		return 0
	}
	i += 2
	if sep != 0 {
		if i >= len(s) || s[i] != sep {
			return 0
		}
		i++
	}
	d, ok := digits(s[i:], 2)
	if !ok || d < 1 || d > 31 {
		return 0
	}
	return i + 2
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// rolled is the earlier run ev's job continues in when ev names a run
// whose ID differs from that run's only in its dates (see above), else
// nil.
func (rs *runs) rolled(ev *ingest.Event) *run {
	if len(rs.rolledJobs) == 0 || ev.JobID == "" {
		return nil
	}
	j, ok := rs.rolledJobs[ev.JobID]
	if !ok || j.run.closed || j.run.logRunID == ev.RunID {
		return nil
	}
	if rs.shapeOf != ev.RunID {
		rs.shapeOf, rs.shape = strings.Clone(ev.RunID), dateShape(ev.RunID)
	}
	if rs.shape == "" || rs.shape != j.run.dateShape {
		return nil
	}
	idle := int64(rs.cfg.IdleAfter)
	if idle <= 0 {
		idle = int64(correlate.DefaultIdleAfter)
	}
	if j.ended || ev.TS <= 0 || ev.TS > j.lastTS+idle {
		return nil
	}
	return j.run
}

// noteRolled records where ev's job went, for a run whose ID holds a date.
func (rs *runs) noteRolled(r *run, ev *ingest.Event) {
	if r.dateShape == "" || ev.JobID == "" || ev.TS <= 0 {
		return
	}
	if rs.rolledJobs == nil || len(rs.rolledJobs) >= maxJobsAt {
		rs.rolledJobs = map[string]rolledAt{}
	}
	id := ev.JobID
	j, ok := rs.rolledJobs[id]
	if !ok {
		// A key of its own: the event's may share a block with many
		// others (ingest's idArena).
		id = strings.Clone(id)
	}
	if j.run != r {
		j = rolledAt{run: r}
	}
	j.lastTS = max(j.lastTS, ev.TS)
	switch ev.Kind {
	case ingest.KindJobSucceeded, ingest.KindJobDeadLettered:
		j.ended = true
	case ingest.KindJobEnqueued, ingest.KindJobStarted:
		j.ended = false
	}
	rs.rolledJobs[id] = j
}
