package correlate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/layers"
)

// MergeInput is one replica's JSON report, as report --merge read it.
type MergeInput struct {
	Name   string // the file, for messages
	Report *Report
	// Digest identifies the file's bytes: two inputs with one digest are
	// one report given twice.
	Digest [32]byte
}

// MergeInfo says what a merged report was made of and what could not be
// merged exactly.
type MergeInfo struct {
	Replicas []MergedReplica `json:"replicas"`
	// SplitJobs is how many jobs more than one replica saw (a traceID
	// route, unlabelled spans, a restart): their calls and spend are
	// summed; SplitJobExamples names the first few.
	SplitJobs        int      `json:"split_jobs"`
	SplitJobExamples []string `json:"split_job_examples,omitempty"`
	// Dropped are inputs left out, each with the reason (the same report
	// twice, an earlier snapshot of a later one).
	Dropped []string `json:"dropped,omitempty"`
	// Conflicts are things the inputs disagree on that the merge cannot
	// settle (price tables, thresholds); the first input's value is kept.
	Conflicts []string `json:"conflicts,omitempty"`
	// Approximate names the figures that cannot be recomputed from
	// reports alone; they are left out (zero) or approximated as said.
	Approximate []string `json:"approximate"`
}

// MergedReplica is one input's share.
type MergedReplica struct {
	File     string  `json:"file"`
	Replica  string  `json:"replica"`
	RunID    string  `json:"run_id"`
	Jobs     int     `json:"jobs"`
	Attempts int64   `json:"attempts"`
	SpendUSD float64 `json:"spend_usd"`
	// UnpricedAttempts: SpendUSD is a floor (R7b-11).
	UnpricedAttempts int64  `json:"unpriced_attempts,omitempty"`
	FirstTS          string `json:"first_ts"`
	LastTS           string `json:"last_ts"`
}

// maxSplitExamples bounds the split job IDs a merged report names.
const maxSplitExamples = 20

// mergeApproximate are the figures a merge cannot recompute from reports.
var mergeApproximate = []string{
	"time_to_dead_letter_s.p50 (0: needs every job's enqueue time)",
	"retry_after.p50_s and p95_s (0: need every Retry-After value)",
	"recovery rates (recomputed from each replica's rounded rates, exact below 5,000 operations per replica)",
	"breakers (left out: each replica's shadow breakers saw only its shard; read the replicas' reports)",
	"models' mean_latency_ms (weighted by attempts)",
	"wasted_usd of a split job (the parts' sum; each part judged its own outcome)",
	"findings' job lists (the first 20 in input order)",
	"findings across jobs (breaker_open, synchronized_retries, retry_after_too_short): each replica judged them on its own shard",
}

// MergeReports merges one night's reports from replicas sharded by job
// (report --merge) into one report: totals are the replicas' sums, exact
// in picodollars; jobs seen by several replicas are merged by ID (calls
// and spend summed); per-job and per-type figures are recomputed from the
// merged jobs. The same report given twice, or a replica's earlier
// snapshot beside its later one, is counted once and said. Reports of
// different runs, or two replicas' reports that share jobs call for call
// (replicas on the same input), are refused: no sum of them is right.
func MergeReports(in []MergeInput) (*Report, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("report --merge: no reports given")
	}
	info := &MergeInfo{Replicas: []MergedReplica{}, Approximate: mergeApproximate}
	for _, m := range in {
		if m.Report == nil {
			return nil, fmt.Errorf("report --merge: %s holds no report", m.Name)
		}
		if err := checkMergeInput(m.Report); err != nil {
			return nil, fmt.Errorf("report --merge %s: %w: not a report burnrate wrote (watch --report-out)", m.Name, err)
		}
	}
	kept, err := dedupeInputs(in, info)
	if err != nil {
		return nil, err
	}
	// A replica that received nothing (the Collector routed it no job)
	// names no run: it goes with any.
	idle := func(r *Report) bool { return r.RunID == "" && r.Source.Events == 0 }
	first := kept[0]
	for _, k := range kept {
		if !idle(k.Report) {
			first = k
			break
		}
	}
	run := first.Report.RunID
	for _, k := range kept {
		if k.Report.RunID != run && !idle(k.Report) {
			return nil, fmt.Errorf("report --merge: %s is of run %q and %s of run %q: merge the reports of one run (one night) at a time", first.Name, run, k.Name, k.Report.RunID)
		}
	}
	if err := refuseCopies(kept); err != nil {
		return nil, err
	}

	out := &Report{RunID: run, Status: map[string]int64{}, Merged: info}
	mergeSource(out, kept)
	mergePricing(out, kept, info)
	mergeTotals(out, kept)
	var sum float64
	for _, k := range kept {
		sum += k.Report.Totals.SpendUSD
	}
	if sum > maxMergeUSD {
		// Never a clamped or wrapped figure: the sum is refused.
		return nil, fmt.Errorf("report --merge: the reports spent $%.2f together, past the $%.0f burnrate holds to the picodollar: merge fewer at a time", sum, maxMergeUSD)
	}
	jobs, split := mergeJobs(kept, info)
	out.Jobs = jobs
	recountJobs(out, jobs)
	out.JobTypes = jobTypesOf(jobs)
	mergeDeadLetter(out, kept)
	mergeRetryAfter(out, kept)
	mergeRecovery(out, kept)
	mergeModels(out, kept)
	mergeTools(out, kept)
	out.Breakers = []BreakerReport{}
	mergeFindings(out, kept, split)
	out.Assumptions = mergeAssumptions(kept, out.JobTypes)
	mergeTimeline(out, kept)
	out.Config = kept[0].Report.Config
	for _, k := range kept[1:] {
		if k.Report.Config != out.Config {
			info.Conflicts = append(info.Conflicts, fmt.Sprintf("%s ran with other thresholds (%+v) than %s (%+v): its findings used them", k.Name, k.Report.Config, kept[0].Name, out.Config))
		}
	}
	for _, k := range kept {
		r := k.Report
		info.Replicas = append(info.Replicas, MergedReplica{File: k.Name, Replica: r.Replica, RunID: r.RunID, Jobs: r.Totals.Jobs,
			Attempts: r.Totals.Attempts, SpendUSD: r.Totals.SpendUSD, UnpricedAttempts: r.Totals.UnpricedAttempts, FirstTS: r.Source.FirstTS, LastTS: r.Source.LastTS})
	}
	return out, nil
}

