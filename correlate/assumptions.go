package correlate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/layers"
)

// The assumptions log (seed 003): what each run depended on, from three
// sources — declared by the run (ingest.KindAssumption events), derived
// by `burnrate audit` (SetDerivedAssumptions) and observed in the traffic
// (the largest retry count per layer, package versions, calls per job) —
// and the findings where they disagree or change.

// Bounds: a hostile log declaring ever new keys grows nothing past them.
const (
	maxDeclaredAssumptions = 1024
	maxObservedLayers      = 64
	maxObservedFacts       = 256
)

// AssumptionReport is one key of the log, in the JSON report's
// "assumptions". Every text in it came from a log: sanitised and bounded
// at ingest, and still escaped again for a terminal (display.Text).
type AssumptionReport struct {
	Key     string `json:"key"`
	JobType string `json:"job_type,omitempty"` // "" for the whole run
	// Declared is the value the run declared, DeclaredFrom where (a log
	// line, an assumptions record, OTLP attributes, the TOML file).
	Declared     string `json:"declared,omitempty"`
	DeclaredFrom string `json:"declared_from,omitempty"`
	Derived      string `json:"derived,omitempty"`
	DerivedFrom  string `json:"derived_from,omitempty"`
	Observed     string `json:"observed,omitempty"`
	// Evidence says what the observed value was read from, and where.
	Evidence string `json:"evidence,omitempty"`
	// ObservedAt is the log time of the evidence.
	ObservedAt string `json:"observed_at,omitempty"`
	// FirstAt is the log time of the first event under the current
	// declared (or observed) value.
	FirstAt string `json:"first_at,omitempty"`
	// Previous is the value before a change within this run, or in the
	// baseline run, with ChangedAt the log time of the first event under
	// the new value.
	Previous  string `json:"previous,omitempty"`
	ChangedAt string `json:"changed_at,omitempty"`
}

type assumptionKey struct{ jobType, key string }

type declaredAssumption struct {
	value, from string
	// retries is value as a count, for a NAME.maxRetries key (-1: none),
	// checked live against every attempt of that layer.
	retries int64
	// layer: the key can set a retry layer (isLayerKey), so the
	// declared product of calls per job reads it.
	layer bool
	// op: the operator declared the key (ingest.IsOperatorAssumption),
	// opRetries its count as the operator declared it (-1: none), kept
	// whatever a log line declares after it: a declaration read from the
	// traffic neither arms a kill nor moves the one the operator armed.
	op        bool
	opRetries int64
	opValue   string // the value as the operator declared it
	firstTS   int64
	pending   bool // firstTS waits for the next event with a time
	prev      string
	changedTS int64
	changed   bool
}

type observedRetries struct {
	max      int16 // the largest attempt number seen
	ts       int64
	job      string
	evidence string
	// byType is the largest per job type, for a job type's declaration.
	byType map[string]int16
	// seen holds byType's first entries, read before it by their types'
	// pointers: State.jobType gives the jobs of a type one copy, so a
	// call's type is found without hashing or reading it (the map read
	// was a third of call's cost).
	seen [8]typeMax
	// ambMax is the largest attempt number read from retry lines two
	// concurrent requests made ambiguous (ingest.AttemptByLineAmbiguous):
	// shown, never held against a declaration.
	ambMax int16
	ambTS  int64
	ambJob string
}

// typeMax is a job type's largest attempt number (observedRetries.seen).
type typeMax struct {
	jobType string
	max     int16
}

// sameString reports whether a and b are one string: the same bytes at the
// same address (false for equal copies: a fast check, not a comparison).
func sameString(a, b string) bool {
	return len(a) == len(b) && len(a) > 0 && unsafe.StringData(a) == unsafe.StringData(b)
}

// ambiguousEvidence says why an observed count is not held against a declaration.
const ambiguousEvidence = "ambiguous: placed by position or timing alone (the lines name no job and no request ID: another request, or another process writing the stream, fits as well), not held against a declaration"

// observedRetryAfter is how one layer's retries treated a Retry-After:
// every retry that followed an answer asking for one, its wait set
// against what was asked.
type observedRetryAfter struct {
	honoured      int64
	maxHonouredMs int64 // the longest Retry-After waited out
	shortened     int64
	// the waits of the retries that came sooner than asked, and the
	// shortest Retry-After cut short
	minShortWaitMs, maxShortWaitMs, minShortAskedMs int64
	ts                                              int64 // the first case's log time
	example                                         string
}

type observedFact struct {
	value, from string
	firstTS     int64
	prev        string
	changedTS   int64
	changed     bool
}

// assumptionLog is the State's part for assumptions.
type assumptionLog struct {
	// opLayers are the layer keys the operator declared (a few, from the
	// assumptions file): the armed product is read from them alone, never
	// by walking every declaration a log made.
	opLayers map[assumptionKey]*declaredAssumption
	// layerNames are the "<provider>-sdk" and "-agent" layer names made
	// so far, by suffix and provider (retryLayer).
	layerNames map[string]map[string]string
	// attemptLayer is Config.AttemptLayer: whose a record's attempt is.
	attemptLayer string
	// last is retryLayer's and call's answers for the last call: a log's
	// calls name one provider and one layer, and two map reads and a
	// string built per call were 13% of correlating a night.
	last struct {
		suffix, provider, named string // named(suffix) for provider
		prefixed                string // prefixed(prefix, named)
		prefix, name            string // prefixed's arguments
		layer                   string
		retries                 *observedRetries // retries[layer]
	}
	declared   map[assumptionKey]*declaredAssumption
	retries    map[string]*observedRetries // by layer
	retryAfter map[string]*observedRetryAfter
	facts      map[string]*observedFact // by key
	pending    []*declaredAssumption
	dropped    int64 // declarations past maxDeclaredAssumptions
	derived    map[string]DerivedAssumption
	// violatedLive are the keys assumptionCall flagged as they happened:
	// the report does not count them again.
	violatedLive map[string]bool
	// unarmedFrom is where the first declaration a job broke that no
	// operator declared came from ("log line", "otlp resource"...): the
	// alert that is no kill names it (ViolatedUnarmedFrom).
	unarmedFrom string
	// typesDeclared are the job types with declarations of their own;
	// products caches the declared product of calls per job by job type
	// ("" the run's), dropped whenever a declaration changes.
	typesDeclared map[string]bool
	products      map[string]declaredProduct
	// layerKeys counts the declared keys that can set a layer, by job
	// type: past maxProductKeys no product is checked (see product).
	layerKeys map[string]int
	// productWorst is the job furthest past its declared product, and
	// productExample whether the finding's example is a product's: the
	// report then names the worst job at its final count.
	productWorst   productExcess
	productExample bool
}

