package budget

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/guptarohit/asciigraph"
)

// PrintModel writes the model's inputs and results as text.
func PrintModel(w io.Writer, m Model, r Result) {
	fmt.Fprintf(w, "p=%g  n=%d  b=%gs  m=%g  cap=%s  jitter=%s  L=%gs  D=%s  S=%s  retry-after=%s\n\n",
		m.P, m.Retries, m.Base, m.Multiplier, orNone(m.Cap, "s"), m.Jitter, m.Latency, orNone(m.Deadline, "s"), orNone(m.Target, ""), orNone(m.RetryAfter, "s"))
	fmt.Fprintf(w, "P(success within %d retries) = 1 − p^(n+1) = %.6f\n", m.Retries, r.PSuccess)
	fmt.Fprintf(w, "expected attempts            = %.4f\n", r.ExpectedAttempts)
	fmt.Fprintf(w, "expected time                = %.2f s\n", r.ExpectedTime)
	fmt.Fprintf(w, "worst-case time              = %.2f s  (size timeouts against this)\n", r.WorstTime)
	if r.PDeadline != nil {
		at := "never: the whole schedule fits"
		if r.DeadlineAttempt != nil {
			at = fmt.Sprintf("attempt %d", *r.DeadlineAttempt)
		}
		fmt.Fprintf(w, "deadline crossed at          = %s\nP(deadline exceeded)         = %.6f\n", at, *r.PDeadline)
		switch {
		case r.MaxSafeCap == nil:
			fmt.Fprintln(w, "largest safe cap             = none helps: (n+1)·L already exceeds D; cut retries or latency")
		case !r.CapRequired:
			fmt.Fprintf(w, "largest safe cap             = no cap required (the uncapped worst case fits)\n")
		default:
			fmt.Fprintf(w, "largest safe cap             = %.3f s (worst case fits in D)\n", *r.MaxSafeCap)
		}
	}
	if r.Recommended != nil {
		fmt.Fprintf(w, "minimum retries for the target = %d (S = %g)\n", *r.Recommended, m.Target)
	} else if m.Target > 0 {
		fmt.Fprintln(w, "minimum retries for S        = none: with p = 1 no retry count reaches the target")
	}
	fmt.Fprintln(w, "\nAttempts are assumed independent; during an incident they are not, so read P(success) as an optimistic upper bound and lean on the worst case.")
	if len(r.Schedule) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "RETRY\tNOMINAL s\tEXPECTED s\tWORST s\tFINISHES (expected) s\tP(happens)")
		for _, s := range r.Schedule {
			fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%.2f\t%.6f\n", s.Retry, s.Nominal, s.Expected, s.Worst, s.FinishExpected, s.PReach)
		}
		tw.Flush()
	}
	ts, cdf := r.CDF(m.P, 60)
	fmt.Fprintf(w, "\nCDF of completion time (expected timeline, 0 → %.1f s):\n%s\n", ts[len(ts)-1],
		asciigraph.Plot(cdf, asciigraph.Height(8), asciigraph.Precision(2), asciigraph.LowerBound(0), asciigraph.UpperBound(1)))
}

func orNone(v float64, unit string) string {
	if v == 0 {
		return "none"
	}
	return fmt.Sprintf("%g%s", v, unit)
}