// checkMergeInput refuses what burnrate never writes — a negative count or
// amount, a job without an ID, one job twice — so that no sum below can go
// negative or count a job twice.
func checkMergeInput(r *Report) error {
	t := r.Totals
	for _, v := range []int64{t.Attempts, t.ToolCalls, int64(t.Jobs), int64(t.Operations), t.UnpricedAttempts, t.InputTokens, t.OutputTokens,
		t.CacheReadTokens, t.CacheWriteTokens, t.BatchCalls, t.BatchExpired, t.BatchCanceled, r.Duplicates, r.Source.Lines, r.Source.Events,
		r.Source.Skipped, r.Source.OutOfOrderEvents, int64(r.TimeToDeadLetterS.Count), r.RetryAfter.Count, r.RetryAfter.Honored,
		r.RetryAfter.Rehit, r.RetryAfter.NoHint, int64(r.Recovery.Operations)} {
		if v < 0 {
			return fmt.Errorf("a negative count (%d)", v)
		}
	}
	for _, v := range []float64{t.SpendUSD, t.WastedUSD, t.BatchSpendUSD, t.SyncSpendUSD} {
		if v < 0 {
			return fmt.Errorf("a negative amount ($%v)", v)
		}
		if !(v <= maxMergeUSD) {
			return fmt.Errorf("an amount of $%g, past the $%.0f a run's money can be held to the picodollar", v, maxMergeUSD)
		}
	}
	// The totals are what the jobs add up to: every job's spend is in
	// them (a live run's retired jobs are in the totals only, so the jobs
	// may sum to less, never to more).
	var jobSpend Pico
	for i := range r.Jobs {
		if !(r.Jobs[i].SpendUSD <= maxMergeUSD) {
			return fmt.Errorf("job %q spent $%g, past the $%.0f a run's money can be held to", r.Jobs[i].JobID, r.Jobs[i].SpendUSD, maxMergeUSD)
		}
		jobSpend = jobSpend.Add(PicoFromUSD(r.Jobs[i].SpendUSD))
	}
	total := PicoFromUSD(t.SpendUSD)
	const slack = Pico(PicoPerUSD / 1e6) // the reports' rounding: a micro-dollar per job at most
	if jobSpend > total+slack*Pico(len(r.Jobs)+1) {
		return fmt.Errorf("its jobs spent $%.6f in all, more than its total of $%.6f", jobSpend.USD(), t.SpendUSD)
	}
	if len(r.Jobs) == t.Jobs && t.RetiredJobs == 0 && total > jobSpend+slack*Pico(len(r.Jobs)+1) {
		return fmt.Errorf("its total of $%.6f is more than its %d jobs spent ($%.6f)", t.SpendUSD, len(r.Jobs), jobSpend.USD())
	}
	for _, v := range r.Status {
		if v < 0 {
			return fmt.Errorf("a negative status count (%d)", v)
		}
	}
	seen := make(map[string]bool, len(r.Jobs))
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.JobID == "" {
			return fmt.Errorf("job %d has no job_id", i)
		}
		if seen[j.JobID] {
			return fmt.Errorf("job %q is listed twice", j.JobID)
		}
		seen[j.JobID] = true
		if j.Attempts < 0 || j.ToolCalls < 0 || j.Duplicates < 0 || j.SpendUSD < 0 || j.WastedUSD < 0 {
			return fmt.Errorf("job %q has a negative count or amount", j.JobID)
		}
	}
	for _, m := range r.Models {
		if m.Attempts < 0 || m.SpendUSD < 0 || m.InputTokens < 0 || m.OutputTokens < 0 || m.CacheReadTokens < 0 || m.CacheWriteTokens < 0 || m.UnpricedAttempts < 0 {
			return fmt.Errorf("model %q has a negative count or amount", m.Model)
		}
	}
	for _, f := range r.Findings {
		if f.Count < 0 || f.JobsTotal < 0 || f.WastedUSD < 0 {
			return fmt.Errorf("finding %q has a negative count or amount", f.Kind)
		}
	}
	for _, p := range r.Timeline {
		if p.Calls < 0 || p.Success < 0 || p.Retryable < 0 || p.Terminal < 0 || p.ToolCalls < 0 || p.SpendUSD < 0 {
			return fmt.Errorf("timeline minute %q has a negative count or amount", p.Minute)
		}
	}
	return nil
}

