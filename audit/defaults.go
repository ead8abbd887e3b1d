// Package audit reads a codebase for the layers that can retry one call —
// SDK clients, wrappers, frameworks, queues, proxies, front-end clients and
// coding agents — and multiplies them (seed 000: "at least one will be in a
// config file you did not write"; seed 003: "list every layer ... feed them
// to worstCaseAttempts, and look at the number").
//
// The retry behaviour of each library is data: the Defaults table, one row
// per library, each citing the file and commit of the library's own source
// it was read from. The scanner, the assumptions log and `burnrate
// defaults` all read that one table.
package audit

import (
	"strings"
	"time"
)

// Kind is where a layer sits in a call path, outermost first in Kinds.
type Kind string

const (
	KindClient    Kind = "client"    // a front-end data client (TanStack Query, SWR, Apollo)
	KindProxy     Kind = "proxy"     // a reverse proxy in front of the handler (nginx, an ingress)
	KindQueue     Kind = "queue"     // a job queue or scheduler (BullMQ, Celery, Sidekiq, Kubernetes Job)
	KindAgent     Kind = "agent"     // a coding agent's own retries (Claude Code)
	KindWrapper   Kind = "wrapper"   // a generic retry wrapper (p-retry, tenacity, backoff)
	KindFramework Kind = "framework" // an LLM framework around the SDK (LangChain, LlamaIndex, Vercel AI SDK)
	KindSDK       Kind = "sdk"       // the provider's client (Anthropic, OpenAI, AWS, Stripe)
	KindMesh      Kind = "mesh"      // a sidecar on the caller's outbound path (Istio): it retries each request the SDK sends
)

// Kinds is the nesting order of a likely call path, outermost first: a
// front end calls through a proxy into a queue's handler, which wraps a
// framework that calls the SDK, whose requests leave the pod through the
// mesh's sidecar. The rule: a proxy in front of the handler (nginx, an
// ingress) is outside the queue — it retries the request that enqueues
// or runs the handler; a mesh sidecar is on the worker's outbound path
// — a Kubernetes Job's pod, and every SDK attempt in it, calls out
// through it — so it is innermost, retrying each request the SDK sends.
var Kinds = []Kind{KindClient, KindProxy, KindQueue, KindAgent, KindWrapper, KindFramework, KindSDK, KindMesh}

// Semantics says what a library's knob counts: the trap of boto3's
// retries={'max_attempts': 2} (2 retries) beside AWS_MAX_ATTEMPTS=2 (2
// attempts).
type Semantics string

const (
	CountsRetries  Semantics = "retries"  // the knob is retries after the first attempt: attempts = knob + 1
	CountsAttempts Semantics = "attempts" // the knob is total attempts, the first included
)

// Default is one library's retry behaviour as its source defines it.
type Default struct {
	ID        string // stable key: what findings, JSON and the assumptions log name
	Library   string // as people call it
	Ecosystem string // npm, pypi, go, gem, config, agent
	// Packages are the package names that identify the library in
	// manifests and lockfiles (versions are read for these).
	Packages []string
	Kind     Kind
	// Knob is the setting that changes it, as written in code or config.
	Knob      string
	Semantics Semantics
	// Attempts is the total attempts when nothing is set, the first
	// included; 0 with Unbounded.
	Attempts  int
	Unbounded bool
	// Retries4xx is true when the default retries a non-retryable 4xx
	// (400, 401, 403, 404, 422): the same bad request sent N times.
	Retries4xx bool
	RetriesOn  string // what the default retries
	Backoff    string // the default schedule, in words
	// BudgetBackoff is the schedule in `budget layers` syntax (none,
	// fixed:D, exp:D, linear:D+S), the nearest the calculator can fold.
	BudgetBackoff string
	RetryAfter    string        // how a Retry-After header is treated
	Timeout       time.Duration // the default per-attempt timeout; 0 when the library sets none
	Versions      string        // the versions the row was read from and holds for
	Source        string        // repository, file and commit the row was read from
	Trap          string        // what surprises people
}

// AttemptsFor turns a configured knob value into total attempts.
func (d Default) AttemptsFor(knob int) int {
	if d.Semantics == CountsRetries {
		return knob + 1
	}
	return knob
}