type productExcess struct {
	job, jobType string
	calls, over  int64 // the job's calls, the product they passed
	// from is where the product's declarations came from: the
	// operator's file, else the first that is not the operator's.
	from string
}

func (e productExcess) String() string {
	what := "calls per job"
	if e.jobType != "" {
		what = "calls per job of type " + e.jobType
	}
	s := fmt.Sprintf("%s above the declared product (%d): job %s made %d calls of one operation", what, e.over, e.job, e.calls)
	if e.from != "" {
		s += " (declared in: " + e.from + ")"
	}
	return s
}

// declaredProduct is the most calls one job may make as declared; ok
// false when the declarations bound none.
type declaredProduct struct {
	calls int64
	ok    bool
	// from is where the product's declarations came from: the
	// operator's file, else the first declaration that is not.
	from string
	// op: the operator's own declarations (ingest.IsOperatorAssumption),
	// as the operator declared them, bound opCalls: a job past it may be
	// killed. A log line can neither arm that kill nor move its bound (a
	// re-declared layer once disarmed it).
	op      bool
	opCalls int64
}

// any: the run has something in its assumptions log.
func (a *assumptionLog) any() bool {
	return len(a.declared) > 0 || len(a.derived) > 0 || len(a.retries) > 0 || len(a.facts) > 0 || len(a.retryAfter) > 0
}

// retryAfterSeen notes one retry of ev's layer that came wait ns after an
// answer asking for askedMs: evidence only where the log gives both the
// header and the retry's time (a negative wait, from files merged out of
// order or a clock step, is none).
func (a *assumptionLog) retryAfterSeen(ev *ingest.Event, job *Job, wait, askedMs int64) {
	if wait < 0 || askedMs < 0 || ev.Kind != ingest.KindLLMCall {
		return // a tool's retries are no model layer's (as in call)
	}
	layer, _ := a.retryLayer(ev)
	layer, _ = a.ownedLayer(layer, ev.JobType)
	if a.retryAfter == nil {
		a.retryAfter = map[string]*observedRetryAfter{}
	}
	o := a.retryAfter[layer]
	if o == nil {
		if len(a.retryAfter) >= maxObservedLayers {
			return
		}
		o = &observedRetryAfter{ts: ev.TS}
		a.retryAfter[layer] = o
	}
	waitMs := wait / 1e6
	first := o.honoured+o.shortened == 0
	// A log's times are often to the millisecond or the second: a retry
	// within a tenth of the Retry-After (at most a second) waited it out.
	if waitMs >= askedMs-min(askedMs/10, 1000) {
		o.honoured++
		o.maxHonouredMs = max(o.maxHonouredMs, askedMs)
	} else {
		if o.shortened == 0 {
			o.minShortWaitMs, o.maxShortWaitMs, o.minShortAskedMs = waitMs, waitMs, askedMs
		}
		o.shortened++
		o.minShortWaitMs, o.maxShortWaitMs = min(o.minShortWaitMs, waitMs), max(o.maxShortWaitMs, waitMs)
		o.minShortAskedMs = min(o.minShortAskedMs, askedMs)
	}
	if first {
		o.example = fmt.Sprintf("job %s: Retry-After %s, the next attempt %s later", job.ID, fmtDur(askedMs*1e6), fmtDur(wait))
	}
}

// verdict reads a layer's Retry-After cases: "honoured" when every retry
// waited as long as asked; "capped at Xs" when the ones that came sooner
// all came at about the same wait (a ceiling, openai-go's 8 s) — with
// two or more such cases, or beside shorter ones it honoured; "honoured
// up to Xs" when it waited out the short ones and cut the long ones short
// at varying waits (its own backoff); "ignored" when it honoured none and
// its waits vary; one case cut short alone says only that.
func (o *observedRetryAfter) verdict() string {
	if o.shortened == 0 {
		return "honoured"
	}
	tol := max(500, o.maxShortWaitMs/10)
	agree := o.maxShortWaitMs-o.minShortWaitMs <= tol && o.maxShortWaitMs > 0
	// A ceiling honours what is below it and waits it out above: no
	// Retry-After longer than it was honoured.
	capped := agree && (o.honoured == 0 && o.shortened >= 2 || o.honoured > 0 && o.maxHonouredMs <= o.maxShortWaitMs+tol)
	switch {
	case capped:
		return "capped at " + seconds(o.maxShortWaitMs)
	case o.honoured > 0 && o.maxHonouredMs < o.minShortAskedMs:
		return "honoured up to " + seconds(o.maxHonouredMs)
	case o.shortened == 1 && o.honoured == 0:
		return fmt.Sprintf("cut short (waited %s of %s)", seconds(o.maxShortWaitMs), seconds(o.minShortAskedMs))
	}
	return "ignored"
}

// seconds writes ms as seconds, to a tenth: "8s", "7.5s".
func seconds(ms int64) string {
	return strconv.FormatFloat(float64((ms+50)/100)/10, 'f', -1, 64) + "s"
}

// operator marks d declared by the operator when from is the operator's
// (the assumptions file): its count is then the one a kill is armed by.
func (a *assumptionLog) operator(d *declaredAssumption, k assumptionKey, from, value string) bool {
	if !ingest.IsOperatorAssumption(from) {
		return false
	}
	d.op, d.opRetries, d.opValue = true, retriesOf(k.key, value), value
	if d.layer {
		a.products = nil
		if a.opLayers == nil {
			a.opLayers = map[assumptionKey]*declaredAssumption{}
		}
		a.opLayers[k] = d
	}
	return true
}

// DerivedAssumption is one value `burnrate audit` derived from the code:
// a layer's configured or default retries for its locked version.
type DerivedAssumption struct {
	Value, From string
}

// SetDerivedAssumptions records what the audit derived, by key (the same
// keys the runs declare, e.g. anthropic-sdk.maxRetries).
func (s *State) SetDerivedAssumptions(d map[string]DerivedAssumption) {
	s.assume.derived = d
}

