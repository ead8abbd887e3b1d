// Package ingest turns bytes from log files, stdin and OTLP into one
// normalized Event type. Nothing here knows about spend or jobs' state.
package ingest

import (
	"strings"
	"sync"
)

// Kind is what a normalized event stands for.
type Kind uint8

const (
	KindUnknown Kind = iota
	// KindLLMCall is one billable model API attempt.
	KindLLMCall
	// KindToolCall is one non-model attempt, e.g. an internal API.
	KindToolCall
	KindJobEnqueued
	KindJobStarted
	KindJobSucceeded
	// KindJobFailed is one queue attempt that failed; the queue may retry.
	KindJobFailed
	KindJobDeadLettered
	// KindRequestNotRun is a batch request that never reached a model:
	// expired before its completion window, or canceled with its batch.
	// It is not an attempt; it fails its job. ErrorType says which.
	KindRequestNotRun
	// KindUsageGrowth is more usage of a call already reported, not a new
	// attempt: Claude Code writes one record per content block of a
	// response and the usage grows across them (the first holds a partial
	// output count, the last the final one), and an agent's own summary
	// (claude -p's result) can name usage no record showed. With a
	// ResponseID its token fields and cost are the response's usage as it
	// now stands (correlate bills what it adds over what it has counted of
	// that response, from any file); without one they are the growth
	// only. Never negative. PromptTokens is the whole call's prompt, which
	// chooses a long-context price tier.
	KindUsageGrowth
	// KindAgentReport is an agent's own figure for a session's cost
	// (claude -p's total_cost_usd, in CostUSD): shown beside the computed
	// spend, never added to it.
	KindAgentReport
	// KindAssumption is one premise a run depends on (seed 003's
	// assumptions log): declared by the run ("[assumptions] {…}", an
	// "assumptions" record, assumption.* OTLP attributes, a committed
	// burnrate.assumptions.toml) or observed in its traffic (an SDK's
	// package version header). It is no attempt and belongs to no job;
	// its key, value and provenance are packed into Tool (see
	// SetAssumption). JobType names the job type it holds for, "" all.
	KindAssumption
	// KindTraceJob says that the trace CorrelationID belongs to the job
	// JobID (of type JobType): an exporter sends a job's root span — the
	// one that carries job.id — after its children, whose calls were
	// filed under the trace ID meanwhile. It is no call; correlate moves
	// what the trace-ID job holds into the named job.
	KindTraceJob
	// KindSpanLink is no record of spend: it is a piece of the OTLP
	// mapper's memory across requests — a span's parent, the job a span
	// named, a call filed under its trace ID — which decides the job of
	// spans in later requests. With a spool the mapper sends one per
	// change (Remembering), spooled among the events it explains and
	// never applied; a restart's replay gives them back to the mapper, so
	// its memory is the one an uninterrupted run has. CorrelationID holds
	// the trace, Tool the change (ingest/otlp packs and reads it), JobID
	// and JobType a job a span named.
	KindSpanLink
)