// maxMergeUSD is the largest amount a report may hold: what an int64 of
// picodollars holds, less room for the sum (PicoFromUSD's cap).
const maxMergeUSD = 9e6

// satAddInt is satAdd for int counters.
func satAddInt(a, b int) int { return int(satAdd(int64(a), int64(b))) }

// dedupeInputs drops a report given twice (one digest) and a replica's
// earlier snapshot of its own later report (a replica that read its files
// again from the start after a restart wrote a report that contains the
// first); a replica restarted empty (OTLP) wrote two reports of disjoint
// calls, and both are kept.
func dedupeInputs(in []MergeInput, info *MergeInfo) ([]MergeInput, error) {
	var kept []MergeInput
	seen := map[[32]byte]string{}
	for _, m := range in {
		if first, ok := seen[m.Digest]; ok {
			info.Dropped = append(info.Dropped, fmt.Sprintf("%s: the same report as %s, counted once", m.Name, first))
			continue
		}
		seen[m.Digest] = m.Name
		kept = append(kept, m)
	}
	drop := make([]bool, len(kept))
	for i := range kept {
		for j := range kept {
			a, b := kept[i].Report, kept[j].Report
			if i == j || drop[i] || drop[j] || a.Replica != b.Replica {
				continue
			}
			if contains(b, a) && !(contains(a, b) && i > j) {
				drop[i] = true
				info.Dropped = append(info.Dropped, fmt.Sprintf("%s: an earlier snapshot of replica %q's %s (every job of it is there with as many calls%s), counted once", kept[i].Name, a.Replica, kept[j].Name, instances(a, b)))
			}
		}
	}
	var out []MergeInput
	for i, m := range kept {
		if !drop[i] {
			out = append(out, m)
		}
	}
	// What is left of one name is merged by job identity: two processes
	// that share a name (the default is the host name) are two shards,
	// unless their reports hold the same job from its first call without
	// one holding the other — then no sum is right, and none is made.
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			a, b := out[i].Report, out[j].Report
			if a.Replica != b.Replica {
				continue
			}
			if a.Instance != "" && a.Instance == b.Instance {
				return nil, fmt.Errorf("report --merge: %s and %s are reports of one process (instance %q) and neither holds the other: not snapshots of one run; merge one of them", out[i].Name, out[j].Name, a.Instance)
			}
			if id, ok := sharedFirstCall(a, b); ok {
				return nil, fmt.Errorf("report --merge: %s and %s are both of replica %q%s and both hold job %q from its first call, but neither holds the other: a process that read part of its input again? a sum would count those calls twice and dropping either would lose the other's jobs; give each replica its own --replica name, and merge the report that holds the night", out[i].Name, out[j].Name, a.Replica, instances(a, b), id)
			}
			info.Conflicts = append(info.Conflicts, fmt.Sprintf("%s and %s share the replica name %q%s: two processes (two replicas, or one restarted without its state), merged by job identity; give each replica its own --replica", out[i].Name, out[j].Name, a.Replica, instances(a, b)))
		}
	}
	return out, nil
}

// instances names two reports' instances for a message, when they have
// them.
func instances(a, b *Report) string {
	if a.Instance == "" && b.Instance == "" {
		return ""
	}
	return fmt.Sprintf("; instances %q and %q", a.Instance, b.Instance)
}

// sharedFirstCall names a job both reports hold from the same first call.
func sharedFirstCall(a, b *Report) (string, bool) {
	first := make(map[string]string, len(a.Jobs))
	for i := range a.Jobs {
		first[a.Jobs[i].JobID] = a.Jobs[i].FirstTS
	}
	for i := range b.Jobs {
		if ts, ok := first[b.Jobs[i].JobID]; ok && ts == b.Jobs[i].FirstTS {
			return b.Jobs[i].JobID, true
		}
	}
	return "", false
}

// contains reports whether big holds every call of small, by job
// identity: each of small's jobs is in big with its first call and at
// least as many calls. Totals alone never decide: two processes sharing a
// replica name hold different jobs (issue 34: a whole shard, 3 jobs and
// $1.50, was dropped that way). A restarted replica replays its spool, so
// its later report holds its earlier one's jobs from the same first calls.
func contains(big, small *Report) bool {
	if big.Source.Events < small.Source.Events || big.Totals.Attempts < small.Totals.Attempts || len(big.Jobs) < len(small.Jobs) {
		return false
	}
	byID := make(map[string]*JobReport, len(big.Jobs))
	for i := range big.Jobs {
		byID[big.Jobs[i].JobID] = &big.Jobs[i]
	}
	for i := range small.Jobs {
		s := &small.Jobs[i]
		b := byID[s.JobID]
		if b == nil || b.FirstTS != s.FirstTS || b.Attempts < s.Attempts || b.ToolCalls < s.ToolCalls {
			return false
		}
	}
	return true
}

