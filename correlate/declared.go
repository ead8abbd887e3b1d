package correlate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Static meets dynamic (issue 26): the retry layers a run declares — a
// stack file, or what `burnrate audit` found in the code — multiplied,
// set beside the calls one operation and one job made in the logs. The
// CLI reads the file or scans the code; correlate only compares numbers.

// DeclaredLayer is one retry layer of a declared stack, outermost first.
type DeclaredLayer struct {
	Name    string `json:"name"`
	Library string `json:"library,omitempty"`
	// Source is where the layer is set: the code's file:line (audit), or
	// the stack file's line of its [[layer]] table.
	Source string `json:"source,omitempty"`
	// Attempts are the layer's total attempts, the first included; 0 when
	// Unbounded.
	Attempts  int  `json:"attempts"`
	Unbounded bool `json:"unbounded,omitempty"`
}

// DeclaredStack is a stack of layers and where it was declared.
type DeclaredStack struct {
	From   string          // "--stack stack.toml", "audit of src: javascript path"
	Layers []DeclaredLayer // outermost first
}

// Product is the stack's worst-case attempts of one operation, saturating
// at math.MaxInt64 (never wrapping); unbounded when a layer is.
func (d DeclaredStack) Product() (attempts int, unbounded bool) {
	attempts = 1
	for _, l := range d.Layers {
		if l.Unbounded {
			return 0, true
		}
		attempts = satMulInt(attempts, max(l.Attempts, 1))
	}
	return attempts, false
}

// ProductText is "7 × 3 × 3 = 63".
func (d DeclaredStack) ProductText() string {
	parts := make([]string, 0, len(d.Layers))
	for _, l := range d.Layers {
		if l.Unbounded {
			parts = append(parts, "∞")
		} else {
			parts = append(parts, strconv.Itoa(l.Attempts))
		}
	}
	n, unbounded := d.Product()
	total := strconv.Itoa(n)
	if unbounded {
		total = "unbounded"
	} else if n == math.MaxInt64 {
		total = "more than any count"
	}
	return strings.Join(parts, " × ") + " = " + total
}

// Names is "bullmq (src/enqueue.ts:5) × 7, anthropic-ts (src/llm.ts:4) × 3":
// the known layers, for a finding's message.
func (d DeclaredStack) Names() string {
	parts := make([]string, 0, len(d.Layers))
	for _, l := range d.Layers {
		name := l.Name
		if l.Library != "" {
			name = l.Library
		}
		if l.Source != "" {
			name += " at " + l.Source
		}
		n := strconv.Itoa(l.Attempts)
		if l.Unbounded {
			n = "unbounded"
		}
		parts = append(parts, name+": "+n)
	}
	return strings.Join(parts, "; ")
}

