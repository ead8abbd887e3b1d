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
//
// What finds the layers in code is the detector registry, rulelist.go: one
// row per construct family and file kind, run in the order written. A
// detector receives one file with its shared lexing (comments and strings
// blanked, lines, imports, parsed tree or documents; detect.go) and returns
// the layers it finds there, each built on its library's Defaults row
// (newLayer) or as a hand-rolled loop (handRolled). It owns only its own
// construct: ordering across files, versions, constants defined in other
// files and the grouping into stacks are the scan's (scan.go, stack.go), so
// a detector never sees another's layers.
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
	KindWatchdog  Kind = "watchdog"  // a stall watchdog that aborts a silent call and regenerates it from scratch
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
// A stall watchdog regenerates the whole turn the job's wrapper runs
// (seed 003's order: scheduler → watchdog → wrapper → SDK).
var Kinds = []Kind{KindClient, KindProxy, KindQueue, KindAgent, KindWatchdog, KindWrapper, KindFramework, KindSDK, KindMesh}

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
	// NegativeNone: a negative knob sends the call once, read in the
	// library's source (urllib3's Retry(total=-1) is exhausted at the
	// first failure; the Python SDKs' range(max_retries + 1) is empty).
	// Unset, a negative knob stays what the audit cannot bound: OpenAI's
	// Node SDK retries while retriesRemaining is truthy, so -1 never ends.
	NegativeNone bool
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
// and the commit it cites (docs/audit.md: the defaults table).
var Defaults = []Default{
	{ID: "anthropic-python", Library: "Anthropic Python SDK", Ecosystem: "pypi", Packages: []string{"anthropic"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s (retry-after-ms first)", Timeout: 10 * time.Minute, Versions: "0.121.0",
		Source:       "anthropics/anthropic-sdk-python src/anthropic/_constants.py (DEFAULT_MAX_RETRIES = 2), src/anthropic/_base_client.py _should_retry @009b035305e0",
		Trap:         "the layer nobody set: 3 attempts before your own retry starts",
		NegativeNone: true},
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
		Source:       "openai/openai-python src/openai/_constants.py (DEFAULT_MAX_RETRIES = 2, MAX_RETRY_AFTER_DELAY = 2 * 60), src/openai/_base_client.py @e43b422412a9",
		NegativeNone: true},
	{ID: "openai-node", Library: "OpenAI Node SDK", Ecosystem: "npm", Packages: []string{"openai"}, Kind: KindSDK,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured", Timeout: 10 * time.Minute, Versions: "7.5.0",
		Source: "openai/openai-node src/client.ts (options.maxRetries ?? 2; shouldRetry) @7b7d6ca71130"},
	{ID: "together-ts", Library: "Together TypeScript SDK", Ecosystem: "npm", Packages: []string{"together-ai"}, Kind: KindSDK,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 501 and above (x-should-retry header overrides)", Backoff: "1 s doubling, capped at 10 s, with jitter", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured (retry-after-ms first)", Timeout: time.Minute, Versions: "0.40.0",
		Source: "togethercomputer/together-typescript src/client.ts (options.maxRetries ?? 2; shouldRetry; initialRetryDelay 1.0, maxRetryDelay 10.0; DEFAULT_TIMEOUT = 60000) @be0c56c52969",
		Trap:   "new Together() with no options sends a failed call 3 times, under whatever retries the caller adds"},
	{ID: "openai-go", Library: "OpenAI Go SDK", Ecosystem: "go", Packages: []string{"github.com/openai/openai-go"}, Kind: KindSDK,
		Knob: "option.WithMaxRetries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 8 s (DefaultMaxServerDelay)", Timeout: 10 * time.Minute, Versions: "v3.52.0",
		Source: "openai/openai-go internal/requestconfig/requestconfig.go (MaxRetries: 2, DefaultMaxServerDelay = 8 * time.Second) @4e5a07a6a205"},
	{ID: "cohere-go", Library: "Cohere Go SDK", Ecosystem: "go", Packages: []string{"github.com/cohere-ai/cohere-go/v2"}, Kind: KindSDK,
		Knob: "option.WithMaxAttempts", Semantics: CountsAttempts, Attempts: 2,
		RetriesOn: "408, 429 and 5xx responses", Backoff: "1 s doubling, capped at 60 s, ±10% jitter", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured up to 60 s (then X-RateLimit-Reset)", Versions: "v2.16",
		Source: "cohere-ai/cohere-go internal/retrier.go (defaultRetryAttempts = 2: attempts, the first included; shouldRetry 408, 429, >= 500; minRetryDelay 1 s, maxRetryDelay 60 s) @9db38a4fa865",
		Trap:   "client.NewClient() with no options sends a failed call twice"},
	{ID: "azcore-go", Library: "Azure SDK for Go (azcore retry policy)", Ecosystem: "go", Packages: []string{"github.com/Azure/azure-sdk-for-go/sdk/azcore", "github.com/Azure/azure-sdk-for-go/sdk/ai/azopenai"}, Kind: KindSDK,
		Knob: "ClientOptions.Retry.MaxRetries", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "connection errors, 408, 429, 500, 502, 503, 504", Backoff: "0.8 s × (2^try − 1), ±jitter, capped at 120 s", BudgetBackoff: "exp:0.8s",
		RetryAfter: "honoured", Versions: "azcore 1.x",
		Source: "Azure/azure-sdk-for-go sdk/azcore/runtime/policy_retry.go (defaultMaxRetries = 3 when MaxRetries is 0, a negative MaxRetries is none; RetryDelay 800 ms, MaxRetryDelay 120 s; StatusCodes 408, 429, 500, 502, 503, 504) @945e8ed5471a",
		Trap:   "MaxRetries: 0 is the default 3, not none: only a negative value turns retries off"},
	{ID: "aws-sdk-js-v3", Library: "AWS SDK for JavaScript v3 (every service client)", Ecosystem: "npm", Packages: []string{"@aws-sdk/client-bedrock-runtime", "@aws-sdk/client-s3", "@aws-sdk/client-bedrock", "@aws-sdk/util-retry"}, Kind: KindSDK,
		Knob: "maxAttempts", Semantics: CountsAttempts, Attempts: 3,
		RetriesOn: "throttling, transient and 5xx errors and timeouts (the standard retry strategy)", Backoff: "exponential with full jitter from 100 ms, capped at 20 s", BudgetBackoff: "exp:0.1s",
		Versions: "aws-sdk-js-v3 @01de47ae3644",
		Source:   "aws/aws-sdk-js-v3 packages/util-retry/src/config.ts @01de47ae3644 (DEFAULT_MAX_ATTEMPTS = 3: \"how many HTTP requests an SDK should make for a single SDK operation invocation\"; DEFAULT_RETRY_MODE standard)",
		Trap:     "new BedrockRuntimeClient({}) sends a throttled call 3 times, under whatever wraps it"},
	{ID: "llamaindex-ts", Library: "LlamaIndex.TS OpenAI, OpenAIEmbedding, TogetherLLM, Anthropic", Ecosystem: "npm", Packages: []string{"llamaindex"}, Kind: KindFramework,
		Knob: "maxRetries", Semantics: CountsRetries, Attempts: 11, Retries4xx: false,
		RetriesOn: "what the provider's SDK client retries (the class hands maxRetries to the OpenAI or Anthropic session it builds)", Backoff: "the provider SDK's (0.5 s doubling, capped at 8 s)", BudgetBackoff: "exp:0.5s",
		Versions: "llamaindex @7edeb1c2d7f2",
		Source:   "run-llama/LlamaIndexTS packages/llamaindex/src/llm/openai.ts @7edeb1c2d7f2 (this.maxRetries = init?.maxRetries ?? 10, passed to the OpenAI session); the same default in OpenAIEmbedding, TogetherLLM (extends OpenAI) and Anthropic",
		Trap:     "new OpenAI({ model }) from llamaindex sends a failing call 11 times, not the SDK's 3"},
	{ID: "aws4fetch", Library: "aws4fetch AwsClient", Ecosystem: "npm", Packages: []string{"aws4fetch"}, Kind: KindClient,
		Knob: "retries", Semantics: CountsRetries, Attempts: 11,
		RetriesOn: "5xx and 429 responses (a thrown fetch error is not retried)", Backoff: "random × 50 ms × 2^i (initRetryMs), up to 25.6 s", BudgetBackoff: "exp:0.05s",
		Versions: "aws4fetch 1.x",
		Source:   "mhart/aws4fetch src/main.js (this.retries = retries != null ? retries : 10; fetch loops i <= this.retries while status >= 500 or 429; initRetryMs 50) @c03d37a527fb",
		Trap:     "new AwsClient({ accessKeyId, secretAccessKey }) sends a throttled or failing request 11 times"},
	{ID: "cohere-python", Library: "Cohere Python SDK", Ecosystem: "pypi", Packages: []string{"cohere"}, Kind: KindSDK,
		Knob: "request_options max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "408, 409, 429 and 5xx responses", Backoff: "1 s doubling, capped at 60 s, ±10% jitter", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured up to 60 s (then X-RateLimit-Reset)", Versions: "5.x",
		Source: "cohere-ai/cohere-python src/cohere/core/http_client.py (max_retries = request_options.get(\"max_retries\", 2); _should_retry: >= 500, 429, 408, 409; INITIAL_RETRY_DELAY_SECONDS 1, MAX 60) @995dc0976417",
		Trap:   "the retries are set per request (request_options), not on the client: every call of a Client() nobody configured is sent 3 times"},
	{ID: "groq-python", Library: "Groq Python SDK", Ecosystem: "pypi", Packages: []string{"groq"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s", Timeout: time.Minute, Versions: "1.6.0",
		Source: "groq/groq-python src/groq/_constants.py (DEFAULT_MAX_RETRIES = 2, DEFAULT_TIMEOUT 60 s), src/groq/_base_client.py _should_retry @9620fde0bc57",
		Trap:   "Groq() with no options sends a failed call 3 times, under whatever retries the caller adds"},
	// Cerebras and Llama API: Stainless clients like OpenAI's, each with its
	// own constants (issue 37, round 8: agno's four, no row).
	{ID: "cerebras-python", Library: "Cerebras Cloud Python SDK", Ecosystem: "pypi", Packages: []string{"cerebras-cloud-sdk", "cerebras_cloud_sdk"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s", Versions: "cerebras-cloud-sdk (main)",
		Source:       "Cerebras/cerebras-cloud-sdk-python src/cerebras/cloud/sdk/_constants.py (DEFAULT_MAX_RETRIES = 2), src/cerebras/cloud/sdk/_client.py (Cerebras, AsyncCerebras; Client = Cerebras) @bebb8d13ac72",
		Trap:         "Cerebras() with no options sends a failed call 3 times, under whatever retries the caller adds",
		NegativeNone: true},
	{ID: "llama-api-python", Library: "Llama API Python SDK (llama_api_client)", Ecosystem: "pypi", Packages: []string{"llama-api-client", "llama_api_client"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s", Versions: "llama-api-client (main)",
		Source: "meta-llama/llama-api-python src/llama_api_client/_constants.py (DEFAULT_MAX_RETRIES = 2), src/llama_api_client/_client.py (LlamaAPIClient, AsyncLlamaAPIClient; Client = LlamaAPIClient) @266c77e8f395",
		Trap:   "LlamaAPIClient() with no options sends a failed call 3 times"},
	{ID: "zhipuai-python", Library: "ZhipuAI Python SDK (zhipuai)", Ecosystem: "pypi", Packages: []string{"zhipuai"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "connection errors, 408, 409, 429, 5xx (x-should-retry header overrides)", Backoff: "0.5 s doubling, capped at 8 s, with jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s", Timeout: 300 * time.Second, Versions: "zhipuai 2.1.5",
		Source: "MetaGLM/zhipuai-sdk-python-v4 zhipuai/core/_constants.py (ZHIPUAI_DEFAULT_MAX_RETRIES = 3, INITIAL_RETRY_DELAY 0.5, MAX_RETRY_DELAY 8.0, timeout 300 s), zhipuai/core/_http_client.py (_should_retry: 408, 409, 429, >= 500) @ccbec4c7b53c",
		Trap:   "not the Stainless SDKs' 2: ZhipuAI() with no options sends a failed call 4 times"},
	{ID: "together-python", Library: "Together Python SDK", Ecosystem: "pypi", Packages: []string{"together"}, Kind: KindSDK,
		Knob: "max_retries", Semantics: CountsRetries, Attempts: 6,
		RetriesOn: "timeouts, connection errors, 429 and 5xx", Backoff: "0.5 s doubling, capped at 8 s, with up to 25% jitter", BudgetBackoff: "exp:0.5s",
		RetryAfter: "honoured up to 60 s", Timeout: 10 * time.Minute, Versions: "1.5.34",
		Source: "togethercomputer/together-python src/together/constants.py (MAX_RETRIES = 5, INITIAL_RETRY_DELAY 0.5, MAX_RETRY_DELAY 8.0, TIMEOUT_SECS 600), src/together/abstract/api_requestor.py (self.retries = MAX_RETRIES if client.max_retries is None; request_raw retries Timeout, RequestException, 429 and 5xx) @eba5e5f034a3",
		Trap:   "Together() with no options sends a failed call 6 times — twice the Stainless SDKs' 3 — under whatever retries the caller adds"},
	{ID: "aws-sdk-go-v2", Library: "AWS SDK for Go v2 (Bedrock Runtime and every service client)", Ecosystem: "go", Packages: []string{"github.com/aws/aws-sdk-go-v2"}, Kind: KindSDK,
		Knob: "config.WithRetryMaxAttempts(N) or Options.RetryMaxAttempts", Semantics: CountsAttempts, Attempts: 3,
		RetriesOn: "connection errors, 500, 502, 503, 504, throttling (ThrottlingException, TooManyRequestsException …) and RequestTimeout", Backoff: "exponential with full jitter, capped at 20 s", BudgetBackoff: "exp:1s",
		Versions: "v1 (main)",
		Source:   "aws/aws-sdk-go-v2 aws/retry/standard.go (DefaultMaxAttempts int = 3, DefaultMaxBackoff = 20 * time.Second, DefaultRetryableHTTPStatusCodes 500, 502, 503, 504, DefaultThrottleErrorCodes) @1489ddb225dc",
		Trap:     "bedrockruntime.NewFromConfig(cfg) with nothing set sends a throttled InvokeModel 3 times; a client-side token bucket (500 tokens, 5 a retry) stops retries when many calls fail at once"},
	{ID: "aws-sdk-go-v1", Library: "AWS SDK for Go v1 (SageMaker Runtime, Bedrock Runtime)", Ecosystem: "go", Packages: []string{"github.com/aws/aws-sdk-go"}, Kind: KindSDK,
		Knob: "aws.Config{MaxRetries: aws.Int(N)} or client.DefaultRetryer{NumMaxRetries: N}", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "connection errors, 5xx, throttling errors (Throttling, ThrottlingException, TooManyRequestsException …) and expired credentials", Backoff: "exponential with jitter from 30 ms (500 ms when throttled), capped at 300 s", BudgetBackoff: "exp:1s",
		Versions: "1.55.6",
		Source:   "aws/aws-sdk-go aws/client/default_retryer.go (DefaultRetryerMaxNumRetries = 3, DefaultRetryerMinRetryDelay = 30 ms, DefaultRetryerMinThrottleDelay = 500 ms, DefaultRetryerMaxRetryDelay = 300 s), aws/client/client.go (cfg.MaxRetries nil or UseServiceDefaultRetries: DefaultRetryer{NumMaxRetries: DefaultRetryerMaxNumRetries}) @8d203ccff393",
		Trap:     "sagemakerruntime.New(sess) with nothing set sends a failing InvokeEndpoint 4 times; MaxRetries: aws.Int(-1) is not none but the service's default"},
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
	{ID: "azure-core-python", Library: "Azure SDK for Python (azure-core RetryPolicy)", Ecosystem: "pypi", Packages: []string{"azure-core"}, Kind: KindSDK,
		Knob: "retry_total / retry_status / retry_connect / retry_read (client kwargs)", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "408, 429, 500, 502, 503, 504 for GET/PUT/DELETE; a POST only on 500, 503, 504; any status >= 400 that carries Retry-After; connection and read errors", Backoff: "none before the first retry, then 0.8 s doubling, capped at 120 s", BudgetBackoff: "exp:0.8s",
		RetryAfter: "honoured, on any status >= 400 that sends it", Versions: "azure-core (main)",
		Source: "Azure/azure-sdk-for-python sdk/core/azure-core/azure/core/pipeline/policies/_retry.py (retry_total 10, retry_connect 3, retry_read 3, retry_status 3, retry_backoff_factor 0.8, BACKOFF_MAX 120) @b12d98b68e1d",
		Trap:   "retry_total=10 is not the limit a failing call meets: each kind of error has 3, so a 503 is sent 4 times; a 4xx with a Retry-After header is retried whatever its status"},
	// Azure Storage's clients replace azure-core's RetryPolicy with their own
	// ExponentialRetry (issue 37, round 8: agno's BlobServiceClient, no row).
	{ID: "azure-storage-python", Library: "Azure Storage for Python (Blob, Queue, File Share, Data Lake)", Ecosystem: "pypi", Packages: []string{"azure-storage-blob", "azure-storage-queue", "azure-storage-file-share", "azure-storage-file-datalake"}, Kind: KindSDK,
		Knob: "retry_total (client kwargs) or retry_policy=ExponentialRetry(retry_total=N)", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "connection and read errors, 408 and 5xx except 501 and 505 (is_retry)", Backoff: "15 s, then 15 + 3^n s, ±3 s jitter", BudgetBackoff: "linear:15s+3s",
		Versions: "azure-storage-blob 12.x",
		Source:   "Azure/azure-sdk-for-python sdk/storage/azure-storage-blob/azure/storage/blob/_shared/policies.py (ExponentialRetry(initial_backoff=15, increment_base=3, retry_total=3)), _shared/base_client.py (config.retry_policy = kwargs.get('retry_policy') or ExponentialRetry(**kwargs)) @01d4e0ca49cb",
		Trap:     "not azure-core's 10/3 RetryPolicy: a storage client nobody configured sends a failing request 4 times, 15 s apart"},
	{ID: "azure-core-js", Library: "Azure SDK for JavaScript (@azure/core-rest-pipeline)", Ecosystem: "npm", Packages: []string{"@azure/core-rest-pipeline"}, Kind: KindSDK,
		Knob: "retryOptions.maxRetries (client options)", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "408, 5xx except 501 and 505, connection errors (ETIMEDOUT, ECONNRESET, ECONNREFUSED); 429 and 503 with Retry-After", Backoff: "1 s doubling, capped at 64 s, jittered (half the delay random)", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured on 429 and 503 (retry-after-ms, x-ms-retry-after-ms, Retry-After)", Versions: "@azure/core-rest-pipeline 1.x",
		Source: "Azure/azure-sdk-for-js sdk/core/core-rest-pipeline/src/policies/defaultRetryPolicy.ts (maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY_COUNT) @231012361321, src/constants.ts (DEFAULT_RETRY_POLICY_COUNT = 3) @8f787906053a, retryStrategies/exponentialRetryStrategy.ts (DEFAULT_CLIENT_RETRY_INTERVAL = 1000, DEFAULT_CLIENT_MAX_RETRY_INTERVAL = 1000 * 64)",
		Trap:   "every Azure client (Blob, Cosmos, AI Inference, Key Vault) carries this pipeline: 4 attempts nobody set"},
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
	{ID: "langchain-embeddings-legacy", Library: "LangChain OpenAIEmbeddings (langchain 0.0.x)", Ecosystem: "pypi", Packages: []string{"langchain"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 6,
		RetriesOn: "openai 0.x Timeout, APIError, APIConnectionError, RateLimitError, ServiceUnavailableError", Backoff: "tenacity exponential, 4 s to 10 s", BudgetBackoff: "exp:4s",
		Versions: "langchain 0.0.x (langchain/embeddings/openai.py)",
		Source:   "langchain-ai/langchain langchain/embeddings/openai.py (max_retries: int = 6; retry(stop=stop_after_attempt(embeddings.max_retries), wait=wait_exponential(multiplier=1, min=4, max=10))) @f0d5d3a075d1",
		Trap:     "max_retries counts attempts here, not retries: 6 is six calls; langchain_openai's OpenAIEmbeddings passes its 2 to the SDK instead"},
	{ID: "langchain-mistralai", Library: "LangChain ChatMistralAI (tenacity)", Ecosystem: "pypi", Packages: []string{"langchain-mistralai"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 5,
		RetriesOn: "httpx.RequestError and httpx.StreamError (connection and stream errors; an HTTP error status is raised, not retried)", Backoff: "tenacity exponential, 4 s to 10 s (create_base_retry_decorator)", BudgetBackoff: "exp:4s",
		Versions: "langchain-mistralai 0.2.x",
		Source:   "langchain-ai/langchain libs/partners/mistralai/langchain_mistralai/chat_models.py (max_retries: int = 5; _create_retry_decorator: create_base_retry_decorator(error_types=[httpx.RequestError, httpx.StreamError], max_retries=llm.max_retries)) @0048bc83930f",
		Trap:     "max_retries counts attempts: ChatMistralAI() tries a call 5 times on a dropped connection, its own httpx client under it"},
	{ID: "langchain-chat-legacy", Library: "LangChain ChatOpenAI (langchain 0.0.x)", Ecosystem: "pypi", Packages: []string{"langchain"}, Kind: KindFramework,
		Knob: "max_retries", Semantics: CountsAttempts, Attempts: 6,
		RetriesOn: "openai 0.x Timeout, APIError, APIConnectionError, RateLimitError, ServiceUnavailableError", Backoff: "tenacity exponential, 1 s to 60 s", BudgetBackoff: "exp:1s",
		Versions: "langchain 0.0.x (langchain/chat_models/openai.py)",
		Source:   "langchain-ai/langchain langchain/chat_models/openai.py (max_retries: int = 6; retry(stop=stop_after_attempt(self.max_retries), wait=wait_exponential(multiplier=1, min=1, max=60))) @04f80acd7857",
		Trap:     "max_retries counts attempts here, not retries: every chat call of the langchain package's own ChatOpenAI is tried 6 times unless set; langchain_openai's passes its max_retries to the SDK instead"},
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
	{ID: "pydantic-ai", Library: "Pydantic AI Agent (tool and output retries)", Ecosystem: "pypi", Packages: []string{"pydantic-ai", "pydantic-ai-slim"}, Kind: KindFramework,
		Knob: "Agent(retries=N) or retries={'tools': N, 'output': M}", Semantics: CountsRetries, Attempts: 2,
		RetriesOn: "output that fails validation, a tool raising ModelRetry, bad tool arguments: a new model request with a RetryPromptPart; never an HTTP error (a 429 or 5xx is the SDK client's to retry)", Backoff: "none", BudgetBackoff: "none",
		Versions: "v2.33.0",
		Source:   "pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/agent/__init__.py (_normalize_agent_retries: default 1 for tools and output), docs/retries.md; providers/openai.py and providers/anthropic.py build the SDK client with no max_retries @4fda38988f29",
		Trap:     "retries= is not HTTP retries: a bad answer is re-asked once by default, each request at the SDK's own 3 attempts; transport retries are off unless a tenacity transport is installed"},
	{ID: "crewai-agent", Library: "CrewAI Agent (max_retry_limit)", Ecosystem: "pypi", Packages: []string{"crewai"}, Kind: KindFramework,
		Knob: "Agent(max_retry_limit=N)", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "any exception while the agent executes a task — the SDK's error after its own retries included — except LiteLLM's own exceptions and a tool's deliberate stop: the whole task is executed again, every LLM call and tool in it", Backoff: "none", BudgetBackoff: "none",
		Versions: "crewai 1.x (lib/crewai)",
		Source:   "crewAIInc/crewAI lib/crewai/src/crewai/agent/core.py (max_retry_limit: int = Field(default=2); _check_execution_error: litellm errors re-raised, _times_executed += 1, raise when > max_retry_limit), lib/crewai/src/crewai/llm.py (LLM routes openai/anthropic/azure/bedrock/gemini to native SDK providers), llms/providers/openai/completion.py (max_retries: int = 2) @f4731f502",
		Trap:     "a failed task is re-run whole, twice, after the SDK under it has already tried 3 times: 9 calls for the one that failed, and every call before it in the task repeated"},
	{ID: "litellm", Library: "LiteLLM completion()", Ecosystem: "pypi", Packages: []string{"litellm"}, Kind: KindFramework,
		Knob: "completion(num_retries=N) or litellm.num_retries = N", Semantics: CountsRetries, Attempts: 1,
		RetriesOn: "openai.APIError, Timeout and APIConnectionError the call raised (429 and 5xx among them) through completion_with_retries; nothing unless num_retries is set", Backoff: "none (constant_retry); retry_strategy=\"exponential_backoff_retry\": 1 s doubling, capped at 10 s", BudgetBackoff: "none",
		Versions: "litellm 1.x (main)",
		Source:   "BerriAI/litellm litellm/main.py (num_retries is an alt. param for max_retries: if num_retries is not None: max_retries = num_retries; completion_with_retries: max_retries = 0, tenacity stop_after_attempt(num_retries)) @ccc57c834420; litellm/utils.py client wrapper (on APIError: return litellm.completion_with_retries) @2be93d9268fc",
		Trap:     "num_retries=N is N retries after the first call fails; that first call also hands N to the provider client as max_retries, so an OpenAI-backed call can make up to 2N+1 requests"},
	{ID: "litellm-router", Library: "LiteLLM Router", Ecosystem: "pypi", Packages: []string{"litellm"}, Kind: KindFramework,
		Knob: "Router(num_retries=N, fallbacks=[...])", Semantics: CountsRetries, Attempts: 3, Retries4xx: false,
		RetriesOn: "failed deployment calls (rate limits, 5xx, timeouts), then each fallback model group in turn", Backoff: "retry_after 0 by default; a rate-limit error waits for its reset", BudgetBackoff: "none",
		Versions: "litellm 1.x (main)",
		Source:   "BerriAI/litellm litellm/router.py (num_retries or litellm.num_retries, else openai.DEFAULT_MAX_RETRIES = 2; max_fallbacks else ROUTER_MAX_FALLBACKS) @f292d1ae7d83; litellm/router_utils/client_initalization_utils.py (max_retries = litellm_params.pop(\"max_retries\", 0): \"router handles retry logic\"), as the code index holds it",
		Trap:     "a Router with no num_retries still retries twice (OpenAI's default borrowed), and every fallback group gets its own round; its deployment clients retry nothing unless a deployment's litellm_params sets max_retries"},
	{ID: "dspy", Library: "DSPy dspy.LM", Ecosystem: "pypi", Packages: []string{"dspy", "dspy-ai"}, Kind: KindFramework,
		Knob: "dspy.LM(model, num_retries=N)", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "what LiteLLM's completion retries (APIError, timeouts, connection errors): DSPy passes num_retries to litellm.completion", Backoff: "LiteLLM's exponential_backoff_retry: 1 s doubling, capped at 10 s", BudgetBackoff: "exp:1s",
		Versions: "3.3.1",
		Source:   "stanfordnlp/dspy dspy/clients/lm.py (num_retries: int = 3; litellm.completion(num_retries=num_retries, retry_strategy=\"exponential_backoff_retry\")) @4ed377ee9110",
		Trap:     "every dspy.LM() retries 3 times through LiteLLM, whose first call hands the same 3 to an OpenAI client: up to 7 requests"},
	{ID: "p-retry", Library: "p-retry", Ecosystem: "npm", Packages: []string{"p-retry"}, Kind: KindWrapper,
		Knob: "retries", Semantics: CountsRetries, Attempts: 11, Retries4xx: true,
		RetriesOn: "every rejection except AbortError and TypeError", Backoff: "1 s doubling (factor 2), no cap, no jitter (randomize false): 1,023 s in all", BudgetBackoff: "exp:1s",
		Versions: "7.0.0",
		Source:   "sindresorhus/p-retry index.js (retries ??= 10, factor ??= 2, minTimeout ??= 1000, randomize ??= false, maxTimeout ??= Infinity) @e11ca9c9c4a8",
		Trap:     "pRetry(fn) with no options is 11 attempts and 17 minutes of backoff"},
	{ID: "exponential-backoff", Library: "exponential-backoff (backOff)", Ecosystem: "npm", Packages: []string{"exponential-backoff"}, Kind: KindWrapper,
		Knob: "numOfAttempts", Semantics: CountsAttempts, Attempts: 10, Retries4xx: true,
		RetriesOn: "every rejection unless a retry callback returns false", Backoff: "100 ms doubling (timeMultiple 2), no cap, no jitter", BudgetBackoff: "exp:0.1s",
		Versions: "3.1.2",
		Source:   "coveooss/exponential-backoff src/options.ts (defaultOptions: numOfAttempts 10, startingDelay 100, timeMultiple 2, maxDelay Infinity, jitter none, retry: () => true) @70bdff6",
		Trap:     "backOff(fn) with no options is 10 attempts of every error, a 400 included"},
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
	{ID: "py-retry", Library: "retry / retry_async (Python, tries=)", Ecosystem: "pypi", Packages: []string{"retry", "retry_async"}, Kind: KindWrapper,
		Knob: "tries", Semantics: CountsAttempts, Unbounded: true, Retries4xx: true,
		RetriesOn: "the exceptions given (default: Exception, every error)", Backoff: "delay × backoff per try (default delay 0: no wait)", BudgetBackoff: "none",
		Versions: "invl/retry 0.9.2; retry_async is its async fork with the same tries",
		Source:   "invl/retry retry/api.py (retry(exceptions=Exception, tries=-1, delay=0, …): tries is the maximum number of attempts, -1 infinite) @ec6b3f57c72a",
		Trap:     "@retry() or a wrapper's tries left at -1 retries every exception forever, with no wait unless delay is given"},
	{ID: "retrying", Library: "retrying (Python)", Ecosystem: "pypi", Packages: []string{"retrying"}, Kind: KindWrapper,
		Knob: "@retry(stop_max_attempt_number=N)", Semantics: CountsAttempts, Unbounded: true, Retries4xx: true,
		RetriesOn: "every exception (retry_on_exception defaults to always_reject: retry)", Backoff: "none unless wait_fixed, wait_exponential_multiplier … is given", BudgetBackoff: "none",
		Versions: "rholder/retrying (master)",
		Source:   "rholder/retrying retrying.py (no stop_max_attempt_number or stop_max_delay: no stop function, it never stops; wait 0; _retry_on_exception or always_reject) @002b88d7e7c7",
		Trap:     "a bare @retry retries every exception forever with no wait: the 5 in the code (_stop_max_attempt_number = 5) only applies when stop_max_attempt_number is passed"},
	{ID: "go-retryablehttp", Library: "hashicorp/go-retryablehttp", Ecosystem: "go", Packages: []string{"github.com/hashicorp/go-retryablehttp"}, Kind: KindWrapper,
		Knob: "RetryMax", Semantics: CountsRetries, Attempts: 5,
		RetriesOn: "connection errors, 429, 5xx except 501", Backoff: "1 s doubling, capped at 30 s", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured on 429 and 503", Versions: "v0.7.8",
		Source: "hashicorp/go-retryablehttp client.go (defaultRetryMax = 4, defaultRetryWaitMin = 1s, defaultRetryWaitMax = 30s) @fd004584a467"},
	{ID: "polly", Library: "Polly resilience pipeline (AddRetry)", Ecosystem: "nuget", Packages: []string{"Polly.Core", "Polly"}, Kind: KindWrapper,
		Knob: "MaxRetryAttempts", Semantics: CountsRetries, Attempts: 4, Retries4xx: true,
		RetriesOn: "any exception except OperationCanceledException (ShouldHandle's default): an HttpRequestException from a 400 included", Backoff: "constant 2 s", BudgetBackoff: "fixed:2s",
		Versions: "Polly 8 (main)",
		Source:   "App-vNext/Polly src/Polly.Core/Retry/RetryConstants.cs (DefaultRetryCount = 3, DefaultBackoffType = Constant, DefaultBaseDelay 2 s), RetryStrategyOptions.TResult.cs (MaxRetryAttempts = DefaultRetryCount; ShouldHandle: any exception except OperationCanceledException) @173d6d1d2e28",
		Trap:     "new RetryStrategyOptions() with nothing set is 3 retries of every exception"},
	{ID: "polly-v7", Library: "Polly policy (Retry, WaitAndRetry)", Ecosystem: "nuget", Packages: []string{"Polly"}, Kind: KindWrapper,
		Knob: "retryCount", Semantics: CountsRetries, Attempts: 2, Retries4xx: true,
		RetriesOn: "what Handle<…>() and OrResult(…) name", Backoff: "none for Retry; the sleep durations given for WaitAndRetry", BudgetBackoff: "none",
		Versions: "Polly 7 API (main)",
		Source:   "App-vNext/Polly src/Polly/Retry/RetrySyntax.cs (Retry() => Retry(1); RetryForever has no limit) @173d6d1d2e28",
		Trap:     "RetryForever and WaitAndRetryForever never stop; Retry() with no count is one retry"},
	{ID: "dotnet-http-resilience", Library: "Microsoft.Extensions.Http.Resilience (standard handler)", Ecosystem: "nuget", Packages: []string{"Microsoft.Extensions.Http.Resilience"}, Kind: KindWrapper,
		Knob: "Retry.MaxRetryAttempts", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "HttpRequestException, timeouts, 408, 429, 5xx", Backoff: "2 s exponential, with jitter", BudgetBackoff: "exp:2s",
		RetryAfter: "honoured (ShouldRetryAfterHeader = true)", Versions: "dotnet/extensions (main)",
		Source: "dotnet/extensions src/Libraries/Microsoft.Extensions.Http.Resilience/Polly/HttpRetryStrategyOptions.cs (BackoffType = Exponential, UseJitter, ShouldRetryAfterHeader = true, ShouldHandle = IsTransient), HttpClientResiliencePredicates.cs (>= 500, 408, 429); Polly's MaxRetryAttempts = 3 @5862342c9a10",
		Trap:   "AddStandardResilienceHandler() retries every HttpClient call 3 times under whatever the SDK does"},
	// charm.land/fantasy: its agent retries each step's model call and sets
	// the provider SDKs it builds to 0 retries, so the agent is the layer
	// (issue 37, round 8: crush's three agent.Stream calls, no row).
	{ID: "fantasy", Library: "charm.land/fantasy agent", Ecosystem: "go", Packages: []string{"charm.land/fantasy", "github.com/charmbracelet/fantasy"}, Kind: KindFramework,
		Knob: "AgentCall.MaxRetries / AgentStreamCall.MaxRetries or fantasy.WithMaxRetries(N)", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "retryable provider errors (transport errors, an unexpected EOF, x-should-retry, 408, 409, 429, 5xx), network errors; a 401 runs OnAuthRefresh and the whole pass once more", Backoff: "5 s doubling (BackoffFactor 2)", BudgetBackoff: "exp:5s",
		RetryAfter: "honoured (RetryWithExponentialBackoffRespectingRetryHeaders)", Versions: "fantasy (main)",
		Source: "charmbracelet/fantasy retry.go (DefaultRetryOptions: MaxRetries 3, InitialDelayIn 5000 ms, BackoffFactor 2; retryWithExponentialBackoff), agent.go (Generate and Stream wrap each step in it), providers/openai/openai.go and providers/anthropic/anthropic.go (option.WithMaxRetries(0)) @f6d4d1e30222",
		Trap:   "the SDK under it is set to 0 retries: the 4 attempts are the agent's, and a retry re-runs the whole streamed step"},
	{ID: "cenkalti-backoff", Library: "cenkalti/backoff", Ecosystem: "go", Packages: []string{"github.com/cenkalti/backoff/v4", "github.com/cenkalti/backoff/v5", "github.com/cenkalti/backoff"}, Kind: KindWrapper,
		Knob: "WithMaxRetries / MaxElapsedTime", Semantics: CountsRetries, Unbounded: true, Retries4xx: true,
		RetriesOn: "every error except backoff.Permanent", Backoff: "0.5 s × 1.5, randomised, for up to 15 min", BudgetBackoff: "exp:0.5s",
		Versions: "v4.3.0",
		Source:   "cenkalti/backoff exponential.go (DefaultInitialInterval = 500ms, DefaultMaxElapsedTime = 15 * time.Minute) @720b78985a65",
		Trap:     "no attempt limit: bounded only by 15 minutes of elapsed time"},
	{ID: "avast-retry-go", Library: "avast/retry-go", Ecosystem: "go", Packages: []string{"github.com/avast/retry-go", "github.com/avast/retry-go/v4", "github.com/avast/retry-go/v5"}, Kind: KindWrapper,
		Knob: "retry.Attempts(N)", Semantics: CountsAttempts, Attempts: 10, Retries4xx: true,
		RetriesOn: "every error unless RetryIf narrows it or it is retry.Unrecoverable", Backoff: "100 ms, BackOffDelay + RandomDelay", BudgetBackoff: "exp:0.1s",
		Versions: "v3.0.0, v4 (master)",
		Source:   "avast/retry-go options.go (attempts: uint(10), delay: 100 * time.Millisecond, delayType: CombineDelay(BackOffDelay, RandomDelay); Attempts(0) retries until success) @91e2a66; v3.0.0 retry.go (DefaultAttempts = uint(10))",
		Trap:     "retry.Do(fn) with no Attempts option tries 10 times; Attempts(0) never stops"},
	{ID: "failsafe-go", Library: "failsafe-go retrypolicy", Ecosystem: "go", Packages: []string{"github.com/failsafe-go/failsafe-go"}, Kind: KindWrapper,
		Knob: "WithMaxRetries", Semantics: CountsRetries, Attempts: 3, Retries4xx: true,
		RetriesOn: "every error unless HandleIf/HandleErrors narrow it", Backoff: "none unless WithDelay/WithBackoff", BudgetBackoff: "none",
		Versions: "v0.9.7",
		Source:   "failsafe-go/failsafe-go retrypolicy/retry.go (defaultMaxRetries = 2) @5759a5e6d557"},
	{ID: "urllib3-retry", Library: "urllib3 Retry / requests HTTPAdapter", Ecosystem: "pypi", Packages: []string{"urllib3", "requests"}, Kind: KindWrapper,
		Knob: "Retry(total=N) / HTTPAdapter(max_retries=N)", Semantics: CountsRetries, Attempts: 11,
		RetriesOn: "connection errors for every method; read errors and status_forcelist codes only for allowed_methods, which exclude POST by default", Backoff: "backoff_factor 0: none", BudgetBackoff: "none",
		RetryAfter: "honoured on 413, 429, 503 (respect_retry_after_header)", Versions: "urllib3 2.7.0, requests 2.34.2",
		Source:       "urllib3/urllib3 src/urllib3/util/retry.py (total = 10, backoff_factor = 0, RETRY_AFTER_STATUS_CODES 413, 429, 503) @6a8536b6e1b0; psf/requests src/requests/adapters.py (DEFAULT_RETRIES = 0; an int is Retry.from_int) @1f6589ec3a1e",
		Trap:         "Retry() with no total is 10 retries; requests' HTTPAdapter() alone retries nothing",
		NegativeNone: true},
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
	{ID: "modal", Library: "Modal function retries", Ecosystem: "pypi", Packages: []string{"modal"}, Kind: KindQueue,
		Knob: "@app.function(retries=N) or retries=modal.Retries(max_retries=N)", Semantics: CountsRetries, Attempts: 1, Retries4xx: true,
		RetriesOn: "any exception the function raises: Modal's platform runs the input again, the SDK calls inside it included", Backoff: "1 s doubling (initial_delay 1.0, backoff_coefficient 2.0), capped at 60 s (max_delay)", BudgetBackoff: "exp:1s",
		Versions: "1.x",
		Source:   "Modal documentation, reference/modal.Retries (retries=4 is max 4 retries with a 1-second delay; max_retries: the maximum number of retries after failures; backoff_coefficient 2.0, initial_delay 1.0, max_delay 60.0); no retries written: none",
		Trap:     "retries=modal.Retries(max_retries=5) re-runs the whole function 6 times, each run with its SDK client's own retries"},
	{ID: "llamaindex-workflow-step", Library: "LlamaIndex workflow step retry_policy", Ecosystem: "pypi", Packages: []string{"llama-index-workflows", "llama-index-core"}, Kind: KindQueue,
		Knob: "maximum_attempts", Semantics: CountsAttempts, Attempts: 3, Retries4xx: true,
		RetriesOn: "any exception the step raises: the workflow runs the step again, every call inside it with it", Backoff: "a constant delay (delay=5 s unless set)", BudgetBackoff: "fixed:5s",
		Versions: "llama-index-workflows @11da6d57c002",
		Source:   "run-llama/workflows-py packages/llama-index-workflows/src/workflows/retry_policy.py @11da6d57c002: ConstantDelayRetryPolicy(maximum_attempts: int = 3, delay: float = 5) is stop_after_attempt(maximum_attempts) (attempts >= N stops); ExponentialBackoffRetryPolicy(maximum_attempts: int = 5); retry_policy() stops after 3; a @step with no retry_policy runs once",
		Trap:     "retry_policy=ConstantDelayRetryPolicy() runs a step 3 times, each run with its LLM client's own retries"},
	{ID: "prefect", Library: "Prefect task and flow retries", Ecosystem: "pypi", Packages: []string{"prefect"}, Kind: KindQueue,
		Knob: "retries", Semantics: CountsRetries, Attempts: 1, Retries4xx: true,
		RetriesOn: "any exception the task or flow run raises (retry_condition_fn may narrow it)", Backoff: "retry_delay_seconds (0 unless set)", BudgetBackoff: "none",
		Versions: "3.x",
		Source:   "PrefectHQ/prefect src/prefect/tasks.py @1115564ab60e (\"retries: An optional number of times to retry on task run failure\"), flows.py the same for a flow run; none written: no retry",
		Trap:     "@flow(retries=2) around @task(retries=3) runs a failing task up to 12 times"},
	{ID: "hatchet", Library: "Hatchet task retries", Ecosystem: "pypi", Packages: []string{"hatchet-sdk"}, Kind: KindQueue,
		Knob: "retries", Semantics: CountsRetries, Attempts: 1, Retries4xx: true,
		RetriesOn: "any exception the task raises", Backoff: "backoff_factor and backoff_max_seconds when set; none by default", BudgetBackoff: "none",
		Versions: "1.x",
		Source:   "hatchet-dev/hatchet sdks/python/hatchet_sdk/runnables/workflow.py @58c0efa78d33 (task(…, retries: int = 0): \"The number of times to retry the task before failing. Default: 0\")",
		Trap:     "a task's retries re-run the whole task, its LLM client's retries inside each run"},
	{ID: "inngest", Library: "Inngest function retries", Ecosystem: "config", Packages: []string{"inngest"}, Kind: KindQueue,
		Knob: "createFunction({ retries: N }) or @client.create_function(retries=N)", Semantics: CountsRetries, Attempts: 4, Retries4xx: true,
		RetriesOn: "any error a step or the function throws, except NonRetriableError; each step has its own count", Backoff: "the Inngest server's exponential backoff with jitter (not set in the SDK; not folded)", BudgetBackoff: "none",
		Versions: "4.18.1",
		Source:   "inngest/inngest-js packages/inngest/src/helpers/consts.ts (defaultMaxRetries = 3), components/InngestFunction.ts (retries: \"Can be a number from 0 to 20. Defaults to 3\") @abc4a63fb8a5; inngest/inngest-py pkg/inngest/inngest/_internal/function.py (retries None: none registered, the server's default) @305bc6a83a27 (0.5.18)",
		Trap:     "a function with no retries option runs each step up to 4 times, the SDK calls inside it included"},
	{ID: "trigger-dev", Library: "Trigger.dev task retry", Ecosystem: "npm", Packages: []string{"@trigger.dev/sdk"}, Kind: KindQueue,
		Knob: "task({ retry: { maxAttempts } }) or trigger.config retries.default.maxAttempts", Semantics: CountsAttempts, Attempts: 1, Retries4xx: true,
		RetriesOn: "any error the run throws except AbortTaskRunError (and Trigger API 4xx but 408, 429)", Backoff: "1 s × 2, randomised, capped at 60 s (defaultRetryOptions; trigger init writes 10 s)", BudgetBackoff: "exp:1s",
		Versions: "4.5.12",
		Source:   "triggerdotdev/trigger.dev packages/core/src/v3/workers/taskExecutor.ts (retry = this.task.retry ?? retriesConfig?.default; none: no retry), packages/core/src/v3/utils/retries.ts (defaultRetryOptions maxAttempts 3, factor 2, minTimeoutInMs 1000, maxTimeoutInMs 60000), packages/cli-v3/templates/trigger.config.ts.template (retries.default.maxAttempts 3) @b082e4438933",
		Trap:     "no retry setting is one attempt, but `trigger init` writes retries.default.maxAttempts 3 into trigger.config.ts: every task re-runs whole 3 times, its SDK retries included"},
	{ID: "airflow", Library: "Apache Airflow task retries", Ecosystem: "pypi", Packages: []string{"apache-airflow", "apache-airflow-task-sdk"}, Kind: KindQueue,
		Knob: "retries= on the operator or @task, or default_args={'retries': N}", Semantics: CountsRetries, Attempts: 1, Retries4xx: true,
		RetriesOn: "any failure of the task (a raised exception, a non-zero exit)", Backoff: "retry_delay 300 s (default_task_retry_delay), exponential only with retry_exponential_backoff", BudgetBackoff: "fixed:300s",
		Versions: "Airflow 3 (task-sdk)",
		Source:   "apache/airflow task-sdk/src/airflow/sdk/bases/operator.py (DEFAULT_RETRIES = conf.getint(\"core\", \"default_task_retries\", fallback=0); DEFAULT_RETRY_DELAY 300 s) @d0077d540a43",
		Trap:     "default_args={'retries': 3} gives every task of the DAG 4 runs, each a full run of the LLM calls inside"},
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
	{ID: "linkerd-serviceprofile", Library: "Linkerd ServiceProfile (isRetryable route)", Ecosystem: "config", Packages: nil, Kind: KindMesh,
		Knob: "routes[].isRetryable with retryBudget.minRetriesPerSecond × ttl", Semantics: CountsAttempts, Attempts: 101,
		RetriesOn: "a response its responseClasses call a failure (5xx unless set) on a route marked isRetryable, while the service's retry budget has tokens; a request body over 64 KiB is never retried; no ServiceProfile, or no isRetryable route, retries nothing", Backoff: "none: a retry is sent as soon as the failure is read", BudgetBackoff: "none",
		Versions: "linkerd2 stable-2.14 … 2.18 (ServiceProfiles kept for compatibility since 2.16)",
		Source:   "linkerd/linkerd2 controller/api/destination/profile_translator.go (defaultRetryBudget: MinRetriesPerSecond 10, RetryRatio 0.2, Ttl 10 s) @b24cd4059841; linkerd/linkerd2-proxy linkerd/app/outbound/src/http/retry.rs (RetryPolicy.retry: no per-request limit, budget.withdraw() only) @29637b64f6ce; tower-rs/tower tower/src/retry/budget/tps_budget.rs (reserve = min_per_sec × ttl) @0918d77f5c9e",
		Trap:     "there is no per-request limit: a lone failing call may be retried until the budget's reserve, minRetriesPerSecond × ttl (10 × 10 s = 100 retries at the default), is spent — at an LLM worker's low request rate the ratio never binds"},
	{ID: "linkerd-retry-annotations", Library: "Linkerd retry annotations (2.16+)", Ecosystem: "config", Packages: nil, Kind: KindMesh,
		Knob: "retry.linkerd.io/limit with retry.linkerd.io/http or /grpc (remove the conditions to disable: a limit of 0 still retries once)", Semantics: CountsRetries, Attempts: 2,
		RetriesOn: "the statuses retry.linkerd.io/http lists (5xx, gateway-error, a code or a range) or the gRPC codes of retry.linkerd.io/grpc, on a Service or an HTTPRoute/GRPCRoute (a route's annotations replace its Service's); a body over 64 KiB is not retried; ignored when a ServiceProfile exists for the Service", Backoff: "exponential 25 ms to 250 ms, full jitter", BudgetBackoff: "exp:0.025s",
		Versions: "linkerd2 2.16+ (edge-24.8)",
		Source:   "linkerd/linkerd2 policy-controller/k8s/index/src/outbound/index/http.rs (parse_http_retry: limit.filter(v != 0) … limit.unwrap_or(1)), policy-controller/grpc/src/outbound/http.rs (convert_retry: max_request_bytes 64 KiB, backoff 25–250 ms) @b24cd4059841",
		Trap:     "retry.linkerd.io/limit: \"0\" does not disable retries: 0 is read as unset, and the limit falls back to 1"},
	{ID: "grpc-retry-policy", Library: "gRPC service config retryPolicy", Ecosystem: "config", Packages: nil, Kind: KindSDK,
		Knob: "methodConfig[].retryPolicy.maxAttempts (a service config: grpc.service_config channel option, WithDefaultServiceConfig)", Semantics: CountsAttempts, Attempts: 1,
		RetriesOn: "only the gRPC codes retryPolicy.retryableStatusCodes lists (UNAVAILABLE and the like), before the response headers arrive; nothing without a retryPolicy", Backoff: "random(0, min(initialBackoff × backoffMultiplier^(n−1), maxBackoff))", BudgetBackoff: "none",
		Versions: "gRFC A6 (grpc-core, grpc-go, grpc-java, grpc-js)",
		Source:   "grpc/proposal A6-client-retries.md (maxAttempts: \"the maximum number of RPC attempts, including the original request\"; a client-side maximum of 5 by default, higher values treated as it) @0070717fd63d",
		Trap:     "a channel option nobody reads as a retry: every RPC on the channel is sent up to maxAttempts times under whatever retries its caller adds; maxAttempts over 5 is 5 unless the channel raises the cap"},
	{ID: "envoy", Library: "Envoy route retry_policy", Ecosystem: "config", Packages: nil, Kind: KindProxy,
		Knob: "retry_policy.num_retries (with retry_on)", Semantics: CountsRetries, Attempts: 1,
		RetriesOn: "nothing without a retry_policy; with one, the retry_on conditions (5xx, gateway-error, reset, connect-failure, retriable-4xx, retriable-status-codes …), 1 retry unless num_retries says", Backoff: "25 ms base, jittered, capped at 10 × the base", BudgetBackoff: "exp:0.025s",
		Versions: "envoy (main)",
		Source:   "envoyproxy/envoy api/envoy/config/route/v3/route_components.proto (RetryPolicy.num_retries: \"optional and defaults to 1\"; retry_back_off default base interval 25 ms, max 10 × base) @3304863897c7",
		Trap:     "retry_on: 5xx with no num_retries is 2 attempts; retriable-4xx re-sends a 409"},
	{ID: "haproxy", Library: "HAProxy retries / retry-on", Ecosystem: "config", Packages: nil, Kind: KindProxy,
		Knob: "retries N (defaults, backend or listen), retry-on", Semantics: CountsRetries, Attempts: 4,
		RetriesOn: "connection failures only by default (retry-on conn-failure: the request never reached a server); retry-on adds empty-response, response-timeout, 5xx and 4xx codes (401, 403, 404, 408, 425, 429 …)", Backoff: "min(timeout connect, 1 s) before a retry on the same server", BudgetBackoff: "fixed:1s",
		Versions: "3.5-dev5",
		Source:   "haproxy/haproxy include/haproxy/defaults.h (#define CONN_RETRIES 3), src/proxy.c (p->conn_retries = CONN_RETRIES; retry_type = PR_RE_CONN_FAILED; proxy_parse_retry_on) @50872daa6a85",
		Trap:     "retry-on response-timeout or 503 re-sends a request the LLM may already be answering; option redispatch sends the last retry to another server"},
	{ID: "litellm-proxy", Library: "LiteLLM proxy (config.yaml)", Ecosystem: "config", Packages: []string{"litellm"}, Kind: KindProxy,
		Knob: "router_settings.num_retries or litellm_settings.num_retries", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "failed deployment calls (rate limits, 5xx, timeouts), then the fallbacks listed", Backoff: "retry_after 0 by default", BudgetBackoff: "none",
		Versions: "litellm 1.x (main)",
		Source:   "BerriAI/litellm litellm/router.py (the proxy builds a Router from config.yaml: num_retries or litellm.num_retries, else openai.DEFAULT_MAX_RETRIES = 2) @f292d1ae7d83",
		Trap:     "a gateway between your code and the provider: its retries sit under every SDK retry your code makes"},
	// ofetch (unjs): $fetch's retry option, and its default that retries a
	// GET once (issue 37, round 8: chatbox's thirteen, no row).
	// Kind: the request's own retry, inside whatever calls it (a query's
	// function, a handler) — where an SDK's retry sits.
	{ID: "ofetch", Library: "ofetch ($fetch)", Ecosystem: "npm", Packages: []string{"ofetch", "ohmyfetch"}, Kind: KindSDK,
		Knob: "retry", Semantics: CountsRetries, Attempts: 2,
		RetriesOn: "408, 409, 425, 429, 500, 502, 503, 504 and network errors (read as 500); a GET, HEAD or any method but PATCH, POST, PUT and DELETE is retried once by default, those four not at all", Backoff: "retryDelay (0 ms: none)", BudgetBackoff: "none",
		Versions:     "ofetch 1.x–2.0.0-alpha.3",
		Source:       "unjs/ofetch src/fetch.ts (retries = typeof retry === 'number' ? retry : isPayloadMethod(method) ? 0 : 1; retryStatusCodes 408, 409, 425, 429, 500, 502, 503, 504; retryDelay || 0), src/utils.ts (payloadMethods PATCH, POST, PUT, DELETE) @dfbe3ca4ef8a",
		Trap:         "ofetch(url) retries a GET once with no delay, nobody having asked; retry: 3 on a POST sends it 4 times",
		NegativeNone: true},
	// cohere-ai (Fern): the TypeScript client retries every request (issue
	// 37, round 8: chatbox's rerank client, no row).
	{ID: "cohere-ts", Library: "Cohere TypeScript SDK (cohere-ai)", Ecosystem: "npm", Packages: []string{"cohere-ai"}, Kind: KindSDK,
		Knob: "maxRetries (client options or requestOptions)", Semantics: CountsRetries, Attempts: 3,
		RetriesOn: "408, 429 and 5xx responses", Backoff: "1 s doubling, capped at 60 s, with jitter", BudgetBackoff: "exp:1s",
		RetryAfter: "honoured up to 60 s (then X-RateLimit-Reset)", Versions: "cohere-ai 8.0.1",
		Source: "cohere-ai/cohere-typescript src/core/fetcher/requestWithRetries.ts (DEFAULT_MAX_RETRIES = 2, INITIAL_RETRY_DELAY 1000, MAX_RETRY_DELAY 60000; retries [408, 429] and >= 500) @7c29ae7bc5bb",
		Trap:   "new CohereClient() with no options sends a failing rerank 3 times"},
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
	{ID: "codex", Library: "Codex CLI (model provider retries)", Ecosystem: "agent", Packages: nil, Kind: KindAgent,
		Knob: "model_providers.<id>.request_max_retries / stream_max_retries in ~/.codex/config.toml", Semantics: CountsRetries, Attempts: 5,
		RetriesOn: "5xx and transport errors, not 429 (retry_429: false); a dropped stream is reconnected up to stream_max_retries (5) more times", Backoff: "200 ms base, exponential", BudgetBackoff: "exp:0.2s",
		Versions: "codex-rs (main)",
		Source:   "openai/codex codex-rs/core/src/model_provider_info.rs (DEFAULT_REQUEST_MAX_RETRIES = 4, DEFAULT_STREAM_MAX_RETRIES = 5, DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000, caps 100; base_delay 200 ms, retry_429 false) @001cb8e233f2",
		Trap:     "two layers in one: each request is tried 5 times, and a stream idle for 5 minutes is dropped and requested again up to 5 times"},
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
