package audit

// Confidence says how a layer was found.
type Confidence string

const (
	ConfidenceHigh   Confidence = "high"   // a parser (go/ast, YAML, JSON) and a known import
	ConfidenceMedium Confidence = "medium" // matching with comments and strings blanked, import known
	ConfidenceLow    Confidence = "low"    // a shape only: a hand-rolled loop, a default assumed from a settings file
)

// Layer is one place in the scanned code that can retry a call.
type Layer struct {
	Root      string // the scanned root it was found under, as given
	File      string // relative to Root, slash-separated
	Line      int
	DefaultID string // the Defaults row
	Library   string
	Version   string // from a lockfile or manifest; "" when none names it
	Kind      Kind
	// Attempts is the total attempts, the first included; 0 when
	// Unbounded.
	Attempts   int
	Unbounded  bool
	Configured bool   // false: the library's default, the one nobody set
	Setting    string // the setting as written ("maxRetries: 0"), or the default's knob
	Retries4xx bool
	Backoff    string // the budget-layers schedule used for the wall clock
	RetryAfter string
	Confidence Confidence
	Note       string
	group      string // the call-path group: a language, or config layers
	// wraps is the line, in the same file, of the layer this one is
	// known to wrap (with_retry on a chat model bound in the file); 0
	// when not known.
	wraps int
	// fromConst names the constant the options come from, resolved
	// across the root's files; constRequired keeps the layer (at low
	// confidence) when no file defines it.
	fromConst     string
	constRequired bool
	// pending: set from an expression (setUnknown) the file's values may
	// resolve (resolvePending); confBefore is the confidence it had.
	pending    bool
	confBefore Confidence
	// valueName: the name a pending setting reads, not defined in its own
	// file; resolveValues looks for it in the root's other files.
	valueName, valueExpr string
	// valueAlt: a pending loop's parameter's default written as a name of
	// another module (`remaining_retries: int = settings.MAX_RETRIES`):
	// looked up when valueName has no definition (issue 37, round 8).
	valueAlt string
	// loopDelay: a pending loop bounded by its backoff (delayloops.go),
	// its delay starting at loopDelay and multiplied by loopFactor until
	// it passes (loopStrict: >, else >=) the resolved cap.
	loopDelay, loopFactor float64
	loopStrict            bool
	// loopPending: a hand-rolled loop whose bound (valueName) is defined
	// in another file, loopOffset tries more or fewer than the bound; it
	// is no layer unless resolveValues finds the value.
	loopPending bool
	loopOffset  int
	// calledAs: a loop bounded by its function's parameter (params.go):
	// the function, whose calls in the root's other files may pass a
	// larger bound (resolveCallSites); callBase is the bound found so far,
	// -1 when none.
	calledAs *paramFn
	callBase int
	// reenqueueTask: a task enqueued again from an error handler under
	// another name than the handler's function (reenqueue.go); a layer only
	// if that task calls reenqueueFrom (resolveReenqueues).
	reenqueueTask, reenqueueFrom string
	// query: a TanStack Query hook waiting on resolveQueries (does its
	// function send a request?); qc: a QueryClient's defaultOptions, which
	// its queries take (queries.go).
	query *queryRef
	qc    *queryClientDefaults
}

// Stack is one likely call path, outermost layer first.
type Stack struct {
	Group     string
	Layers    []int // indices into Result.Layers
	Attempts  int   // the product; 0 when Unbounded
	Unbounded bool
	// WallClockS is the worst-case wall clock folded by budget.Stack,
	// with each layer's default per-attempt timeout (600 s where the
	// library sets none); 0 when unbounded.
	WallClockS float64
	// FailFastS is the same fold when the innermost call fails in
	// Options.AttemptTime instead of running to its timeout: the wall
	// clock of an overload where every call is answered, with an error.
	FailFastS float64
	Product   string // "3 × 3 × 7 = 63"
	Note      string // how the path was chosen, when a wrapper decided it
}

// Severity of a finding.
type Severity string

const (
	SeverityCritical Severity = "critical"
	SeverityWarning  Severity = "warning"
	SeverityInfo     Severity = "info"
)

// FindingKind names what a finding is about.
type FindingKind string

const (
	FindingUnbounded    FindingKind = "unbounded_layer"
	FindingRetries4xx   FindingKind = "retries_4xx"
	FindingOverBudget   FindingKind = "product_over_threshold"
	FindingSameDomain   FindingKind = "same_failure_domain"
	FindingUnsetDefault FindingKind = "unset_default"
)

// Finding is one thing to change, at a file and line.
type Finding struct {
	Severity Severity
	Kind     FindingKind
	Root     string
	File     string
	Line     int
	Message  string
	Stack    int // index into Result.Stacks, -1 for a layer's own finding
}

// Skip is why files or directories were not read.
type Skip struct {
	Reason   string   `json:"reason"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"` // up to maxSkipExamples paths
}

// Result is an audit of one or more roots.
type Result struct {
	Roots       []string
	Files       int // files read
	Layers      []Layer
	Stacks      []Stack
	Findings    []Finding
	Skipped     []Skip
	Truncated   bool // more layers than MaxLayers: the rest were not kept
	Threshold   int
	AttemptTime float64 // seconds, the FailFastS assumption
}

// HasCritical reports whether a finding is critical (the CLI exits 1).
func (r *Result) HasCritical() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityCritical {
			return true
		}
	}
	return false
}
