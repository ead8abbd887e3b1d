package decode

// Field is a canonical event field. The table below is the one place that
// says how each is spelled: the JSON-lines parser dispatches on it, the
// OTLP mapper reads the attribute names from it, and --map targets are
// checked against it. (LiteLLM's decoder reads LiteLLM's own documented
// schema, StandardLoggingPayload, whose names are that project's, not
// aliases of ours.)
type Field uint8

const (
	fieldNone Field = iota
	FieldTS
	FieldEvent
	FieldType
	FieldRunID
	FieldJobID
	FieldJobType
	FieldJob // a nested {"id","type","name"} object
	FieldCorrelationID
	FieldIdempotencyKey
	FieldAttempt    // 1-based attempt number
	FieldRetryCount // 0-based: retries so far
	FieldProvider
	FieldSystem // gen_ai.system and friends: a provider only when none was given
	FieldModel
	FieldResponseModel
	FieldRequestModel
	FieldStatus
	FieldErrorType
	FieldError // a string, or Anthropic's {"type":…} object
	FieldRetryAfter
	FieldRateLimitTokens
	FieldRateLimitRequests
	FieldHeaders
	FieldUsage
	FieldInputTokens          // fresh input only (Anthropic's meaning)
	FieldInclusiveInputTokens // input that includes cache reads and writes
	FieldOutputTokens
	FieldCacheReadTokens
	FieldCacheWriteTokens
	FieldCost
	FieldLatency
	FieldTool
	FieldStreamDropped
	FieldMessage   // a logger's message: "job finished", "job failed"
	FieldOutcome   // the app's own word on how a job ended
	FieldRequestID // the provider's request ID (req_…): two records of one HTTP attempt are one call
	// FieldServiceTier is the service tier as the response reports it
	// (OpenAI's response service_tier: flex, priority, batch; default and
	// auto are standard): the bill follows the response, not the request.
	FieldServiceTier
	// FieldQueueAttempt is the queue's attempt at the job (1-based:
	// queue_attempt, BullMQ's attemptsStarted), FieldQueueAttemptsMade
	// BullMQ's attemptsMade — the attempts before this one while the job
	// runs. The queue's layer, never the app's attempt or the SDK's.
	FieldQueueAttempt
	FieldQueueAttemptsMade
	numFields
)