// assumption applies one KindAssumption event.
func (a *assumptionLog) assumption(ev *ingest.Event) {
	from, key, value, ok := ev.AssumptionParts()
	if !ok {
		return
	}
	if strings.HasPrefix(from, ingest.AssumptionFromObserved) {
		a.fact(key, value, strings.TrimPrefix(from, ingest.AssumptionFromObserved), ev.TS)
		return
	}
	if a.declared == nil {
		a.declared = map[assumptionKey]*declaredAssumption{}
	}
	k := assumptionKey{ev.JobType, key}
	d := a.declared[k]
	if d == nil {
		if len(a.declared) >= maxDeclaredAssumptions {
			a.dropped++
			return
		}
		d = &declaredAssumption{value: value, from: from, layer: isLayerKey(key), opRetries: -1}
		a.declared[k] = d
		if d.layer {
			a.products = nil
			if a.layerKeys == nil {
				a.layerKeys = map[string]int{}
			}
			a.layerKeys[k.jobType]++
		}
		if k.jobType != "" {
			if a.typesDeclared == nil {
				a.typesDeclared = map[string]bool{}
			}
			a.typesDeclared[k.jobType] = true
		}
		d.retries = retriesOf(key, value)
		a.operator(d, k, from, value)
		a.stamp(d, ev)
		return
	}
	if a.operator(d, k, from, value) && d.value == value {
		d.from = from // the operator's premise, first echoed by the log
	}
	if d.value == value {
		return // the same premise, declared again (every run prints it)
	}
	d.prev, d.value, d.from, d.changed = d.value, value, from, true
	d.retries = retriesOf(key, value)
	if d.layer {
		a.products = nil
	}
	a.stamp(d, ev)
	d.changedTS = d.firstTS
}

// stamp sets the first log time under d's value: the event's own, or,
// for a line with none (seed 003's has none), the next event's.
func (a *assumptionLog) stamp(d *declaredAssumption, ev *ingest.Event) {
	if ev.TS != 0 && !ev.TSCarried {
		d.firstTS, d.pending = ev.TS, false
		return
	}
	d.firstTS, d.pending = ev.TS, true
	if len(a.pending) < maxDeclaredAssumptions {
		a.pending = append(a.pending, d)
	}
}

// clock gives pending declarations the time of the first event after them.
func (a *assumptionLog) clock(ts int64) {
	for _, d := range a.pending {
		if d.pending {
			d.firstTS, d.pending = ts, false
			if d.changed {
				d.changedTS = ts
			}
		}
	}
	a.pending = a.pending[:0]
}

func (a *assumptionLog) fact(key, value, from string, ts int64) {
	if a.facts == nil {
		a.facts = map[string]*observedFact{}
	}
	f := a.facts[key]
	if f == nil {
		if len(a.facts) >= maxObservedFacts {
			return
		}
		a.facts[key] = &observedFact{value: value, from: from, firstTS: ts}
		return
	}
	if f.value != value {
		f.prev, f.value, f.from, f.firstTS, f.changedTS, f.changed = f.value, value, from, ts, ts, true
	}
}

// retryLayer names the layer whose attempt number an event carries, by
// the decoder that read it (its operation key's prefix) or its source.
func (a *assumptionLog) retryLayer(ev *ingest.Event) (layer, evidence string) {
	if l := ev.AttemptBy.Layer(); l != "" {
		// The record named the layer: a gateway's header, an AWS SDK's.
		return l, attemptByEvidence[ev.AttemptBy]
	}
	k := ev.IdempotencyKey
	provider := ev.Provider
	if provider == "" {
		// The model names its family (claude: anthropic): one row with
		// the audit's anthropic-sdk, not an "llm-sdk" of its own.
		if provider = layers.FamilyOfModel(ev.Model); provider == "" {
			provider = "llm"
		}
	}
	// Every call asks: the "<provider>-sdk" and "-agent" names are made
	// once per provider, not once per call (6.7% of a 1M-line report).
	named := func(suffix string) string {
		if l := &a.last; l.named != "" && l.suffix == suffix && l.provider == provider {
			return l.named
		}
		names := a.layerNames[suffix] // by provider: no string is built to look one up
		if n, ok := names[provider]; ok {
			a.last.suffix, a.last.provider, a.last.named = suffix, provider, n
			return n
		}
		if a.layerNames == nil {
			a.layerNames = map[string]map[string]string{}
		}
		if names == nil {
			names = map[string]string{}
			a.layerNames[suffix] = names
		}
		n := provider + suffix
		if len(names) < 1024 {
			names[provider] = n
		}
		return n
	}
	switch {
	case strings.HasPrefix(k, "sdk:"):
		return named(layers.SDKSuffix), "SDK retry lines"
	case strings.HasPrefix(k, "litellm:"):
		return "litellm-router", "LiteLLM Router lines"
	case strings.HasPrefix(k, "retry:") && strings.Contains(k, ":claude-code:"):
		return "claude-code", "Claude Code retry lines"
	case strings.HasPrefix(k, "retry:"):
		return "retry-wrapper", "retry-library warnings (tenacity)"
	case strings.HasPrefix(k, "pattern:"):
		return "app", "the application's own retry lines (--pattern)"
	case ev.AgentSession && provider == "anthropic":
		return "claude-code", "Claude Code transcript"
	case ev.AgentSession:
		return named("-agent"), "agent transcript"
	}
	if ev.AttemptBy == ingest.AttemptBySDK {
		return named(layers.SDKSuffix), "the SDK's own attempt count (x-stainless-retry-count, http.request.resend_count)"
	}
	// A record's own attempt field is the layer that logged the line. In
	// burnrate's JSON contract an llm_call's attempt is the SDK's (the
	// job's layers multiply queue × wrapper × it) — unless the run
	// declares a retry owner that is no SDK: then that owner logs them
	// (seed 003's single owner logs "attempt":1..3 with its SDK at 0
	// retries), and they are no evidence of what the SDK did.
	// Which it is, is judged by the declarations the run has made by the
	// time it is read (live) or by its end (the report): recordLayer
	// marks the layer so (an owner declared after the calls gave a
	// critical the same declaration first did not).
	if ev.Attempt > 0 {
		// The record numbers its own attempts (attempt, retry_count): the
		// layer that logged it, the application's — its wrapper's attempt
		// 3 is not the SDK's retry 2 (issue 39: "llm-sdk.maxRetries
		// observed 2" from an app's 3-attempt loop) — unless the config
		// says whose it is, or a declared retry.owner that is an SDK.
		switch a.attemptLayer {
		case "":
			return a.prefixed(fieldLayer, named(layers.SDKSuffix)), fieldEvidence
		case "sdk":
			return named(layers.SDKSuffix), "the log's own attempt numbers, the SDK's by the config ([layers] attempt = \"sdk\")"
		default:
			return a.attemptLayer, "the log's own attempt numbers, " + a.attemptLayer + "'s by the config ([layers] attempt)"
		}
	}
	return a.prefixed(recordLayer, named(layers.SDKSuffix)), recordEvidence
}

