package audit

// The detector registry: read this first.
//
// A detector finds one family of retry constructs (a library's client, a
// decorator, a queue's job options, a proxy's directive) in one kind of
// file. It receives the file (detect.go) — its path, raw bytes, and on
// demand the shared lexed and parsed forms: the source with comments and
// strings blanked (lex.go), its lines, its imports, its Go syntax tree or
// YAML documents — and returns the layers it finds, in source order, at
// most maxCandidates of one shape. It owns nothing else: it does not
// sort, deduplicate against other detectors, resolve versions or group
// layers into stacks (scan.go and stack.go do), and it never fails — a
// parsed form that cannot be built records the failure on the file and
// is nil, and the file is reported as not parsed.
//
// Each row below is one detector. The rows of a file kind run in the
// order written, each over the same file; their layers are appended in
// that order, which decides the order of layers that tie in the report
// (same file, line and default). needs, when given, are strings the
// file's text must hold for the row to run: a cheap prefilter, and for a
// YAML file what makes it worth parsing at all.
//
// A new detector is its file (one construct family, every language it
// comes in), one row here, and its tests.

// detector is one row of the registry.
type detector struct {
	name   string   // the construct family, as a reader would call it
	kind   fileKind // the files it reads (classify)
	needs  []string // all must occur in the raw text for it to run
	detect func(*file) []Layer
}