var kindNames = [...]string{"unknown", "llm_call", "tool_call", "job_enqueued", "job_started", "job_succeeded", "job_failed", "job_dead_lettered", "request_not_run", "usage_growth", "agent_report", "assumption", "trace_job", "span_link"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// ParseKind maps a canonical event name to its Kind; unknown names give KindUnknown.
func ParseKind(s string) Kind {
	switch s { // a switch: the compiler tells the names apart by length first
	case "llm_call":
		return KindLLMCall
	case "tool_call":
		return KindToolCall
	case "job_enqueued":
		return KindJobEnqueued
	case "job_started":
		return KindJobStarted
	case "job_succeeded":
		return KindJobSucceeded
	case "job_failed":
		return KindJobFailed
	case "job_dead_lettered":
		return KindJobDeadLettered
	case "request_not_run":
		return KindRequestNotRun
	case "assumption":
		return KindAssumption
	}
	return KindUnknown
}

// Sentinel values for numeric fields a line did not carry.
const (
	StatusUnknown = -1 // no HTTP status was reported
	NoRetryAfter  = -1 // no Retry-After was given
	NoValue       = -1 // generic "absent" for counters such as rate-limit headers
)

// AttemptBy is the layer whose count an event's Attempt is. A LiteLLM
// proxy's x-litellm-attempted-retries counts the Router's retries, not the
// client SDK's: charged to the SDK, a run that declared
// anthropic-sdk.maxRetries 0 behind a retrying proxy read as violated.
type AttemptBy uint8

const (
	// AttemptByLine: the decoder's own reading (an SDK's retry line, a
	// record's attempt field).
	AttemptByLine AttemptBy = iota
	// AttemptByLiteLLMRouter: x-litellm-attempted-retries.
	AttemptByLiteLLMRouter
	// AttemptByPortkey: x-portkey-retry-attempt-count, Portkey gateway's.
	AttemptByPortkey
	// AttemptByBotocore: amz-sdk-request "attempt=N" from a client whose
	// user agent is Botocore's (boto3).
	AttemptByBotocore
	// AttemptByAWSSDK: amz-sdk-request from another AWS SDK.
	AttemptByAWSSDK
	// AttemptBySDK: the provider SDK's own count, sent with the request
	// (x-stainless-retry-count) or resent by its HTTP client (OTel's
	// http.request.resend_count): the SDK's layer even where a declared
	// retry owner logs the record (an AttemptByLine attempt field is the
	// owner's then).
	AttemptBySDK
	// AttemptByLineAmbiguous: the decoder's own reading of retry lines
	// that could not tell two requests apart (Python SDK lines carry no
	// request ID: two concurrent requests to one endpoint whose retries
	// fit either). The count is shown, never held against a declaration.
	AttemptByLineAmbiguous
)

var attemptLayers = [...]string{"", "litellm-router", "portkey-gateway", "botocore", "aws-sdk", "", ""}

// Layer is the assumptions log's name of the layer ("" for
// AttemptByLine: the decoder decides). Keys are LAYER.maxRetries; the
// names are the defaults table's IDs where it has a row (botocore).
func (a AttemptBy) Layer() string {
	if int(a) < len(attemptLayers) {
		return attemptLayers[a]
	}
	return ""
}

// Event is one normalized log record. It is the hot path: keep it small and
// free of pointers other than strings.
//
// TS is Unix nanoseconds of the event, or of the start of the attempt.
// Attempt is the 1-based attempt number of the layer that logged the line,
// 0 when unknown. Token counts follow Anthropic's meaning: InputTokens
// excludes cache reads and cache writes.
type Event struct {
	TS      int64
	JobID   string
	JobType string
	// RunID names the run (a night's batch) the event belongs to, when the
	// log says (run_id, batch_id, run.id): kills are keyed by it.
	RunID          string
	CorrelationID  string
	IdempotencyKey string
	// ResponseID is the provider's ID of the response a call record
	// belongs to (Claude Code's message.id and requestId), when the log
	// has one: the same response written in two files — a resumed session
	// copies earlier messages into its new transcript — is billed once.
	// A provider's HTTP request ID (req_…) is HTTPAttemptPrefix and the ID:
	// the app's line and the SDK's line of one request are one call.
	ResponseID string
	Provider   string
	Model      string
	ErrorType  string
	// Tool names a tool call's tool. On a KindAssumption event (which is
	// no call) it holds the assumption instead — provenance, key and
	// value, packed by SetAssumption, read by AssumptionParts: a field of
	// its own would grow every event on the hot path for a few lines a run.
	Tool string

	CostUSD           float64
	InputTokens       int64
	OutputTokens      int64
	CacheReadTokens   int64
	CacheCreateTokens int64
	// CacheCreate1hTokens is the part of CacheCreateTokens written to the
	// one-hour cache (Anthropic prices it higher than the 5-minute one).
	CacheCreate1hTokens int64
	// PromptTokens is, on a KindUsageGrowth event, the call's whole prompt
	// (input, cache read and cache write) as it stands: the growth's own
	// tokens are a part of the call and would price at the wrong tier.
	PromptTokens      int64
	RetryAfterMs      int64 // NoRetryAfter when absent
	RateLimitTokens   int64 // remaining tokens, NoValue when absent
	RateLimitRequests int64 // remaining requests, NoValue when absent
	LatencyMs         int32
	Status            int16 // HTTP status, 0 connection error/timeout, StatusUnknown
	Attempt           int16
	// QueueAttempt is the job queue's 1-based attempt at the job when the
	// record says (queue_attempt, BullMQ's attemptsMade + 1), 0 when not:
	// the queue's layer, outside the app's wrapper and the SDK.
	QueueAttempt int16
	Kind         Kind
	// AttemptBy names the layer that numbered Attempt when the record
	// says so (a gateway's or an AWS SDK's header), AttemptByLine when the
	// decoder's own reading does.
	AttemptBy     AttemptBy
	HasCost       bool
	StreamDropped bool
	// UsageUnseen: the call was answered, but its usage is not in this
	// record, nor will be in its source (a streamed response, whose
	// chunks an SDK's debug output never prints), or is there only in
	// part (OpenAI's cached tokens hidden as util.inspect's [Object]): its
	// cost is unknown — a lower bound, counted as unpriced — until another
	// record of the same response (the app's line naming its request ID)
	// gives the usage whole.
	UsageUnseen bool
	// Batch marks a call made through a batch API, priced at batch rates.
	Batch bool
	// Bill is what the response said of how it was billed beyond its
	// tokens: speed, inference region, service tier (issue 35).
	Bill Bill
	// TSCarried marks a TS the record did not carry: the time of the line
	// before it in the file (0 when none had one, which a live reader
	// replaces with the time the line was read). Sources count such lines
	// as no_timestamp; they are never skipped for it.
	TSCarried bool
	// AgentSession marks an interactive coding agent's session (Claude
	// Code, Codex, Gemini CLI): it makes many calls and runs for hours by
	// design, so no job deadline applies to it.
	AgentSession bool
	// ForkCopy marks an agent session's copy of a record its parent
	// session wrote (Claude Code's forkedFrom): the response is the
	// parent's, whatever the two sessions' times say (issue 35).
	ForkCopy bool
	// Held marks an app's announced call ("calling model") handed over at
	// a stop while it still waited for its answer: counted live (the
	// report written at the stop has it), spooled so, and at the next
	// start held again by its source's decoder instead of replayed as a
	// call — its answer, read after the restart, is that call, not a
	// second one (a restart is a replay).
	Held bool
	// Dropped says which fields of the record could not be read as
	// written (each dropped, or read by an assumption, and counted by the
	// source as Stats.FieldsDropped); the record itself was kept.
	Dropped FieldDrop
	// Source is the index of the input (file) that produced the event.
	Source uint16
}

// Bill is what a response reports of its bill beyond its tokens, each
// bit a dimension the provider prices apart (issue 35). The response's
// word, never the request's: a request for flex served at the default
// tier is billed at the default tier.
type Bill uint8

const (
	// BillFast: Anthropic's usage.speed "fast", a multiple of the
	// standard price.
	BillFast Bill = 1 << iota
	// BillGeoUS: Anthropic's usage.inference_geo "us", US-only inference.
	BillGeoUS
	// BillFlex: the response's service_tier "flex" (OpenAI).
	BillFlex
	// BillPriority: the response's service_tier "priority".
	BillPriority
	// BillCompaction: the call's tokens include server-side compaction
	// iterations (Anthropic usage.iterations[] of type "compaction"),
	// which the top-level counts leave out.
	BillCompaction
)

// ServiceTier reads a service tier as a response reports it: "flex" and
// "priority" are their own bills; "default", "auto", "standard" (and
// any other word) the standard one. "batch" is Event.Batch, not a Bill.
func ServiceTier(s string) Bill {
	switch s {
	case "flex":
		return BillFlex
	case "priority":
		return BillPriority
	}
	return 0
}

// MaxIDBytes bounds an identifier (a job ID, a key, a run ID): up to it
// an ID is kept exact, so a kill names the job as it was logged; past it,
// as a prefix and a digest (ingest/decode.CleanID).
const MaxIDBytes = 4096

// IsCappedID reports an identifier kept as a prefix, "…#" and 32 hex
// digits of its SHA-256 (ingest/decode.CleanID, for IDs past MaxIDBytes):
// such a form is always longer than MaxIDBytes, which no logged ID is, and
// no process or job is named by it, so no kill is sent under it.
func IsCappedID(s string) bool { return len(s) > MaxIDBytes }

// Bounds of one assumption: a key, a value, and how many keys one
// declaration may carry (the rest are counted, not kept).
const (
	MaxAssumptionKeyBytes   = 128
	MaxAssumptionValueBytes = 256
	MaxAssumptionsPerRecord = 64
)

// assumptionSep separates the packed parts: a control character, which
// the decoders' sanitising never lets through in a key or value.
const assumptionSep = "\x1f"

// AssumptionFromObserved prefixes the provenance of an observed fact.
const AssumptionFromObserved = "observed: "

// AssumptionFromOperator is the provenance of the operator's own
// declarations: the assumptions file (--assumptions FILE, or
// ./burnrate.assumptions.toml where report reads it). No decoder of a log
// or of OTLP gives it: a declaration read from the traffic (an [assumptions]
// line, an assumptions record, assumption.* attributes) may be a model's
// output echoed into the log, and only the operator arms a kill.
const AssumptionFromOperator = "burnrate.assumptions.toml"

// IsOperatorAssumption reports whether a declaration's provenance (the
// from of AssumptionParts) is the operator's: only such a declaration
// can arm a kill (kill_on finding:assumption_violated).
func IsOperatorAssumption(from string) bool { return from == AssumptionFromOperator }

// SetAssumption makes e a KindAssumption of provenance from ("log line",
// "assumptions record", "otlp resource", "burnrate.assumptions.toml", or
// AssumptionFromObserved and what was seen), key and value, packed into
// Tool. Key and value must already be sanitised (no control characters).
func (e *Event) SetAssumption(from, key, value string) {
	e.Kind = KindAssumption
	e.Tool = from + assumptionSep + key + assumptionSep + value
}

// AssumptionParts unpacks SetAssumption; ok is false for any other event.
func (e *Event) AssumptionParts() (from, key, value string, ok bool) {
	if e.Kind != KindAssumption {
		return "", "", "", false
	}
	from, rest, ok1 := strings.Cut(e.Tool, assumptionSep)
	key, value, ok2 := strings.Cut(rest, assumptionSep)
	return from, key, value, ok1 && ok2 && key != ""
}

// Plausibility bounds. No model reads or writes a billion tokens in one
// call: the largest context windows offered in 2026 hold 10M tokens, so a
// count over ten times that is corruption or hostility, and so is a single
// call costing more than $100,000. MaxTS is 2200-01-01: later (or before
// 1970) is a unit mix-up, never a real log time.
const (
	MaxTokensPerCall  = 100_000_000
	MaxCostPerCallUSD = 100_000
	MaxTS             = 7_258_118_400 * 1_000_000_000
)

// maxPlausibleCostPerToken: no model has come near $0.01 a token ($10,000
// per million; the dearest list about $600). A producer's cost above it
// for the tokens it logs is a typo or hostility.
const maxPlausibleCostPerToken = 0.01

// PlausibleCost says whether a cost a producer logged for one call (Cline's
// "cost") can be what its tokens cost: at most $0.01 a token, at least $1
// allowed whatever the tokens (a fee, a call whose usage was not logged),
// never past MaxCostPerCallUSD. An implausible one is a bad field, dropped
// and counted (DropImplausible): the call is priced by its tokens instead
// of one line saturating the night's bill.
func PlausibleCost(usd float64, tokens int64) bool {
	if !(usd >= 0 && usd <= MaxCostPerCallUSD) { // NaN fails both
		return false
	}
	return usd <= max(1, float64(max(tokens, 0))*maxPlausibleCostPerToken)
}

// Check refuses an event no real call produced, so that one line can never
// blind a ceiling (by wrapping a sum) or move the log clock to 1715.
// Every decoder's events and every OTLP-mapped event pass through it.
func (e *Event) Check() SkipReason {
	if e.TS < 0 || e.TS >= MaxTS {
		return SkipOutOfRange
	}
	for _, n := range [...]int64{e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheCreateTokens, e.PromptTokens / 3} {
		if n < 0 || n > MaxTokensPerCall {
			return SkipImplausible
		}
	}
	if e.HasCost && !(e.CostUSD >= 0 && e.CostUSD <= MaxCostPerCallUSD) { // NaN fails both
		return SkipImplausible
	}
	return Accepted
}

// SetInclusiveInput stores an input count that includes the cached tokens
// (OpenAI's prompt_tokens, OTel's gen_ai.usage.input_tokens, LiteLLM's
// prompt): InputTokens keeps only the fresh part, since billing the cached
// tokens again at the input rate double-charges. The one place this rule
// is written.
func (e *Event) SetInclusiveInput(inclusive, cacheRead, cacheCreate int64) {
	e.CacheReadTokens, e.CacheCreateTokens = cacheRead, cacheCreate
	e.InputTokens = max(0, inclusive-cacheRead-cacheCreate)
}

// Reset clears e for reuse, with every "absent" sentinel in place.
func (e *Event) Reset() {
	*e = Event{Status: StatusUnknown, RetryAfterMs: NoRetryAfter, RateLimitTokens: NoValue, RateLimitRequests: NoValue}
}

// Batch is the hand-off from a source to its consumer.
//
// Ownership, the one rule for every hand-off in burnrate: a Batch belongs
// to whoever receives it — sent on a channel or passed to Consume. The
// sender never reads or writes it again and allocates a fresh one; the
// receiver may keep it, and any string inside, for as long as it likes.
type Batch []Event

// NewBatch returns an empty batch of BatchSize events, reusing one a
// receiver gave back with Recycle.
func NewBatch() Batch {
	if b, ok := batchPool.Get().(*Batch); ok {
		return (*b)[:BatchSize]
	}
	return make(Batch, BatchSize)
}

// Recycle gives a batch back for NewBatch to reuse. Only the batch's
// owner — its receiver — may call it, and must not touch it after.
func Recycle(b Batch) {
	if cap(b) == BatchSize {
		// Its events' strings point into the decoder's shared blocks:
		// a batch waiting in the pool must not keep them alive.
		clear(b[:cap(b)])
		b = b[:0]
		batchPool.Put(&b)
	}
}

var batchPool sync.Pool

// Consumer receives batches of events from a source, from one goroutine
// per source. It owns each batch it is given (see Batch).
type Consumer interface {
	Consume(Batch)
}

// HTTPAttemptPrefix begins the ResponseID of a record that names the
// provider's HTTP request ID (decode.HTTPAttemptID), so correlate tells a
// request's two records apart from a response an agent copied.
const HTTPAttemptPrefix = "http\x00"

// OTLPSpanPrefix begins the ResponseID of a model-call span (its trace
// and span IDs): the same span delivered again has the same start, while
// another span under the same IDs (a forked worker pool's copied ID
// generator) has its own, and is another call (correlate's responses).
const OTLPSpanPrefix = "otlp-span:"
