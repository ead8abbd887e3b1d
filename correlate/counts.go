package correlate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/layers"
)

// How far a job's call count can be trusted (issue 39). A call seen at
// the HTTP attempt — an SDK's own line, its x-stainless-retry-count, an
// AWS SDK's or a gateway's count — is one request on the wire. A record
// the application logged (its JSON line, its own retry text) is one call
// as the app saw it: a provider SDK below it that retries makes requests
// the log never shows, so the job's count is a lower bound. And a call
// placed in a job by timing alone (Python SDK lines with jobs in flight)
// may be another job's: the job's count is ambiguous.

// Job.evidence bits.
const (
	evAgent uint8 = 1 << iota // an interactive agent session (see Job)
	// evApp: a model call seen only as the application logged it.
	evApp
	// The families of the app-level calls' providers: whose SDK is below.
	evAnthropic
	evOpenAI
	// evTiming: a call placed in the job by timing alone.
	evTiming
	// Not evidence, kept in its byte (Job's size is budgeted), masked out
	// of every use of evidence as a whole (notEvidence): evLifecycle, the
	// job has queue lifecycle events (its Outcome is theirs); evLastFailed,
	// its last attempt or lifecycle event failed.
	evLifecycle  uint8 = 1 << 6
	evLastFailed uint8 = 1 << 7
	notEvidence        = evLifecycle | evLastFailed | evArmedViolation
)

func (j *Job) lifecycle() bool  { return j.evidence&evLifecycle != 0 }
func (j *Job) lastFailed() bool { return j.evidence&evLastFailed != 0 }

func (j *Job) setLastFailed(f bool) {
	if f {
		j.evidence |= evLastFailed
	} else {
		j.evidence &^= evLastFailed
	}
}

// Count kinds of a job's calls (JobReport.Count).
const (
	CountExact      = "exact"
	CountLowerBound = "lower_bound"
	CountAmbiguous  = "ambiguous"
)

// noteEvidence marks what a model call of job was seen by.
func (s *State) noteEvidence(job *Job, ev *ingest.Event) {
	if ev.Kind != ingest.KindLLMCall {
		return
	}
	if ev.AttemptBy == ingest.AttemptByLineAmbiguous {
		s.ambiguate(job)
		s.timingLinks++
		return
	}
	if !appLevel(ev, s.cfg.AttemptLayer) {
		return
	}
	job.evidence |= evApp
	// A log's calls name one provider: its family is looked up once, not
	// lowered and searched for per call.
	if ev.Provider == "" || ev.Provider != s.famProvider {
		s.famProvider, s.famOf = ev.Provider, familyOf(ev)
	}
	switch s.famOf {
	case "anthropic":
		job.evidence |= evAnthropic
		s.appFamilies |= evAnthropic
	case "openai":
		job.evidence |= evOpenAI
		s.appFamilies |= evOpenAI
	}
}

// keyNamed notes a call that names no job (no job ID, no correlation
// ID: the field missing, null, empty, or not a string) filed under its
// idempotency key (jobKey). A key is not a job ID: two jobs may send one
// key (a per-worker counter, a request retried under another job), so the
// calls grouped under it may be any job's. The group's count is
// ambiguous: shown, never held against a declaration, never a kill
// (R7-26).
//
// A key a decoder built for a chain it linked itself (an SDK's retry
// lines of one request: "sdk:", LiteLLM's router lines, an app's retry
// text, a learned pattern) is that one request's, not a guess: its group
// stays as it was.
func (s *State) keyNamed(job *Job, ev *ingest.Event) {
	if ev.Kind == ingest.KindLLMCall {
		s.keyNamedCalls++
	}
	s.ambiguate(job)
}