// refuseCopies refuses two replicas' reports that share a job call for
// call: routed by job.id, a job's calls reach one replica; two identical
// copies mean both replicas read the same input (active-active HA), and a
// sum would count every such call twice.
func refuseCopies(in []MergeInput) error {
	owner := map[string]*JobReport{}
	ownerFile := map[string]int{}
	for i, m := range in {
		for k := range m.Report.Jobs {
			j := &m.Report.Jobs[k]
			first, ok := owner[j.JobID]
			if !ok {
				owner[j.JobID], ownerFile[j.JobID] = j, i
				continue
			}
			if o := ownerFile[j.JobID]; jobsEqual(j, first) {
				return fmt.Errorf("report --merge: job %q is in %s and %s with the same calls, spend and times: these replicas read the same input (active-active copies, not shards), and a sum would count it twice; merge shards only, or report one copy", j.JobID, in[o].Name, m.Name)
			}
		}
	}
	return nil
}

func jobsEqual(a, b *JobReport) bool {
	if a == nil || b == nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func mergeSource(out *Report, in []MergeInput) {
	src := &out.Source
	src.Files = []string{}
	src.SkippedByReason = map[string]int64{}
	var first, last int64
	for _, m := range in {
		s := m.Report.Source
		src.Files = append(src.Files, s.Files...)
		src.Lines = satAdd(src.Lines, s.Lines)
		src.Events = satAdd(src.Events, s.Events)
		src.Skipped = satAdd(src.Skipped, s.Skipped)
		src.OutOfOrderEvents = satAdd(src.OutOfOrderEvents, s.OutOfOrderEvents)
		for k, v := range s.SkippedByReason {
			src.SkippedByReason[k] = satAdd(src.SkippedByReason[k], v)
		}
		for k, v := range s.FieldsDropped {
			if src.FieldsDropped == nil {
				src.FieldsDropped = map[string]int64{}
			}
			src.FieldsDropped[k] = satAdd(src.FieldsDropped[k], v)
		}
		for _, e := range s.ReadErrors {
			src.ReadErrors = append(src.ReadErrors, m.Name+": "+e)
		}
		for f, format := range s.Formats {
			if src.Formats == nil {
				src.Formats = map[string]string{}
			}
			src.Formats[f] = format
		}
		src.Hints = append(src.Hints, s.Hints...)
		first = minTS(first, parseTS(s.FirstTS))
		last = max(last, parseTS(s.LastTS))
	}
	src.FirstTS, src.LastTS = FormatTime(first), FormatTime(last)
}

// parseTS reads a report's RFC 3339 time; 0 when there is none.
func parseTS(s string) int64 {
	if s == "" {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}

// minTS is the earlier of two times, 0 standing for none.
func minTS(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

func mergePricing(out *Report, in []MergeInput, info *MergeInfo) {
	p := in[0].Report.Pricing
	out.Pricing = ReportPricing{Table: p.Table, File: p.File, SHA256: p.SHA256, BatchNote: p.BatchNote}
	unpriced, overCap, refused := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var recRec *RecordedCost
	var recSum, tabSum usd
	for _, m := range in {
		q := m.Report.Pricing
		for _, u := range q.OverCapModels {
			overCap[u] = true
		}
		for _, u := range q.RefusedRates {
			refused[u] = true
		}
		out.Pricing.MaxCallCostUSD = max(out.Pricing.MaxCallCostUSD, q.MaxCallCostUSD)
		if q.Table != p.Table || q.SHA256 != p.SHA256 {
			info.Conflicts = append(info.Conflicts, fmt.Sprintf("%s was priced by %q (sha256 %s), %s by %q (sha256 %s): each replica's spend is as its table priced it", m.Name, q.Table, q.SHA256, in[0].Name, p.Table, p.SHA256))
		}
		for _, u := range q.UnpricedModels {
			unpriced[u] = true
		}
		for k, v := range q.ApproximatedModels {
			if out.Pricing.ApproximatedModels == nil {
				out.Pricing.ApproximatedModels = map[string]string{}
			}
			out.Pricing.ApproximatedModels[k] = v
		}
		if q.BatchNote != "" {
			out.Pricing.BatchNote = q.BatchNote
		}
		// The bill's dimensions and the recorded costs are counts and sums
		// over calls: the replicas' add up (issue 35).
		for _, d := range []struct{ from, to *map[string]int64 }{{&q.DimensionCalls, &out.Pricing.DimensionCalls}, {&q.AssumedCalls, &out.Pricing.AssumedCalls}} {
			for k, v := range *d.from {
				if *d.to == nil {
					*d.to = map[string]int64{}
				}
				(*d.to)[k] = satAdd((*d.to)[k], v)
			}
		}
		if rc := q.RecordedCost; rc != nil {
			if recRec == nil {
				recRec = &RecordedCost{Billed: rc.Billed}
			}
			recRec.Calls = satAdd(recRec.Calls, rc.Calls)
			recSum.add(rc.RecordedUSD)
			tabSum.add(rc.TableUSD)
		}
	}
	if recRec != nil {
		recRec.RecordedUSD, recRec.TableUSD = recSum.USD(), tabSum.USD()
		out.Pricing.RecordedCost = recRec
	}
	out.Pricing.UnpricedModels = slices.Sorted(maps.Keys(unpriced))
	out.Pricing.OverCapModels = slices.Sorted(maps.Keys(overCap))
	out.Pricing.RefusedRates = slices.Sorted(maps.Keys(refused))
	if out.Pricing.UnpricedModels == nil {
		out.Pricing.UnpricedModels = []string{}
	}
}

// usd sums dollar figures as picodollars, so the sum is exact and does not
// depend on the order of the inputs.
type usd Pico

func (u *usd) add(f float64) { *u = usd(Pico(*u).Add(PicoFromUSD(f))) }
func (u usd) USD() float64   { return Pico(u).USD() }

func mergeTotals(out *Report, in []MergeInput) {
	t := &out.Totals
	var spend, wasted, batch, sync usd
	for _, m := range in {
		s := m.Report.Totals
		t.Attempts = satAdd(t.Attempts, s.Attempts)
		t.ToolCalls = satAdd(t.ToolCalls, s.ToolCalls)
		t.Operations = satAddInt(t.Operations, s.Operations)
		t.UnpricedAttempts = satAdd(t.UnpricedAttempts, s.UnpricedAttempts)
		t.OverCapCalls = satAdd(t.OverCapCalls, max(s.OverCapCalls, 0))
		t.SpendSaturated = t.SpendSaturated || s.SpendSaturated
		t.InputTokens = satAdd(t.InputTokens, s.InputTokens)
		t.OutputTokens = satAdd(t.OutputTokens, s.OutputTokens)
		t.CacheReadTokens = satAdd(t.CacheReadTokens, s.CacheReadTokens)
		t.CacheWriteTokens = satAdd(t.CacheWriteTokens, s.CacheWriteTokens)
		t.BatchCalls = satAdd(t.BatchCalls, s.BatchCalls)
		t.BatchExpired = satAdd(t.BatchExpired, s.BatchExpired)
		t.BatchCanceled = satAdd(t.BatchCanceled, s.BatchCanceled)
		t.TimingLinks = satAdd(t.TimingLinks, s.TimingLinks)
		t.KeyNamedCalls = satAdd(t.KeyNamedCalls, s.KeyNamedCalls)
		t.RequestIDConflicts = satAdd(t.RequestIDConflicts, s.RequestIDConflicts)
		out.UnseenLayers = mergeUnseen(out.UnseenLayers, m.Report.UnseenLayers)
		spend.add(s.SpendUSD)
		wasted.add(s.WastedUSD)
		batch.add(s.BatchSpendUSD)
		sync.add(s.SyncSpendUSD)
		out.Duplicates = satAdd(out.Duplicates, m.Report.Duplicates)
		for k, v := range m.Report.Status {
			out.Status[k] = satAdd(out.Status[k], v)
		}
	}
	t.SpendUSD, t.WastedUSD, t.BatchSpendUSD, t.SyncSpendUSD = spend.USD(), wasted.USD(), batch.USD(), sync.USD()
}

// mergedJob is a job's parts across replicas.
type mergedJob struct {
	JobReport
	spend, wasted usd
	lastTS        int64
	parts         int
}

// mergeJobs merges the jobs by ID, costliest first as a report orders
// them, and returns how many parts each split job had.
func mergeJobs(in []MergeInput, info *MergeInfo) ([]JobReport, map[string]int) {
	byID := map[string]*mergedJob{}
	var order []string
	kinds := findingKindIndex()
	for _, m := range in {
		for k := range m.Report.Jobs {
			j := m.Report.Jobs[k]
			mj := byID[j.JobID]
			if mj == nil {
				mj = &mergedJob{JobReport: j, lastTS: parseTS(j.LastTS), parts: 1}
				mj.Layers = slices.Clone(j.Layers)
				mj.Findings = slices.Clone(j.Findings)
				mj.spend.add(j.SpendUSD)
				mj.wasted.add(j.WastedUSD)
				byID[j.JobID] = mj
				order = append(order, j.JobID)
				continue
			}
			mj.parts++
			mj.Attempts = satAdd32(mj.Attempts, j.Attempts)
			mj.ToolCalls = satAdd32(mj.ToolCalls, j.ToolCalls)
			mj.Duplicates = satAdd32(mj.Duplicates, j.Duplicates)
			mj.spend.add(j.SpendUSD)
			mj.wasted.add(j.WastedUSD)
			if j.RecordedUSD != nil && j.TableUSD != nil {
				// A job split over replicas: its parts' recorded costs
				// and the table's prices of them add up.
				var rec, tab usd
				if mj.RecordedUSD != nil && mj.TableUSD != nil {
					rec.add(*mj.RecordedUSD)
					tab.add(*mj.TableUSD)
				}
				rec.add(*j.RecordedUSD)
				tab.add(*j.TableUSD)
				r, b := rec.USD(), tab.USD()
				mj.RecordedUSD, mj.TableUSD = &r, &b
			}
			if parseTS(j.FirstTS) != 0 && (parseTS(mj.FirstTS) == 0 || parseTS(j.FirstTS) < parseTS(mj.FirstTS)) {
				mj.FirstTS = j.FirstTS
			}
			// The part that ended last has the job's outcome and status.
			if last := parseTS(j.LastTS); last >= mj.lastTS {
				mj.lastTS, mj.LastTS, mj.Outcome, mj.LastStatus = last, j.LastTS, j.Outcome, j.LastStatus
			}
			if layers.Product(j.Layers) > layers.Product(mj.Layers) {
				mj.Layers = slices.Clone(j.Layers)
			}
			if mj.JobType == "" {
				mj.JobType = j.JobType
			}
			mj.Count = weakerCount(mj.Count, j.Count)
			mj.UnpricedCalls = satAdd32(mj.UnpricedCalls, j.UnpricedCalls)
			for _, f := range j.Findings {
				if !slices.Contains(mj.Findings, f) {
					mj.Findings = append(mj.Findings, f)
				}
			}
			slices.SortFunc(mj.Findings, func(a, b string) int { return cmp.Compare(kinds[a], kinds[b]) })
		}
	}
	split := map[string]int{}
	jobs := make([]JobReport, 0, len(order))
	for _, id := range order {
		mj := byID[id]
		mj.SpendUSD, mj.WastedUSD = mj.spend.USD(), mj.wasted.USD()
		if mj.parts > 1 {
			split[id] = mj.parts
			info.SplitJobs++
			if len(info.SplitJobExamples) < maxSplitExamples {
				info.SplitJobExamples = append(info.SplitJobExamples, id)
			}
		}
		jobs = append(jobs, mj.JobReport)
	}
	slices.SortFunc(jobs, func(a, b JobReport) int {
		return cmp.Or(cmp.Compare(b.SpendUSD, a.SpendUSD), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.JobID, b.JobID))
	})
	return jobs, split
}

func satAdd32(a, b int32) int32 {
	if s := int64(a) + int64(b); s < math.MaxInt32 {
		return int32(s)
	}
	return math.MaxInt32
}

// findingKindIndex maps a finding's name to its kind, the order a job
// lists its findings in.
func findingKindIndex() map[string]int {
	m := make(map[string]int, NumFindingKinds)
	for k := range NumFindingKinds {
		m[k.String()] = int(k)
	}
	return m
}

// recountJobs counts the merged jobs by outcome and their calls.
func recountJobs(out *Report, jobs []JobReport) {
	t := &out.Totals
	t.Jobs = len(jobs)
	var calls []int64
	for i := range jobs {
		switch jobs[i].Outcome {
		case OutcomeSucceeded.String():
			t.SucceededJobs++
		case OutcomeFailed.String():
			t.FailedJobs++
		case OutcomeDeadLettered.String():
			t.DeadLetteredJobs++
		case OutcomeQueued.String():
			t.QueuedJobs++
		default:
			t.RunningJobs++
		}
		if jobs[i].Attempts > 0 {
			calls = append(calls, int64(jobs[i].Attempts))
		}
		switch jobs[i].Count {
		case CountLowerBound:
			t.LowerBoundJobs++
		case CountAmbiguous:
			t.AmbiguousJobs++
		}
	}
	out.CallsPerJob = intPercentiles(calls)
}

// jobTypesOf rebuilds the job-type table from the merged jobs, visiting
// them in the order they began (as a state met them), so the most
// amplified stack of a type is the first one seen, as in one report.
func jobTypesOf(jobs []JobReport) []JobTypeReport {
	type started struct {
		at int64
		j  *JobReport
	}
	byStart := make([]started, len(jobs))
	for i := range jobs {
		byStart[i] = started{parseTS(jobs[i].FirstTS), &jobs[i]}
	}
	slices.SortFunc(byStart, func(a, b started) int { // a total order: IDs are unique
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.j.JobID, b.j.JobID))
	})
	type acc struct {
		JobTypeReport
		calls         []int64
		spend, wasted usd
		amp           int
	}
	types := map[string]*acc{}
	for _, st := range byStart {
		j := st.j
		name := jobTypeName(j.JobType)
		a := types[name]
		if a == nil {
			a = &acc{JobTypeReport: JobTypeReport{JobType: name, Layers: []int{}}}
			types[name] = a
		}
		a.Jobs++
		a.Attempts = satAdd(a.Attempts, int64(j.Attempts))
		a.UnpricedAttempts = satAdd(a.UnpricedAttempts, int64(j.UnpricedCalls))
		a.spend.add(j.SpendUSD)
		a.wasted.add(j.WastedUSD)
		if j.Attempts > 0 {
			a.calls = append(a.calls, int64(j.Attempts))
		}
		switch j.Outcome {
		case OutcomeSucceeded.String():
			a.Succeeded++
		case OutcomeFailed.String():
			a.Failed++
		case OutcomeDeadLettered.String():
			a.DeadLettered++
		}
		if amp := layers.Product(j.Layers); amp > a.amp {
			a.amp, a.Layers = amp, slices.Clone(j.Layers)
		}
	}
	out := make([]JobTypeReport, 0, len(types))
	for _, a := range types {
		p := intPercentiles(a.calls)
		a.CallsPerJobP50, a.CallsPerJobP99 = p.P50, p.P99
		a.SpendUSD, a.WastedUSD = a.spend.USD(), a.wasted.USD()
		out = append(out, a.JobTypeReport)
	}
	slices.SortFunc(out, func(a, b JobTypeReport) int {
		return cmp.Or(cmp.Compare(b.SpendUSD, a.SpendUSD), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.JobType, b.JobType))
	})
	return out
}

