package engine

import (
	"strings"
	"time"

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
//   - each date of the event's run ID is the day after the earlier
//     run's: a roll, not a backfill of another day run beside today's
//     (whose job IDs recur, and whose jobs are not today's);
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
	shape, _ := datesOf(id)
	return shape
}

// datesOf is id's date shape and its dates, as days since 1970.
func datesOf(id string) (string, []int64) {
	var b []byte
	var days []int64
	for i := 0; i < len(id); {
		if n, day := dateAt(id[i:]); n > 0 && (i == 0 || !isDigit(id[i-1])) && (i+n == len(id) || !isDigit(id[i+n])) {
			if b == nil {
				b = append(make([]byte, 0, len(id)), id[:i]...)
			}
			b = append(b, 0)
			days = append(days, day)
			i += n
			continue
		}
		if b != nil {
			b = append(b, id[i])
		}
		i++
	}
	if days == nil {
		return "", nil
	}
	return string(b), days
}

// nextDay: each of b's dates is the day after a's.
func nextDay(a, b []int64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if b[i] != a[i]+1 {
			return false
		}
	}
	return true
}

// dateAt is the length of the date s begins with, 0 for none, and the
// date as days since 1970.
func dateAt(s string) (int, int64) {
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
		return 0, 0
	}
	i := 4
	sep := byte(0)
	if i < len(s) && strings.IndexByte("-_./", s[i]) >= 0 {
		sep = s[i]
		i++
	}
	m, ok := digits(s[i:], 2)
	if !ok || m < 1 || m > 12 {
		return 0, 0
	}
	i += 2
	if sep != 0 {
		if i >= len(s) || s[i] != sep {
			return 0, 0
		}
		i++
	}
	d, ok := digits(s[i:], 2)
	if !ok || d < 1 || d > 31 {
		return 0, 0
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return 0, 0 // 2026-02-30 is no date
	}
	return i + 2, t.Unix() / 86400
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
		rs.shapeOf = strings.Clone(ev.RunID)
		rs.shape, rs.shapeDays = datesOf(ev.RunID)
	}
	if rs.shape == "" || rs.shape != j.run.dateShape || !nextDay(j.run.dateDays, rs.shapeDays) {
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