// prefixed is prefix+name, built once for a run of calls that ask alike.
func (a *assumptionLog) prefixed(prefix, name string) string {
	l := &a.last
	if l.prefixed != "" && sameString(l.prefix, prefix) && sameString(l.name, name) {
		// The common case, the same constant and the same cached name:
		// no bytes read.
		return l.prefixed
	}
	if l.prefixed == "" || len(l.prefixed) != len(prefix)+len(name) || l.prefixed[:len(prefix)] != prefix || l.prefixed[len(prefix):] != name {
		l.prefixed = prefix + name
	}
	l.prefix, l.name = prefix, name
	return l.prefixed
}

// fieldLayer prefixes the layer of a record's own attempt field while the
// config names none: the application's (appLayer), or the SDK's when the
// run declares the SDK its retry owner (ownedLayerBy).
const fieldLayer = "field:"

// fieldEvidence is retryLayer's evidence for a record's attempt field.
const fieldEvidence = "the log's own attempt numbers (attempt): the application's layer, not the SDK's ([layers] attempt in the config says whose)"

// recordLayer prefixes the layer of a record's own attempt numbers until
// the run's declarations say whose they are (ownedLayer).
const recordLayer = "record:"

// ownedLayer resolves a record's attempt layer by the declarations made
// so far: the declared retry.owner's (appLayer) when that is no SDK,
// else the SDK's; any other layer is itself.
func (a *assumptionLog) ownedLayer(layer, jobType string) (string, string) {
	return ownedLayerBy(layer, a.declaredOwner(jobType))
}

// ownedLayerBy resolves a record layer as a declared owner makes it.
func ownedLayerBy(layer, owner string) (string, string) {
	if sdk, ok := strings.CutPrefix(layer, fieldLayer); ok {
		if owner != "" && ownerIsSDK(owner) {
			return sdk, "the log's own attempt numbers, the declared retry.owner's (" + owner + ")"
		}
		return appLayer, ""
	}
	sdk, ok := strings.CutPrefix(layer, recordLayer)
	if !ok {
		return layer, ""
	}
	if owner != "" && !ownerIsSDK(owner) {
		return appLayer, "the log's own attempt numbers, the declared retry.owner's (" + owner + ")"
	}
	return sdk, "attempt numbers in the log (attempt, http.request.resend_count, x-stainless-retry-count)"
}

// resolvedRetries is the observed retries by layer as the run's
// declarations now read them: each record layer merged into the layer
// it resolves to.
func (a *assumptionLog) resolvedRetries() map[string]*observedRetries {
	out := make(map[string]*observedRetries, len(a.retries))
	for layer, o := range a.retries {
		to, evidence := a.ownedLayer(layer, "")
		c := *o
		if evidence != "" && c.evidence == recordEvidence {
			c.evidence = evidence
		}
		prev := out[to]
		if prev == nil {
			out[to] = &c
			continue
		}
		// Two layers resolved to one owner: the larger count wins, a tie
		// the earlier, then the smaller job ID and evidence — never the
		// map's order (a report of one directory named either of two jobs
		// from run to run).
		m := *prev
		if cmp.Or(cmp.Compare(c.max, m.max), cmp.Compare(m.ts, c.ts), strings.Compare(m.job, c.job), strings.Compare(m.evidence, c.evidence)) > 0 {
			m.max, m.ts, m.job, m.evidence = c.max, c.ts, c.job, c.evidence
		}
		if cmp.Or(cmp.Compare(c.ambMax, m.ambMax), cmp.Compare(m.ambTS, c.ambTS), strings.Compare(m.ambJob, c.ambJob)) > 0 {
			m.ambMax, m.ambTS, m.ambJob = c.ambMax, c.ambTS, c.ambJob
		}
		if len(c.byType) > 0 {
			bt := make(map[string]int16, len(m.byType)+len(c.byType))
			for k, v := range m.byType {
				bt[k] = v
			}
			for k, v := range c.byType {
				bt[k] = max(bt[k], v)
			}
			m.byType = bt
		}
		out[to] = &m
	}
	return out
}

// recordEvidence is retryLayer's evidence for a record layer, replaced by
// its resolution's.
const recordEvidence = "attempt numbers in the log's own records (attempt)"

// declaredOwner is the declared retry.owner for a job type, else the run's.
func (a *assumptionLog) declaredOwner(jobType string) string {
	if len(a.declared) == 0 {
		return ""
	}
	if d := a.declared[assumptionKey{jobType, layers.Owner}]; d != nil {
		return d.value
	}
	if d := a.declared[assumptionKey{"", layers.Owner}]; d != nil {
		return d.value
	}
	return ""
}

// operatorOwner is retry.owner as the operator declared it, for a job
// type, else the run's: the owner an armed kill resolves layers by, so a
// log line naming another owner cannot move the operator's count out of
// reach (red team: a log retry.owner and 64 keys disarmed every kill).
func (a *assumptionLog) operatorOwner(jobType string) string {
	for _, k := range []assumptionKey{{jobType, layers.Owner}, {"", layers.Owner}} {
		if d := a.declared[k]; d != nil && d.op {
			return d.opValue
		}
	}
	return ""
}

// appLayer is the layer that numbers the attempts of an application's own
// records when a declared retry.owner that is no SDK is taken to be it.
const appLayer = "app"

// attemptByEvidence says what an AttemptBy layer's attempt was read from.
var attemptByEvidence = map[ingest.AttemptBy]string{
	ingest.AttemptByLiteLLMRouter: "x-litellm-attempted-retries (LiteLLM proxy)",
	ingest.AttemptByPortkey:       "x-portkey-retry-attempt-count (Portkey gateway)",
	ingest.AttemptByBotocore:      "amz-sdk-request attempt=N (Botocore user agent)",
	ingest.AttemptByAWSSDK:        "amz-sdk-request attempt=N",
}