var detectors = []detector{
	// Python, by import.
	{"python SDK clients (Anthropic, OpenAI)", fkPython, nil, pySDKClients},
	{"LlamaIndex OpenAI", fkPython, nil, llamaIndex},
	{"LlamaIndex OpenAI embeddings", fkPython, nil, llamaIndexEmbeddings},
	{"LangChain chat models, init_chat_model and with_retry", fkPython, nil, pyLangChain},
	{"Instructor create", fkPython, nil, instructor},
	{"tenacity", fkPython, nil, tenacity},
	{"retry / retry_async tries= and repository wrappers", fkPython, nil, pyTriesRetries},
	{"backoff", fkPython, nil, backoff},
	{"Celery tasks", fkPython, nil, celery},
	{"RQ Retry", fkPython, nil, rq},
	{"tasks enqueued again from their own except (Celery, RQ)", fkPython, nil, pyReenqueues},
	{"boto3 clients (botocore)", fkPython, nil, botocore},
	{"google-genai HttpRetryOptions", fkPython, nil, googleGenai},
	{"Temporal activities", fkPython, nil, pyTemporal},
	{"Pydantic AI agents", fkPython, nil, pydanticAI},
	{"CrewAI agents", fkPython, nil, crewAI},
	{"CrewAI Flow routers that send the flow back (regenerate)", fkPython, []string{"@router"}, crewAIFlows},
	{"OpenAI Agents SDK agents", fkPython, nil, openaiAgents},
	{"urllib3 Retry and HTTPAdapter", fkPython, nil, urllib3},
	{"LiteLLM", fkPython, nil, litellm},
	{"LiteLLM num_retries in the completion's keyword dictionary", fkPython, []string{"num_retries"}, litellmDictRetries},
	{"DSPy LM", fkPython, nil, dspy},
	{"retrying", fkPython, nil, retrying},
	{"Azure AI clients", fkPython, nil, pyAzure},
	{"Azure Storage clients", fkPython, []string{"azure.storage"}, pyAzureStorage},
	{"Airflow tasks", fkPython, nil, pyAirflow},
	{"Inngest functions", fkPython, nil, pyInngest},
	{"Modal function retries", fkPython, nil, modalFunctions},
	{"LlamaIndex workflow steps' retry_policy", fkPython, nil, llamaIndexSteps},
	{"Prefect task and flow retries", fkPython, nil, prefectTasks},
	{"Hatchet task retries", fkPython, nil, hatchetTasks},
	// Round 5 (issue 37): shapes of retry with no library, each its own file.
	{"loops over tries that ask the model again, no try", fkPython, nil, pyRegenLoops},
	{"while loops that count tries down", fkPython, nil, pyCountdownLoops},
	{"retries an agent counts in its own state across turns", fkPython, nil, pyTurnRetries},
	{"loops bounded by a growing delay's cap", fkPython, nil, pyDelayLoops},
	{"a function that asks itself again on an answer it cannot use", fkPython, nil, pyReasks},
	{"the model asked once more when its answer is empty", fkPython, nil, pyReaskOnce},
	{"a function that calls itself again, counting in its keyword arguments", fkPython, []string{"kwargs"}, pyKwargsCountRecursions},
	{"a function that calls itself again after a rate limit", fkPython, nil, pyRateLimitRecursions},
	{"a function that calls itself again from its handler, counting down", fkPython, nil, pySelfCountdowns},
	{"loops that call again while the result is empty", fkPython, nil, pyEmptyLoops},
	{"hand-rolled loops", fkPython, nil, pyHandLoops},
	{"gRPC service config retryPolicy", fkPython, []string{"retryPolicy"}, grpcServiceConfigRetries},
	{"a task's delivery count kept in its record", fkPython, nil, pyRecordCountRetries},
	{"hand-rolled loops on a status code", fkPython, []string{"status"}, pyStatusRetryLoops},
	{"loops over numbered tries", fkPython, nil, pyTupleLoops},
	{"hand-counted retries (regenerate until a bound)", fkPython, nil, pyCounterRetry},
	{"while loops that count failed tries", fkPython, nil, pyWhileRetries},
	{"flag loops that send a model call until it succeeds", fkPython, nil, pyFlagLoops},
	{"stall watchdogs (regenerate on a timeout)", fkPython, nil, pyWatchdogs},
	{"a call sent again on any error (retry once)", fkPython, nil, pyRetryOnce},
	{"the same call made again, as written, on any error (synchronous retry once)", fkPython, nil, pySyncRetryOnce},
	// Round 9 (issue 37): fallbacks to another model, generator or engine (fallbacks.go).
	{"fallback lists walked on error", fkPython, []string{"try"}, pyFallbackLists},
	{"an except that sends the call again to another model", fkPython, []string{"except"}, pyModelSwitches},
	{"loops that ask again with the parse error (round 9, reasks9.go)", fkPython, []string{"except"}, pyErrorReasks},
	{"an except that sends the call again with a longer timeout (round 9, resends9.go)", fkPython, []string{"except"}, pyLongerTimeouts},
	{"httpx transports with retries= (connect errors only)", fkPython, []string{"Transport"}, httpxTransports},
	{"a request sent again after a 401 and a token refresh (authrefresh.go)", fkPython, []string{"efresh"}, authRefreshResends},

	// C#: Polly, the HttpClient resilience handler, hand-rolled loops.
	{"Polly and the .NET resilience handler", fkCSharp, nil, csPolly},
	{"hand-rolled loops", fkCSharp, nil, csHandLoops},

	// JavaScript and TypeScript, by import (BullMQ and Inngest also by a
	// manifest's dependency).
	{"JS SDK clients (Anthropic, OpenAI, Stripe, Vercel AI)", fkJS, nil, jsSDKClients},
	{"ofetch and $fetch (retry, and a GET's default retry)", fkJS, []string{"ofetch"}, jsOfetch},
	{"p-retry and async-retry", fkJS, nil, jsRetryWrappers},
	{"TanStack Query", fkJS, nil, tanstackQuery},
	{"TanStack Query hooks whose query calls an API", fkJS, []string{"use"}, tanstackHooks},
	{"Temporal activities", fkJS, nil, jsTemporal},
	{"LangChain.js models", fkJS, nil, jsLangChain},
	{"Apollo RetryLink", fkJS, nil, apolloRetryLink},
	{"SWR", fkJS, nil, swr},
	{"BullMQ job options", fkJS, nil, bullmq},
	{"BullMQ jobs added again from their processor's catch", fkJS, nil, jsReenqueues},
	{"Azure AI clients", fkJS, nil, jsAzure},
	{"Trigger.dev tasks and config", fkJS, nil, triggerDev},
	{"Inngest functions", fkJS, nil, jsInngest},
	{"a function that asks itself again on an answer it cannot use", fkJS, nil, jsReasks},
	{"the model asked once more when its answer is empty", fkJS, nil, jsReaskOnce},
	{"a function that calls itself again after a rate limit", fkJS, nil, jsRateLimitRecursions},
	{"loops that call again while the result is empty", fkJS, nil, jsEmptyLoops},
	{"hand-rolled loops", fkJS, nil, jsHandLoops},
	{"gRPC service config retryPolicy", fkJS, []string{"retryPolicy"}, grpcServiceConfigRetries},
	{"hand-counted retries (re-send until a bound)", fkJS, nil, jsCounterRetry},
	{"while loops that count failed tries", fkJS, nil, jsWhileRetries},
	{"stall watchdogs (regenerate on a timeout or an idle timer)", fkJS, nil, jsWatchdogs},
	{"the same call made again, as written, in a catch (retry once)", fkJS, nil, jsRetryOnce},
	// Round 9 (issue 37): fallbacks to another model, generator or engine (fallbacks.go).
	{"fallback lists walked on error, engine waterfalls", fkJS, []string{"catch"}, jsFallbackLists},
	{"a catch that sends the call again to another model", fkJS, []string{"catch"}, jsModelSwitches},
	{"AI SDK experimental_repairText that asks a model (round 9, reasks9.go)", fkJS, []string{"repairText"}, jsRepairTexts},
	{"a catch that sends the call again with a longer timeout (round 9, resends9.go)", fkJS, []string{"catch"}, jsLongerTimeouts},
	{"poll loops with an error budget (round 9, resends9.go)", fkJS, []string{"while", "catch"}, errorBudgetLoops},
	{"a function that calls itself with one try fewer (round 9, resends9.go)", fkJS, []string{"function"}, jsSelfCountdowns},
	{"a request sent again after a 401 and a token refresh (authrefresh.go)", fkJS, []string{"efresh"}, authRefreshResends},

	// Go, parsed.
	{"Temporal activity options", fkGo, nil, goTemporal},
	{"failsafe-go retry policies", fkGo, nil, failsafe},
	{"Go SDK clients (Anthropic, OpenAI)", fkGo, nil, goSDKClients},
	{"charm.land/fantasy agent calls", fkGo, []string{"fantasy"}, goFantasy},
	{"go-retryablehttp", fkGo, nil, retryableHTTP},
	{"cenkalti/backoff", fkGo, nil, cenkaltiBackoff},
	{"avast/retry-go", fkGo, nil, avastRetry},
	{"hand-rolled loops", fkGo, nil, goHandLoops},
	{"gRPC service config retryPolicy", fkGo, []string{"retryPolicy"}, grpcServiceConfigRetries},
	{"hand-counted retries (re-send until a bound)", fkGo, nil, goCounterRetry},
	{"stall watchdogs (a context deadline, then the call again)", fkGo, nil, goWatchdogs},
	{"fallback lists walked on error (round 9, fallbacks.go)", fkGo, []string{"range"}, goFallbackLists},
	{"a request sent again after a 401 and a token refresh (authrefresh.go)", fkGo, []string{"efresh"}, authRefreshResends},

	{"Sidekiq jobs", fkRuby, nil, sidekiq},

	// YAML and state-machine JSON, parsed once into documents.
	{"Step Functions retriers", fkYAML, []string{"StartAt", "Retry"}, stepFunctions},
	{"Envoy retry_policy", fkYAML, []string{"retry_policy"}, envoy},
	{"LiteLLM proxy config", fkYAML, []string{"model_list"}, litellmProxy},
	{"Airflow default_task_retries", fkYAML, []string{airflowRetriesEnv}, airflowEnv},
	{"ingress-nginx annotations", fkYAML, []string{ingressNextUpstream}, ingressNginx},
	{"ingress-nginx default (Ingress)", fkYAML, nil, ingressNginxDefault},
	{"Istio VirtualService", fkYAML, nil, istio},
	{"Linkerd ServiceProfile and retry annotations", fkYAML, nil, linkerd},
	{"Kubernetes Job and CronJob backoffLimit", fkYAML, nil, kubernetesJobs},
	{"GitHub Actions nick-fields/retry", fkWorkflow, []string{"nick-fields/retry"}, ghaRetry},

	// Other config files, each its own kind.
	{"nginx proxy_next_upstream", fkNginx, nil, nginx},
	{"HAProxy retries", fkHAProxy, nil, haproxy},
	{"Airflow default_task_retries", fkAirflowCfg, nil, airflowCfg},
	{"Claude Code settings", fkClaudeSettings, nil, claudeCode},
	{"Codex config", fkCodexConfig, nil, codex},
}
