package report

import (
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// writeAssumptions is the Markdown report's assumptions log (seed 003):
// each key's declared, derived and observed value, the previous value
// and when it changed, and the evidence. Every cell is log text, made
// inert by cell.
func writeAssumptions(b *strings.Builder, r *correlate.Report) {
	b.WriteString("## Assumptions\n\n")
	if len(r.Assumptions) == 0 {
		b.WriteString("None: the run declared no assumption and its logs show no retry count, package version or job type to observe. Declare the premises a run depends on with an `[assumptions] {…}` line, an `assumptions` record, `assumption.*` OTLP attributes or `burnrate.assumptions.toml` (docs/assumptions.md).\n\n")
		return
	}
	b.WriteString("| Key | Declared | Derived | Observed | Last run | Change | Evidence |\n|---|---|---|---|---|---|---|\n")
	for _, a := range r.Assumptions {
		key := a.Key
		if a.JobType != "" {
			key += " (" + a.JobType + ")"
		}
		declared := a.Declared
		if declared != "" && a.DeclaredFrom != "" {
			declared += " (" + a.DeclaredFrom + ")"
		}
		derived := a.Derived
		if derived != "" && a.DerivedFrom != "" {
			derived += " (" + a.DerivedFrom + ")"
		}
		change := ""
		if a.Previous != "" {
			change = "changed at " + a.ChangedAt
		}
		evidence := a.Evidence
		if a.ObservedAt != "" {
			evidence += " at " + a.ObservedAt
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", cell(key), cell(declared), cell(derived), cell(a.Observed), cell(a.Previous), cell(change), cell(evidence))
	}
	if r.AssumptionsDropped > 0 {
		fmt.Fprintf(b, "\n%d declaration(s) past the log's bound were not kept.\n", r.AssumptionsDropped)
	}
	b.WriteString("\n")
}
