package matrix

import (
	"fmt"
	"io"
)

// Summary writes one line per app × logging, added up over its
// concurrencies and seeds: the short form of the matrix.
func Summary(w io.Writer, rows []Row) {
	type key struct {
		app string
		l   Logging
	}
	type sum struct {
		setups, errs, wire, expected, seen, wireJobs, exact, wrong, marked, falseCrit, kills, missed int
		killsRun                                                                                     bool
	}
	var order []key
	sums := map[key]*sum{}
	for _, r := range rows {
		k := key{r.App, r.Logging}
		s := sums[k]
		if s == nil {
			s = &sum{}
			sums[k] = s
			order = append(order, k)
		}
		s.setups++
		if r.Err != nil {
			s.errs++
			continue
		}
		s.wire += r.WireCalls
		s.expected += r.Expected
		s.seen += r.SeenCalls
		s.wireJobs += r.WireJobs
		s.exact += r.JobsExact
		s.wrong += r.JobsWrong
		s.marked += r.Marked
		s.falseCrit += r.FalseCritical
		if r.FalseKills >= 0 {
			s.killsRun = true
			s.kills += r.FalseKills
			s.missed += r.MissedKills
		}
	}
	fmt.Fprintln(w, "| app | logging | setups | wire calls | burnrate calls | wire jobs exact | jobs wrong | false critical findings | kills of innocent jobs | errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, k := range order {
		s := sums[k]
		kills := "not run"
		if s.killsRun {
			kills = fmt.Sprintf("%d (missed %d)", s.kills, s.missed)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %d of %d | %s | %d | %s | %d |\n", k.app, k.l, s.setups, wireCalls(s.wire, s.expected), s.seen, s.exact, s.wireJobs, wrongJobs(s.wrong, s.marked), s.falseCrit, kills, s.errs)
	}
}

// wrongJobs writes the wrong jobs, with how many of them burnrate's own
// report marked (Result.Marked): "12 (9 marked)".
func wrongJobs(wrong, marked int) string {
	if marked == 0 {
		return fmt.Sprint(wrong)
	}
	return fmt.Sprintf("%d (%d marked)", wrong, marked)
}