// retriesOf reads a NAME.maxRetries declaration as a count; -1 for any
// other key or a value that is no count.
func retriesOf(key, value string) int64 {
	if _, ok := layers.CutRetriesKey(key); !ok {
		return -1
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// call notes one call's attempt number: attempt n is n-1 retries of the
// layer that numbered it. An attempt of 0 (unknown) is no evidence. A
// retry past a declared NAME.maxRetries (the job type's, else the run's)
// flags the job at once: assumption_violated is then live, an alert the
// rules can raise (finding alerts), not only a line of the report.
func (s *State) assumptionCall(ev *ingest.Event, job *Job) {
	a := &s.assume
	if ev.Kind != ingest.KindLLMCall {
		return
	}
	if len(a.declared) > 0 && ev.AttemptBy != ingest.AttemptByLineAmbiguous {
		// An ambiguous chain's tries are not certain: no evidence.
		s.productCheck(ev, job)
	}
	if ev.Attempt < 1 {
		return
	}
	a.call(ev, job)
	if len(a.declared) == 0 || ev.Attempt < 2 || ev.AttemptBy == ingest.AttemptByLineAmbiguous {
		return
	}
	raw, _ := a.retryLayer(ev)
	layer, _ := a.ownedLayer(raw, job.Type)
	key := layers.Key(layer, layers.MaxRetries)
	d := a.declared[assumptionKey{job.Type, key}]
	if d == nil {
		d = a.declared[assumptionKey{"", key}]
	}
	// The operator's premise: the layer resolved by the owner the
	// operator declared, its count as the operator declared it — whatever
	// the log declared since.
	opLayer, _ := ownedLayerBy(raw, a.operatorOwner(job.Type))
	opKey := layers.Key(opLayer, layers.MaxRetries)
	op := a.declared[assumptionKey{job.Type, opKey}]
	if op == nil || !op.op {
		op = a.declared[assumptionKey{"", opKey}]
	}
	retry := int64(ev.Attempt - 1)
	broken := d != nil && d.retries >= 0 && retry > d.retries
	// armed: past the count the operator declared; only then may a kill
	// follow.
	armed := op != nil && op.op && op.opRetries >= 0 && retry > op.opRetries
	if !broken && !armed {
		return
	}
	if a.violatedLive == nil {
		a.violatedLive = map[string]bool{}
	}
	if broken {
		a.violatedLive[key] = true
	}
	if !armed && a.unarmedFrom == "" {
		a.unarmedFrom = d.from
	}
	// The count shown is the one broken: the operator's where armed (the
	// log's own may name no count for that layer), else the log's.
	var shown *declaredAssumption
	var n int64
	if armed {
		a.violatedLive[opKey] = true
		shown, n, key = op, op.opRetries, opKey
	} else {
		shown, n = d, d.retries
	}
	s.flag(AssumptionViolated, job, 1, 0, ev.TS, func() string {
		return fmt.Sprintf("%s declared %d but job %s made retry %d (declared in: %s)", key, n, job.ID, ev.Attempt-1, shown.from)
	})
	if armed {
		job.armViolation()
	}
}

// ViolatedUnarmedFrom is where the first declaration a job broke came
// from when no operator declared it ("log line", "assumptions record",
// "otlp resource"...; "" when none): its finding is shown and alerted,
// never a kill.
func (s *State) ViolatedUnarmedFrom() string { return s.assume.unarmedFrom }

// productCheck flags a job at the call that takes it past the declared
// product of calls per job: the layers the run declares (its job type's
// keys over the run's), multiplied as budget layers --from-assumptions
// multiplies them (ReadAssumedLayers). Only where every declared layer is
// bounded; a job already flagged is not flagged again past that call.
// The layers bound the tries of one call (its operation's attempts, as
// undeclared_retry_layer counts them): a job or an agent session that
// makes many calls, each answered, breaks no premise.
func (s *State) productCheck(ev *ingest.Event, job *Job) {
	a := &s.assume
	jobType := ""
	if a.typesDeclared[job.Type] {
		jobType = job.Type
	}
	p, ok := a.products[jobType]
	if !ok {
		p = a.product(jobType)
		if a.products == nil {
			a.products = map[string]declaredProduct{}
		}
		a.products[jobType] = p // as many as typesDeclared, bounded by it
	}
	calls := int64(s.lastTries)
	over := p.ok && calls > p.calls
	armed := p.op && calls > p.opCalls
	if !over && !armed {
		return
	}
	bound, from := p.calls, p.from
	if !over {
		// Past the operator's product, not the one the log's declarations
		// make now: the operator's bound stands.
		bound, from = p.opCalls, ingest.AssumptionFromOperator
	}
	if w := &a.productWorst; calls-bound > w.calls-w.over {
		*w = productExcess{job: job.ID, jobType: jobType, calls: calls, over: bound, from: from}
	}
	if calls > bound+1 && job.HasFinding(AssumptionViolated) && (!armed || job.FindingArmed(AssumptionViolated)) {
		return
	}
	if !armed && a.unarmedFrom == "" {
		a.unarmedFrom = from
	}
	s.flag(AssumptionViolated, job, 1, 0, ev.TS, func() string {
		a.productExample = true
		return productExcess{job: job.ID, jobType: jobType, calls: calls, over: bound, from: from}.String()
	})
	if armed {
		job.armViolation()
	}
}

// maxProductKeys bounds the keys a declared product is read from: no
// real stack has this many retry layers, and a hostile log changing one
// of a thousand declarations before every call would otherwise have each
// call read them all again.
const maxProductKeys = 64

// isLayerKey: a key ReadAssumedLayers can read as a layer, an owner or
// an unread retry setting (every other key it passes over).
func isLayerKey(key string) bool {
	l := strings.ToLower(key)
	return strings.Contains(l, "retr") || strings.Contains(l, "rerun") || strings.Contains(l, "attempt") || strings.Contains(l, "watchdog")
}

// product multiplies the layers declared for jobType: the run's keys,
// with the job type's own in their place.
func (a *assumptionLog) product(jobType string) declaredProduct {
	p := a.operatorProduct(jobType)
	n := a.layerKeys[""]
	if jobType != "" {
		n += a.layerKeys[jobType]
	}
	if n == 0 || n > maxProductKeys {
		return p // the log's keys bound nothing; the operator's still do
	}
	values := make(map[string]string, n)
	froms := make(map[string]string, n)
	for k, d := range a.declared {
		if !d.layer {
			continue
		}
		if k.jobType == "" {
			if _, own := values[k.key]; !own {
				values[k.key], froms[k.key] = d.value, d.from
			}
		}
	}
	if jobType != "" {
		for k, d := range a.declared {
			if d.layer && k.jobType == jobType {
				values[k.key], froms[k.key] = d.value, d.from
			}
		}
	}
	from := ingest.AssumptionFromOperator
	for _, k := range slices.Sorted(maps.Keys(froms)) {
		if !ingest.IsOperatorAssumption(froms[k]) {
			from = froms[k]
			break
		}
	}
	p.calls, p.ok = multiply(values)
	p.from = from
	return p
}

// operatorProduct is the product of the operator's own declarations, at
// the values the operator gave, the job type's in the run's place —
// whatever the log declared since, and however many keys it declared
// (the log's keys past maxProductKeys once took the operator's product
// with them).
func (a *assumptionLog) operatorProduct(jobType string) declaredProduct {
	if len(a.opLayers) == 0 {
		return declaredProduct{}
	}
	opValues := map[string]string{}
	for k, d := range a.opLayers {
		if k.jobType == "" {
			opValues[k.key] = d.opValue
		}
	}
	if jobType != "" {
		for k, d := range a.opLayers {
			if k.jobType == jobType {
				opValues[k.key] = d.opValue
			}
		}
	}
	if len(opValues) == 0 || len(opValues) > maxProductKeys {
		return declaredProduct{}
	}
	var p declaredProduct
	p.opCalls, p.op = multiply(opValues)
	return p
}

// multiply reads key → value declarations as layers (ReadAssumedLayers)
// and multiplies them; ok false when they bound no product.
func multiply(values map[string]string) (int64, bool) {
	kv := make([][2]string, 0, len(values))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		kv = append(kv, [2]string{k, values[k]})
	}
	read, err := ReadAssumedLayers(kv)
	if err != nil {
		return 0, false
	}
	return read.Product()
}

func (a *assumptionLog) call(ev *ingest.Event, job *Job) {
	layer, evidence := a.retryLayer(ev)
	if a.retries == nil {
		a.retries = map[string]*observedRetries{}
	}
	r := a.last.retries
	if r == nil || layer != a.last.layer {
		if r = a.retries[layer]; r == nil {
			if len(a.retries) >= maxObservedLayers {
				return
			}
			r = &observedRetries{}
			a.retries[layer] = r
		}
		a.last.layer, a.last.retries = layer, r
	}
	if ev.AttemptBy == ingest.AttemptByLineAmbiguous {
		if ev.Attempt > r.ambMax {
			r.ambMax, r.ambTS, r.ambJob = ev.Attempt, ev.TS, job.ID
		}
		if r.evidence == "" {
			r.evidence = evidence
		}
		return
	}
	if ev.Attempt > r.max {
		r.max, r.ts, r.job, r.evidence = ev.Attempt, ev.TS, job.ID, evidence
	}
	if job.Type != "" {
		if r.byType == nil {
			r.byType = map[string]int16{}
		}
		// Written only when it grows (or is new): most calls repeat the
		// type's maximum, and a map write costs twice a read.
		for i := range r.seen {
			if t := &r.seen[i]; sameString(t.jobType, job.Type) {
				if ev.Attempt > t.max {
					// The map is the record: t.max may be behind it (a
					// copy of the type, not this one, raised it).
					t.max = ev.Attempt
					if ev.Attempt > r.byType[job.Type] {
						r.byType[job.Type] = ev.Attempt
					}
				}
				return
			}
		}
		old, ok := r.byType[job.Type]
		if (ok && ev.Attempt > old) || (!ok && len(r.byType) < maxObservedLayers) {
			r.byType[job.Type] = max(old, ev.Attempt)
			if !ok && len(r.byType) <= len(r.seen) {
				// New to the map: the first types are the ones kept,
				// in the order they came.
				r.seen[len(r.byType)-1] = typeMax{job.Type, max(old, ev.Attempt)}
			}
		}
	}
}

// reportAssumptions fills r.Assumptions and adds the findings of this run
// alone (assumption_violated, assumption_missing, and assumption_changed
// within the run); CompareAssumptions adds the changes against a
// previous run.
func (s *State) reportAssumptions(r *Report) {
	a := &s.assume
	rows := map[assumptionKey]*AssumptionReport{}
	row := func(k assumptionKey) *AssumptionReport {
		if x := rows[k]; x != nil {
			return x
		}
		x := &AssumptionReport{Key: k.key, JobType: k.jobType}
		rows[k] = x
		return x
	}
	for k, d := range a.declared {
		x := row(k)
		x.Declared, x.DeclaredFrom, x.FirstAt = d.value, d.from, FormatTime(d.firstTS)
		if d.changed {
			x.Previous, x.ChangedAt = d.prev, FormatTime(d.changedTS)
		}
	}
	for key, d := range a.derived {
		x := row(assumptionKey{"", key})
		x.Derived, x.DerivedFrom = d.Value, d.From
	}
	retries := a.resolvedRetries()
	for layer, o := range retries {
		x := row(assumptionKey{"", layers.Key(layer, layers.MaxRetries)})
		if o.ambMax > o.max {
			x.Observed = strconv.Itoa(int(o.ambMax) - 1)
			x.Evidence = fmt.Sprintf("%s: attempt %d in job %s, %s", o.evidence, o.ambMax, o.ambJob, ambiguousEvidence)
			if o.max > 0 {
				x.Evidence += fmt.Sprintf("; attempt %d in job %s read with certainty", o.max, o.job)
			}
			x.ObservedAt = FormatTime(o.ambTS)
			continue
		}
		x.Observed = strconv.Itoa(int(o.max) - 1)
		x.Evidence = fmt.Sprintf("%s: attempt %d in job %s", o.evidence, o.max, o.job)
		x.ObservedAt = FormatTime(o.ts)
	}
	for layer, o := range a.retryAfter {
		x := row(assumptionKey{"", layer + ".retryAfter"})
		x.Observed = o.verdict()
		x.Evidence = fmt.Sprintf("%d retries after a Retry-After: %d waited it out, %d came sooner; first %s", o.honoured+o.shortened, o.honoured, o.shortened, o.example)
		x.ObservedAt = FormatTime(o.ts)
	}
	for key, f := range a.facts {
		x := row(assumptionKey{"", key})
		x.Observed, x.Evidence, x.ObservedAt = f.value, f.from, FormatTime(f.firstTS)
		if x.FirstAt == "" {
			x.FirstAt = FormatTime(f.firstTS)
		}
		if f.changed && x.Previous == "" {
			x.Previous, x.ChangedAt = f.prev, FormatTime(f.changedTS)
		}
	}
	callsPerJobRows(r.JobTypes, rows, row)
	r.Assumptions = make([]AssumptionReport, 0, len(rows))
	for _, x := range rows {
		r.Assumptions = append(r.Assumptions, *x)
	}
	slices.SortFunc(r.Assumptions, func(x, y AssumptionReport) int {
		return cmp.Or(cmp.Compare(x.JobType, y.JobType), cmp.Compare(x.Key, y.Key))
	})
	r.AssumptionsDropped = a.dropped
	if a.productExample {
		// Flagged as the job passed its product; said at its final count.
		for i := range r.Findings {
			if r.Findings[i].Kind == AssumptionViolated.String() && !r.Findings[i].Ambiguous {
				r.Findings[i].Example = a.productWorst.String()
			}
		}
	}
	s.assumptionFindings(r)
}

// callsPerJobKey is the observed row of a job type's p99 calls per job.
const callsPerJobKey = "calls_per_job.p99"

// callsPerJobRows fills, per job type, the p99 calls per job: the job
// types' own figure, which counts the jobs retired from memory too — and,
// for report --merge, the merged job types', recomputed from every
// replica's jobs (never one replica's figure).
func callsPerJobRows(types []JobTypeReport, rows map[assumptionKey]*AssumptionReport, row func(assumptionKey) *AssumptionReport) {
	for _, jt := range types {
		if jt.JobType == jobTypeName("") || jt.Jobs == 0 || jt.CallsPerJobP99 == 0 || len(rows) >= maxDeclaredAssumptions+maxObservedFacts {
			continue
		}
		x := row(assumptionKey{jt.JobType, callsPerJobKey})
		x.Observed = strconv.FormatInt(jt.CallsPerJobP99, 10)
		x.Evidence = fmt.Sprintf("%d jobs of type %s", jt.Jobs, jt.JobType)
		x.ObservedAt = ""
	}
}

// assumptionFindings adds what this run's assumptions alone show.
func (s *State) assumptionFindings(r *Report) {
	retries := s.assume.resolvedRetries()
	var add []FindingReport
	declared := map[string]string{} // key → value, any job type
	for _, x := range r.Assumptions {
		if x.Declared != "" {
			declared[x.Key] = x.Declared
		}
	}
	// What the traffic showed is run-wide: a job type's declaration is
	// held to it too (its own jobs are among those that retried).
	observed := map[string]AssumptionReport{}
	for _, x := range r.Assumptions {
		if x.JobType == "" && x.Observed != "" {
			observed[x.Key] = x
		}
	}
	for _, x := range r.Assumptions {
		if x.JobType != "" && x.Observed == "" && x.Declared != "" {
			// A job type's declaration is held to its own jobs' retries.
			layer, isRetries := layers.CutRetriesKey(x.Key)
			if o, ok := retries[layer]; ok && isRetries {
				if n, ok := o.byType[x.JobType]; ok {
					x.Observed = strconv.Itoa(int(n) - 1)
					x.Evidence, x.ObservedAt = observed[x.Key].Evidence+" (run-wide)", observed[x.Key].ObservedAt
				}
			}
		}
		if x.Declared != "" && x.Previous != "" {
			add = append(add, s.assumptionFinding(AssumptionChanged, x.ChangedAt,
				fmt.Sprintf("%s changed from %s to %s; the first event under the new value is %s", describeKey(x), x.Previous, x.Declared, atText(x.ChangedAt))))
		}
		if x.Declared == "" || x.Observed == "" {
			continue
		}
		want, okW := strconv.ParseInt(x.Declared, 10, 64)
		got, okG := strconv.ParseInt(x.Observed, 10, 64)
		if okW != nil || okG != nil {
			continue
		}
		if layer, ok := layers.CutRetriesKey(x.Key); ok && x.JobType == "" {
			// Only the counts read with certainty are held against it.
			if o := retries[layer]; o != nil && o.ambMax > o.max {
				if o.max == 0 {
					continue
				}
				got = int64(o.max) - 1
			}
		}
		switch {
		case isRetriesKey(x.Key) && got > want && !s.assume.violatedLive[x.Key]:
			add = append(add, s.assumptionFinding(AssumptionViolated, x.ObservedAt,
				fmt.Sprintf("%s declared %d but %d retries observed (%s)", describeKey(x), want, got, x.Evidence)))
		case x.Key == "calls_per_job.max" && got > want:
			add = append(add, s.assumptionFinding(AssumptionViolated, x.FirstAt,
				fmt.Sprintf("%s declared %d but p99 %d observed (%s)", describeKey(x), want, got, x.Evidence)))
		}
	}
	owner, hasOwner := declared[layers.Owner]
	for _, x := range r.Assumptions {
		layer, isRetries := layers.CutRetriesKey(x.Key)
		if !isRetries || x.Observed == "" || x.Observed == "0" || x.Declared != "" {
			continue
		}
		n, _ := strconv.Atoi(x.Observed)
		if n <= 0 {
			continue
		}
		if hasOwner && isSDKLayer(layer) && !ownerIsSDK(owner) && !declaresLayer(map[string]string{layers.Owner: owner}, layer) {
			add = append(add, s.assumptionFinding(AssumptionViolated, x.ObservedAt,
				fmt.Sprintf("retry.owner declared %s but the %s layer retried %d times (%s)", owner, layer, n, x.Evidence)))
			continue
		}
		if hasOwner && layer == appLayer && !ownerIsSDK(owner) && !declaresCount(declared, owner) {
			// The owner's retries are the design, but how many it may make
			// is a premise too: without OWNER.maxAttempts no product holds.
			add = append(add, s.assumptionFinding(AssumptionMissing, x.ObservedAt,
				fmt.Sprintf("the declared retry.owner %s retried %d times and declares no count of its own (%s.maxAttempts) (%s)", owner, n, owner, x.Evidence)))
			continue
		}
		if hasOwner && (strings.EqualFold(owner, layer) || layer == appLayer && !ownerIsSDK(owner)) {
			continue // the declared owner retried: that is its declaration
		}
		// Only a run that keeps an assumptions log misses a key: a night
		// that declares nothing gets its observed rows, not a finding per
		// retrying layer.
		if (len(declared) > 0 || len(s.assume.derived) > 0) && !declaresLayer(declared, layer) {
			add = append(add, s.assumptionFinding(AssumptionMissing, x.ObservedAt,
				fmt.Sprintf("%s retried %d times and the run declares nothing about it (%s)", layer, n, x.Evidence)))
		}
	}
	s.appendFindings(r, add)
}

// declaresCount: the run declares how many attempts owner may make.
func declaresCount(declared map[string]string, owner string) bool {
	return layers.DeclaresCount(declared, owner)
}

func isRetriesKey(key string) bool { _, ok := layers.CutRetriesKey(key); return ok }

// ownerIsSDK: a declared retry.owner that names a client SDK's layer
// ("anthropic-sdk", "openai-sdk.maxRetries", "botocore", "sdk",
// "aws-sdk-owner") — not any owner with "sdk" in its name: the last word
// says what it is ("sdk-wrapper" is a wrapper).
func ownerIsSDK(owner string) bool {
	seg, _, _ := strings.Cut(strings.ToLower(owner), ".")
	for _, role := range []string{"-owner", "-client"} {
		seg = strings.TrimSuffix(seg, role)
	}
	return seg == "sdk" || isSDKLayer(seg)
}

// isSDKLayer: a client SDK's layer — "<provider>-sdk", aws-sdk, or
// botocore (named by its defaults row, not by a provider).
func isSDKLayer(layer string) bool {
	_, sdk := layers.ProviderOfSDKLayer(layer)
	return sdk || layer == ingest.AttemptByBotocore.Layer()
}

// declaresLayer: a declared key names the layer ("anthropic-sdk.…"), or
// retry.owner does (retry.owner = litellm-router: the owner's retries
// are the declared design, not a missing premise).
func declaresLayer(declared map[string]string, layer string) bool {
	if o := declared[layers.Owner]; o == layer || strings.HasPrefix(o, layer+".") {
		return true
	}
	for k := range declared {
		if strings.HasPrefix(k, layer+".") {
			return true
		}
	}
	return false
}

func describeKey(x AssumptionReport) string {
	if x.JobType != "" {
		return x.Key + " (job type " + x.JobType + ")"
	}
	return x.Key
}

// assumptionFinding is one finding of the assumptions log; an empty
// FindingReport (Kind "") when its kind is configured off.
func (s *State) assumptionFinding(k FindingKind, at, example string) FindingReport {
	sev := s.cfg.severity(k)
	if sev == SeverityOff {
		return FindingReport{}
	}
	return FindingReport{Kind: k.String(), Severity: sev, Count: 1, Jobs: []string{}, Example: example, FirstAt: at, Advice: Advice[k]}
}

// appendFindings merges findings into r's, one row per kind (its count
// the number of cases, its example the first), in the report's order.
func (s *State) appendFindings(r *Report, add []FindingReport) {
	appendFindingRows(r, add)
}

func appendFindingRows(r *Report, add []FindingReport) {
	for _, f := range add {
		if f.Kind == "" {
			continue
		}
		// Never into an ambiguous row (ambiguous.go): it convicts no one.
		i := slices.IndexFunc(r.Findings, func(g FindingReport) bool { return g.Kind == f.Kind && !g.Ambiguous })
		if i < 0 {
			r.Findings = append(r.Findings, f)
			continue
		}
		r.Findings[i].Count++
		if r.Findings[i].FirstAt == "" || (f.FirstAt != "" && f.FirstAt < r.Findings[i].FirstAt) {
			r.Findings[i].FirstAt = f.FirstAt
		}
	}
	slices.SortStableFunc(r.Findings, func(a, b FindingReport) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.WastedUSD, a.WastedUSD))
	})
}