// fieldSpellings is, per field, its canonical JSON key first, then every
// other JSON key read as it, then its OpenTelemetry attribute names (GenAI
// semantic conventions, their older spellings, OpenInference, the Vercel
// AI SDK) in the order the mapper prefers them.
var fieldSpellings = [numFields]struct {
	json []string
	otel []string
}{
	FieldTS:                   {json: []string{"ts", "time", "timestamp", "@timestamp", "request_created_at"}},
	FieldEvent:                {json: []string{"event"}},
	FieldType:                 {json: []string{"type"}},
	FieldRunID:                {json: []string{"run_id", "runId", "run.id", "batch_id", "batchId"}, otel: []string{"run.id", "run_id", "batch_id"}},
	FieldJobID:                {json: []string{"job_id", "jobId", "job.id"}, otel: []string{"job.id", "job_id"}},
	FieldJobType:              {json: []string{"job_type", "jobType", "job.type", "job_name"}, otel: []string{"job.type", "job_type"}},
	FieldJob:                  {json: []string{"job"}},
	FieldCorrelationID:        {json: []string{"correlation_id", "correlationId", "trace_id", "x-correlation-id"}},
	FieldIdempotencyKey:       {json: []string{"idempotency_key", "idempotencyKey", "idempotency-key", "x-idempotency-key"}, otel: []string{"http.request.header.idempotency-key", "http.request.header.x-idempotency-key"}},
	FieldAttempt:              {json: []string{"attempt", "attempt_number"}},
	FieldRetryCount:           {json: []string{"retry_count", "http.request.resend_count"}, otel: []string{"http.request.resend_count"}},
	FieldProvider:             {json: []string{"provider"}},
	FieldSystem:               {json: []string{"gen_ai.provider.name", "gen_ai.system"}, otel: []string{"gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"}},
	FieldModel:                {json: []string{"model"}, otel: []string{"gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "ai.response.model", "ai.model.id", "llm.response.model", "llm.request.model"}},
	FieldResponseModel:        {json: []string{"gen_ai.response.model", "modelVersion"}},
	FieldRequestModel:         {json: []string{"gen_ai.request.model"}},
	FieldStatus:               {json: []string{"status", "status_code", "http.response.status_code", "response_status"}, otel: []string{"http.response.status_code"}},
	FieldErrorType:            {json: []string{"error_type", "error.type"}, otel: []string{"error.type"}},
	FieldError:                {json: []string{"error"}},
	FieldRetryAfter:           {json: []string{"retry_after_s", "retry_after"}},
	FieldRateLimitTokens:      {json: []string{"ratelimit_remaining_tokens"}},
	FieldRateLimitRequests:    {json: []string{"ratelimit_remaining_requests"}},
	FieldHeaders:              {json: []string{"headers"}},
	FieldUsage:                {json: []string{"usage", "usageMetadata", "usage_metadata"}},
	FieldInputTokens:          {json: []string{"input_tokens"}},
	FieldInclusiveInputTokens: {json: []string{"prompt_tokens", "gen_ai.usage.input_tokens", "promptTokens", "inputTokens"}, otel: []string{"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "ai.usage.inputTokens", "ai.usage.promptTokens", "llm.usage.prompt_tokens"}},
	FieldOutputTokens:         {json: []string{"output_tokens", "completion_tokens", "gen_ai.usage.output_tokens", "generatedTokens", "completionTokens", "outputTokens"}, otel: []string{"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion", "ai.usage.outputTokens", "ai.usage.completionTokens", "llm.usage.completion_tokens"}},
	FieldCacheReadTokens:      {json: []string{"cache_read_tokens", "gen_ai.usage.cache_read.input_tokens", "cache_read_input_tokens", "cachedTokens", "cached_tokens", "cachedInputTokens"}, otel: []string{"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens", "llm.token_count.prompt_details.cache_read", "ai.usage.inputTokenDetails.cacheReadTokens", "ai.usage.cachedInputTokens"}},
	FieldCacheWriteTokens:     {json: []string{"cache_creation_tokens", "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write.input_tokens", "cache_creation_input_tokens"}, otel: []string{"gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write.input_tokens", "gen_ai.usage.cache_creation_input_tokens", "llm.token_count.prompt_details.cache_write", "ai.usage.inputTokenDetails.cacheWriteTokens"}},
	FieldCost:                 {json: []string{"cost_usd", "response_cost"}, otel: []string{"gen_ai.usage.cost", "gen_ai.usage.cost.amount", "llm.cost.total"}},
	FieldLatency:              {json: []string{"latency_ms", "duration_ms", "durationMs", "latencyMs"}},
	FieldTool:                 {json: []string{"tool", "endpoint"}},
	FieldStreamDropped:        {json: []string{"stream_dropped"}},
	FieldMessage:              {json: []string{"msg", "message"}},
	FieldOutcome:              {json: []string{"outcome"}},
	FieldRequestID:            {json: []string{"request_id", "requestId", "requestID", "_request_id", "request-id", "x-request-id"}},
	// The response's tier only: openai.response.service_tier (the GenAI
	// conventions' OpenAI attributes) and its older gen_ai.openai.* name.
	// The request's (openai.request.service_tier) is what was asked, not
	// what was billed.
	FieldServiceTier:       {json: []string{"service_tier"}, otel: []string{"openai.response.service_tier", "gen_ai.openai.response.service_tier"}},
	FieldQueueAttempt:      {json: []string{"queue_attempt", "queueAttempt", "attemptsStarted", "attempts_started"}},
	FieldQueueAttemptsMade: {json: []string{"attemptsMade", "attempts_made"}},
}

// jsonFields maps every JSON spelling to its field, built once from the table.
var jsonFields = func() map[string]Field {
	m := map[string]Field{}
	for f := range numFields {
		for _, k := range fieldSpellings[f].json {
			m[k] = f
		}
	}
	return m
}()

// OTel returns a field's OpenTelemetry attribute names, preferred first.
func (f Field) OTel() []string { return fieldSpellings[f].otel }

// CanonicalFields are the fields a --map rule may fill: the canonical
// JSON spelling of every scalar field (not the nested job, error, headers
// and usage objects, nor the spellings that only qualify another).
var CanonicalFields = func() []string {
	var out []string
	for f := range numFields {
		switch f {
		case fieldNone, FieldJob, FieldError, FieldHeaders, FieldUsage, FieldType, FieldSystem, FieldResponseModel, FieldRequestModel, FieldMessage, FieldOutcome:
			continue
		}
		out = append(out, fieldSpellings[f].json[0])
	}
	return out
}()
