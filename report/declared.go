package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
)

// writeDeclared is the Markdown report's "Declared vs observed" section
// (report --stack or --audit): the declared layers and their product, and
// the calls of one operation and of one job seen, per job type. Nothing
// without a declared stack.
func writeDeclared(b *strings.Builder, r *correlate.Report) {
	d := r.DeclaredVsObserved
	if d == nil {
		return
	}
	b.WriteString("## Declared vs observed\n\n")
	fmt.Fprintf(b, "Declared (%s): %s attempts of one operation, outermost first.", cell(d.From), cell(d.DeclaredProduct))
	if d.Rule != "" {
		fmt.Fprintf(b, " Compared: %s.", cell(d.Rule))
	}
	b.WriteString("\n\n| # | Layer | Set at | Attempts |\n|---:|---|---|---:|\n")
	for i, l := range d.Layers {
		name := l.Name
		if l.Library != "" && l.Library != l.Name {
			name = l.Library + " (" + l.Name + ")"
		}
		n := strconv.Itoa(l.Attempts)
		if l.Unbounded {
			n = "∞"
		}
		src := l.Source
		if src == "" {
			src = "—"
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", i, cell(name), cell(src), n)
	}
	b.WriteString("\n| Job type | Jobs | Calls per operation p99 / max | Calls per job p99 / max | Worst job (its layers) | Jobs above declared |\n|---|---:|---:|---:|---|---:|\n")
	row := func(name string, o correlate.ObservedCalls) {
		fmt.Fprintf(b, "| %s | %s | %d / %d | %d / %d | %s (%s) | %s |\n", cell(name), correlate.Count(int64(o.Jobs)), o.PerOperation.P99, o.PerOperation.Max,
			o.PerJob.P99, o.PerJob.Max, cell(o.WorstJob), correlate.FormatLayers(o.WorstLayers), correlate.Count(int64(o.OverDeclared)))
	}
	row("all", d.Observed)
	if len(d.JobTypes) > 1 {
		for _, jt := range d.JobTypes {
			row(jt.JobType, jt)
		}
	}
	b.WriteString("\n")
	switch {
	case d.DeclaredAttempts == nil:
		b.WriteString("The declared stack is unbounded: no count of calls is above it. Bound the layer (an attempt limit and a deadline) to make the comparison mean something.\n\n")
	case d.Above:
		fmt.Fprintf(b, "**Observed above declared**: one operation made %d calls where the layers allow %d — ×%s unexplained: a retry layer the stack does not list (undeclared_retry_layer).\n\n",
			d.Observed.PerOperation.Max, *d.DeclaredAttempts, strconv.FormatFloat(d.GapFactor, 'f', -1, 64))
	case r.Totals.LowerBoundJobs > 0:
		// Issue 39: the app's records alone hide the SDK's retries below
		// them; "within" would be an exact-looking wrong conclusion.
		fmt.Fprintf(b, "Observed within the declared worst case (%d) as far as the log shows: %s %s lower bounds, the layers below the application's records unseen (Calls not seen, above).\n\n",
			*d.DeclaredAttempts, correlate.Count(int64(r.Totals.LowerBoundJobs)), plural(int64(r.Totals.LowerBoundJobs), "job's count is a", "jobs' counts are"))
	default:
		fmt.Fprintf(b, "Observed within the declared worst case (%d): no operation made more calls than the layers allow.\n\n", *d.DeclaredAttempts)
	}
	if d.Observed.PerJob.Max > d.Observed.PerOperation.Max {
		b.WriteString("Calls per job above calls per operation are distinct calls (a pipeline's steps, an agent's turns), not retries: only an operation is judged.\n\n")
	}
	if len(d.Others) > 0 {
		b.WriteString("Not compared: " + cell(strings.Join(d.Others, "; ")) + ".\n\n")
	}
}