// chainKey: a key a decoder built for a request chain it linked (see
// ingest/decode: sdktext, textlines, pattern), not a record's own field.
func chainKey(k string) bool {
	for _, p := range [...]string{"sdk:", "litellm:", "retry:", "pattern:"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// families are the provider families whose SDK is below a job's app-level
// calls: its own, or — when none of its records named a model (an app's
// "job failed" line with the status and request ID alone) — the run's,
// when every app-level call that named one named one family. Unknown
// otherwise: the count then says exact, as nothing names a layer below.
func (s *State) families(ev uint8) uint8 {
	const fams = evAnthropic | evOpenAI
	if ev&evApp == 0 || ev&fams != 0 {
		return ev & fams
	}
	if f := s.appFamilies; f == evAnthropic || f == evOpenAI {
		return f
	}
	return 0
}

// appLevel: the call record is the application's view of a call, not an
// HTTP attempt.
func appLevel(ev *ingest.Event, attemptLayer string) bool {
	if ev.AgentSession || ev.Batch || ev.AttemptBy != ingest.AttemptByLine {
		return false // an agent's transcript, a batch result, a count an SDK or gateway sent
	}
	k := ev.IdempotencyKey
	if strings.HasPrefix(k, "sdk:") || strings.HasPrefix(k, "litellm:") {
		return false // the SDK's own lines, LiteLLM's router lines
	}
	// The config says the records' attempts are an SDK's: each record is
	// one of its HTTP attempts.
	return !(attemptLayer == "sdk" || strings.HasSuffix(attemptLayer, layers.SDKSuffix))
}

// familyOf is the provider family whose SDK a call went through.
func familyOf(ev *ingest.Event) string {
	if f := layers.FamilyOfLogged(ev.Provider); f != "" {
		return f
	}
	if f := layers.FamilyOfModel(ev.Model); f != "" {
		return f
	}
	if id, ok := strings.CutPrefix(ev.ResponseID, ingest.HTTPAttemptPrefix); ok {
		// No model named (an app's "job failed" line): the request ID's
		// own shape says whose SDK sent it.
		return layers.FamilyOfRequestID(id)
	}
	return ""
}

// sdkDefaultRetries are the client SDKs' default retries by family:
// anthropic-sdk-python and openai-python (DEFAULT_MAX_RETRIES = 2 in
// _constants.py), their TypeScript clients (maxRetries ?? 2) and Go
// clients alike.
var sdkDefaultRetries = map[string]int{"anthropic": 2, "openai": 2}

// sdkRetriesKey are their keys, built once: a report asks per job.
var sdkRetriesKey = map[string]string{
	"anthropic": layers.Key(layers.SDKLayer("anthropic"), layers.MaxRetries),
	"openai":    layers.Key(layers.SDKLayer("openai"), layers.MaxRetries),
}

// UnseenLayer is a retry layer below the application's records that the
// log cannot show: its retries are requests on the wire no line counts.
type UnseenLayer struct {
	Layer string `json:"layer"`
	// Retries is the layer's retries per call; AttemptsPerCall what one
	// app-level call can be on the wire (Retries + 1).
	Retries         int    `json:"retries"`
	AttemptsPerCall int    `json:"attempts_per_call"`
	From            string `json:"from"` // declared, derived (audit), or the SDK's default
	Jobs            int    `json:"jobs"` // jobs whose count is a lower bound for it
}

// unseenBelow is the retries of family's SDK below the app's records, and
// where that was read: the run's declarations, the audit's, else the
// SDK's default. ok is false when the layer makes no retries (declared 0).
func (s *State) unseenBelow(family string) (retries int, from string, ok bool) {
	key := sdkRetriesKey[family]
	if key == "" {
		key = layers.Key(layers.SDKLayer(family), layers.MaxRetries)
	}
	a := &s.assume
	if d := a.declared[assumptionKey{"", key}]; d != nil && d.retries >= 0 {
		return int(min(d.retries, 999)), "declared (" + d.from + ")", d.retries > 0
	}
	if d, has := a.derived[key]; has {
		if n, err := strconv.Atoi(d.Value); err == nil && n >= 0 {
			return min(n, 999), "derived (" + d.From + ")", n > 0
		}
	}
	if n, has := sdkDefaultRetries[family]; has {
		return n, "the SDK's default", n > 0
	}
	return 0, "", false
}

// countKind is how far job's call count can be trusted.
func (s *State) countKind(job *Job) string { return s.countKindOf(job.evidence) }

// countKindOf is countKind of a job whose Job.evidence is ev.
func (s *State) countKindOf(ev uint8) string {
	switch {
	case ev&evTiming != 0:
		return CountAmbiguous
	case ev&evApp == 0:
		return CountExact
	}
	for _, f := range [...]struct {
		bit    uint8
		family string
	}{{evAnthropic, "anthropic"}, {evOpenAI, "openai"}} {
		if s.families(ev)&f.bit != 0 {
			if _, _, ok := s.unseenBelow(f.family); ok {
				return CountLowerBound
			}
		}
	}
	return CountExact
}

// unseenLayers are the layers below the app's records that the log cannot
// show, with the jobs each leaves a lower bound.
func (s *State) unseenLayers() []UnseenLayer {
	var out []UnseenLayer
	for _, f := range [...]struct {
		bit    uint8
		family string
	}{{evAnthropic, "anthropic"}, {evOpenAI, "openai"}} {
		n, from, ok := s.unseenBelow(f.family)
		if !ok {
			continue
		}
		below := func(ev uint8) bool { return ev&evApp != 0 && s.families(ev)&f.bit != 0 && ev&evTiming == 0 }
		jobs := 0
		for _, j := range s.jobList {
			if below(j.evidence) {
				jobs++
			}
		}
		for ev, n := range s.retired.evidence {
			if below(ev) {
				jobs += int(n)
			}
		}
		if jobs > 0 {
			out = append(out, UnseenLayer{Layer: layers.SDKLayer(f.family), Retries: n, AttemptsPerCall: n + 1, From: from, Jobs: jobs})
		}
	}
	return out
}

// String says the layer as the report does: "anthropic-sdk default 2
// retries below: up to 3 HTTP calls per attempt, unseen".
func (u UnseenLayer) String() string {
	return fmt.Sprintf("%s %d retries (%s) below the application's records: up to %d HTTP calls per call logged, unseen — %d jobs' calls are lower bounds", u.Layer, u.Retries, u.From, u.AttemptsPerCall, u.Jobs)
}
