// Package report renders a correlate.Report for people (Markdown) and for
// machines (JSON). It computes nothing: every number comes from correlate.
package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burnrate-dev/burnrate/display"

	"github.com/guptarohit/asciigraph"

	"github.com/burnrate-dev/burnrate/correlate"
)

// JSON writes the report as one indented JSON object.
//
// It streams: everything but the jobs is a small tree encoded as usual;
// the jobs — 100,000 of them on a big night — are appended one by one
// straight into a buffered writer, in exactly the bytes encoding/json
// would write (FuzzJobJSONMatchesEncodingJSON holds it to that), instead
// of building the whole document and an indented copy of it in memory.
func JSON(w io.Writer, r *correlate.Report) error {
	// IDs are kept as logged: bidi and zero-width characters in them are
	// written as \u escapes, the same JSON, inert on a terminal.
	w = &display.JSONWriter{W: w}
	head := *r
	head.Jobs = nil
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	const marker = "\n  \"jobs\": null"
	i := bytes.Index(b, []byte(marker))
	if i < 0 || (r.Jobs == nil && r.JobSource == nil) {
		_, err := w.Write(append(b, '\n'))
		return err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(b[:i+len(marker)-len("null")])
	n := len(r.Jobs)
	if r.JobSource != nil {
		n = r.JobSource.Len()
		writeJobChunks(bw, r.JobSource)
	} else {
		var buf []byte
		for k := range r.Jobs {
			buf = appendJobAt(buf[:0], k, &r.Jobs[k])
			bw.Write(buf)
		}
	}
	if n == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteString("\n  ]")
	}
	bw.Write(b[i+len(marker):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// appendJobAt appends job k of the array, with the bracket or comma that
// comes before it.
func appendJobAt(b []byte, k int, j *correlate.JobReport) []byte {
	if k == 0 {
		b = append(b, '[')
	} else {
		b = append(b, ',')
	}
	return appendJob(b, j)
}

// jobChunk is how many jobs one encoding task covers.
const jobChunk = 2048

// writeJobChunks encodes a streamed report's jobs on every core, in chunks,
// and writes the chunks in order: a million jobs are a second of encoding
// on one core. At most two chunks per worker are in flight, so memory does
// not grow with the number of jobs.
func writeJobChunks(w io.Writer, src correlate.JobSource) {
	n := src.Len()
	chunks := (n + jobChunk - 1) / jobChunk
	workers := max(1, min(runtime.GOMAXPROCS(0), chunks))
	type result struct {
		buf  []byte
		done chan struct{}
	}
	free := make(chan []byte, 3*workers+1) // chunk buffers, reused
	var failed atomic.Bool
	results := make(chan *result, 2*workers) // in chunk order
	tasks := make(chan struct {
		k   int
		res *result
	}, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var jr correlate.JobReport
			for t := range tasks {
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				for k := t.k * jobChunk; k < min(n, (t.k+1)*jobChunk); k++ {
					src.Fill(k, &jr)
					buf = appendJobAt(buf, k, &jr)
				}
				t.res.buf = buf
				close(t.res.done)
			}
		}()
	}
	go func() {
		for k := range chunks {
			if failed.Load() {
				break // the output is gone: encode no more
			}
			res := &result{done: make(chan struct{})}
			results <- res // waits while the writer is two per worker behind
			tasks <- struct {
				k   int
				res *result
			}{k, res}
		}
		close(tasks)
		close(results)
	}()
	for res := range results {
		<-res.done
		if _, err := w.Write(res.buf); err != nil {
			failed.Store(true) // the writer keeps the error for Flush
		}
		select {
		case free <- res.buf[:0]:
		default:
		}
	}
	wg.Wait()
}

// appendJob writes one job as encoding/json's MarshalIndent does at the
// depth of the report's "jobs" array.
func appendJob(b []byte, j *correlate.JobReport) []byte {
	const in = "\n      "
	b = append(b, "\n    {"...)
	b = append(b, in+`"job_id": `...)
	b = appendString(b, j.JobID)
	b = append(b, ","+in+`"job_type": `...)
	b = appendString(b, j.JobType)
	b = append(b, ","+in+`"outcome": `...)
	b = appendString(b, j.Outcome)
	b = append(b, ","+in+`"attempts": `...)
	b = strconv.AppendInt(b, int64(j.Attempts), 10)
	b = append(b, ","+in+`"tool_calls": `...)
	b = strconv.AppendInt(b, int64(j.ToolCalls), 10)
	b = append(b, ","+in+`"layers": `...)
	switch {
	case j.Layers == nil:
		b = append(b, "null"...)
	case len(j.Layers) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for k, l := range j.Layers {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, in+"  "...)
			b = strconv.AppendInt(b, int64(l), 10)
		}
		b = append(b, in+"]"...)
	}
	b = append(b, ","+in+`"spend_usd": `...)
	b = appendFloat(b, j.SpendUSD)
	b = append(b, ","+in+`"wasted_usd": `...)
	b = appendFloat(b, j.WastedUSD)
	b = append(b, ","+in+`"duplicates": `...)
	b = strconv.AppendInt(b, int64(j.Duplicates), 10)
	b = append(b, ","+in+`"last_status": `...)
	b = strconv.AppendInt(b, int64(j.LastStatus), 10)
	b = append(b, ","+in+`"first_ts": `...)
	b = appendString(b, j.FirstTS)
	b = append(b, ","+in+`"last_ts": `...)
	b = appendString(b, j.LastTS)
	b = append(b, ","+in+`"findings": `...)
	switch {
	case j.Findings == nil:
		b = append(b, "null"...)
	case len(j.Findings) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for k, f := range j.Findings {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, in+"  "...)
			b = appendString(b, f)
		}
		b = append(b, in+"]"...)
	}
	if j.AgentReportedUSD != nil {
		b = append(b, ","+in+`"agent_reported_usd": `...)
		b = appendFloat(b, *j.AgentReportedUSD)
	}
	if j.RecordedUSD != nil && j.TableUSD != nil {
		b = append(b, ","+in+`"recorded_usd": `...)
		b = appendFloat(b, *j.RecordedUSD)
		b = append(b, ","+in+`"table_usd": `...)
		b = appendFloat(b, *j.TableUSD)
	}
	b = append(b, ","+in+`"count": `...)
	b = appendString(b, j.Count)
	if j.UnpricedCalls != 0 {
		b = append(b, ","+in+`"unpriced_calls": `...)
		b = strconv.AppendInt(b, int64(j.UnpricedCalls), 10)
	}
	return append(b, "\n    }"...)
}