// CompareAssumptions adds to r what changed since prev, the assumptions
// of the previous run (a --baseline report, or the last line of
// assumptions.jsonl): a declared or derived value that differs from the
// previous run's of the same key and job type is assumption_changed, at
// the log time of the first event under the new value. sev gives each
// kind's configured severity.
func CompareAssumptions(r *Report, prev []AssumptionReport, sev func(FindingKind) Severity) {
	old := make(map[assumptionKey]AssumptionReport, len(prev))
	for _, p := range prev {
		old[assumptionKey{p.JobType, p.Key}] = p
	}
	var add []FindingReport
	for i := range r.Assumptions {
		x := &r.Assumptions[i]
		p, ok := old[assumptionKey{x.JobType, x.Key}]
		if !ok {
			continue
		}
		// A change within this run from the baseline's value is the same
		// change the run's own finding says (0 → 2 in the log, and 0 in
		// the baseline): one occurrence, not two.
		withinFrom := x.Previous
		if strings.HasSuffix(x.Key, ".version") && p.Observed != "" && x.Observed != "" && p.Observed != x.Observed && x.Previous == "" {
			// A package version moved since the last run: no finding by
			// itself (FlagUpstreamChanges judges it), but the row says so.
			x.Previous, x.ChangedAt = p.Observed, x.ObservedAt
		}
		for _, c := range [...]struct{ what, was, now string }{{"declared", p.Declared, x.Declared}, {"derived", p.Derived, x.Derived}} {
			if c.was == "" || c.now == "" || c.was == c.now || c.what == "declared" && withinFrom != "" && withinFrom == c.was {
				continue
			}
			if x.Previous == "" {
				x.Previous, x.ChangedAt = c.was, x.FirstAt
			}
			if s := sev(AssumptionChanged); s != SeverityOff {
				add = append(add, FindingReport{Kind: AssumptionChanged.String(), Severity: s, Count: 1, Jobs: []string{}, FirstAt: x.FirstAt, Advice: Advice[AssumptionChanged],
					Example: fmt.Sprintf("%s (%s) was %s in the previous run, is %s; the first event under the new value is %s", describeKey(*x), c.what, c.was, c.now, atText(x.FirstAt))})
			}
		}
	}
	appendFindingRows(r, add)
}

