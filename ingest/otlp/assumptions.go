package otlp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// The assumptions log's OTLP side: assumption.* attributes declare (on a
// resource, for everything it sends; on a log record, at its time), and
// the Stainless SDKs' request headers, captured as span attributes by the
// HTTP semantic conventions, show the SDK's package version and its retry
// count.

// assumptionPrefix begins a declaring attribute: assumption.anthropic-sdk.maxRetries = 0.
const assumptionPrefix = "assumption."

// Provenances of OTLP declarations.
const (
	fromResource  = "otlp resource"
	fromLogRecord = "otlp log record"
)

// maxSDKFacts bounds the versions a mapper remembers (to emit each
// change once, not once per span).
const maxSDKFacts = 256

// declared appends m's assumption.* attributes as KindAssumption events
// at ts, at most ingest.MaxAssumptionsPerRecord of them.
func declared(events []ingest.Event, m pcommon.Map, from, jobType string, ts int64) []ingest.Event {
	var flat map[string]string
	m.Range(func(k string, v pcommon.Value) bool {
		name, ok := strings.CutPrefix(k, assumptionPrefix)
		if !ok || name == "" {
			return true
		}
		if flat == nil {
			flat = map[string]string{}
		}
		decode.FlattenAssumptions(name, v.AsRaw(), 0, flat)
		return len(flat) < ingest.MaxAssumptionsPerRecord
	})
	for _, k := range sortedKeys(flat) {
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.TS, ev.JobType = ingest.KindAssumption, ts, jobType
		ev.TSCarried = ts == 0
		ev.SetAssumption(from, k, flat[k])
		events = append(events, ev)
	}
	return events
}

// stainlessRetries reads the retry count the SDK sent with the request:
// x-stainless-retry-count ("0" on the first attempt), or AWS's
// amz-sdk-request "attempt=N; max=M".
func stainlessRetries(m pcommon.Map) (attempt int16, ok bool) {
	if s := header(m, "http.request.header.x-stainless-retry-count", "x-stainless-retry-count"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return int16(min(n+1, 1<<15-1)), true
		}
	}
	if s := header(m, "http.request.header.amz-sdk-request", "amz-sdk-request"); s != "" {
		for _, part := range strings.Split(s, ";") {
			if v, found := strings.CutPrefix(strings.TrimSpace(part), "attempt="); found {
				if n, err := strconv.Atoi(v); err == nil && n >= 1 {
					return int16(min(n, 1<<15-1)), true
				}
			}
		}
	}
	return 0, false
}

// sdkLangs maps x-stainless-lang to the Defaults table's row suffix.
var sdkLangs = map[string]map[string]string{
	"anthropic": {"python": "anthropic-python", "js": "anthropic-ts", "go": "anthropic-go"},
	"openai":    {"python": "openai-python", "js": "openai-node", "go": "openai-go"},
}

// sdkVersion is the package version a call's SDK sent: the Stainless
// x-stainless-package-version header (with x-stainless-lang), else a
// user agent of the form "Anthropic/Python 0.40.0". key names the SDK as
// the defaults table does (openai-go.version) when the language is known.
func sdkVersion(m pcommon.Map, provider string) (key, version, evidence string) {
	lang := strings.ToLower(header(m, "http.request.header.x-stainless-lang", "x-stainless-lang"))
	version = header(m, "http.request.header.x-stainless-package-version", "x-stainless-package-version")
	evidence = "x-stainless-package-version"
	if version == "" {
		ua := header(m, "user_agent.original", "http.request.header.user-agent", "http.user_agent")
		// "Anthropic/Python 0.40.0", "AsyncOpenAI/Python 1.55.0", "OpenAI/JS 4.73.0"
		if name, rest, ok := strings.Cut(ua, "/"); ok {
			l, v, ok := strings.Cut(rest, " ")
			n := strings.ToLower(strings.TrimPrefix(name, "Async"))
			if ok && (n == "anthropic" || n == "openai") {
				lang, version, evidence = strings.ToLower(l), strings.Fields(v + " ")[0], "user agent"
				if provider == "" {
					provider = n
				}
			}
		}
	}
	if version == "" {
		return "", "", ""
	}
	if provider == "" {
		provider = "llm"
	}
	name := provider + "-sdk"
	if lang == "javascript" || lang == "node" || lang == "typescript" {
		lang = "js"
	}
	if id, ok := sdkLangs[provider][lang]; ok {
		name = id
	}
	return decode.AssumptionText(name+".version", ingest.MaxAssumptionKeyBytes), decode.AssumptionText(version, 64), evidence
}

// observeSDK appends an observed version when it is new for its key.
func (mp *Mapper) observeSDK(events []ingest.Event, m pcommon.Map, provider string, ts int64) []ingest.Event {
	key, version, evidence := sdkVersion(m, provider)
	if key == "" {
		return events
	}
	mp.sdkMu.Lock()
	defer mp.sdkMu.Unlock()
	if mp.sdk == nil {
		mp.sdk = map[string]string{}
	}
	if mp.sdk[key] == version {
		return events
	}
	if _, known := mp.sdk[key]; !known && len(mp.sdk) >= maxSDKFacts {
		return events
	}
	mp.sdk[key] = version
	var ev ingest.Event
	ev.Reset()
	ev.Kind, ev.TS = ingest.KindAssumption, ts
	ev.SetAssumption(ingest.AssumptionFromObserved+evidence+" (otlp)", key, version)
	return append(events, ev)
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// hostProvider names the provider of an HTTP client span by its host.
func hostProvider(m pcommon.Map) string {
	h := firstStr(m, "server.address", "url.full", "http.url")
	switch {
	case strings.Contains(h, "anthropic"):
		return "anthropic"
	case strings.Contains(h, "openai"):
		return "openai"
	}
	return ""
}
