package matrix

import (
	"fmt"
	"io"
	"strings"
)

// Table writes the rows as the Markdown table docs/lab.md shows, then the
// wrong jobs of each row (at most a few per row) and the errors.
func Table(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| setup | must hold | wire calls | burnrate calls | jobs exact | jobs wrong | false critical findings | kills of innocent jobs | holds |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		must := "known gap"
		if r.MustHold {
			must = "must hold"
		}
		if r.WireCallsPerJob > 0 {
			must += fmt.Sprintf("; wire %d/job", r.WireCallsPerJob)
		}
		kills := "not run"
		if r.FalseKills >= 0 {
			kills = fmt.Sprintf("%d (missed %d)", r.FalseKills, r.MissedKills)
		}
		verdict := "yes"
		switch {
		case r.Err != nil:
			verdict = "ERROR"
		case r.WireBad != "":
			verdict = "WIRE WRONG"
		case !r.Holds():
			verdict = "NO"
		case !r.MustHold && (r.JobsWrong > 0 || r.FalseCritical > 0):
			verdict = "no (gap)"
		}
		if r.Err != nil {
			fmt.Fprintf(w, "| %s | %s | | | | | | | %s |\n", r.Setup, must, verdict)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s | %d | %s | %s |\n", r.Setup, must, wireCalls(r.WireCalls, r.Expected), r.SeenCalls, r.JobsExact, wrongJobs(r.JobsWrong, r.Marked), r.FalseCritical, kills, verdict)
	}
	var notes []string
	for _, r := range rows {
		switch {
		case r.Err != nil:
			notes = append(notes, fmt.Sprintf("- %s: error: %v", r.Setup, r.Err))
		case r.WireBad != "":
			notes = append(notes, fmt.Sprintf("- %s: the wire: %s", r.Setup, cut(r.WireBad, 300)))
		case r.Note != "":
			notes = append(notes, fmt.Sprintf("- %s: %s", r.Setup, cut(r.Note, 300)))
		}
		for _, f := range r.FalseCriticals[:min(3, len(r.FalseCriticals))] {
			notes = append(notes, fmt.Sprintf("- %s: false critical finding: %s", r.Setup, f))
		}
		if len(r.Wrong) > 0 {
			shown := r.Wrong[:min(3, len(r.Wrong))]
			more := ""
			if len(r.Wrong) > 3 {
				more = fmt.Sprintf(" (and %d more)", len(r.Wrong)-3)
			}
			notes = append(notes, fmt.Sprintf("- %s: %s%s", r.Setup, strings.Join(shown, "; "), more))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Wrong jobs, first three per setup:")
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Failed is the setups that must hold and do not (or whose wire broke).
func Failed(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if !r.Holds() {
			out = append(out, r)
		}
	}
	return out
}

// wireCalls is the wire's requests, and when burnrate is held to fewer
// (the app's log alone: the app's SDK calls) that number beside them.
func wireCalls(wire, expected int) string {
	if expected == wire {
		return fmt.Sprint(wire)
	}
	return fmt.Sprintf("%d (%d SDK calls)", wire, expected)
}