func mergeDeadLetter(out *Report, in []MergeInput) {
	for _, m := range in {
		d := m.Report.TimeToDeadLetterS
		out.TimeToDeadLetterS.Count = satAddInt(out.TimeToDeadLetterS.Count, d.Count)
		out.TimeToDeadLetterS.Max = max(out.TimeToDeadLetterS.Max, d.Max)
	}
}

func mergeRetryAfter(out *Report, in []MergeInput) {
	ra := &out.RetryAfter
	for _, m := range in {
		r := m.Report.RetryAfter
		ra.Count = satAdd(ra.Count, r.Count)
		ra.Honored = satAdd(ra.Honored, r.Honored)
		ra.Rehit = satAdd(ra.Rehit, r.Rehit)
		ra.NoHint = satAdd(ra.NoHint, r.NoHint)
	}
}

func mergeRecovery(out *Report, in []MergeInput) {
	var ops, first, w3, w5 float64
	for _, m := range in {
		r := m.Report.Recovery
		n := float64(r.Operations)
		ops += n
		first += math.Round(r.FirstAttempt * n)
		w3 += math.Round(r.Within3 * n)
		w5 += math.Round(r.Within5 * n)
	}
	out.Recovery = Recovery{Operations: int(ops)}
	if ops > 0 {
		out.Recovery.FirstAttempt, out.Recovery.Within3, out.Recovery.Within5 = round4(first/ops), round4(w3/ops), round4(w5/ops)
	}
}