// appendString quotes s as encoding/json does (HTML-safe escapes, invalid
// UTF-8 replaced): plain text directly, anything else through it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if jsonSpecial[s[i]] {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// jsonSpecial marks the bytes appendString leaves to encoding/json: what
// it escapes (controls, '"', '\\', and '<', '>', '&' for HTML) and every
// byte of a non-ASCII character. One load per byte where seven
// comparisons were: a job's ID, type and model are most of a report.
var jsonSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
	}
	return t
}()

// appendFloat formats f as encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		q, _ := json.Marshal(f) // an error in encoding/json too; never in a report
		return append(b, q...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Calls writes a job's call count as far as it can be trusted: "≥3" for a
// lower bound (a layer below the log retries unseen), "3?" for a count
// timing alone placed calls in, "3" for an exact one.
func Calls(n int32, count string) string {
	switch count {
	case correlate.CountLowerBound:
		return "≥" + strconv.FormatInt(int64(n), 10)
	case correlate.CountAmbiguous:
		return strconv.FormatInt(int64(n), 10) + "?"
	}
	return strconv.FormatInt(int64(n), 10)
}

// JobSpend writes a job's spend as far as it is known: "≥$0.0012 (3
// unpriced)" when some of its calls cost what nothing in the evidence
// says (JobReport.UnpricedCalls), never a bare figure that reads whole.
func JobSpend(usd float64, unpriced int32) string {
	return Floor(usd, int64(unpriced))
}

// Floor writes a sum of spend as far as it is known: "≥$0.0012 (3
// unpriced)" when unpriced calls are in it, so a run, a job type or a
// finding whose calls cost what nothing says never shows "$0" that reads
// whole.
func Floor(usd float64, unpriced int64) string {
	if unpriced <= 0 {
		return correlate.USD(usd)
	}
	return "≥" + correlate.USD(usd) + " (" + strconv.FormatInt(unpriced, 10) + " unpriced)"
}

// wastedShare is the run's wasted spend and its share of the spend; with
// unpriced calls both are floors, and a share of two floors says nothing.
func wastedShare(t correlate.ReportTotals) string {
	if t.UnpricedAttempts > 0 {
		return Floor(t.WastedUSD, t.UnpricedAttempts)
	}
	return fmt.Sprintf("%s (%s)", correlate.USD(t.WastedUSD), Percent(t.WastedUSD, t.SpendUSD))
}

// CostliestJobs is how many jobs the Markdown report lists.
const CostliestJobs = 10

// Markdown writes the human postmortem.
func Markdown(w io.Writer, r *correlate.Report) error { return MarkdownCompared(w, r, nil) }

// headline is the seed-000-style summary: label and value, in order.
func headline(r *correlate.Report) [][2]string {
	t := r.Totals
	rows := [][2]string{
		{"Total API calls (model attempts)", correlate.Count(t.Attempts)},
		{"Tool calls", correlate.Count(t.ToolCalls)},
		{"Jobs (succeeded / failed / dead-lettered / unfinished)", fmt.Sprintf("%s (%d / %d / %d / %d)",
			correlate.Count(int64(t.Jobs)), t.SucceededJobs, t.FailedJobs, t.DeadLetteredJobs, t.RunningJobs+t.QueuedJobs)},
		{"Calls per job p50 / p99 / max", fmt.Sprintf("%d / %d / %d", r.CallsPerJob.P50, r.CallsPerJob.P99, r.CallsPerJob.Max)},
	}
	dl := "none dead-lettered"
	if r.TimeToDeadLetterS.Count > 0 {
		dl = fmt.Sprintf("%s / %s", Seconds(r.TimeToDeadLetterS.P50), Seconds(r.TimeToDeadLetterS.Max))
	}
	rows = append(rows, [2]string{"Enqueue to dead letter p50 / max", dl},
		[2]string{"Duplicate completions", correlate.Count(r.Duplicates)},
		[2]string{"Spend", Floor(t.SpendUSD, t.UnpricedAttempts)},
		[2]string{"Wasted spend", wastedShare(t)},
		[2]string{"Recovered on 1st / within 3 / within 5 attempts", fmt.Sprintf("%.0f%% / %.0f%% / %.0f%%", r.Recovery.FirstAttempt*100, r.Recovery.Within3*100, r.Recovery.Within5*100)})
	if r.RetryAfter.Count > 0 {
		rows = append(rows, [2]string{"Retry-After p50 / p95", fmt.Sprintf("%s / %s (%d responses)", Seconds(r.RetryAfter.P50), Seconds(r.RetryAfter.P95), r.RetryAfter.Count)})
	}
	status := statusLine(r.Status)
	if status == "" {
		status = "none"
	}
	rows = append(rows, [2]string{"Status of model calls", status})
	// Issue 39: where the log cannot show every HTTP request, the count is
	// said to be a lower bound, and by which layer; a call placed by timing
	// alone is said to be one.
	for _, u := range r.UnseenLayers {
		rows = append(rows, [2]string{"Calls not seen: " + cell(u.Layer), fmt.Sprintf("%d retries (%s) below the application's records: up to %d HTTP calls per call logged; %s %s lower bounds (≥ in the job tables)",
			u.Retries, cell(u.From), u.AttemptsPerCall, correlate.Count(int64(u.Jobs)), plural(int64(u.Jobs), "job's count is a", "jobs' counts are"))})
	}
	if t.TimingLinks > 0 {
		rows = append(rows, [2]string{"Calls linked by timing alone", fmt.Sprintf("%s in %s %s (ambiguous, ? in the job tables: the SDK's lines name no request; shown, never held against a declaration, never a kill)",
			correlate.Count(t.TimingLinks), correlate.Count(int64(t.AmbiguousJobs)), plural(int64(t.AmbiguousJobs), "job", "jobs"))})
	}
	if t.KeyNamedCalls > 0 {
		rows = append(rows, [2]string{"Calls that named no job", fmt.Sprintf("%s, grouped by their idempotency key (a key is not a job ID: two jobs may send one; those groups' counts are ambiguous, ? in the job tables; shown, never held against a declaration, never a kill)",
			correlate.Count(t.KeyNamedCalls))})
	}
	if t.RequestIDConflicts > 0 {
		rows = append(rows, [2]string{"Request IDs named by two jobs", fmt.Sprintf("%s (the SDK's request block named one job, the app's line another: billed to the job its own line names, both counts ambiguous, neither held against a declaration)", correlate.Count(t.RequestIDConflicts))})
	}
	if t.UnpricedAttempts > 0 {
		rows = append(rows, [2]string{"Unpriced attempts", fmt.Sprintf("%s (models: %s; tokens are counted, spend is not)", correlate.Count(t.UnpricedAttempts), cell(strings.Join(r.Pricing.UnpricedModels, ", ")))})
	}
	if t.OverCapCalls > 0 { // issue 36: a computed cost no call should have, kept in spend
		rows = append(rows, [2]string{"Calls priced above the per-call cap", fmt.Sprintf("%s above %s each (models: %s; kept in spend and every ceiling: check the price table)", correlate.Count(t.OverCapCalls), correlate.USD(r.Pricing.MaxCallCostUSD), cell(strings.Join(r.Pricing.OverCapModels, ", ")))})
	}
	if len(r.Pricing.DimensionCalls) > 0 {
		rows = append(rows, [2]string{"Calls by dimension of the bill", countsLine(r.Pricing.DimensionCalls) + " (each priced from the table's own rate or multiplier for it)"})
	}
	if len(r.Pricing.AssumedCalls) > 0 {
		rows = append(rows, [2]string{"Calls priced by assumption", countsLine(r.Pricing.AssumedCalls) + " (every other call priced exactly from the table)"})
	}
	if rc := r.Pricing.RecordedCost; rc != nil {
		rows = append(rows, [2]string{"Calls whose records carried their cost", fmt.Sprintf("%s: recorded %s, the price table %s for the same calls (billed as recorded)", correlate.Count(rc.Calls), correlate.USD(rc.RecordedUSD), correlate.USD(rc.TableUSD))})
	}
	if t.RecordedBelowTable > 0 {
		rows = append(rows, [2]string{"Recorded costs under 1% of the price table", fmt.Sprintf("%s call(s) whose records said they cost (nearly) nothing for tokens the table prices: billed as recorded and counted unpriced (a floor, ≥). A producer that could not price them (LiteLLM's response_cost for a deployment its cost map lacks) or a true $0 (a self-hosted model under a hosted one's name)? Check the \"Calls whose records carried their cost\" row", correlate.Count(t.RecordedBelowTable))})
	}
	if t.BatchExpired+t.BatchCanceled > 0 {
		rows = append(rows, [2]string{"Batch requests that never ran (expired / canceled)", fmt.Sprintf("%s / %s (not calls; their jobs failed)", correlate.Count(t.BatchExpired), correlate.Count(t.BatchCanceled))})
	}
	if t.BatchCalls > 0 {
		rows = append(rows, [2]string{"Batch / synchronous spend", fmt.Sprintf("%s / %s (%s batch calls)", correlate.USD(t.BatchSpendUSD), correlate.USD(t.SyncSpendUSD), correlate.Count(t.BatchCalls))})
	}
	return append(rows, [2]string{"Tokens in / out / cache read / cache write", fmt.Sprintf("%s / %s / %s / %s", correlate.Count(t.InputTokens), correlate.Count(t.OutputTokens), correlate.Count(t.CacheReadTokens), correlate.Count(t.CacheWriteTokens))})
}

// MarkdownCompared writes the postmortem with a baseline column in the
// headline (seed 000's Before/After), when base is not nil.
func MarkdownCompared(w io.Writer, r, base *correlate.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# burnrate postmortem\n\n")
	fmt.Fprintf(&b, "Log: %s, %s. %s lines, %s events, %s skipped%s. Prices: %s.\n\n",
		cell(strings.Join(r.Source.Files, ", ")), span(r.Source.FirstTS, r.Source.LastTS),
		correlate.Count(r.Source.Lines), correlate.Count(r.Source.Events), correlate.Count(r.Source.Skipped), skipReasons(r.Source.SkippedByReason), orUnknown(md(r.Pricing.Table), "none named"))
	if n := r.Source.NoTimestamp; n > 0 {
		fmt.Fprintf(&b, "%s %s no time of its own: each took the time of the line before it, where one had a time.\n\n", correlate.Count(n), plural(n, "line had", "lines had"))
	}
	if len(r.Source.FieldsDropped) > 0 {
		fmt.Fprintf(&b, "Fields not read as written, each line kept (a field that cannot be read costs that field, never the record): %s.\n\n", FieldsDropped(r.Source.FieldsDropped))
	}
	if n := r.Source.SkippedByReason["unmatched"]; n > 0 {
		fmt.Fprintf(&b, "%s %s none of the line formats (--pattern, [[format]]): the hint on stderr quotes the first; burnrate formats --detect FILE counts what each format matched.\n\n", correlate.Count(n), plural(n, "text line matched", "text lines matched"))
	}
	for _, e := range r.Source.ReadErrors {
		fmt.Fprintf(&b, "> Read error: %s\n\n", cell(e))
	}
	if m := r.Merged; m != nil {
		writeMerged(&b, m)
	}
	if base != nil {
		fmt.Fprintf(&b, "Baseline: %s, %s.\n\n", cell(strings.Join(base.Source.Files, ", ")), span(base.Source.FirstTS, base.Source.LastTS))
	}

	if base == nil {
		b.WriteString("## Headline\n\n| Metric | Value |\n|---|---:|\n")
	} else {
		b.WriteString("## Headline\n\n| Metric | Baseline | This run |\n|---|---:|---:|\n")
	}
	rows := headline(r)
	var baseRows map[string]string
	if base != nil {
		baseRows = map[string]string{}
		for _, kv := range headline(base) {
			baseRows[kv[0]] = kv[1]
		}
	}
	for _, kv := range rows {
		if base == nil {
			fmt.Fprintf(&b, "| %s | %s |\n", kv[0], kv[1])
			continue
		}
		before, ok := baseRows[kv[0]]
		if !ok {
			before = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", kv[0], before, kv[1])
	}
	b.WriteString("\n")

	b.WriteString("## Findings\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("None: no retry mistakes found.\n\n")
	}
	for _, f := range r.Findings {
		amb := ""
		if f.Ambiguous {
			amb = " (ambiguous: its jobs' counts are, so it is held against none)"
		}
		fmt.Fprintf(&b, "### %s — %s%s\n\n", md(f.Kind), md(f.Severity.String()), amb)
		// Two wastes, each named: the finding's own attempts, and all of
		// its jobs' (a reader adding findings up must not take one for the other).
		first := "First at " + md(f.FirstAt) + "."
		if f.FirstAt == "" {
			first = "First at a time unknown: its lines had none."
		}
		// A finding's wasted spend is a floor when any call of the run
		// is unpriced (its jobs' unpriced calls are not counted apart).
		fw, fj := correlate.USD(f.WastedUSD), correlate.USD(f.JobsWastedUSD)
		if r.Totals.UnpricedAttempts > 0 {
			fw, fj = "at least "+fw, "at least "+fj
		}
		fmt.Fprintf(&b, "%s occurrence(s) across %s job(s). This finding's attempts wasted %s; its %s job(s) wasted %s in all. %s\n\n",
			correlate.Count(f.Count), correlate.Count(int64(f.JobsTotal)), fw, correlate.Count(int64(f.JobsTotal)), fj, first)
		fmt.Fprintf(&b, "- Example: %s\n", cell(f.Example))
		if len(f.Jobs) > 0 {
			more := ""
			if f.JobsTotal > len(f.Jobs) {
				more = fmt.Sprintf(" and %d more", f.JobsTotal-len(f.Jobs))
			}
			fmt.Fprintf(&b, "- Jobs: %s%s\n", cell(strings.Join(f.Jobs, ", ")), more)
		}
		fmt.Fprintf(&b, "- What to do: %s\n\n", md(f.Advice))
	}

	writeNight(&b, r)

	agentRows := 0
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.AgentReportedUSD == nil || agentRows >= 20 {
			continue
		}
		if agentRows == 0 {
			b.WriteString("## Agents' own figures\n\nThe agent's own cost for a session (claude -p's total_cost_usd) beside burnrate's. burnrate bills the last record of each response and adds what the agent's per-model usage names beyond its records (internal calls, retried failures); it follows the provider's price table, so the two can differ.\n\n| Session | burnrate | Agent's own | Difference |\n|---|---:|---:|---:|\n")
		}
		agentRows++
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(j.JobID), correlate.USD(j.SpendUSD), correlate.USD(*j.AgentReportedUSD), correlate.USD(j.SpendUSD-*j.AgentReportedUSD))
	}
	if agentRows > 0 {
		b.WriteString("\n")
	}

	writeRecorded(&b, r)
	writeAssumptions(&b, r)
	writeDeclared(&b, r)
	b.WriteString("## Job types\n\n| Job type | Jobs | Calls | p50 / p99 calls per job | Worst layers | Spend | Wasted | OK / failed / DLQ |\n|---|---:|---:|---:|---|---:|---:|---|\n")
	for _, jt := range r.JobTypes {
		fmt.Fprintf(&b, "| %s | %d | %s | %d / %d | %s | %s | %s | %d / %d / %d |\n", cell(jt.JobType), jt.Jobs, correlate.Count(jt.Attempts),
			jt.CallsPerJobP50, jt.CallsPerJobP99, correlate.FormatLayers(jt.Layers), Floor(jt.SpendUSD, jt.UnpricedAttempts), Floor(jt.WastedUSD, jt.UnpricedAttempts), jt.Succeeded, jt.Failed, jt.DeadLettered)
	}
	b.WriteString("\n## Models\n\n| Model | Calls | Spend | Status |\n|---|---:|---:|---|\n")
	for _, m := range r.Models {
		spend := correlate.USD(m.SpendUSD)
		if !m.Priced && m.UnpricedAttempts > 0 {
			spend = fmt.Sprintf("unpriced (%s in / %s out tokens)", correlate.Count(m.InputTokens), correlate.Count(m.OutputTokens))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(m.Model), correlate.Count(m.Attempts), spend, statusLine(m.Status))
	}
	if len(r.Pricing.ApproximatedModels) > 0 {
		// Said where the money is, not only in the JSON.
		b.WriteString("\nPriced approximately: ")
		for i, m := range slices.Sorted(maps.Keys(r.Pricing.ApproximatedModels)) {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s as %s", cell(m), cell(r.Pricing.ApproximatedModels[m]))
		}
		b.WriteString(".\n")
	}
	if len(r.Tools) > 0 {
		b.WriteString("\n## Tools\n\n| Tool | Calls | Status |\n|---|---:|---|\n")
		for _, tl := range r.Tools {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(tl.Tool), correlate.Count(tl.Attempts), statusLine(tl.Status))
		}
	}

	fmt.Fprintf(&b, "\n## Costliest jobs\n\n| Job | Type | Outcome | Calls | Layers | Spend | Wasted | Dups |\n|---|---|---|---:|---|---:|---:|---:|\n")
	for i, j := range r.Jobs {
		if i == CostliestJobs {
			break
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d |\n", cell(j.JobID), cell(j.JobType), cell(j.Outcome), Calls(j.Attempts, j.Count),
			correlate.FormatLayers(j.Layers), JobSpend(j.SpendUSD, j.UnpricedCalls), JobSpend(j.WastedUSD, j.UnpricedCalls), j.Duplicates)
	}

	var tripped []correlate.BreakerReport
	for _, br := range r.Breakers {
		if br.Trips > 0 {
			tripped = append(tripped, br)
		}
	}
	if len(tripped) > 0 {
		b.WriteString("\n## Circuit breakers (shadow)\n\nWhat a breaker would have done; nothing was blocked.\n\n| Key | State at end | Trips | Calls it would have refused | Failed spend it would have saved |\n|---|---|---:|---:|---:|\n")
		for _, br := range tripped {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", cell(br.Key), cell(br.State.String()), br.Trips, correlate.Count(br.WouldBlock), correlate.USD(br.WouldSaveUSD))
		}
	}

	if len(r.Timeline) > 1 {
		b.WriteString("\n## Over time\n\n")
		calls, spend, span := Series(r.Timeline, 72)
		fmt.Fprintf(&b, "Model calls per minute (%s per column):\n\n```\n%s\n```\n\n", span, asciigraph.Plot(calls, asciigraph.Height(8), asciigraph.Precision(0)))
		fmt.Fprintf(&b, "Cumulative spend, USD:\n\n```\n%s\n```\n", asciigraph.Plot(spend, asciigraph.Height(8), asciigraph.Precision(2), asciigraph.LowerBound(0)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMerged says which replicas' reports a merged report is of, what
// was left out and what is approximate.
func writeMerged(b *strings.Builder, m *correlate.MergeInfo) {
	fmt.Fprintf(b, "Merged from %d replica report(s) (report --merge):\n\n| File | Replica | Run | Jobs | Calls | Spend | First | Last |\n|---|---|---|---:|---:|---:|---|---|\n", len(m.Replicas))
	for _, r := range m.Replicas {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(r.File), cell(r.Replica), cell(r.RunID), correlate.Count(int64(r.Jobs)),
			correlate.Count(r.Attempts), Floor(r.SpendUSD, r.UnpricedAttempts), cell(orUnknown(r.FirstTS, "unknown")), cell(orUnknown(r.LastTS, "unknown")))
	}
	b.WriteString("\n")
	if m.SplitJobs > 0 {
		fmt.Fprintf(b, "- %s job(s) were seen by more than one replica and are summed (e.g. %s).\n", correlate.Count(int64(m.SplitJobs)), cell(strings.Join(m.SplitJobExamples, ", ")))
	}
	for _, d := range m.Dropped {
		fmt.Fprintf(b, "- Left out: %s\n", cell(d))
	}
	for _, c := range m.Conflicts {
		fmt.Fprintf(b, "- Conflict: %s\n", cell(c))
	}
	fmt.Fprintf(b, "- Not exact in a merge: %s.\n\n", cell(strings.Join(m.Approximate, "; ")))
}

// Series folds the per-minute timeline into at most width columns: calls
// per minute (averaged over a column) and cumulative spend at its end.
func Series(tl []correlate.TimelinePoint, width int) (calls, cumSpend []float64, perColumn string) {
	if len(tl) == 0 {
		return []float64{0}, []float64{0}, "1m"
	}
	f := correlate.FoldTimeline(len(tl), func(i int) (int64, int64, correlate.Pico) { return tl[i].UnixMinute, tl[i].Calls, tl[i].Spend }, width)
	calls = make([]float64, len(f.Calls))
	cumSpend = make([]float64, len(f.CumSpend))
	for i := range f.Calls {
		calls[i] = float64(f.Calls[i]) / float64(f.Step)
		cumSpend[i] = f.CumSpend[i].USD()
	}
	return calls, cumSpend, (time.Duration(f.Step) * time.Minute).String()
}

// cell keeps log-derived text from breaking a Markdown table or becoming
// live Markdown or HTML in it.
func cell(s string) string { return display.MarkdownCell(s) }

// md keeps log-derived text in running Markdown (a heading, a list item,
// a sentence) from becoming live Markdown or HTML.
func md(s string) string { return display.Markdown(s) }

// orUnknown is s, or the words said in its place when it is empty: a
// sentence never ends on a blank.
func orUnknown(s, words string) string {
	if s == "" {
		return words
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func skipReasons(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", cell(k), m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func statusLine(m map[string]int64) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s×%s", cell(k), correlate.Count(m[k])))
	}
	return strings.Join(parts, " ")
}

// Percent is part of whole as a percentage.
func Percent(part, whole float64) string {
	if whole == 0 {
		return "0%"
	}
	if correlate.Saturated(part) || correlate.Saturated(whole) {
		return "share unknown: past what a sum holds" // ≥$9.2M of ≥$9.2M is no 100%
	}
	return fmt.Sprintf("%.0f%%", 100*part/whole)
}

// Seconds formats a duration in seconds as "11m 40s".
func Seconds(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", s)
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// span is a log's time range, or says there was none.
func span(first, last string) string {
	if first == "" && last == "" {
		return "no timestamped events"
	}
	return md(orUnknown(first, "time unknown")) + " → " + md(orUnknown(last, "time unknown"))
}

// FieldsDropped says the field-drop counts by reason, the largest first:
// "time_no_zone 9 (read in the configured zone)".
func FieldsDropped(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return cmp.Compare(m[b], m[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", md(k), correlate.Count(m[k]))
		if k == "time_no_zone" {
			parts[i] += " (a time without a zone, read in the configured zone: --timezone, UTC by default)"
		}
	}
	return strings.Join(parts, ", ")
}

// countsLine writes counts by name, largest first, then by name.
func countsLine(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s × %s", correlate.Count(m[k]), cell(k))
	}
	return strings.Join(parts, "; ")
}

// writeRecorded writes the jobs whose records carried their producer's
// own cost, beside the price table's price of the same calls (issue 35):
// the costliest 20, by the table's view.
func writeRecorded(b *strings.Builder, r *correlate.Report) {
	rows := 0
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.RecordedUSD == nil || j.TableUSD == nil || rows >= 20 {
			continue
		}
		if rows == 0 {
			b.WriteString("## Producers' own cost\n\nThe cost a job's records carried (LiteLLM's response_cost, Cline's cost, Claude Code's costUSD, gen_ai.usage.cost.amount …), billed as recorded, beside the price table's price of the same calls' tokens. Over 1% apart is a recorded_cost_differs finding.\n\n| Job | Recorded (billed) | Price table | Difference |\n|---|---:|---:|---:|\n")
		}
		rows++
		diff := correlate.USD(*j.RecordedUSD - *j.TableUSD)
		if *j.TableUSD > 0 {
			diff += fmt.Sprintf(" (%+.1f%%)", (*j.RecordedUSD-*j.TableUSD) / *j.TableUSD * 100)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(j.JobID), correlate.USD(*j.RecordedUSD), correlate.USD(*j.TableUSD), diff)
	}
	if rows > 0 {
		b.WriteString("\n")
	}
}
