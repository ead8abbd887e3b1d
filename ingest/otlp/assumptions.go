package otlp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/layers"
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
// x-stainless-retry-count ("0" on the first attempt), or the AWS SDKs'
// amz-sdk-request "attempt=N; max=M" — then by names the layer,
// botocore or another AWS SDK, by the user agent.
func stainlessRetries(m pcommon.Map) (attempt int16, by ingest.AttemptBy, ok bool) {
	if s := header(m, "http.request.header.x-stainless-retry-count", "x-stainless-retry-count"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return int16(min(n+1, 1<<15-1)), ingest.AttemptBySDK, true // the SDK's own count, whoever logs it
		}
	}
	if n, _ := amzRequest(m); n >= 1 {
		by = ingest.AttemptByAWSSDK
		if v, _ := botocoreAgent(m); v != "" {
			by = ingest.AttemptByBotocore
		}
		return int16(min(n, 1<<15-1)), by, true
	}
	return 0, ingest.AttemptByLine, false
}

// amzRequest reads the amz-sdk-request header the AWS SDKs send with
// every attempt: "attempt=1" (botocore before 1.43.66 sends max only
// once a retry is evaluated), "ttl=20260310T020010Z; attempt=2; max=3"
// (boto/botocore botocore/handlers.py add_retry_headers: the keys ttl,
// attempt, max joined by "; "; MaxAttemptsSeeder in
// botocore/retries/standard.py, commit d41c584, puts max on the first).
// 0 for what it does not give.
func amzRequest(m pcommon.Map) (attempt, maxAttempts int64) {
	s := header(m, "http.request.header.amz-sdk-request", "amz-sdk-request")
	if s == "" || len(s) > 256 {
		return 0, 0
	}
	for _, part := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 || n > 1<<15-1 {
			continue
		}
		switch k {
		case "attempt":
			attempt = n
		case "max":
			maxAttempts = n
		}
	}
	return attempt, maxAttempts
}

// botocoreAgent reads botocore's version and retry mode from its user
// agent (boto/botocore botocore/useragent.py UserAgentString.to_string):
// "Boto3/1.35.0 md/Botocore#1.35.0 ua/2.0 os/linux#6.1 … cfg/retry-mode#standard Botocore/1.35.0",
// or the legacy form "Boto3/1.35.0 Python/3.12.3 Linux/6.1 Botocore/1.35.0".
// "" when the agent is not botocore's.
func botocoreAgent(m pcommon.Map) (version, retryMode string) {
	ua := header(m, "user_agent.original", "http.request.header.user-agent", "http.user_agent")
	if len(ua) > 2048 {
		ua = ua[:2048]
	}
	for _, tok := range strings.Fields(ua) {
		switch {
		case strings.HasPrefix(tok, "Botocore/"):
			version = tok[len("Botocore/"):]
		case strings.HasPrefix(tok, "md/Botocore#") && version == "":
			version = tok[len("md/Botocore#"):]
		case strings.HasPrefix(tok, "cfg/retry-mode#"):
			retryMode = tok[len("cfg/retry-mode#"):]
		}
	}
	if version == "" {
		return "", ""
	}
	return version, retryMode
}

// awsFacts are what the AWS SDKs' headers show of their configuration:
// the attempts they allow (amz-sdk-request max=, LAYER.maxAttempts, the
// key `burnrate audit` derives for the botocore row), botocore's version
// and retry mode.
func awsFacts(m pcommon.Map, add func(key, value, evidence string)) {
	_, maxAttempts := amzRequest(m)
	version, mode := botocoreAgent(m)
	if maxAttempts > 0 {
		layer := ingest.AttemptByAWSSDK.Layer()
		if version != "" {
			layer = ingest.AttemptByBotocore.Layer()
		}
		add(layers.Key(layer, layers.MaxAttempts), strconv.FormatInt(maxAttempts, 10), "amz-sdk-request max=")
	}
	if version != "" {
		add("botocore.version", version, "user agent Botocore/")
	}
	if mode != "" {
		add("botocore.retryMode", mode, "user agent cfg/retry-mode")
	}
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
	name := layers.SDKLayer(provider)
	if lang == "javascript" || lang == "node" || lang == "typescript" {
		lang = "js"
	}
	if id := layers.SDKRow(provider, lang); id != "" {
		name = id
	}
	return decode.AssumptionText(name+".version", ingest.MaxAssumptionKeyBytes), decode.AssumptionText(version, 64), evidence
}

// observeSDK appends the observed facts of a call's headers — its SDK's
// package version, an AWS SDK's max attempts and botocore's version and
// retry mode — each when it is new for its key.
func (mp *Mapper) observeSDK(events []ingest.Event, m pcommon.Map, provider string, ts int64) []ingest.Event {
	add := func(key, value, evidence string) {
		key = decode.AssumptionText(key, ingest.MaxAssumptionKeyBytes)
		value = decode.AssumptionText(value, 64)
		mp.sdkMu.Lock()
		defer mp.sdkMu.Unlock()
		if mp.sdk == nil {
			mp.sdk = map[string]string{}
		}
		if old, known := mp.sdk[key]; known && old == value {
			return
		} else if !known && len(mp.sdk) >= maxSDKFacts {
			return
		}
		mp.sdk[key] = value
		var ev ingest.Event
		ev.Reset()
		ev.Kind, ev.TS = ingest.KindAssumption, ts
		ev.SetAssumption(ingest.AssumptionFromObserved+evidence+" (otlp)", key, value)
		events = append(events, ev)
	}
	if key, version, evidence := sdkVersion(m, provider); key != "" {
		add(key, version, evidence)
	}
	awsFacts(m, add)
	return events
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// hostProvider names the provider whose own SDK an HTTP client span's
// call was made with, by its host.
func hostProvider(m pcommon.Map) string {
	return layers.SDKMakerOfHost(firstStr(m, "server.address", "url.full", "http.url"))
}