func mergeModels(out *Report, in []MergeInput) {
	type acc struct {
		ModelReport
		spend      usd
		latencySum float64
	}
	byName := map[string]*acc{}
	for _, m := range in {
		for _, md := range m.Report.Models {
			a := byName[md.Model]
			if a == nil {
				a = &acc{ModelReport: ModelReport{Model: md.Model, Provider: md.Provider, Status: map[string]int64{}}}
				byName[md.Model] = a
			}
			a.Priced = a.Priced || md.Priced
			a.Attempts = satAdd(a.Attempts, md.Attempts)
			a.spend.add(md.SpendUSD)
			for k, v := range md.Status {
				a.Status[k] = satAdd(a.Status[k], v)
			}
			a.InputTokens = satAdd(a.InputTokens, md.InputTokens)
			a.OutputTokens = satAdd(a.OutputTokens, md.OutputTokens)
			a.CacheReadTokens = satAdd(a.CacheReadTokens, md.CacheReadTokens)
			a.CacheWriteTokens = satAdd(a.CacheWriteTokens, md.CacheWriteTokens)
			a.UnpricedAttempts = satAdd(a.UnpricedAttempts, md.UnpricedAttempts)
			a.latencySum += md.MeanLatencyMs * float64(md.Attempts)
		}
	}
	out.Models = []ModelReport{}
	for _, a := range byName {
		a.SpendUSD = a.spend.USD()
		if a.Attempts > 0 {
			a.MeanLatencyMs = math.Round(a.latencySum/float64(a.Attempts)*10) / 10
		}
		out.Models = append(out.Models, a.ModelReport)
	}
	slices.SortFunc(out.Models, func(a, b ModelReport) int {
		return cmp.Or(cmp.Compare(b.SpendUSD, a.SpendUSD), cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Model, b.Model))
	})
}

