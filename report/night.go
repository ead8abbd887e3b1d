package report

import (
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// writeNight is the section of what the config's limits and kill rules did
// to the night (report --config, --journal): absent without either.
func writeNight(b *strings.Builder, r *correlate.Report) {
	n := r.Night
	if n == nil {
		return
	}
	b.WriteString("## What the night did\n\n")
	if n.Limits != "" {
		fmt.Fprintf(b, "The config's limits, applied to every event as the live run applies them: %s.\n\n", md(n.Limits))
		if len(n.Crossings) == 0 {
			b.WriteString("No limit was crossed.\n\n")
		} else {
			b.WriteString("| When | Rule | Job or scope | Spend | Limit | Kill rule | What |\n|---|---|---|---:|---:|---|---|\n")
			for _, c := range n.Crossings {
				who := c.JobID
				if who == "" {
					who = c.Scope
					if c.JobType != "" {
						who += " " + c.JobType
					}
				}
				limit := "–"
				if c.CeilingUSD > 0 {
					limit = correlate.USD(c.CeilingUSD)
				}
				kill := "no"
				if c.KillRule {
					kill = "yes (kill_on)"
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", cell(orUnknown(c.At, "unknown")), cell(c.Rule), cell(who),
					correlate.USD(c.SpendUSD), limit, kill, cell(c.Reason))
			}
			if more := n.CrossingsTotal - len(n.Crossings); more > 0 {
				fmt.Fprintf(b, "\nAnd %s more crossings (--format json counts them in night.crossings_total).\n", correlate.Count(int64(more)))
			}
			b.WriteString("\n")
		}
	}
	if n.Journal != "" {
		fmt.Fprintf(b, "Kills the alerts journal %s records for this night's jobs: ", md(n.Journal))
		if len(n.Kills) == 0 {
			b.WriteString("none.\n\n")
			return
		}
		b.WriteString("a job whose kill was acknowledged (the hook answered 2xx, the command exited 0) is \"killed\" in the tables below.\n\n| When | Job | Run | Rule | Action | State |\n|---|---|---|---|---|---|\n")
		for _, k := range n.Kills {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(orUnknown(k.At, "unknown")), cell(orUnknown(k.JobID, "(the run)")), cell(k.RunID),
				cell(k.Rule), cell(k.Action), cell(k.State))
		}
		b.WriteString("\n")
	}
}