// Severity is the configured severity of a finding kind.
func (c Config) SeverityOf(k FindingKind) Severity { return c.severity(k) }

// assumption applies a KindAssumption event: counted, timed, no job.
func (s *State) assumption(ev *ingest.Event) {
	s.events++
	s.assume.assumption(ev)
}

// FlagUpstreamChanges adds default_changed_upstream for every observed
// package version (a NAME.version row) that moved, within the run or
// since the baseline, across a recorded change of its library's retry
// behaviour: crossed names those changes for the SDK (the key without
// ".version"), its old and its new version (audit.ChangesAcross, passed
// in: correlate reads no code).
func FlagUpstreamChanges(r *Report, crossed func(id, from, to string) []string, sev func(FindingKind) Severity) {
	s := sev(DefaultChangedUpstream)
	if s == SeverityOff {
		return
	}
	var add []FindingReport
	for _, x := range r.Assumptions {
		id, ok := strings.CutSuffix(x.Key, ".version")
		if !ok || x.Previous == "" || x.Observed == "" || x.Previous == x.Observed {
			continue
		}
		for _, what := range crossed(id, x.Previous, x.Observed) {
			add = append(add, FindingReport{Kind: DefaultChangedUpstream.String(), Severity: s, Count: 1, Jobs: []string{}, FirstAt: x.ChangedAt, Advice: Advice[DefaultChangedUpstream],
				Example: fmt.Sprintf("%s went from %s to %s (first seen %s) across a change of its default: %s", id, x.Previous, x.Observed, atText(x.ChangedAt), what)})
		}
	}
	appendFindingRows(r, add)
}