func mergeTools(out *Report, in []MergeInput) {
	byName := map[string]*ToolReport{}
	for _, m := range in {
		for _, t := range m.Report.Tools {
			a := byName[t.Tool]
			if a == nil {
				a = &ToolReport{Tool: t.Tool, Status: map[string]int64{}}
				byName[t.Tool] = a
			}
			a.Attempts = satAdd(a.Attempts, t.Attempts)
			for k, v := range t.Status {
				a.Status[k] = satAdd(a.Status[k], v)
			}
		}
	}
	out.Tools = []ToolReport{}
	for _, a := range byName {
		out.Tools = append(out.Tools, *a)
	}
	slices.SortFunc(out.Tools, func(a, b ToolReport) int {
		return cmp.Or(cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Tool, b.Tool))
	})
}

// mergeFindings sums each kind's findings; a split job that had the
// finding in several parts is one job of it.
func mergeFindings(out *Report, in []MergeInput, split map[string]int) {
	kinds := findingKindIndex()
	type acc struct {
		FindingReport
		wasted  usd
		firstAt int64
	}
	byKind := map[string]*acc{}
	for _, m := range in {
		for _, f := range m.Report.Findings {
			// An ambiguous row (ambiguous.go) stays its own: merged into
			// the kind's critical row, its jobs would be convicted.
			key := f.Kind
			if f.Ambiguous {
				key += ambiguousKey
			}
			a := byKind[key]
			if a == nil {
				a = &acc{FindingReport: FindingReport{Kind: f.Kind, Severity: f.Severity, Ambiguous: f.Ambiguous, Example: f.Example, Advice: mergedAdvice(f, m.Name), FirstAt: f.FirstAt, Jobs: []string{}}, firstAt: parseTS(f.FirstAt)}
				byKind[key] = a
			}
			a.Severity = max(a.Severity, f.Severity)
			a.Count = satAdd(a.Count, f.Count)
			a.JobsTotal = satAddInt(a.JobsTotal, f.JobsTotal)
			a.wasted.add(f.WastedUSD)
			if at := parseTS(f.FirstAt); at != 0 && (a.firstAt == 0 || at < a.firstAt) {
				a.firstAt, a.FirstAt, a.Example = at, f.FirstAt, f.Example
			}
			for _, j := range f.Jobs {
				if len(a.Jobs) < maxFindingJobs && !slices.Contains(a.Jobs, j) {
					a.Jobs = append(a.Jobs, j)
				}
			}
		}
	}
	// A split job counted once per part that had the finding: once.
	if len(split) > 0 {
		seen := map[string]map[string]int{} // job → finding → parts with it
		for _, m := range in {
			for k := range m.Report.Jobs {
				j := &m.Report.Jobs[k]
				if split[j.JobID] < 2 {
					continue
				}
				if seen[j.JobID] == nil {
					seen[j.JobID] = map[string]int{}
				}
				for _, f := range j.Findings {
					seen[j.JobID][f]++
				}
			}
		}
		for _, kinds := range seen {
			for kind, n := range kinds {
				if a := byKind[kind]; a != nil && n > 1 {
					a.JobsTotal = max(0, a.JobsTotal-(n-1))
				}
			}
		}
	}
	out.Findings = []FindingReport{}
	order := func(key string) (int, bool) {
		k, amb := strings.CutSuffix(key, ambiguousKey)
		return kinds[k], amb
	}
	for _, name := range slices.SortedFunc(maps.Keys(byKind), func(a, b string) int {
		ka, aa := order(a)
		kb, ab := order(b)
		return cmp.Or(cmp.Compare(ka, kb), cmpBool(aa, ab))
	}) {
		a := byKind[name]
		a.WastedUSD = a.wasted.USD()
		out.Findings = append(out.Findings, a.FindingReport)
	}
	slices.SortStableFunc(out.Findings, func(a, b FindingReport) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.WastedUSD, a.WastedUSD))
	})
}