// Defaults is the table. Each row was read from the library's own source at
// the commit in Source; when a library changes a default, change its row
// and the commit it cites (README: "The defaults table").
var Defaults = []Default{
	{ID: "anthropic-python", Library: "Anthropic Python SDK", Ecosystem: "pypi", Packages: []string{"anthropic"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s (retry-after-ms first)", Timeout: 10 * time.Minute, Versions: "0.121.0",
		Source: "anthropics/anthropic-sdk-python src/anthropic/_constants.py (DEFAULT_MAX_RETRIES = 2), src/anthropic/_base_client.py _should_retry @009b035305e0",
		Trap:   "the layer nobody set: 3 attempts before your own retry starts"},
	{ID: "anthropic-ts", Library: "Anthropic TypeScript SDK", Ecosystem: "npm", Packages: []string{"@anthropic-ai/sdk"}, Kind: KindSDK,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured", Timeout: 10 * time.Minute, Versions: "0.120.0",
		Source: "anthropics/anthropic-sdk-typescript src/client.ts (options.maxRetries ?? 2; shouldRetry) @bfa9197f0182",
		Trap:   "new Anthropic() with no options retries twice (seed 000's layer 1)"},
	{ID: "anthropic-go", Library: "Anthropic Go SDK", Ecosystem: "go", Packages: []string{"github.com/anthropics/anthropic-sdk-go"}, Kind: KindSDK,
		Knob: "option.WithMaxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured", Timeout: 10 * time.Minute, Versions: "v1.60.0",
		Source: "anthropics/anthropic-sdk-go internal/requestconfig/requestconfig.go (MaxRetries: 2) @b43f0d7a327f"},
	{ID: "openai-python", Library: "OpenAI Python SDK", Ecosystem: "pypi", Packages: []string{"openai"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 120 s (MAX_RETRY_AFTER_DELAY); a longer one is not retried", Timeout: 10 * time.Minute, Versions: "3.3.1",
		Source: "openai/openai-python src/openai/_constants.py (DEFAULT_MAX_RETRIES = 2, MAX_RETRY_AFTER_DELAY = 2 * 60), src/openai/_base_client.py @e43b422412a9"},
	{ID: "openai-node", Library: "OpenAI Node SDK", Ecosystem: "npm", Packages: []string{"openai"}, Kind: KindSDK,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured", Timeout: 10 * time.Minute, Versions: "7.5.0",
		Source: "openai/openai-node src/client.ts (options.maxRetries ?? 2; shouldRetry) @7b7d6ca71130"},
	{ID: "openai-go", Library: "OpenAI Go SDK", Ecosystem: "go", Packages: []string{"github.com/openai/openai-go"}, Kind: KindSDK,
		Knob: "option.WithMaxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 8 s (DefaultMaxServerDelay)", Timeout: 10 * time.Minute, Versions: "v3.52.0",
		Source: "openai/openai-go internal/requestconfig/requestconfig.go (MaxRetries: 2, DefaultMaxServerDelay = 8 * time.Second) @4e5a07a6a205"},
	{ID: "google-genai", Library: "Google Gen AI Python SDK", Ecosystem: "pypi", Packages: []string{"google-genai"}, Kind: KindSDK,
		Knob: "HttpOptions(retry_options=HttpRetryOptions(attempts=N))", Semantics: CountsAttempts, Attempts: 1,
		RetriesOn: "nothing unless retry_options is given; then 5 attempts (including the first) on 408, 429, 5xx", Backoff: "exponential with jitter when enabled", BudgetBackoff: "exp:1s",
		Versions: "2.19.0",
		Source:   "googleapis/python-genai google/genai/_api_client.py (retry_args: stop_after_attempt(1) without options; _RETRY_ATTEMPTS = 5) @66807187f212"},
	{ID: "stripe-node", Library: "Stripe Node SDK", Ecosystem: "npm", Packages: []string{"stripe"}, Kind: KindSDK,
		Knob: "maxNetworkRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 409, 5xx and Stripe-Should-Retry", Backoff: "exponential, capped at 5 s", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 5 s", Versions: "22.5.0",
		Source: "stripe/stripe-node src/platform/PlatformFunctions.ts (getDefaultMaxNetworkRetries returns 2), src/stripe.core.ts (MAX_NETWORK_RETRY_DELAY_SEC = 5) @663942164d38"},
	{ID: "botocore", Library: "AWS SDK for Python (boto3/botocore, Bedrock)", Ecosystem: "pypi", Packages: []string{"boto3", "botocore"}, Kind: KindSDK,
		Knob: "Config(retries={'max_attempts': N, 'mode': ...}) or AWS_MAX_ATTEMPTS", Semantics: CountsRetries, Attempts: 5,
		RetriesOn: "throttling, transient errors and 5xx; legacy mode by default (5 attempts), standard mode 3", Backoff: "exponential with a random base", BudgetBackoff: "exp:1s",
		Versions: "1.43.67",
		Source:   "boto/botocore botocore/data/_retry.json (__default__ max_attempts 5), botocore/retries/standard.py (DEFAULT_MAX_ATTEMPTS = 3), botocore/args.py (retry_mode 'legacy'; 'max_attempts' in Config is value + 1 attempts) @0e6e2404b85d",
		Trap:     "retries={'max_attempts': 2} in Config means 2 retries (3 attempts); AWS_MAX_ATTEMPTS=2 means 2 attempts"},
	{ID: "vercel-ai", Library: "Vercel AI SDK", Ecosystem: "npm", Packages: []string{"ai"}, Kind: KindFramework,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "retryable API call errors (429, 5xx, connection)", Backoff: "2 s then 4 s (factor 2), no jitter", BudgetBackoff: "exp:2s",
		RetryAfter: "honoured", Versions: "ai 7.0.77",
		Source: "vercel/ai packages/ai/src/util/retry-with-exponential-backoff.ts (maxRetries = 2, initialDelayInMs = 2000, backoffFactor = 2), packages/ai/src/util/prepare-retries.ts @ed857f50f112",
		Trap:   "generateText() retries twice on top of the provider's own client"},
	{ID: "llamaindex-openai", Library: "LlamaIndex OpenAI LLM", Ecosystem: "pypi", Packages: []string{"llama-index-llms-openai"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 3,
		RetriesOn: "the OpenAI client's errors, again, through its tenacity decorator", Backoff: "tenacity exponential", BudgetBackoff: "exp:1s",
		Timeout: 60 * time.Second, Versions: "llama-index-llms-openai (main)",
		Source: "run-llama/llama_index llama-index-integrations/llms/llama-index-llms-openai/llama_index/llms/openai/base.py (max_retries: int = 3, passed to the client and to @llm_retry_decorator) @020535abd483",
		Trap:   "max_retries is applied to the OpenAI client (max_retries+1 attempts) and again by llm_retry_decorator: 4 × 3 with the default"},
	{ID: "langchain-with-retry", Library: "LangChain Runnable.with_retry", Ecosystem: "pypi", Packages: []string{"langchain-core"}, Kind: KindFramework,
		Knob: "stop_after_attempt", Semantics: CountsAttempts, Attempts: 3, Retries4xx: true,
		RetriesOn: "every Exception (retry_if_exception_type=(Exception,)), a 400 included", Backoff: "exponential with jitter", BudgetBackoff: "exp:1s",
		Versions: "langchain-core (master)",
		Source:   "langchain-ai/langchain libs/core/langchain_core/runnables/base.py (with_retry: retry_if_exception_type=(Exception,), stop_after_attempt: int = 3) @88a8152e0dc1",
		Trap:     "a bad request is sent 3 times; ChatOpenAI(max_retries=) only passes through to the SDK, a second layer"},
	{ID: "langchainjs-asynccaller", Library: "LangChain.js model (AsyncCaller)", Ecosystem: "npm", Packages: []string{"@langchain/core", "@langchain/openai", "@langchain/anthropic", "@langchain/google-genai"}, Kind: KindFramework,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 7,
		RetriesOn: "5xx, 408, network errors and a 429 whose Retry-After is 60 s or less; not 400–407, 409, an abort, a 429 without Retry-After or with the quota exhausted", Backoff: "p-retry's 1 s doubling, randomised", BudgetBackoff: "exp:1s",
		RetryAfter: "a 429 is retried only with a Retry-After of 60 s or less (on p-retry's own schedule)", Versions: "@langchain/core 1.2.5",
		Source: "langchain-ai/langchainjs libs/langchain-core/src/utils/async_caller.ts (this.maxRetries = params.maxRetries ?? 6; pRetry(..., { retries: this.maxRetries, randomize: true }); STATUS_NO_RETRY), libs/langchain-core/src/language_models/base.ts and embeddings.ts (new AsyncCaller(params)), libs/providers/langchain-openai/src/chat_models/base.ts, embeddings.ts, langchain-anthropic/src/chat_models.ts, langchain-groq/src/chat_models.ts (the SDK client built with maxRetries: 0) @62fc484b2a0d",
		Trap:   "new ChatOpenAI() with no options is 7 attempts, not the SDK's 3: LangChain.js sets the SDK's retries to 0 and retries 6 times itself"},
	{ID: "langchain-vertexai", Library: "LangChain ChatVertexAI (tenacity)", Ecosystem: "pypi", Packages: []string{"langchain-google-vertexai"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 6, Retries4xx: true,
		RetriesOn: "every google.api_core GoogleAPIError (ResourceExhausted, ServiceUnavailable, Aborted, DeadlineExceeded and their base class): an InvalidArgument 400 included", Backoff: "wait_exponential: 4 s to 10 s", BudgetBackoff: "exp:4s",
		Versions: "langchain-google-vertexai 3.2.4",
		Source:   "langchain-ai/langchain-google libs/vertexai/langchain_google_vertexai/_base.py (max_retries: int = 6), _utils.py (create_retry_decorator errors incl. GoogleAPIError), _retry.py (stop_after_attempt(max_retries), wait_exponential min 4 max 10) @75f75815e0fd",
		Trap:     "max_retries=6 is 6 attempts of tenacity around the Vertex client, whose own GAPIC retry is not modelled"},
	{ID: "ingress-nginx", Library: "ingress-nginx (proxy-next-upstream annotations)", Ecosystem: "config", Packages: nil, Kind: KindProxy,
		Knob: "nginx.ingress.kubernetes.io/proxy-next-upstream-tries (and proxy-next-upstream)", Semantics: CountsAttempts, Attempts: 3,
		RetriesOn: "error and timeout by default (proxy-next-upstream); a POST already sent is passed on only with retry-non-idempotent (false by default)", Backoff: "none", BudgetBackoff: "none",
		Versions: "ingress-nginx (main)",
		Source:   "kubernetes/ingress-nginx internal/ingress/controller/config/config.go (NewDefault: ProxyNextUpstream \"error timeout\", ProxyNextUpstreamTries 3, RetryNonIdempotent false) @17e788b8e115",
		Trap:     "every Ingress of the nginx class tries 3 pods on error or timeout unless an annotation or the controller's ConfigMap says otherwise"},
	{ID: "instructor", Library: "instructor", Ecosystem: "pypi", Packages: []string{"instructor"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 3, Retries4xx: true,
		RetriesOn: "every exception raised inside its tenacity Retrying: a validation error re-asks the model, and an SDK error (a 400 included) is re-sent", Backoff: "none", BudgetBackoff: "none",
		Versions: "1.8.3",
		Source:   "instructor-ai/instructor instructor/client.py (Instructor.create: max_retries: int | Retrying | AsyncRetrying = 3), instructor/retry.py (initialize_retrying: Retrying(stop=stop_after_attempt(max_retries)) with tenacity's default retry on every exception; retry_sync re-raises inside `with attempt`), instructor/patch.py (instructor.patch(...)'s create: max_retries = 1) @2e6c3b3f6ff0",
		Trap:     "from_openai()'s create with nobody setting max_retries is 3 attempts, each a full round of the SDK's own 3: 9 calls, and a 400 sent 3 times; only the legacy instructor.patch(client) defaults to 1"},
	{ID: "p-retry", Library: "p-retry", Ecosystem: "npm", Packages: []string{"p-retry"}, Kind: KindWrapper,
		Knob: "retries", Semantics: CountsRetries, Attempts: 11, Retries4xx: true,
		RetriesOn: "every rejection except AbortError and TypeError", Backoff: "1 s doubling (factor 2), no cap, no jitter (randomize false): 1,023 s in all", BudgetBackoff: "exp:1s",
		Versions: "7.0.0",
		Source:   "sindresorhus/p-retry index.js (retries ??= 10, factor ??= 2, minTimeout ??= 1000, randomize ??= false, maxTimeout ??= Infinity) @e11ca9c9c4a8",
		Trap:     "pRetry(fn) with no options is 11 attempts and 17 minutes of backoff"},
	{ID: "async-retry", Library: "async-retry", Ecosystem: "npm", Packages: []string{"async-retry"}, Kind: KindWrapper,
		Knob: "retries", Semantics: CountsRetries, Attempts: 11, Retries4xx: true,
		RetriesOn: "every error unless bail() is called", Backoff: "node-retry's exponential (1 s, factor 2) with randomize on", BudgetBackoff: "exp:1s",
		Versions: "1.3.3",
		Source:   "vercel/async-retry lib/index.js (randomize defaults to true; retries from the retry package, default 10) @9505be1f829e"},
	{ID: "tenacity", Library: "tenacity", Ecosystem: "pypi", Packages: []string{"tenacity"}, Kind: KindWrapper,
		Knob: "stop=stop_after_attempt(N)", Semantics: CountsAttempts, Unbounded: true, Retries4xx: true,
		RetriesOn: "every exception (retry_if_exception_type())", Backoff: "none (wait_none) unless wait= is given", BudgetBackoff: "none",
		Versions: "9.1.4",
		Source:   "jd/tenacity tenacity/__init__.py (stop: StopBaseT = stop_never, retry = retry_if_exception_type()) @c650fb452046",
		Trap:     "a bare @retry retries every exception forever, with no wait"},
	{ID: "backoff", Library: "backoff (Python)", Ecosystem: "pypi", Packages: []string{"backoff"}, Kind: KindWrapper,
		Knob: "max_tries", Semantics: CountsAttempts, Unbounded: true, Retries4xx: true,
		RetriesOn: "the exceptions named in on_exception", Backoff: "the wait generator given (expo: 1, 2, 4 … s, full jitter)", BudgetBackoff: "exp:1s",
		Versions: "2.2.1",
		Source:   "litl/backoff backoff/_decorator.py (on_exception: max_tries: Optional = None, max_time = None) @d82b23c42d7a",
		Trap:     "on_exception without max_tries or max_time never stops"},
	{ID: "go-retryablehttp", Library: "hashicorp/go-retryablehttp", Ecosystem: "go", Packages: []string{"github.com/hashicorp/go-retryablehttp"}, Kind: KindWrapper,
		Knob: "RetryMax", Semantics: CountsRetries, Attempts: 5,
		RetriesOn: "connection errors, 429, 5xx except 501", Backoff: "1 s doubling, capped at 30 s", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured on 429 and 503", Versions: "v0.7.8",
		Source: "hashicorp/go-retryablehttp client.go (defaultRetryMax = 4, defaultRetryWaitMin = 1s, defaultRetryWaitMax = 30s) @fd004584a467"},
	{ID: "cenkalti-backoff", Library: "cenkalti/backoff", Ecosystem: "go", Packages: []string{"github.com/cenkalti/backoff/v4", "github.com/cenkalti/backoff/v5", "github.com/cenkalti/backoff"}, Kind: KindWrapper,
		Knob: "WithMaxRetries / MaxElapsedTime", Semantics: CountsRetries, Unbounded: true, Retries4xx: true,
		RetriesOn: "every error except backoff.Permanent", Backoff: "0.5 s × 1.5, randomised, for up to 15 min", BudgetBackoff: "exp:0.5s",
		Versions: "v4.3.0",
		Source:   "cenkalti/backoff exponential.go (DefaultInitialInterval = 500ms, DefaultMaxElapsedTime = 15 * time.Minute) @720b78985a65",
		Trap:     "no attempt limit: bounded only by 15 minutes of elapsed time"},
	{ID: "failsafe-go", Library: "failsafe-go retrypolicy", Ecosystem: "go", Packages: []string{"github.com/failsafe-go/failsafe-go"}, Kind: KindWrapper,
		Knob: "WithMaxRetries", Semantics: CountsRetries, Attempts: 3, Retries4xx: true,
		RetriesOn: "every error unless HandleIf/HandleErrors narrow it", Backoff: "none unless WithDelay/WithBackoff", BudgetBackoff: "none",
		Versions: "v0.9.7",
		Source:   "failsafe-go/failsafe-go retrypolicy/retry.go (defaultMaxRetries = 2) @5759a5e6d557"},
	{ID: "urllib3-retry", Library: "urllib3 Retry / requests HTTPAdapter", Ecosystem: "pypi", Packages: []string{"urllib3", "requests"}, Kind: KindWrapper,
		Knob: "Retry(total=N) / HTTPAdapter(max_retries=N)", Semantics: CountsRetries, Attempts: 11,
		RetriesOn: "connection errors for every method; read errors and status_forcelist codes only for allowed_methods, which exclude POST by default", Backoff: "backoff_factor 0: none", BudgetBackoff: "none",
		RetryAfter: "honoured on 413, 429, 503 (respect_retry_after_header)", Versions: "urllib3 2.7.0, requests 2.34.2",
		Source: "urllib3/urllib3 src/urllib3/util/retry.py (total = 10, backoff_factor = 0, RETRY_AFTER_STATUS_CODES 413, 429, 503) @6a8536b6e1b0; psf/requests src/requests/adapters.py (DEFAULT_RETRIES = 0; an int is Retry.from_int) @1f6589ec3a1e",
		Trap:   "Retry() with no total is 10 retries; requests' HTTPAdapter() alone retries nothing"},
	{ID: "temporal-activity", Library: "Temporal activity retry policy", Ecosystem: "config", Packages: []string{"temporalio", "@temporalio/workflow", "go.temporal.io/sdk"}, Kind: KindQueue,
		Knob: "RetryPolicy maximum_attempts / maximumAttempts / MaximumAttempts", Semantics: CountsAttempts, Unbounded: true, Retries4xx: true,
		RetriesOn: "every activity failure not named in non_retryable_error_types", Backoff: "1 s doubling, capped at 100 × the initial interval", BudgetBackoff: "exp:1s",
		Versions: "temporalio (Python) 1.31.0, @temporalio/common v1.22.0",
		Source:   "temporalio/sdk-python temporalio/common.py (RetryPolicy.maximum_attempts: int = 0, \"If 0, the default, there is no maximum\") @3a464f9b56ba; temporalio/sdk-typescript packages/common/src/retry-policy.ts (maximumAttempts @default Infinity) @cd60591ca9b9",
		Trap:     "an activity with no retry policy is retried until its schedule-to-close timeout, which is unset by default"},
	{ID: "gha-retry", Library: "GitHub Actions nick-fields/retry step", Ecosystem: "config", Packages: nil, Kind: KindQueue,
		Knob: "with.max_attempts", Semantics: CountsAttempts, Attempts: 3, Retries4xx: true,
		RetriesOn: "any failure or timeout of the command (retry_on: any)", Backoff: "retry_wait_seconds 10 between attempts", BudgetBackoff: "fixed:10s",
		Versions: "nick-fields/retry (master)",
		Source:   "nick-fields/retry action.yml (max_attempts default 3, retry_wait_seconds default 10) @dd56f1ca8ca9",
		Trap:     "a nightly job's script is re-run whole, every layer inside it included"},
	{ID: "step-functions", Library: "AWS Step Functions retrier", Ecosystem: "config", Packages: nil, Kind: KindQueue,
		Knob: "Retry[].MaxAttempts", Semantics: CountsRetries, Attempts: 4, Retries4xx: true,
		RetriesOn: "the errors a retrier's ErrorEquals names (States.ALL: every error); a state without Retry is not retried", Backoff: "IntervalSeconds 1 × BackoffRate 2", BudgetBackoff: "exp:1s",
		Versions: "Amazon States Language",
		Source:   "aws/aws-step-functions-data-science-sdk-python src/stepfunctions/steps/states.py (Retry max_attempts: \"maximum number of retry attempts. (default: 3)\", the States Language default) @02ed72b10d7c",
		Trap:     "MaxAttempts counts retries: MaxAttempts 3 is 4 runs of the task, every layer inside it included"},
	{ID: "bullmq", Library: "BullMQ", Ecosystem: "npm", Packages: []string{"bullmq"}, Kind: KindQueue,
		Knob: "attempts", Semantics: CountsAttempts, Attempts: 1, Retries4xx: true,
		RetriesOn: "any thrown error except UnrecoverableError", Backoff: "none unless backoff is set", BudgetBackoff: "none",
		Versions: "6.2.0",
		Source:   "taskforcesh/bullmq src/classes/job.ts (opts = { attempts: 0, ...}; retried while attemptsMade + 1 < opts.attempts) @352d3c72bf2b",
		Trap:     "attempts: 7 re-runs the whole handler, SDK retries and wrapper included, 7 times"},
	{ID: "celery", Library: "Celery", Ecosystem: "pypi", Packages: []string{"celery"}, Kind: KindQueue,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 4, Retries4xx: true,
		RetriesOn: "what autoretry_for names, or wherever the task calls self.retry()", Backoff: "default_retry_delay 180 s", BudgetBackoff: "fixed:180s",
		Versions: "5.6.2",
		Source:   "celery/celery celery/app/task.py (max_retries = 3, default_retry_delay = 3 * 60) @5dc781f0bd5f",
		Trap:     "only active with autoretry_for or self.retry(); then 4 attempts, and max_retries=None is forever"},
	{ID: "rq", Library: "RQ", Ecosystem: "pypi", Packages: []string{"rq"}, Kind: KindQueue,
		Knob: "Retry(max=N)", Semantics: CountsRetries, Attempts: 1, Retries4xx: true,
		RetriesOn: "any exception, when the job is enqueued with retry=Retry(...)", Backoff: "interval given to Retry", BudgetBackoff: "none",
		Versions: "main",
		Source:   "rq/rq rq/job.py (class Retry: __init__(self, max: int, interval=0)) @aa666a8a60db"},
	{ID: "sidekiq", Library: "Sidekiq", Ecosystem: "gem", Packages: []string{"sidekiq"}, Kind: KindQueue,
		Knob: "sidekiq_options retry: N", Semantics: CountsRetries, Attempts: 26, Retries4xx: true,
		RetriesOn: "any exception raised by perform", Backoff: "(count^4) + 15 + jitter seconds: about 20 days in all (not folded: budget layers has no quartic schedule)", BudgetBackoff: "none",
		Versions: "8.1.7",
		Source:   "sidekiq/sidekiq lib/sidekiq/job_retry.rb (DEFAULT_MAX_RETRY_ATTEMPTS = 25) @1bb4aa06e5aa",
		Trap:     "a job class with no retry option is retried 25 times"},
	{ID: "kubernetes-job", Library: "Kubernetes Job / CronJob", Ecosystem: "config", Packages: nil, Kind: KindQueue,
		Knob: "spec.backoffLimit", Semantics: CountsRetries, Attempts: 7, Retries4xx: true,
		RetriesOn: "any pod failure", Backoff: "10 s doubling, capped at 6 min", BudgetBackoff: "exp:10s",
		Versions: "k8s.io/api v0.37.0",
		Source:   "k8s.io/api batch/v1/types.go (BackoffLimit: \"Defaults to 6\") v0.37.0",
		Trap:     "backoffLimit 6 is 7 pods, each a full run of everything inside"},
	{ID: "nginx-proxy-next-upstream", Library: "nginx proxy_next_upstream", Ecosystem: "config", Packages: nil, Kind: KindProxy,
		Knob: "proxy_next_upstream / proxy_next_upstream_tries", Semantics: CountsAttempts, Attempts: 1,
		RetriesOn: "error and timeout by default: the request is re-sent to the next server of the upstream", Backoff: "none", BudgetBackoff: "none",
		Versions: "nginx (master)",
		Source:   "nginx/nginx src/http/modules/ngx_http_proxy_module.c (next_upstream merged to NGX_HTTP_UPSTREAM_FT_ERROR|NGX_HTTP_UPSTREAM_FT_TIMEOUT; proxy_next_upstream_tries 0 = no limit) @948a18ed542a",
		Trap:     "a timed-out LLM call is sent again to the next upstream server: one attempt per server unless proxy_next_upstream_tries is set"},
	{ID: "istio", Library: "Istio sidecar (VirtualService retries)", Ecosystem: "config", Packages: nil, Kind: KindMesh,
		Knob: "http[].retries.attempts", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connect-failure, refused-stream, unavailable, cancelled and 503 — on every route, with or without a VirtualService", Backoff: "Envoy's 25 ms base, jittered", BudgetBackoff: "exp:0.025s",
		Versions: "istio (master)",
		Source:   "istio/istio pilot/pkg/networking/core/route/retry/retry.go (defaultPolicy: NumRetries 2, RetryOn connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes with 503; attempts: 0 disables) @126806ab73d1",
		Trap:     "the mesh retries a 503 twice before your code sees it; attempts counts retries, not attempts"},
	{ID: "tanstack-query", Library: "TanStack Query", Ecosystem: "npm", Packages: []string{"@tanstack/query-core", "@tanstack/react-query", "@tanstack/vue-query", "@tanstack/svelte-query", "@tanstack/solid-query"}, Kind: KindClient,
		Knob: "retry", Semantics: CountsRetries, Attempts: 4, Retries4xx: true,
		RetriesOn: "every failed query (0 retries on the server)", Backoff: "min(1000 × 2^n, 30000) ms", BudgetBackoff: "exp:1s",
		Versions: "5.102.0",
		Source:   "TanStack/query packages/query-core/src/retryer.ts (config.retry ?? (isServer ? 0 : 3); defaultRetryDelay) @40321a0b1b3b",
		Trap:     "the browser is a retry layer: 4 attempts of the whole request path"},
	{ID: "swr", Library: "SWR", Ecosystem: "npm", Packages: []string{"swr"}, Kind: KindClient,
		Knob: "errorRetryCount", Semantics: CountsRetries, Unbounded: true, Retries4xx: true,
		RetriesOn: "every fetcher error", Backoff: "5 s × 2^min(n, 8), randomised (10 s base on slow connections)", BudgetBackoff: "exp:5s",
		Versions: "2.5.1",
		Source:   "vercel/swr src/_internal/utils/config.ts (onErrorRetry retries while errorRetryCount is undefined; errorRetryInterval 5000) @7173e55b2a17",
		Trap:     "no errorRetryCount: it retries until the component unmounts"},
	{ID: "apollo-retrylink", Library: "Apollo Client RetryLink", Ecosystem: "npm", Packages: []string{"@apollo/client"}, Kind: KindClient,
		Knob: "attempts.max", Semantics: CountsAttempts, Attempts: 5,
		RetriesOn: "network errors (retryIf narrows it)", Backoff: "300 ms doubling with jitter, no cap", BudgetBackoff: "exp:0.3s",
		Versions: "4.2.12",
		Source:   "apollographql/apollo-client src/link/retry/retryFunction.ts (max = 5), src/link/retry/delayFunction.ts (initial = 300, jitter = true, max = Infinity) @54084bc22e92"},
	{ID: "claude-code", Library: "Claude Code", Ecosystem: "agent", Packages: nil, Kind: KindAgent,
		Knob: "CLAUDE_CODE_MAX_RETRIES (env, or env in .claude/settings.json)", Semantics: CountsRetries, Attempts: 11,
		RetriesOn: "429, 529 overloaded and transient API errors", Backoff: "exponential", BudgetBackoff: "exp:1s",
		Versions: "2.1.x",
		Source:   "Claude Code documentation, error reference \"automatic retries\" and environment variables (CLAUDE_CODE_MAX_RETRIES, default 10); closed source, read from the docs as quoted at developersdigest.tech/blog/claude-code-retry-watchdog-unattended-runs (2026-10-09)",
		Trap:     "a streaming idle watchdog (abort and regenerate) is on by default in recent versions: another layer"},
}

// Lookup returns the row with this ID, or with a library name or package
// that matches name case-insensitively.
func Lookup(name string) (Default, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, d := range Defaults {
		if d.ID == n || strings.ToLower(d.Library) == n {
			return d, true
		}
	}
	for _, d := range Defaults {
		for _, p := range d.Packages {
			if strings.ToLower(p) == n {
				return d, true
			}
		}
	}
	return Default{}, false
}

// mustDefault is Lookup for the scanner's own rows: a missing row is a
// programming error that TestEveryDetectorHasARow catches.
func mustDefault(id string) Default {
	d, ok := Lookup(id)
	if !ok {
		panic("audit: no defaults row " + id)
	}
	return d
}