func satMulInt(a, b int) int {
	if a <= 0 || b <= 0 {
		return a * b
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// DeclaredVsObserved is the report's "Declared vs observed" section.
type DeclaredVsObserved struct {
	From string `json:"from"`
	// Rule says which stack was compared when there were several (an
	// audit finds one likely path per language) and why.
	Rule   string          `json:"rule,omitempty"`
	Layers []DeclaredLayer `json:"layers"`
	// DeclaredAttempts is the product, nil when a layer is unbounded.
	DeclaredAttempts *int            `json:"declared_attempts"`
	DeclaredProduct  string          `json:"declared_product"`
	Observed         ObservedCalls   `json:"observed"`
	JobTypes         []ObservedCalls `json:"job_types"`
	// Above: some operation made more calls than the declared product.
	Above bool `json:"observed_above_declared"`
	// GapFactor is the most calls of one operation over the declared
	// product (63 observed, 3 declared: 21); 0 when not above.
	GapFactor float64 `json:"gap_factor"`
	// Others are the stacks not compared (their From and product).
	Others []string `json:"other_stacks,omitempty"`
}

// ObservedCalls are the calls of one operation and of one job, over the
// jobs of a type (or of the run).
type ObservedCalls struct {
	JobType string `json:"job_type,omitempty"`
	Jobs    int    `json:"jobs"`
	// PerOperation is, over jobs, the most tries of one call in each: one
	// idempotency key's attempts, or without keys the calls since the
	// job's last success — what hidden_retry_layer counts.
	PerOperation Percentiles `json:"calls_per_operation"`
	// PerJob is the model calls of each job: many distinct calls are no
	// evidence of a retry layer (a pipeline, an agent session), so it is
	// shown and never judged.
	PerJob Percentiles `json:"calls_per_job"`
	// WorstJob made the most calls of one operation; WorstLayers are its
	// observed layers (queue attempts × wrapper rounds × SDK attempts).
	WorstJob    string `json:"worst_job,omitempty"`
	WorstLayers []int  `json:"worst_layers"`
	// OverDeclared counts the jobs with an operation above the declared
	// product.
	OverDeclared int `json:"jobs_over_declared"`
}

// jobTries is the most tries of one call of each job, by its index in
// jobList: its keyless operations through its ops list, its keyed ones
// through the slabs (each keyed operation names its job in its key).
func (s *State) jobTries() []int32 {
	tries := make([]int32, len(s.jobList))
	for i, j := range s.jobList {
		for _, o := range j.ops {
			tries[i] = max(tries[i], o.op.maxTries)
		}
		if t, ok := s.retiredTries[j.Seq]; ok { // its summarized operations
			tries[i] = max(tries[i], t)
		}
	}
	left := s.opCount
	for _, slab := range s.opSlabs {
		for k := range slab[:min(len(slab), left)] {
			o := &slab[k]
			if o.key == "" {
				continue
			}
			id, _, ok := strings.Cut(o.key, "\x00")
			if !ok {
				continue
			}
			if i, found := s.jobs.find(id, s.jobs.hash(id), s.jobID); found {
				tries[i] = max(tries[i], o.maxTries)
			}
		}
		left -= min(len(slab), left)
	}
	return tries
}

// maxDeclaredJobs bounds the jobs a finding names (as every finding does).
const maxDeclaredJobs = maxFindingJobs

// CompareDeclared adds the "Declared vs observed" section to r and, when
// one operation made more calls than the declared stack allows, an
// undeclared_retry_layer finding naming the known layers and the gap
// (seed 000's "a retry layer you do not know about"). Calls below the
// declared product are fine: the stack is a worst case. rule and others
// say how d was chosen among several stacks ("" and nil for one). It reads
// the state and changes nothing but r.
func (s *State) CompareDeclared(r *Report, d DeclaredStack, rule string, others []string, sev func(FindingKind) Severity) {
	declared, unbounded := d.Product()
	dv := &DeclaredVsObserved{From: d.From, Rule: rule, Layers: slices.Clone(d.Layers), DeclaredProduct: d.ProductText(), JobTypes: []ObservedCalls{}, Others: others}
	if dv.Layers == nil {
		dv.Layers = []DeclaredLayer{}
	}
	if !unbounded {
		dv.DeclaredAttempts = &declared
	}
	tries := s.jobTries()
	type acc struct {
		ObservedCalls
		ops, calls []int64
		worst      int32
		worstCalls int32
	}
	all := &acc{}
	types := map[string]*acc{}
	var over []int // job indices over the declared product
	for i, j := range s.jobList {
		if j.Calls+j.ToolCalls == 0 {
			continue
		}
		jt := jobTypeName(j.Type)
		a := types[jt]
		if a == nil {
			a = &acc{ObservedCalls: ObservedCalls{JobType: jt}}
			types[jt] = a
		}
		// A job whose calls timing alone placed is never found above the
		// declared stack: its count may be another job's (counts.go).
		isOver := !unbounded && int64(tries[i]) > int64(declared) && j.evidence&evTiming == 0
		if isOver {
			over = append(over, i)
		}
		for _, x := range []*acc{all, a} {
			x.Jobs++
			x.ops = append(x.ops, int64(tries[i]))
			x.calls = append(x.calls, int64(j.Calls))
			// The worst job: the most tries of one call, then the most calls.
			if tries[i] > x.worst || tries[i] == x.worst && j.Calls > x.worstCalls || x.WorstJob == "" {
				x.worst, x.worstCalls, x.WorstJob, x.WorstLayers = tries[i], j.Calls, j.ID, j.Layers()
			}
			if isOver {
				x.OverDeclared++
			}
		}
	}
	finish := func(a *acc) ObservedCalls {
		a.PerOperation, a.PerJob = intPercentiles(a.ops), intPercentiles(a.calls)
		if a.WorstLayers == nil {
			a.WorstLayers = []int{}
		}
		return a.ObservedCalls
	}
	dv.Observed = finish(all)
	dv.Observed.JobType = ""
	for _, a := range types {
		dv.JobTypes = append(dv.JobTypes, finish(a))
	}
	slices.SortFunc(dv.JobTypes, func(a, b ObservedCalls) int {
		return cmp.Or(cmp.Compare(b.PerOperation.Max, a.PerOperation.Max), cmp.Compare(b.Jobs, a.Jobs), cmp.Compare(a.JobType, b.JobType))
	})
	r.DeclaredVsObserved = dv
	if len(over) == 0 {
		return
	}
	dv.Above = true
	dv.GapFactor = math.Round(float64(dv.Observed.PerOperation.Max)/float64(declared)*10) / 10
	k := UndeclaredRetryLayer
	severity := sev(k)
	if severity == SeverityOff {
		return
	}
	// Worst first: the jobs a reader should open.
	slices.SortStableFunc(over, func(a, b int) int { return cmp.Compare(tries[b], tries[a]) })
	f := FindingReport{Kind: k.String(), Severity: severity, Count: int64(len(over)), JobsTotal: len(over), Jobs: []string{}, Advice: Advice[k]}
	var jobsWasted Pico
	first := int64(0)
	for n, i := range over {
		j := s.jobList[i]
		if n < maxDeclaredJobs {
			f.Jobs = append(f.Jobs, j.ID)
		}
		jobsWasted = jobsWasted.Add(j.wasted(s.Outcome(j, true)))
		if ts := j.FirstAttemptTS; ts != 0 && (first == 0 || ts < first) {
			first = ts
		}
	}
	f.JobsWastedUSD, f.FirstAt = jobsWasted.USD(), FormatTime(first)
	o := dv.Observed
	f.Example = fmt.Sprintf("observed %d calls for one operation (job %s, layers %s); declared %d (%s); ×%s unexplained",
		o.PerOperation.Max, o.WorstJob, FormatLayers(o.WorstLayers), declared, d.Names(), strconv.FormatFloat(dv.GapFactor, 'f', -1, 64))
	appendFindingRows(r, []FindingReport{f})
}