// ambiguousKey marks a finding's ambiguous row in mergeFindings.
const ambiguousKey = "\x00ambiguous"

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func mergeTimeline(out *Report, in []MergeInput) {
	type acc struct {
		TimelinePoint
		spend usd
	}
	byMinute := map[int64]*acc{}
	for _, m := range in {
		for _, p := range m.Report.Timeline {
			at := parseTS(p.Minute)
			a := byMinute[at]
			if a == nil {
				a = &acc{TimelinePoint: TimelinePoint{Minute: p.Minute, UnixMinute: at / int64(time.Minute)}}
				byMinute[at] = a
			}
			a.Calls = satAdd(a.Calls, p.Calls)
			a.Success = satAdd(a.Success, p.Success)
			a.Retryable = satAdd(a.Retryable, p.Retryable)
			a.Terminal = satAdd(a.Terminal, p.Terminal)
			a.ToolCalls = satAdd(a.ToolCalls, p.ToolCalls)
			a.spend.add(p.SpendUSD)
		}
	}
	out.Timeline = make([]TimelinePoint, 0, len(byMinute))
	for _, at := range slices.Sorted(maps.Keys(byMinute)) {
		a := byMinute[at]
		a.Spend = Pico(a.spend)
		a.SpendUSD = a.spend.USD()
		out.Timeline = append(out.Timeline, a.TimelinePoint)
	}
}

// mergedAdvice is a merged finding's advice: ours, from the finding table,
// for a kind we know — a replica's file (a report a user was handed)
// never speaks in burnrate's voice; a kind we do not know keeps its
// replica's words, said to be theirs.
func mergedAdvice(f FindingReport, replica string) string {
	if k, err := ParseFindingKind(f.Kind); err == nil {
		return Advice[k]
	}
	if f.Advice == "" {
		return ""
	}
	return "(advice from " + replica + ", a finding this burnrate does not know) " + f.Advice
}

// weakerCount is the less trusted of two count kinds of one job's parts:
// a part placed by timing makes the whole ambiguous, a part that is a
// lower bound the whole a lower bound.
func weakerCount(a, b string) string {
	rank := func(c string) int {
		switch c {
		case CountAmbiguous:
			return 2
		case CountLowerBound:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// mergeUnseen adds a replica's unseen layers to the merged ones, by
// layer: its jobs are added (a job split across replicas counts in each).
func mergeUnseen(out, in []UnseenLayer) []UnseenLayer {
	for _, u := range in {
		i := slices.IndexFunc(out, func(o UnseenLayer) bool { return o.Layer == u.Layer })
		if i < 0 {
			out = append(out, u)
			continue
		}
		out[i].Jobs = satAddInt(out[i].Jobs, u.Jobs)
	}
	return out
}