// PrintMeasured writes what a log measured as text.
func PrintMeasured(w io.Writer, m Measured) {
	lat := "latency unknown (no attempt reported one)"
	if m.LatencyS != nil {
		lat = fmt.Sprintf("mean latency %.2f s", *m.LatencyS)
	}
	fmt.Fprintf(w, "Measured from the log: p = %.4f overall, %s\n\n", m.P, lat)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tATTEMPTS\tp\tLATENCY ms\t429\t5xx/529\tterminal 4xx\tconnection")
	for _, md := range m.Models {
		lat := "unknown"
		if md.LatencyMs > 0 {
			lat = fmt.Sprintf("%.0f", md.LatencyMs)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%s\t%.4f\t%.4f\t%.4f\t%.4f\n", display.Text(md.Model), md.Attempts, md.P, lat,
			md.ByClass["rate_limit"], md.ByClass["overloaded_5xx"], md.ByClass["terminal_4xx"], md.ByClass["connection"])
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB TYPE\tOBSERVED LAYERS\tOBSERVED WORST CASE\tp99 CALLS/JOB\tCONFIGURED WORST CASE")
	for _, jt := range m.JobTypes {
		conf := "-"
		if jt.ConfiguredWorst > 0 {
			conf = fmt.Sprint(jt.ConfiguredWorst)
			if jt.OverConfigured {
				conf += "  ← p99 above it: a retry layer you did not configure"
			}
		}
		layers := make([]string, len(jt.Layers))
		for i, l := range jt.Layers {
			layers[i] = fmt.Sprint(l)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", display.Text(jt.JobType), strings.Join(layers, "×"), jt.ObservedWorstCase, jt.CallsPerJobP99, conf)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nRecovery within k attempts, observed vs 1 − p^k:  k=1 %.3f vs %.3f   k=3 %.3f vs %.3f   k=5 %.3f vs %.3f\n",
		m.Recovery.Observed["1"], m.Recovery.Modelled["1"], m.Recovery.Observed["3"], m.Recovery.Modelled["3"], m.Recovery.Observed["5"], m.Recovery.Modelled["5"])
	if m.Clustered {
		fmt.Fprintf(w, "\nFailures cluster in time (dispersion %.1f per minute; 1 means independent). Seed 004's warning applies: attempts during an incident are correlated, so the model's P(success) is an optimistic upper bound — size against the worst case.\n", m.Dispersion)
	}
}

// EmitValues are the settings a budget implies.
type EmitValues struct {
	MaxRetries    int
	TimeoutS      float64
	MaxCalls      int
	DeadlineS     float64
	JobCeilingUSD float64
}

// EmitConfig prints ready-to-paste settings as env, toml or json.
func EmitConfig(w io.Writer, format string, v EmitValues) error {
	timeoutMs := int64(math.Round(v.TimeoutS * 1000))
	switch format {
	case "env":
		fmt.Fprintf(w, "MAX_RETRIES=%d\nAPI_TIMEOUT_MS=%d\n", v.MaxRetries, timeoutMs)
	case "toml":
		fmt.Fprintf(w, "# burnrate.toml lines that follow from this budget\nmax_calls_per_job = %d\n", v.MaxCalls)
		// Whole seconds, never %g's 1.0008e+06s, which burnrate's own config
		// loader refuses (red team); past what a duration holds, no line.
		switch s := math.Ceil(v.DeadlineS); {
		case s > float64(math.MaxInt64/int64(time.Second)):
			fmt.Fprintf(w, "# job_deadline: the worst case is past what a duration holds (%.3g s); set one that bounds the night\n", s)
		case s > 0:
			fmt.Fprintf(w, "job_deadline = \"%ss\"\n", strconv.FormatFloat(s, 'f', -1, 64))
		}
		if v.JobCeilingUSD > 0 {
			fmt.Fprintf(w, "\n[budget]\njob_ceiling_usd = %.4f\n", v.JobCeilingUSD)
		}
	case "json":
		out := map[string]any{"MAX_RETRIES": v.MaxRetries, "API_TIMEOUT_MS": timeoutMs, "max_calls_per_job": v.MaxCalls}
		if v.DeadlineS > 0 {
			out["job_deadline_s"] = v.DeadlineS
		}
		if v.JobCeilingUSD > 0 {
			out["job_ceiling_usd"] = v.JobCeilingUSD
		}
		return WriteJSON(w, out)
	default:
		return errors.New("unknown emit format")
	}
	return nil
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Layers is `budget layers`' answer for a stack, ready to render: the
// stack, the threshold it is held to, and the notes of the report its
// layers were read from (budget layers --from-assumptions FILE), if any.
type Layers struct {
	Stack     Stack
	Threshold int
	// From names the report the layers were read from; Assumed are what
	// was read from it, and what could not be.
	From    string
	Assumed []string
}

// layersJSON is the JSON of one layer of `budget layers --format json`.
type layersJSON struct {
	Name     string   `json:"name"`
	Attempts int      `json:"attempts"`
	TimeoutS *float64 `json:"timeout_s"` // null: no timeout
	Backoff  string   `json:"backoff"`
}

// secondsOrNull is d in seconds, nil for none (0).
func secondsOrNull(d time.Duration, ok bool) *float64 {
	if !ok {
		return nil
	}
	s := d.Seconds()
	return &s
}

// timeoutText is a layer's timeout as the table shows it.
func timeoutText(d time.Duration) string {
	if d <= 0 {
		return "no timeout"
	}
	return d.String()
}

// WriteLayersJSON writes `budget layers --format json`:
// {"worst_case_attempts", "worst_case_wall_clock_s", "layers": [...],
// "over_threshold", "retry_owner", "silence", "from_assumptions"}. The wall
// clock, and a layer's timeout_s, are null when no timeout bounds them.
func WriteLayersJSON(w io.Writer, l Layers) error {
	st := l.Stack
	attempts := st.WorstCaseAttempts()
	wall, bounded := st.WallClock()
	owner, silence := st.Silence()
	out := struct {
		Attempts int          `json:"worst_case_attempts"`
		WallS    *float64     `json:"worst_case_wall_clock_s"`
		Layers   []layersJSON `json:"layers"`
		Over     bool         `json:"over_threshold"`
		Owner    string       `json:"retry_owner"`
		Silence  []string     `json:"silence"`
		Assumed  []string     `json:"from_assumptions,omitempty"`
	}{Attempts: attempts, WallS: secondsOrNull(wall, bounded), Over: attempts > l.Threshold, Owner: owner, Silence: silence, Assumed: l.Assumed}
	for _, l := range st {
		out.Layers = append(out.Layers, layersJSON{l.Name, l.Attempts, secondsOrNull(l.Timeout, l.Timeout > 0), l.Backoff.Label})
	}
	return WriteJSON(w, out)
}

// PrintLayers writes `budget layers` as text: the notes of the report the
// layers came from, a table with the calls so far at each layer, the
// worst cases, and over the threshold which layer keeps the retries.
func PrintLayers(out io.Writer, l Layers) {
	st := l.Stack
	attempts := st.WorstCaseAttempts()
	wall, bounded := st.WallClock()
	owner, silence := st.Silence()
	if len(l.Assumed) > 0 {
		fmt.Fprintf(out, "from the assumptions of %s:\n", display.Text(l.From))
		for _, n := range l.Assumed {
			fmt.Fprintf(out, "  %s\n", display.Text(n))
		}
		fmt.Fprintln(out)
	}
	w := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "LAYER\tATTEMPTS\tTIMEOUT\tBACKOFF\tCALLS SO FAR")
	running := 1
	for _, l := range st {
		running = SatMul(running, l.Attempts)
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\n", display.Text(l.Name), l.Attempts, timeoutText(l.Timeout), display.Text(l.Backoff.Label), running)
	}
	w.Flush()
	fmt.Fprintf(out, "\nworst-case attempts: %d (the product: retry layers multiply, they don't add)\n", attempts)
	switch {
	case !bounded:
		fmt.Fprintln(out, "worst-case wall clock: no timeout — no layer has one, so nothing bounds how long a unit of work can retry (give the innermost layer timeout=D)")
	case wall == math.MaxInt64:
		fmt.Fprintln(out, "worst-case wall clock: more than 292 years (saturated: past what a duration holds), folded from the inside out")
	default:
		fmt.Fprintf(out, "worst-case wall clock: %.0f s (%.1f min), folded from the inside out: each layer waits for everything inside it\n", wall.Seconds(), wall.Minutes())
	}
	if attempts > l.Threshold {
		fmt.Fprintf(out, "\n%d attempts per unit of work is over %d: keep retries in %s only (it can hold the idempotency key) and set %s to a single attempt (maxRetries: 0), then bound the path with an absolute deadline.\n",
			attempts, l.Threshold, display.Text(owner), display.Text(strings.Join(silence, ", ")))
	}
}
