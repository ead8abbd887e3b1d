package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// Format names a log format burnrate reads.
type Format string

const (
	FormatAuto           Format = ""
	FormatJSONL          Format = "jsonl"           // canonical JSON lines (and every alias)
	FormatSDKText        Format = "sdk-text"        // SDK retry lines, interleaved with JSON lines
	FormatLiteLLMText    Format = "litellm-text"    // LiteLLM Router / proxy console lines
	FormatRetryText      Format = "retry-text"      // tenacity (LangChain, CrewAI) and Claude Code retry warnings
	FormatPattern        Format = "pattern"         // an application's own lines, by --pattern / [[format]]
	FormatLiteLLM        Format = "litellm"         // StandardLoggingPayload and SpendLogs rows
	FormatOpenAIBatch    Format = "openai-batch"    // OpenAI Batch output JSONL
	FormatAnthropicBatch Format = "anthropic-batch" // Anthropic Message Batches results
	FormatOTLPJSON       Format = "otlp-json"       // OTLP/JSON export requests: one per line, or pretty-printed
	FormatJSONDocument   Format = "json-document"   // a JSON array of records, or pretty-printed objects
	FormatClaudeCode     Format = "claude-code"     // Claude Code session transcripts (~/.claude/projects)
	FormatCodex          Format = "codex"           // OpenAI Codex CLI session rollouts (~/.codex/sessions)
	FormatGemini         Format = "gemini-cli"      // Gemini CLI chat sessions (~/.gemini/tmp/*/chats)
	FormatCline          Format = "cline"           // Cline / Roo Code / Kilo Code task files (ui_messages.json)
	FormatLangfuse       Format = "langfuse-trace"  // Langfuse trace exports (UI download, public API)
	FormatJaeger         Format = "jaeger-json"     // Jaeger UI "Download JSON" trace exports
	FormatOTelConsole    Format = "otel-console"    // OTel Python SDK ConsoleSpanExporter output
	FormatBedrockBatch   Format = "bedrock-batch"   // Amazon Bedrock batch inference output (.jsonl.out)
	FormatPortkey        Format = "portkey"         // Portkey gateway responses saved whole
	FormatAider          Format = "aider"           // Aider chat histories (.aider.chat.history.md)
	FormatAIRetry        Format = "ai-sdk-retry"    // Vercel AI SDK RetryError console dumps
	FormatOpenCode       Format = "opencode"        // OpenCode storage messages and run --format json events
	FormatCopilot        Format = "copilot-cli"     // GitHub Copilot CLI session events (~/.copilot/session-state)
	FormatContinue       Format = "continue"        // Continue's dev data (tokensGenerated.jsonl)
	FormatPi             Format = "pi"              // the Pi coding agent's sessions (~/.pi/agent/sessions)
	FormatQwen           Format = "qwen-code"       // Qwen Code chat records (~/.qwen/projects/*/chats)
	FormatAmp            Format = "amp"             // Amp threads (~/.local/share/amp/threads/T-*.json)
	FormatGeneric        Format = "generic"         // any JSON record with a usage object beside a model (the safety net)
)

// FormatInfo is one row of the format registry: everything burnrate knows
// about a format, in one place — how to detect it, decode it, where its
// files live, and whether they can be followed. Adding a format is one row
// here plus its decoder file and its tests; nothing outside the row names
// the format.
type FormatInfo struct {
	Name    Format
	Summary string // for `burnrate formats`
	Example string // one real-shaped line
	// Keys, for a JSON-lines format with keys of its own: a line is the
	// format's when it has every key of one of these sets ("k=a|b": key k
	// with the string value a or b). The rows' order in Formats is the
	// detection order: a line is counted for the first row whose keys it
	// has, and a tie of counts goes to the first. Put a new row above any
	// whose keys a line of the new format could also have.
	Keys [][]string
	// Reads, where set, must also accept a line of the Keys for it to
	// count for the format: the reader can read it (issue 35's agents,
	// whose keys an application's log can carry). Nil: the keys suffice.
	Reads func(line []byte) bool
	// New makes the format's decoder (before Event.Check wraps it); nil
	// for the formats the canonical JSON-lines decoder reads (jsonl,
	// sdk-text) and for documents, read by ingest/file.
	New func(p *Parser, o Options) Decoder
	// Home is where the producer keeps its files (an agent's sessions),
	// read by report --claude and watch claude; nil for none.
	Home *Home
	// Documents are the files other than *.jsonl a directory of the
	// format holds (a JSON document each, or an agent's transcript): a
	// directory given to report reads them too.
	Documents []FileRule
	// Rewritten, when set, is why a file of Documents cannot be followed:
	// its producer rewrites it whole. watch refuses such a file by name
	// with this reason and skips it in a glob.
	Rewritten string
	// Versions are the producer's versions its decoder was tested on, and
	// from what (`burnrate formats`, docs/formats.md); "" for the
	// formats of no one producer.
	Versions string
}

// Home is where a producer keeps its files: $Env (a comma-separated list)
// or, without it, each of Defaults under the user's home directory; each
// root's Sub directory, those that exist.
type Home struct {
	What     string   // "Claude Code projects", for messages
	Env      string   // CLAUDE_CONFIG_DIR
	Defaults []string // ".claude", ".config/claude": relative to the home directory, first first
	Sub      string   // "projects"
	// Databases are the file names (globs) of the producer's databases in
	// a root, beside Sub: OpenCode's opencode.db.
	Databases []string
}

// Where says where h is looked for, for an error:
// "${CODEX_HOME:-~/.codex}/sessions".
func (h *Home) Where() string {
	var b strings.Builder
	for i, d := range h.Defaults {
		if i == 0 {
			fmt.Fprintf(&b, "${%s:-~/%s}/%s", h.Env, d, h.Sub)
		} else {
			fmt.Fprintf(&b, " and ~/%s/%s", d, h.Sub)
		}
	}
	return b.String()
}

// FileRule matches a file by its name and its directory's name.
type FileRule struct {
	Dir    string // the name of the directory the file is in; "" for any
	Prefix string
	Suffix string
}

// Match reports whether path is a file of the rule.
func (r FileRule) Match(path string) bool {
	name := filepath.Base(path)
	return strings.HasPrefix(name, r.Prefix) && strings.HasSuffix(name, r.Suffix) &&
		(r.Dir == "" || filepath.Base(filepath.Dir(path)) == r.Dir)
}

// DocumentOf is the row whose Documents path is a file of, or nil.
func DocumentOf(path string) *FormatInfo {
	for i := range Formats {
		for _, r := range Formats[i].Documents {
			if r.Match(path) {
				return &Formats[i]
			}
		}
	}
	return nil
}

// Row is f's row, or nil for FormatAuto or a name no row has.
func Row(f Format) *FormatInfo { return formatInfo(f) }

// Formats lists every format, as `burnrate formats` shows them.
var Formats = []FormatInfo{
	{Name: FormatJSONL, Summary: "canonical JSON lines, with the aliases of common loggers",
		Example: `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"j1","model":"claude-sonnet-4-6","status":529,"attempt":2}`},
	{Name: FormatSDKText, Summary: "Python (Stainless) and Node SDK retry lines, mixed with JSON lines",
		Example: `[2026-03-10 01:00:00 - anthropic._base_client:818 - INFO] Retrying request to /v1/messages in 0.412345 seconds`},
	{Name: FormatLiteLLMText, Summary: "LiteLLM Router and proxy console lines: each deployment call's 200 OK or exception, its retries and fallbacks, the model it names",
		Example: `00:07:32 - LiteLLM Router:INFO: router.py:1095 - litellm.acompletion(model=claude-3-5-sonnet-20240620) Exception litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error",…}}`},
	{Name: FormatRetryText, Summary: "retry warnings: tenacity's (LangChain, CrewAI, LlamaIndex) and Claude Code's API Error … Retrying … (attempt n/N)",
		Example: `Retrying langchain_openai.chat_models.base.…_completion_with_retry in 4.0 seconds as it raised RateLimitError: Rate limit reached for gpt-4 in organization org-… Please try again in 2.904s.`},
	{Name: FormatPattern, Summary: "an application's own lines, described by --pattern or [[format]] in the config: a regular expression whose named groups are canonical fields",
		Example: `2026-07-16 20:52:33 | WARNING | - | LLM transient error (attempt 1/3), retrying in 25s: …`},
	{Name: FormatGemini, Summary: "Gemini CLI chat sessions (session-*.jsonl lines, or the older one JSON document each): a call per model message with token usage, billed once however often it is rewritten; its logs.json prompt log holds no usage",
		Example: `{"id":"ad67…","timestamp":"2026-05-01T10:00:03.000Z","type":"gemini","content":"","model":"gemini-3-pro","tokens":{"input":4749,"output":292,"cached":0,"thoughts":240,"tool":0,"total":5281}}`,
		// .json: the session document; .jsonl: its metadata line, a
		// message (gemini-cli's message types, with content), a $set or
		// $rewindTo line; logs.json: a prompt.
		Keys: [][]string{{"sessionId", "projectHash", "messages"}, {"sessionId", "projectHash", "startTime"},
			{"id", "timestamp", "type=user|gemini|info|error|warning", "content"}, {"$set"}, {"$rewindTo"},
			{"sessionId", "messageId", "type", "message"}},
		New: func(p *Parser, o Options) Decoder { return newGeminiDecoder(p, o.SourceName) },
		// ~/.gemini/tmp/<hash>/chats/session-*.json, one document each
		// (Gemini CLI before April 2026), rewritten on every message.
		Documents: []FileRule{{Dir: "chats", Prefix: "session-", Suffix: ".json"}},
		Rewritten: "a Gemini CLI chat, which Gemini rewrites whole on every message: it cannot be followed line by line; read it with burnrate report (or replay). Gemini CLI since April 2026 writes session-*.jsonl, which watch follows",
		Versions:  "session-*.json (before April 2026) and session-*.jsonl (gemini-cli f744913 on)"},
	{Name: FormatQwen, Summary: "Qwen Code chat records (~/.qwen/projects/<project>/chats/<session>.jsonl): a call per assistant record with usageMetadata (Gemini's counts: thoughts billed as output), a /branch copy billed once, a sub-session billed to its parent",
		Example:  `{"uuid":"5c1e…","parentUuid":"a0f2…","sessionId":"9d4b…","timestamp":"2026-05-02T08:15:03.120Z","type":"assistant","cwd":"/home/me/app","version":"0.14.0","model":"qwen3-coder-plus","message":{"role":"model","parts":[…]},"usageMetadata":{"promptTokenCount":12030,"candidatesTokenCount":210,"thoughtsTokenCount":0,"cachedContentTokenCount":11800,"totalTokenCount":12240}}`,
		Keys:     [][]string{{"uuid", "sessionId", "usageMetadata"}, {"uuid", "sessionId", "type=tool_result"}, {"uuid", "sessionId", "type=system", "systemPayload"}},
		New:      func(p *Parser, o Options) Decoder { return newQwenDecoder(p, o.SourceName) },
		Home:     &Home{What: "Qwen Code projects", Env: "QWEN_DATA_DIR", Defaults: []string{".qwen"}, Sub: "projects"},
		Versions: "ChatRecord of QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts (2026); fixture field for field"},
	{Name: FormatClaudeCode, Summary: "Claude Code session transcripts and claude -p output (json, stream-json): responses with usage (the last record of each), Claude Code's own retries (api_error) and give-ups, its own total_cost_usd",
		Example: `{"type":"assistant","sessionId":"6a1f…","cwd":"/home/me/app","requestId":"req_011…","message":{"id":"msg_01…","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":4,"output_tokens":25,"cache_read_input_tokens":12000}},"timestamp":"2026-03-10T01:00:00.123Z"}`,
		Keys: [][]string{{"type", "sessionId"}, {"type", "leafUuid"}, {"type", "messageId", "snapshot"},
			// claude -p --output-format stream-json (and json --verbose, an
			// array of the same records; json alone is the result record)
			{"type", "session_id", "uuid"}, {"type", "session_id", "claude_code_version"}, {"type", "session_id", "total_cost_usd"}},
		New:      func(p *Parser, o Options) Decoder { return newClaudeDecoder(p, o.CostMode) },
		Home:     &Home{What: "Claude Code projects", Env: "CLAUDE_CONFIG_DIR", Defaults: []string{".claude", ".config/claude"}, Sub: "projects"},
		Versions: "Claude Code 2.1.4 and 2.1.38 transcripts, claude -p json and stream-json (../shared/realdata rounds 1–2, sample-logs/claude-code with ccusage 18.0.11)"},
	{Name: FormatCodex, Summary: "OpenAI Codex CLI session rollouts: a call per token_count whose running total moved, the model from turn_context",
		Example: `{"timestamp":"2026-02-23T12:19:52.689Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":34469,"cached_input_tokens":3456,"output_tokens":431,"reasoning_output_tokens":264,"total_tokens":34900},"last_token_usage":{…}}}}`,
		// The record types Codex writes: "type" alone is too common a key.
		Keys:     [][]string{{"timestamp", "type=session_meta|turn_context|event_msg|response_item|compacted", "payload"}},
		New:      func(p *Parser, o Options) Decoder { return newCodexDecoder(p, o.SourceName) },
		Home:     &Home{What: "Codex sessions", Env: "CODEX_HOME", Defaults: []string{".codex"}, Sub: "sessions"},
		Versions: "Codex CLI rollouts, cli_version 0.104.0-alpha.1 (../shared/realdata round 2)"},
	{Name: FormatCopilot, Summary: "GitHub Copilot CLI session events (~/.copilot/session-state/<id>/events.jsonl): a call per assistant.message (model, output), the input and cache of session.shutdown's modelMetrics added per model; a resumed session is the same file and job",
		Example:  `{"type":"assistant.message","data":{"messageId":"2a35…","model":"claude-sonnet-4.5","outputTokens":470,"interactionId":"6554…","turnId":"0","apiCallId":"chatcmpl-427"},"id":"d1f0…","timestamp":"2026-08-05T20:40:31.002Z","parentId":"9b7c…"}`,
		Keys:     [][]string{{"type", "data", "id", "timestamp", "parentId"}},
		Reads:    copilotReads,
		New:      func(p *Parser, o Options) Decoder { return newCopilotDecoder(p, o.SourceName) },
		Home:     &Home{What: "Copilot CLI sessions", Env: "COPILOT_HOME", Defaults: []string{".copilot"}, Sub: "session-state"},
		Versions: "1.0.78 (real sessions: WildChildForLife/lantern@0391e0df fixtures/copilot-home)"},
	{Name: FormatPi, Summary: "the Pi coding agent's sessions (~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl): a call per assistant message with usage, Pi's own cost.total kept beside ours, a fork's copied responses billed once",
		Example:  `{"type":"message","id":"a1b2c3d4","parentId":"9f8e7d6c","timestamp":"2025-12-08T22:41:09.120Z","message":{"role":"assistant","api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-5","usage":{"input":3,"output":412,"cacheRead":21080,"cacheWrite":1840,"totalTokens":23335,"cost":{"input":0.000015,"output":0.0103,"cacheRead":0.01054,"cacheWrite":0.0115,"total":0.032355}},"stopReason":"toolUse","timestamp":1765233669120}}`,
		Keys:     [][]string{{"type=session", "id", "timestamp", "cwd"}, {"type=message", "timestamp", "message"}, {"type=model_change", "provider", "modelId"}, {"type=thinking_level_change", "thinkingLevel"}},
		Reads:    piReads,
		New:      func(p *Parser, o Options) Decoder { return newPiDecoder(p, o.SourceName) },
		Home:     &Home{What: "Pi sessions", Env: "PI_CODING_AGENT_DIR", Defaults: []string{".pi/agent"}, Sub: "sessions"},
		Versions: "session v1, plain and branched (real sessions: badlogic/pi-mono@83378aad packages/coding-agent/test/fixtures); v2–v3 entries (id, parentId) read alike, no real file tried"},
	{Name: FormatContinue, Summary: "Continue's dev data (~/.continue/dev_data/<schema>/tokensGenerated.jsonl, schema 0.1.0 and 0.2.0): every line its own call (model, prompt and generated tokens), never one call retried; a day of calls is a job",
		Example:  `{"eventName":"tokensGenerated","schema":"0.2.0","createdAt":"2026-03-01T10:00:00.000Z","userId":"…","userAgent":"Visual Studio Code/1.97.2 (Continue/1.0.1)","selectedProfileId":"local","model":"claude-3-5-sonnet-latest","provider":"anthropic","promptTokens":1200,"generatedTokens":300}`,
		Keys:     [][]string{{"model", "provider", "promptTokens", "generatedTokens"}},
		Reads:    continueReads,
		New:      func(p *Parser, o Options) Decoder { return &continueDecoder{p: p, source: o.SourceName} },
		Versions: "schema 0.1.0 and 0.2.0 (continuedev/continue packages/config-yaml/src/schemas/data/tokensGenerated); fixture field for field"},
	{Name: FormatOpenCode, Summary: "OpenCode: its SQLite database (~/.local/share/opencode/opencode.db, OpenCode 1.2.0 on: the message and part rows' JSON), its storage before it (~/.local/share/opencode/storage: message/<session>/msg_*.json, session/*/ses_*.json) and opencode run --format json events: a call per assistant message or step_finish with its tokens (input with or without the cache, as the record says) and OpenCode's own cost kept beside ours; a subagent's session billed to its parent",
		Example: `{"type":"step_finish","timestamp":1767225601234,"sessionID":"ses_4f1a…","part":{"id":"prt_b3c1…","sessionID":"ses_4f1a…","messageID":"msg_b3c0…","type":"step-finish","reason":"tool-calls","cost":0.0123,"tokens":{"input":1022,"output":321,"reasoning":0,"cache":{"read":18240,"write":0}}}}`,
		Keys: [][]string{{"id", "sessionID", "role", "tokens"}, {"id", "sessionID", "role", "time"}, {"id", "projectID", "title", "time"}, {"id", "sessionID", "messageID", "type=retry|step-finish"},
			{"type", "timestamp", "sessionID", "part"}, {"type=error", "timestamp", "sessionID", "error"}, {"type=done", "timestamp", "sessionID"}},
		Reads:     opencodeReads,
		New:       func(p *Parser, _ Options) Decoder { return newOpenCodeDecoder(p) },
		Home:      &Home{What: "OpenCode storage (nor an opencode.db beside it)", Env: "OPENCODE_DATA_DIR", Defaults: []string{".local/share/opencode"}, Sub: "storage", Databases: []string{"opencode.db", "opencode-*.db"}},
		Documents: []FileRule{{Prefix: "msg_", Suffix: ".json"}, {Prefix: "ses_", Suffix: ".json"}, {Prefix: "prt_", Suffix: ".json"}, {Prefix: "opencode", Suffix: ".db"}},
		Rewritten: "an OpenCode storage message or database (opencode.db), which OpenCode rewrites in place while it streams: it cannot be followed line by line; read it with burnrate report --opencode, or follow opencode run --format json (burnrate opencode)",
		Versions:  "storage and run --format json of anomalyco/opencode packages/opencode (session getUsage before and after the cache fix; cli/cmd/run.ts); opencode.db of OpenCode 1.2.0 on (the session, message and part tables of migration 20260127222353 and session.sql.ts @063e8306, databases written by the SQLite driver in the tests, in WAL mode); fixtures field for field"},
	{Name: FormatAnthropicBatch, Summary: "Anthropic Message Batches results",
		Example: `{"custom_id":"req-1","result":{"type":"succeeded","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":9,"output_tokens":12}}}}`,
		Keys:    [][]string{{"custom_id", "result"}},
		New:     func(p *Parser, _ Options) Decoder { return &anthropicBatchDecoder{p: p} }},
	{Name: FormatOpenAIBatch, Summary: "OpenAI Batch API output file",
		Example: `{"custom_id":"req-1","response":{"status_code":200,"body":{"model":"gpt-4o-mini","usage":{"prompt_tokens":9,"completion_tokens":12}}},"error":null}`,
		Keys:    [][]string{{"custom_id", "response"}, {"custom_id", "error"}},
		New:     func(p *Parser, _ Options) Decoder { return &openAIBatchDecoder{p: p} }},
	{Name: FormatLiteLLM, Summary: "LiteLLM StandardLoggingPayload and SpendLogs rows",
		Example: `{"model":"gpt-4o","custom_llm_provider":"openai","response_cost":0.0021,"status":"failure","error_information":{"error_code":"429"},"startTime":1737710446.8}`,
		Keys:    [][]string{{"response_cost", "custom_llm_provider"}, {"request_id", "spend"}, {"response_cost", "startTime"}},
		New:     func(p *Parser, _ Options) Decoder { return &liteLLMDecoder{p: p} }},
	{Name: FormatCline, Summary: "Cline, Roo Code and Kilo Code task files (tasks/<id>/ui_messages.json): a call per api_req_started with its tokens and the cost the provider billed, an attempt per api_req_retried; a task is a job",
		Example:   `{"ts":1770577389904,"type":"say","say":"api_req_started","text":"{\"tokensIn\":10,\"tokensOut\":733,\"cacheWrites\":12954,\"cacheReads\":8096,\"cost\":0.1033855}","modelInfo":{"providerId":"anthropic","modelId":"claude-opus-4-6","mode":"act"}}`,
		Keys:      [][]string{{"ts", "type=say", "say"}, {"ts", "type=ask", "ask"}},
		New:       func(p *Parser, o Options) Decoder { return newClineDecoder(p, o) },
		Documents: []FileRule{{Prefix: "ui_messages", Suffix: ".json"}},
		Rewritten: "a Cline (Roo Code, Kilo Code) task file, which the extension rewrites whole on every message: it cannot be followed line by line; read it with burnrate report",
		Versions:  "Cline task files old (no modelInfo) and new (../shared/realdata round 3: three real tasks); Roo Code's api_req_retry_delayed retries (a fixture after Roo's Task.ts; Kilo Code writes Roo's format); Roo Code subtasks by their history_item.json (a fixture after Roo's history.ts at 1524d66 and TaskHistoryStore.ts at ab30708)"},
	{Name: FormatLangfuse, Summary: "Langfuse trace exports (the UI's download, GET /api/public/traces/{id}): a call per GENERATION with usage that wraps no other generation, tokens from usageDetails; a trace is a job",
		Example: `{"trace":{"id":"fee6…","name":"Agent workflow","observations":[…]},"observations":[{"id":"90d9…","type":"GENERATION","model":"gpt-4.1-2025-04-14","usageDetails":{"input":85,"output":29,"total":114},"parentObservationId":"d950…","startTime":"2025-09-30T09:04:01.001Z"}]}`,
		Keys:    [][]string{{"trace", "observations"}, {"id", "projectId", "observations"}},
		New:     func(p *Parser, _ Options) Decoder { return &langfuseDecoder{p: p} }},
	{Name: FormatJaeger, Summary: "Jaeger UI's Download JSON (and /api/traces): each trace read whole, its spans through the OTLP mapping",
		Example: `{"data":[{"traceID":"5eda…","spans":[{"spanID":"e504…","operationName":"ChatLiteLLM.chat","startTime":1782229343915009,"duration":7200834,"tags":[{"key":"gen_ai.usage.input_tokens","type":"int64","value":806},…]}],"processes":{…}}],"total":0,"limit":0,"offset":0,"errors":null}`,
		Keys:    [][]string{{"data", "total", "limit", "offset"}},
		New:     func(p *Parser, o Options) Decoder { return newSpanExportDecoder("jaeger", o, false, jaegerToOTLP) }},
	{Name: FormatOTelConsole, Summary: "the OpenTelemetry Python SDK's ConsoleSpanExporter (span.to_json(): pretty objects, status an object): each ended span through the OTLP mapping, a span printed twice read once",
		Example: `{"name":"chat gpt-oss-20b","context":{"trace_id":"0xe0c0…","span_id":"0xdf84…"},"kind":"SpanKind.CLIENT","parent_id":"0x1a2b…","start_time":"2026-03-01T20:47:18.711501Z","end_time":"2026-03-01T20:47:19.9Z","status":{"status_code":"UNSET"},"attributes":{"gen_ai.operation.name":"chat","gen_ai.usage.input_tokens":215,…}}`,
		Keys:    [][]string{{"name", "context", "parent_id", "start_time", "end_time", "attributes"}},
		New: func(p *Parser, o Options) Decoder {
			return newSpanExportDecoder("otel-console", o, true, otelConsoleToOTLP)
		}},
	{Name: FormatBedrockBatch, Summary: "Amazon Bedrock batch inference output (*.jsonl.out): a call per record at batch rates, an error record a failed attempt; the file is the batch job",
		Example:   `{"modelInput":{…},"modelOutput":{"id":"msg_bdrk_01…","model":"claude-3-haiku-20240307","usage":{"input_tokens":111,"output_tokens":73}},"recordId":"rec-0"}`,
		Keys:      [][]string{{"recordId", "modelOutput"}, {"recordId", "modelInput", "error"}},
		New:       func(p *Parser, o Options) Decoder { return newBedrockBatchDecoder(p, o.SourceName) },
		Documents: []FileRule{{Suffix: ".jsonl.out"}}},
	{Name: FormatPortkey, Summary: "Portkey gateway responses saved whole ({status, headers, body, responseTime}): one attempt each, Portkey's retry count as the gateway's attempts (-1, retries exhausted: the count dropped, the response kept)",
		Example: `{"status":429,"headers":{"date":"Fri, 29 Aug 2025 03:48:00 GMT","x-portkey-provider":"openai","x-portkey-retry-attempt-count":"-1","x-portkey-trace-id":"fe7c…"},"body":{"error":{"message":"…","type":"AI_APICallError"}},"responseTime":44363}`,
		Keys:    [][]string{{"status", "headers", "body", "responseTime"}},
		New:     func(p *Parser, _ Options) Decoder { return &portkeyDecoder{p: p} }},
	{Name: FormatAmp, Summary: "Amp threads (~/.local/share/amp/threads/T-<uuid>.json, one document each): a call per assistant message's usage (or per usageLedger event, with its message's cache), Amp's credits not taken for dollars; a thread is a job",
		Example: `{"id":"T-7f3a…","messages":[{"role":"assistant","messageId":3,"usage":{"model":"claude-haiku-4-5-20251001","inputTokens":10,"outputTokens":178,"cacheCreationInputTokens":986,"cacheReadInputTokens":11372,"totalInputTokens":12368,"timestamp":"2026-01-19T11:42:10.652Z"}}]}`,
		// The last keyed row but OTLP's (whose keys no other row's record
		// has): any other row's record with these keys is that row's.
		Keys:      [][]string{{"id", "messages"}},
		New:       func(p *Parser, _ Options) Decoder { return &ampDecoder{p: p} },
		Documents: []FileRule{{Dir: "threads", Prefix: "T-", Suffix: ".json"}},
		Rewritten: "an Amp thread, which Amp rewrites whole: it cannot be followed line by line; read it with burnrate report",
		Versions:  "thread shapes as ryoppippi/ccusage@5816e640 reads them (rust/crates/ccusage/src/adapter/amp: README, parser fixtures; Amp is closed source); fixture field for field"},
	{Name: FormatAider, Summary: "Aider chat histories (.aider.chat.history.md): a call per > Tokens: line with Aider's cost where it printed one, a failed attempt per > litellm.…Error line; the file is the job",
		Example:   `> Tokens: 7.8k sent, 971 received. Cost: $0.0014 message, $0.0014 session.`,
		New:       func(p *Parser, o Options) Decoder { return newAiderDecoder(p, o.SourceName) },
		Documents: []FileRule{{Suffix: ".aider.chat.history.md"}},
		Versions:  "Aider 0.8x chat history (../shared/realdata round 3)"},
	{Name: FormatAIRetry, Summary: "the Vercel AI SDK's RetryError as Node prints it (Failed after n attempts): one call, n failed attempts, the last with lastError's status, Retry-After and model",
		Example: `[Error [AI_RetryError]: Failed after 3 attempts. Last error: Rate limit exceeded. Please try again later.] {`,
		New:     func(p *Parser, o Options) Decoder { return newAIRetryDecoder(p, o.SourceName) }},
	{Name: FormatGeneric, Summary: "the safety net: a JSON record no format reads, holding a usage object (input/prompt, output/completion, cache, thinking tokens) beside a model, is one call marked generic (the report's hints say how many and at which JSON path); no model or no tokens, no call",
		Example: `{"event":"agent_step","response":{"model":"gpt-4.1-mini","usage":{"prompt_tokens":812,"completion_tokens":64,"prompt_tokens_details":{"cached_tokens":512}},"cost":0.000241}}`},
	{Name: FormatOTLPJSON, Summary: "OTLP/JSON traces or logs in a file: the Collector's file exporter (one request per line) or a pretty-printed request",
		Example: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"chat claude-sonnet-4-6","attributes":[…]}]}]}]}`,
		// Its keys make a followed exporter's file (and a line of it in a
		// mixed stream) read through the mapping; a file read whole is
		// sniffed as a document first (ingest/file).
		Keys: [][]string{{"resourceSpans"}, {"resourceLogs"}, {"resource_spans"}, {"resource_logs"}},
		New:  func(_ *Parser, o Options) Decoder { return NewOTLPRequestDecoder(o) }},
	{Name: FormatJSONDocument, Summary: "a JSON array of records, or pretty-printed objects (each record read as its own format)",
		Example: `[{"model":"gpt-4o","response_cost":0.0021,…}, …]`},
}

// keyed are the formats with keys of their own, in detection order.
var keyed = func() []*FormatInfo {
	var out []*FormatInfo
	for i := range Formats {
		if len(Formats[i].Keys) > 0 {
			out = append(out, &Formats[i])
		}
	}
	return out
}()

// RecordFormat reports a format of JSON records with keys of its own
// (LiteLLM, the batch results, the agents): a JSON document in it is read
// record by record, also when the format is forced.
func RecordFormat(f Format) bool {
	info := formatInfo(f)
	return info != nil && len(info.Keys) > 0
}

// formatInfo is f's row.
func formatInfo(f Format) *FormatInfo {
	for i := range Formats {
		if Formats[i].Name == f {
			return &Formats[i]
		}
	}
	return nil
}

// ParseZone reads a --timezone value: "" or UTC (nil: UTC), Local, an
// IANA name, or a fixed offset such as +09:00 or -0530.
func ParseZone(s string) (*time.Location, error) {
	switch s {
	case "", "UTC", "utc", "Z":
		return nil, nil
	case "Local", "local":
		return time.Local, nil
	}
	for _, layout := range []string{"-07:00", "-0700", "-07"} {
		if t, err := time.Parse(layout, s); err == nil {
			_, off := t.Zone()
			return time.FixedZone(s, off), nil
		}
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("%q is no zone: give an IANA name such as Europe/Berlin, Local, UTC or an offset such as +09:00", s)
	}
	return loc, nil
}

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return FormatAuto, nil
	}
	for _, f := range Formats {
		if string(f.Name) == s {
			return f.Name, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f.Name)
	}
	return "", fmt.Errorf("unknown format %q: use auto or one of %s (burnrate formats lists them)", s, strings.Join(names, ", "))
}

// Decoder turns one line into zero or more events. Decoders keep state
// across lines (SDK retry chains, the job a text line belongs to), so
// each source owns one.
type Decoder interface {
	// Decode calls emit for each event in line and returns Accepted or
	// why the line gave none. emit must copy what it keeps.
	Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason
}

// Options choose and tune a decoder.
type Options struct {
	Format Format
	// Maps are --map canonical=dotted.path rules for any JSON logger.
	Maps []FieldMap
	// CostMode chooses costUSD or tokens × prices for Claude Code transcripts.
	CostMode CostMode
	// SourceName is the path of the file being read, set per file by
	// whoever opens it: a Codex rollout's name carries its session ID,
	// which is all a follower that starts at the end has of it.
	SourceName string
	// Sidecar reads a file of the name given beside SourceName, at most
	// limit bytes (more is an error), set by whoever opens files: a Roo
	// Code task's history_item.json names the task it is a subtask of.
	// The name is the decoder's own, never the input's. Nil: none is read.
	Sidecar func(name string, limit int64) ([]byte, error)
	// OTLP makes the decoder for a file of OTLP/JSON export requests (the
	// Collector's file exporter), one per file: ingest/otlp's
	// NewFileDecoder, passed in by whoever opens files, so that a file and
	// a live export go through the same mapping while the decoders do not
	// import pdata. Nil: such a file's records are unknown events.
	OTLP func() OTLPDecoder
	// Zone is where a time written without a zone ("2026-05-30T11:30:35",
	// Python's isoformat()) is read; nil is UTC. Each such line is counted
	// (ingest.DropTimeNoZone).
	Zone *time.Location
	// Patterns are the user's line formats (--pattern, [[format]]),
	// compiled by CompilePattern, tried in order on every line that is not
	// JSON, before the built-in text formats.
	Patterns []*LinePattern
	// Now is a live reader's clock (Unix ns): set, Flush — called at each
	// batch it hands on — keeps an app's "calling model" announcement
	// held, as its answer line may come in a later batch, until it has
	// waited AnnounceHeldFor by this clock; math.MaxInt64 (the input's
	// end) lets everything go. Nil (a report, whose Flush is the input's
	// end): Flush lets everything go.
	Now func() int64
}

// AnnounceHeldFor is how long, live, an announced call waits for its
// answer line across batches before it is let go as a call of unknown
// status: longer than an SDK's call with its retries (10-minute timeouts
// are the SDKs' default) would be a call never shown; shorter, a slow
// call counts twice.
const AnnounceHeldFor = int64(15 * 60 * 1e9)

// OTLPDecoder maps one OTLP/JSON export request (traces or logs) to
// events; rejected counts items that looked like calls but could not be
// read. It keeps state across the requests of one file (the job each
// trace belongs to), so each file gets its own.
type OTLPDecoder func(raw []byte, emit func(*ingest.Event)) (rejected int64, err error)

// NewDecoder returns the decoder for a format (auto is decided by Detect).
// Every event it emits has passed Event.Check.
//
// Each record is then judged by its own shape (shape.go): a record the
// format's decoder reads as no event is read by the row whose keys it
// has, or as a canonical JSON line.
//
// A format forced (o.Format, by --input-format or the config) is read
// strictly: its decoder alone, as the user asked.
func NewDecoder(f Format, maps []FieldMap, o Options) Decoder {
	if o.Format != FormatAuto && o.Format != FormatJSONDocument {
		return newDecoder(f, maps, o, nil)
	}
	rows := newRowSet(o)
	d := newDecoder(f, maps, o, rows)
	if info := formatInfo(f); info != nil && info.New != nil {
		return newKeyedDecoder(d, f, rows)
	}
	if c, ok := d.(*checked); ok {
		if jd, ok := c.inner.(*jsonlDecoder); ok {
			jd.flushRows = true
		}
	}
	return d
}

// newDecoder is one format's own decoder, whose records of other shapes
// go to rows.
func newDecoder(f Format, maps []FieldMap, o Options, rows *rowSet) Decoder {
	p := NewParserFor(o)
	if info := formatInfo(f); info != nil && info.New != nil {
		return newChecked(info.New(p, o))
	}
	d := &jsonlDecoder{p: p, text: newSDKText(p), rows: rows, jsonOnly: o.Format == FormatJSONL, now: o.Now}
	// Detected from text lines in the file's head: other text lines are
	// the application's own.
	d.text.sawSDK = isTextFormat(f)
	d.text.holdHTTP = f == FormatLiteLLMText
	d.text.patterns = newPatternStates(o.Patterns)
	if len(maps) > 0 {
		d.maps = maps
	}
	return newChecked(d)
}

// checked holds a decoder's events to Event.Check. A line whose every event
// fails is skipped for the first failure's reason.
type checked struct {
	inner   Decoder
	emit    func(*ingest.Event)
	emitFn  func(*ingest.Event) // c.check bound once: a closure per line would allocate
	passed  int
	refused ingest.SkipReason
}

func newChecked(d Decoder) *checked {
	c := &checked{inner: d}
	c.emitFn = c.check
	return c
}

func (c *checked) check(e *ingest.Event) {
	if r := e.Check(); r != ingest.Accepted {
		if c.refused == ingest.Accepted {
			c.refused = r
		}
		return
	}
	c.passed++
	c.emit(e)
}

func (c *checked) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	c.emit, c.passed, c.refused = emit, 0, ingest.Accepted
	r := c.inner.Decode(line, c.emitFn)
	c.emit = nil
	if r == ingest.Accepted && c.passed == 0 && c.refused != ingest.Accepted {
		return c.refused
	}
	return r
}

// Flush emits what the decoder held back for the line after (see Flusher).
func (c *checked) Flush(emit func(*ingest.Event)) int {
	f, ok := c.inner.(Flusher)
	if !ok {
		return 0
	}
	c.emit, c.passed, c.refused = emit, 0, ingest.Accepted
	f.Flush(c.emitFn)
	c.emit = nil
	return c.passed
}

// Flusher is a decoder that may hold an event back until the line after
// it (an httpx response whose model the next line names): whoever reads
// calls Flush at the end of the input, and a live reader also when it
// hands a batch on, so that nothing stays held. It returns how many
// events it emitted.
type Flusher interface {
	Flush(emit func(*ingest.Event)) int
}

func (c *checked) Hint(events int64) string {
	if h, ok := c.inner.(Hinter); ok {
		return h.Hint(events)
	}
	return ""
}

// looksLike names what a line that is not JSON seems to be, for the hint.
func looksLike(line []byte) string {
	s := strings.TrimSpace(string(line))
	switch {
	case s == "":
		return "blank lines"
	case strings.HasPrefix(s, "---") || (strings.Contains(s, ": ") && !strings.ContainsAny(s[:strings.Index(s, ": ")], " {[\"")):
		return "YAML"
	case strings.Count(s, ",") >= 2 && !strings.ContainsAny(s, "{}"):
		return "CSV (comma-separated values)"
	case strings.Count(s, "\t") >= 2:
		return "TSV (tab-separated values)"
	case strings.HasPrefix(s, "<"):
		return "XML or HTML"
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return "JSON cut off or broken (the first such line begins " + strconv.Quote(s[:min(len(s), 40)]) + ")"
	}
	return "plain text (the first such line begins " + strconv.Quote(s[:min(len(s), 40)]) + ")"
}

// looksLikeJSON reports a line that is JSON cut off or broken, not text:
// it starts like JSON and reads as JSON for a while ("[2026-03-10 …]" and
// "[log_c0cd86, …]" fail within a few bytes; a cut-off record at its end).
func looksLikeJSON(line []byte) bool {
	b := bytes.TrimSpace(line)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return false
	}
	var raw json.RawMessage
	err := json.Unmarshal(b, &raw)
	var se *json.SyntaxError
	if err == nil || !errors.As(err, &se) {
		return true
	}
	return se.Offset >= int64(min(len(b), 24))
}

// isTextFormat: formats read line by line as text, beside JSON lines.
func isTextFormat(f Format) bool {
	return f == FormatSDKText || f == FormatLiteLLMText || f == FormatRetryText || f == FormatPattern || f == FormatAider || f == FormatAIRetry
}

// jsonlDecoder reads canonical JSON lines; lines that are not JSON get a
// second look as SDK retry lines. That second look costs nothing on the
// JSON hot path.
type jsonlDecoder struct {
	p    *Parser
	text *sdkText
	maps []FieldMap
	ev   ingest.Event
	// hint bookkeeping for --map: JSON objects that mapped to nothing.
	jsonNoEvent int
	// inDocument is set while the records of a document's array are read
	// one by one (documentRecords): they are not documents themselves.
	inDocument bool
	// docRecords counts the records read so, docSkipped those of them
	// that were no event, for the hint.
	docRecords, docSkipped int64
	keys                   map[string]int    // key path → lines that had it
	scalars                map[string]string // the paths whose value was a string or a number → their key
	// and for files that are not JSON at all: the first such line.
	notJSON  int
	firstBad []byte
	// lines no user pattern (nor built-in text format) matched: the first.
	unmatched      int
	firstUnmatched []byte
	// held are assumptions declared before any line had a time (seed
	// 003's line opens a run's log): they take the time of the next
	// event, so that merged with other files by time they stay at the
	// top of their own run, not at the start of time.
	held      []ingest.Event
	outer     func(*ingest.Event)
	releaseFn func(*ingest.Event)
	// routerRetries is the last x-litellm-max-retries observed (-1 none
	// yet, since it is emitted when it changes, not on every response).
	routerRetries int64
	routerSeen    bool
	// rows read the records of other formats' shapes (shape.go);
	// flushRows: this decoder is the stream's own, which flushes them.
	rows      *rowSet
	flushRows bool
	// generic reads what no format does: a usage object beside a model
	// (generic.go); gev is its event.
	generic genericStats
	gev     ingest.Event
	// jsonOnly: --input-format jsonl. Only JSON records are calls: SDK
	// and other text lines are recognized (so they are the SDK's, not
	// broken JSON) and skipped as text, never counted.
	jsonOnly bool
	discard  func(*ingest.Event)
	// announced are the app's "calling model" lines (Parser.announce)
	// waiting, one per job, for the job's next record: a call record (the
	// app's "model call ok"/"model call failed", or the SDK's attempt
	// lines) is that call, so the announcement is dropped, not counted
	// beside it; anything else of the job, another announcement of it,
	// too many waiting, or the input's end lets it go as a call of
	// unknown status (the app made a call and logged no answer).
	announced announceQueue
	// released: jobs whose announcement the bound let go before its
	// answer (announced.go); releasedN counts those, mergedN the answers
	// that completed such a call, unsureN those let go that could not be
	// remembered (their answer, if any, counted as a second call).
	released                    releasedJobs
	releasedN, mergedN, unsureN int64
	// packed: announcements past the bound of announced, kept packed
	// until their answer (announced.go); packedN counts those, pairedN
	// the answers that completed one. unpacked is the event taken out.
	packed           packedQueue
	packedN, pairedN int64
	unpacked         ingest.Event
	// announcedSeen: when (Options.Now) a live Flush first kept each held
	// announcement, by job (a job has at most one held).
	announcedSeen map[string]int64
	now           func() int64
	// stopping: the reader is stopping (InFlight): what the last Flush
	// lets go of announced is marked Held.
	stopping bool
	// sdkAnswered are the jobs whose announcement the SDK's text lines
	// answered without a request ID (Python's "HTTP Request: …" lines):
	// the app's own record of that call, after them, is the SDK's last
	// attempt as the app saw it — its usage, not another call.
	sdkAnswered map[string]bool
	// sdkLast: the SDK's answered calls no app line has claimed (sdklast.go).
	sdkLast sdkCalls
	// resp: provider response objects naming no job, held for the app's
	// line of the same call (respcopy.go).
	resp responseCopies
	// summaries counts the jobs' summary lines read as their end, not a
	// call (R8-37).
	summaries int64
	pairFn    func(*ingest.Event)
	pairOuter func(*ingest.Event)
	// claimFn lets a JSON line claim a held Python attempt (pyClaim).
	claimFn    func(*ingest.Event)
	claimOuter func(*ingest.Event)
}

// pair is the emit every event of this decoder goes through (Decode,
// Flush): it holds an announcement and settles the held ones.
func (d *jsonlDecoder) pair(ev *ingest.Event) {
	if ev == &d.ev && d.p.announce {
		delete(d.sdkAnswered, ev.JobID)
		d.sdkLast.forget(ev.JobID)
		d.releaseAnnounced(ev.JobID)
		d.released.take(ev.JobID) // a new call of the job: the old one had no answer
		for d.announced.full(ev) {
			// Too many waiting in full: the oldest is kept packed, its
			// answer the call as if it had waited here.
			d.pack(d.announced.oldest(), true)
		}
		d.announced.push(*ev)
		return
	}
	if ev != &d.ev && ev.Kind == ingest.KindLLMCall && ev.ResponseID != "" && ev.JobID != "" && ev.Status >= 200 && ev.Status < 600 {
		// An SDK line's attempt that got an answer: the app's own line of
		// its call may follow without its request ID.
		d.sdkLast.note(ev.JobID, ev.IdempotencyKey, ev.ResponseID, ev.Model, d.text.lines)
		d.text.markCalled(ev.JobID)
	}
	if ev.JobID == "" || d.announced.len() == 0 && len(d.sdkAnswered) == 0 && d.sdkLast.len() == 0 && d.released.len() == 0 && d.packed.len() == 0 {
		d.pairOuter(ev)
		return
	}
	switch ev.Kind {
	case ingest.KindLLMCall:
		if ev == &d.ev && d.sdkAnswered[ev.JobID] {
			delete(d.sdkAnswered, ev.JobID)
			ev.Kind, ev.ResponseID = ingest.KindUsageGrowth, ""
			break
		}
		if ev != &d.ev && ev.ResponseID != "" {
			// An attempt the SDK's lines name by request ID (a retry
			// after a timeout): the app's line meets it by that ID.
			delete(d.sdkAnswered, ev.JobID)
		}
		if ev == &d.ev && ev.ResponseID == "" {
			if id, ok := d.sdkLast.claim(ev.JobID, ev.Model, ev.OutputTokens, d.text.lines); ok {
				ev.ResponseID = id // the SDK's last attempt of this call: counted once
			}
		} else if ev == &d.ev {
			d.sdkLast.forgetID(ev.JobID, ev.ResponseID)
		}
		// The call the announcement said was coming: what the answer's
		// record left out (the model, the app's attempt number) the
		// announcement said.
		packed := d.packed.len()
		a := d.dropAnnounced(ev.JobID)
		if d.packed.len() < packed {
			d.pairedN++
		}
		if a == nil && d.released.take(ev.JobID) {
			if ev == &d.ev {
				// The answer of an announcement let go (counted) as a
				// call: its usage, not a second call.
				d.mergedN++
				ev.Kind, ev.ResponseID = ingest.KindUsageGrowth, ""
				break
			}
			// An SDK's attempt line: it may be one of several (retries),
			// so it counts; the let-go call may be counted twice.
			d.unsureN++
		}
		if a != nil && ev.QueueAttempt == 0 {
			// The queue's attempt the app's line named (queue_attempt,
			// attemptsMade): the SDK's lines never say it.
			ev.QueueAttempt = a.QueueAttempt
		}
		if a != nil && ev != &d.ev && ev.ResponseID == "" {
			if d.sdkAnswered == nil || len(d.sdkAnswered) >= maxAnnounced {
				d.sdkAnswered = map[string]bool{}
			}
			d.sdkAnswered[ev.JobID] = true
		}
		if a != nil && (ev == &d.ev || ev.ResponseID != "") {
			if ev.Model == "" {
				ev.Model = a.Model
			}
			if ev.Provider == "" {
				ev.Provider = a.Provider
			}
			if ev.Attempt == 0 && a.Attempt > 0 {
				ev.Attempt, ev.AttemptBy = a.Attempt, a.AttemptBy
			}
		}
	case ingest.KindUsageGrowth:
		if ev != &d.ev && ev.ResponseID != "" && !ev.UsageUnseen {
			d.sdkLast.usage(ev.JobID, ev.ResponseID, ev.OutputTokens)
		}
	case ingest.KindAssumption:
	default:
		delete(d.sdkAnswered, ev.JobID)
		d.sdkLast.forget(ev.JobID)
		d.released.take(ev.JobID)
		d.releaseAnnounced(ev.JobID)
	}
	d.pairOuter(ev)
}

func (d *jsonlDecoder) dropAnnounced(job string) *ingest.Event {
	a, ok := d.announced.take(job)
	if !ok {
		if r, ok := d.packed.take(job); ok {
			unpackCall(r.b, &d.unpacked)
			return &d.unpacked
		}
		return nil
	}
	delete(d.announcedSeen, job)
	return &a
}

// releaseAnnounced emits job's held announcement, if any, as a call.
func (d *jsonlDecoder) releaseAnnounced(job string) {
	if ev, ok := d.announced.take(job); ok {
		delete(d.announcedSeen, job)
		d.pairOuter(&ev)
		return
	}
	if r, ok := d.packed.take(job); ok {
		unpackCall(r.b, &d.unpacked)
		d.pairOuter(&d.unpacked)
	}
}

// pack moves job's announcement, held in full, to the packed ones, with
// the time a live Flush first kept it (its copy for the spool is made).
// Past the packed ones' bound the oldest of them goes as a call of
// unknown outcome (emit: else, in Hold, the engine settles it), and its
// job is remembered so that its answer completes it as usage.
func (d *jsonlDecoder) pack(job string, emit bool) {
	a, ok := d.announced.take(job)
	if !ok {
		return
	}
	seen := d.announcedSeen[job]
	delete(d.announcedSeen, job)
	b := packCall(nil, &a)
	for d.packed.full(a.JobID, len(b)) {
		r, _ := d.packed.take(d.packed.recs[d.packed.oldest()].job)
		if !emit {
			continue
		}
		d.releasedN++
		if !d.released.add(r.job) {
			d.unsureN++
		}
		unpackCall(r.b, &d.unpacked)
		d.pairOuter(&d.unpacked)
	}
	d.packedN++
	d.packed.push(a.JobID, b, seen)
}

// observeRouter emits the LiteLLM Router's configured retries, read from
// the call line's x-litellm-max-retries, as an observed assumption
// (litellm-router.numRetries, after the Router's num_retries) when it
// first shows or changes: one event per change, not per response.
func (d *jsonlDecoder) observeRouter(emit func(*ingest.Event)) {
	n := d.p.routerRetries
	if n < 0 || (d.routerSeen && n == d.routerRetries) {
		return
	}
	d.routerRetries, d.routerSeen = n, true
	var ev ingest.Event
	ev.Reset()
	ev.Kind, ev.TS, ev.TSCarried = ingest.KindAssumption, d.ev.TS, d.ev.TSCarried
	ev.SetAssumption(ingest.AssumptionFromObserved+"x-litellm-max-retries", "litellm-router.numRetries", strconv.FormatInt(n, 10))
	emit(&ev)
}

// holdOrEmit emits an assumption, or holds it while it has no time.
func (d *jsonlDecoder) holdOrEmit(emit func(*ingest.Event), ev *ingest.Event) {
	if ev.TS == 0 && len(d.held) < 4*ingest.MaxAssumptionsPerRecord {
		d.held = append(d.held, *ev)
		return
	}
	emit(ev)
}

// release emits the held assumptions at the time of ev, the first event
// with one, then ev.
func (d *jsonlDecoder) release(ev *ingest.Event) {
	if ev.TS != 0 && ev.Kind != ingest.KindAssumption {
		d.releaseAt(ev.TS, d.outer)
	}
	d.outer(ev)
}

func (d *jsonlDecoder) releaseAt(ts int64, emit func(*ingest.Event)) {
	for i := range d.held {
		d.held[i].TS, d.held[i].TSCarried = ts, ts == 0
		emit(&d.held[i])
	}
	d.held = d.held[:0]
}

// Flush emits an httpx response held for the router line after it, and
// assumptions held for a time no line gave.
func (d *jsonlDecoder) Flush(emit func(*ingest.Event)) int {
	if d.pairFn == nil {
		d.pairFn = d.pair
	}
	d.pairOuter = emit
	n := len(d.held)
	d.releaseAt(0, d.pairFn)
	n += d.resp.release(len(d.resp.held), d.pairFn)
	n += d.text.flush(d.pairFn) + d.text.flushNode(d.pairFn)
	if d.now == nil || d.now() == math.MaxInt64 {
		// The input's end (live, a batch is not: their SDK lines come).
		n += d.text.flushPyHttpx(d.pairFn)
	}
	if d.flushRows {
		n += d.rows.flush(d.pairFn)
	}
	n += d.flushAnnounced()
	d.pairOuter = nil
	return n
}

// flushAnnounced lets go the announcements no record answered: all of
// them at the input's end, live (d.now) those that have waited
// AnnounceHeldFor — the answer of a call in flight comes in a later batch,
// and letting its announcement go first counted the call twice.
func (d *jsonlDecoder) flushAnnounced() int {
	now := int64(math.MaxInt64)
	if d.now != nil {
		now = d.now()
	}
	n := d.flushPacked(now)
	if d.announced.len() == 0 {
		return n
	}
	for _, job := range d.announced.jobs() {
		if now != math.MaxInt64 {
			seen, ok := d.announcedSeen[job]
			if !ok {
				if d.announcedSeen == nil {
					d.announcedSeen = map[string]int64{}
				}
				d.announcedSeen[job], seen = now, now
				// Kept past a batch: a copy marked Held goes on, for the
				// spool to keep (a restart, even by SIGKILL, must know the
				// call is in flight) and the engine to hold, not count
				// (ingest.Event.Held). Only here, not as it is read: a
				// call answered within its batch (a history caught up on)
				// costs the spool nothing.
				h := *d.announced.at(job)
				h.Held = true
				d.pairOuter(&h)
			}
			if now < seen {
				// The clock went back: it waits its time from now.
				d.announcedSeen[job], seen = now, now
			}
			if now-seen < AnnounceHeldFor {
				continue
			}
		}
		if d.stopping {
			d.announced.at(job).Held = true
		}
		d.releaseAnnounced(job)
		n++
	}
	return n
}

// flushPacked is flushAnnounced for the packed announcements, the oldest
// first: a copy marked Held of each one no live Flush kept yet (it was
// packed within one batch), and the call of each that has waited
// AnnounceHeldFor. They were packed in the order they were read, so the
// wait stops at the first that has not waited its time (one whose clock
// went back waits behind it a little longer).
func (d *jsonlDecoder) flushPacked(now int64) int {
	q := &d.packed
	if q.len() == 0 {
		return 0
	}
	if now != math.MaxInt64 {
		if now < q.latest {
			// The clock went back: each waits its time from now, as a
			// held one does (rare: one pass over them).
			for i := q.head; i < len(q.recs); i++ {
				q.recs[i].seen = min(q.recs[i].seen, now)
			}
		}
		q.latest = now
		for ; q.fresh < len(q.recs); q.fresh++ {
			if r := &q.recs[q.fresh]; q.live(q.fresh) && r.seen == 0 {
				r.seen = now
				unpackCall(r.b, &d.unpacked)
				d.unpacked.Held = true
				d.pairOuter(&d.unpacked)
			}
		}
	}
	n := 0
	for i := q.oldest(); i >= 0; i = q.oldest() {
		r := &q.recs[i]
		if now != math.MaxInt64 && now-r.seen < AnnounceHeldFor {
			break
		}
		rec, _ := q.take(r.job)
		unpackCall(rec.b, &d.unpacked)
		d.unpacked.Held = d.stopping
		d.pairOuter(&d.unpacked)
		n++
	}
	return n
}

func (d *jsonlDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if d.pairFn == nil {
		d.pairFn = d.pair
	}
	d.pairOuter = emit
	r := d.decodeReleased(line, d.pairFn)
	d.pairOuter = nil
	return r
}

func (d *jsonlDecoder) decodeReleased(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if len(d.held) == 0 {
		return d.decodeHeld(line, emit)
	}
	if d.releaseFn == nil {
		d.releaseFn = d.release
	}
	d.outer = emit
	r := d.decodeHeld(line, d.releaseFn)
	d.outer = nil
	return r
}

func (d *jsonlDecoder) decodeHeld(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if d.text.hasHeld && d.text.pyHeld && d.text.held.ResponseID != "" && looksLikeJSONStart(line) {
		// A Python attempt whose request ID this line may name (pyClaim).
		if d.claimFn == nil {
			d.claimFn = func(ev *ingest.Event) { d.text.pyClaim(ev, d.claimOuter) }
		}
		d.claimOuter = emit
		r := d.decode(line, d.claimFn)
		d.claimOuter = nil
		d.text.flush(emit)
		if r == ingest.SkipBlank {
			return ingest.Accepted
		}
		return r
	}
	if d.text.hasHeld && looksLikeJSONStart(line) {
		// The held response comes before this JSON line's event; the
		// line's own outcome is then counted as it is.
		d.text.flush(emit)
		if r := d.decode(line, emit); r != ingest.SkipBlank {
			return r
		}
		return ingest.Accepted
	}
	return d.decode(line, emit)
}

func looksLikeJSONStart(line []byte) bool {
	b := bytes.TrimLeft(line, " \t\r")
	return len(b) > 0 && b[0] == '{'
}

func (d *jsonlDecoder) decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if len(line) > MaxLineBytes && d.rows != nil && IsRequestLine(line) {
		// An export request over the line cap, passed by a follower (up
		// to MaxRequestLineBytes): only the OTLP mapping reads it.
		if od := d.rows.row(FormatOTLPJSON); od != nil {
			return od.Decode(line, emit)
		}
	}
	src := line
	if d.maps != nil {
		var ok bool
		if src, ok = applyMaps(line, d.maps); !ok {
			src = line
		}
	}
	r := d.p.ParseLine(src, &d.ev)
	switch r {
	case ingest.Accepted:
		if d.ev.Kind == ingest.KindAssumption { // {"event":"assumption", …}
			d.text.noteJSON(&d.ev) // it still names the job for the SDK lines after it
			if n := d.p.assumptionRecord(src, &d.ev, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }); n > 0 {
				return ingest.Accepted
			}
			return ingest.SkipNoEvent
		}
		if len(d.text.nodeHeld) > 0 {
			d.text.claimNode(&d.ev, emit) // the SDK's lines of this call come first
			d.text.expireNode(d.ev.TS, d.ev.TS > 0 && !d.ev.TSCarried, emit)
		}
		if e := &d.ev; e.Kind == ingest.KindLLMCall && !e.HasCost &&
			e.InputTokens == 0 && e.OutputTokens == 0 && e.CacheReadTokens == 0 && e.CacheCreateTokens == 0 {
			// A call the canonical fields named without its usage, or its
			// model ({"event":"llm_call","response":{"model":…,"usage":…}},
			// {"model":…,"response":{"usage":…}}): the generic reader
			// finds them where they are. A line with usage is an answer,
			// never an announcement waiting for one (issue 35: a "call
			// ok" line was held as one and its job marked failed).
			if d.generic.fill(d.p, e, &d.gev, src) {
				d.p.announce = false
				if e.Status == ingest.StatusUnknown && e.ErrorType == "" && !e.StreamDropped {
					e.Status = 200 // usage came back: answered, as the generic reader's own calls
				}
			}
		}
		if k := d.p.summary; k != ingest.KindUnknown && d.text.hadCall(d.ev.JobID) {
			// The job's summary, its calls already read: its end, never
			// one more call at the sum of their tokens (R8-37: 79 calls
			// and $0.576 for the wire's 66 and $0.327, 13 jobs killed). Before any claim of an SDK
			// chain: the totals are no one call's usage (R8b-4).
			d.summaries++
			end := ingest.Event{Kind: k, TS: d.ev.TS, TSCarried: d.ev.TSCarried, JobID: d.ev.JobID, JobType: d.ev.JobType,
				RunID: d.ev.RunID, CorrelationID: d.ev.CorrelationID, Source: d.ev.Source}
			d.text.noteJSON(&end)
			emit(&end)
			return ingest.Accepted
		}
		if len(d.text.nodeHeld) > 0 && !d.p.announce && d.ev.JobID != "" {
			switch d.ev.Kind {
			case ingest.KindLLMCall:
				d.text.claimNodeAnswer(&d.ev, d.announced.len()+d.packed.len(), emit) // the app's record of a call the SDK's lines hold
			case ingest.KindJobFailed, ingest.KindJobDeadLettered:
				if d.announced.at(d.ev.JobID) != nil {
					d.text.claimNodeFailure(&d.ev, d.announced.len()+d.packed.len(), emit)
				}
			}
		}
		d.resp.lines++
		if d.ev.Kind == ingest.KindLLMCall && d.ev.JobID == "" && !d.p.announce && providerResponse.Match(src) {
			// A provider's response object beside the app's line of the
			// same call (respcopy.go): held until that line comes.
			d.resp.expire(emit)
			d.resp.hold(&d.ev, emit)
			return ingest.Accepted
		}
		if len(d.resp.held) > 0 {
			d.resp.expire(emit)
			if d.ev.Kind == ingest.KindLLMCall && d.ev.JobID != "" && !d.p.announce {
				if r, ok := d.resp.take(&d.ev); ok {
					d.text.noteJSON(&d.ev)
					d.observeRouter(emit)
					emit(&d.ev)
					if g, ok := responseGrowth(&d.ev, &r); ok {
						emit(&g)
					}
					return ingest.Accepted
				}
			}
		}
		d.text.noteJSON(&d.ev)
		d.observeRouter(emit)
		ends := d.p.ends
		emit(&d.ev)
		if ends != ingest.KindUnknown {
			end := ingest.Event{Kind: ends, TS: d.ev.TS, TSCarried: d.ev.TSCarried, JobID: d.ev.JobID, JobType: d.ev.JobType,
				RunID: d.ev.RunID, CorrelationID: d.ev.CorrelationID, Source: d.ev.Source}
			emit(&end)
		}
	case ingest.SkipInvalidJSON:
		// A call line stays a call: the text decoders first, and only a
		// line none of them reads may be seed 003's declaration (a pattern
		// line with "note=[assumptions] {}" in it was taken for one, and
		// its call dropped from the spend).
		if d.jsonOnly {
			if d.discard == nil {
				d.discard = func(*ingest.Event) {}
			}
			n := d.text.decode(line, d.discard)
			clear(d.text.nodeHeld)
			d.text.nodeHeld, d.text.hasHeld = d.text.nodeHeld[:0], false // nothing of it is emitted later either
			if n != 0 || d.text.sawSDK && !looksLikeJSON(line) {
				return ingest.SkipText
			}
			d.notJSON++
			if d.firstBad == nil {
				d.firstBad = bytes.Clone(line[:min(len(line), 200)])
			}
			return ingest.SkipInvalidJSON
		}
		switch n := d.text.decode(line, emit); {
		case n > 0:
			return ingest.Accepted
		case n == -2:
			return ingest.SkipWrongType // a user pattern matched, a value did not read
		case n < 0:
			return ingest.SkipInfo
		}
		if n := d.text.assumptionLine(line, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }); n != 0 {
			if n < 0 {
				return ingest.SkipInvalidJSON // "[assumptions]" then no object that reads
			}
			return ingest.Accepted
		}
		if len(d.text.patterns) > 0 && !looksLikeJSON(line) {
			d.unmatched++
			if d.firstUnmatched == nil {
				d.firstUnmatched = bytes.Clone(line[:min(len(line), 200)])
			}
			return ingest.SkipUnmatched
		}
		if d.text.sawSDK && !looksLikeJSON(line) {
			return ingest.SkipText // the application's own text between SDK lines
		}
		d.notJSON++
		if d.firstBad == nil {
			d.firstBad = bytes.Clone(line[:min(len(line), 200)])
		}
	case ingest.SkipNoEvent, ingest.SkipUnknownEvent:
		// Not an event, but it still sets the job and model for the SDK
		// lines after it (an app's own "processing record 17" JSON line, a
		// declaration record or message).
		d.text.noteJSON(&d.ev)
		if r == ingest.SkipUnknownEvent && string(d.p.evName) == "assumptions" {
			if n := d.p.assumptionRecord(src, &d.ev, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }); n > 0 {
				return ingest.Accepted
			}
			return ingest.SkipNoEvent // an assumptions record declaring nothing
		}
		if r == ingest.SkipNoEvent {
			switch n := d.p.assumptionMessage(src, &d.ev, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }); {
			case n > 0:
				return ingest.Accepted
			case n < 0:
				return ingest.SkipInvalidJSON // "[assumptions]" then no object that reads
			}
		}
		d.resp.lines++
		if len(d.resp.held) > 0 {
			d.resp.expire(emit)
		}
		if providerResponse.Match(src) {
			// A provider's response object: one that names no job is held
			// for the app's line of the same call (respcopy.go).
			outer := emit
			emit = func(ev *ingest.Event) {
				if ev.Kind == ingest.KindLLMCall && ev.JobID == "" {
					d.resp.hold(ev, outer)
					return
				}
				outer(ev)
			}
		}
		if d.rows != nil {
			// A record of another row's shape (a Claude Code record, a
			// LiteLLM payload in an app's stream): that row reads it.
			if r2, ok := d.rows.otherRow(line, emit); ok {
				return r2
			}
		}
		if !d.inDocument {
			if recs := documentRecords(line); recs != nil {
				// An API export ({"data":[…records…],"meta":{…}}): read
				// record by record, as the same records one per line are
				// (red team R7-20: it was read as its first record with
				// usage, a quarter of the spend, exit 0).
				d.inDocument = true
				noEvent := d.jsonNoEvent
				var read int64
				for _, rec := range recs {
					if d.decode(rec, emit) == ingest.Accepted {
						read++
					}
				}
				d.inDocument = false
				if read > 0 {
					d.docRecords += int64(len(recs))
					d.docSkipped += int64(len(recs)) - read
					return ingest.Accepted
				}
				// No record of it read: the document is read whole, as
				// before (a call whose messages are an array), and counted
				// once.
				d.jsonNoEvent = noEvent
			}
		}
		if d.generic.read(d.p, &d.ev, &d.gev, line, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }) {
			return ingest.Accepted // the safety net: a usage object beside a model
		}
		if d.generic.readError(d.p, &d.ev, &d.gev, line, func(ev *ingest.Event) { d.holdOrEmit(emit, ev) }) {
			return ingest.Accepted // and its failed calls: an errorCode beside a model
		}
		d.jsonNoEvent++
		if d.jsonNoEvent <= maxKeyedLines {
			d.countKeys(line)
		}
	}
	return r
}

// documentRecords returns the records of a JSON document whose top level
// is no call (it names no model) and holds an array of two or more
// objects — the first such array, by key — each as its own JSON text;
// nil for any other record. Decoded as raw bytes, not maps: a document
// may be the 64 MiB record cap.
func documentRecords(line []byte) [][]byte {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' || !arrayOfObjects(line) {
		return nil
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(line, &root) != nil {
		return nil
	}
	for _, k := range genericModelKeys {
		if _, ok := root[k]; ok {
			return nil // a call's own record, its messages an array
		}
	}
	keys := make([]string, 0, len(root))
	for k, v := range root {
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '[' {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		var arr []json.RawMessage
		if json.Unmarshal(root[k], &arr) != nil {
			continue
		}
		recs := make([][]byte, 0, len(arr))
		for _, e := range arr {
			if e = bytes.TrimSpace(e); len(e) > 0 && e[0] == '{' {
				recs = append(recs, e)
			}
		}
		if len(recs) >= 2 {
			return recs
		}
	}
	return nil
}

// arrayOfObjects is documentRecords' cheap test: a [ followed, after
// white space, by a {.
func arrayOfObjects(b []byte) bool {
	for i := bytes.IndexByte(b, '['); i >= 0; {
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j < len(b) && b[j] == '{' {
			return true
		}
		k := bytes.IndexByte(b[j:], '[')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// Hint explains a file of JSON whose lines map to no call.
func (d *jsonlDecoder) Hint(events int64) string {
	g, rest := d.generic.hint(), d.hint(events)
	if d.docRecords > 0 {
		doc := fmt.Sprintf("%d record(s) of a JSON document's array read one by one, as lines are; %d of them no call", d.docRecords, d.docSkipped)
		rest = strings.TrimPrefix(rest+"; "+doc, "; ")
	}
	if h := d.heldHint(); h != "" {
		rest = strings.TrimPrefix(rest+"; "+h, "; ")
	}
	switch {
	case g == "":
		return rest
	case rest == "":
		return g
	}
	return g + "; " + rest
}

// heldHint says what the bound of announcements waiting did (F8).
func (d *jsonlDecoder) heldHint() string {
	if d.packedN == 0 && d.releasedN == 0 {
		return ""
	}
	h := fmt.Sprintf("%d announced call(s) (\"calling model\") waited past the bound of %d held in full and were kept packed; %d answer(s) completed them as any answer does (its outcome and usage)",
		d.packedN, maxAnnounced, d.pairedN)
	if d.releasedN > 0 {
		h += fmt.Sprintf("; %d waited past the bound of %d packed too and were counted as calls of unknown outcome; %d answer(s) that came later completed them (usage, not another attempt: those calls stay of unknown outcome)",
			d.releasedN, maxPacked, d.mergedN)
	}
	if d.unsureN > 0 {
		h += fmt.Sprintf("; %d may be counted twice (too many to remember, or answered by SDK attempt lines): those jobs' attempt counts may be high by up to that many", d.unsureN)
	}
	return h
}

// hint is Hint without the generic reader's word.
func (d *jsonlDecoder) hint(events int64) string {
	if d.unmatched > 0 {
		return display.Text(fmt.Sprintf("%d text line(s) matched none of your patterns (--pattern, [[format]]) nor a built-in format; the first begins %s. Widen a pattern or add one for them (burnrate formats --detect FILE shows which lines each format matched)",
			d.unmatched, strconv.Quote(string(d.firstUnmatched[:min(len(d.firstUnmatched), 60)]))))
	}
	if events == 0 && d.jsonNoEvent == 0 && d.notJSON > 0 {
		return display.Text(fmt.Sprintf("%d lines are neither JSON nor an SDK log line; the file looks like %s. burnrate reads JSON lines, JSON documents (an array, pretty-printed objects), OTLP/JSON, LiteLLM and batch results, and SDK, LiteLLM and retry-library log text: see burnrate formats. Your application's own lines: describe them with --pattern or a [[format]] table (docs/formats.md: Your own format)",
			d.notJSON, looksLike(d.firstBad)))
	}
	if events > 0 || d.jsonNoEvent == 0 {
		return ""
	}
	return display.Text(fmt.Sprintf("%d lines parsed as JSON but none is a model call or job event; keys seen (lines): %s. %s",
		d.jsonNoEvent, d.topKeys(12), d.suggestMaps()))
}

// Bounds of the key census behind the hint: the first lines that read as
// no event, the distinct paths kept, how deep objects are walked.
const (
	maxKeyedLines = 1000
	maxKeyPaths   = 256
	maxKeyDepth   = 3
)

// countKeys counts each key path ("ctx.job.id") of a record that read as
// no event, for the hint.
func (d *jsonlDecoder) countKeys(line []byte) {
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return
	}
	if d.keys == nil {
		d.keys, d.scalars = map[string]int{}, map[string]string{}
	}
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			if len(k) > 64 {
				k = k[:64]
			}
			path := prefix + k
			if _, ok := d.keys[path]; ok || len(d.keys) < maxKeyPaths {
				d.keys[path]++
				switch v.(type) {
				case string, float64:
					d.scalars[path] = k // a value a --map can copy, under its own key
				}
			}
			if o, ok := v.(map[string]any); ok && depth < maxKeyDepth {
				walk(path+".", o, depth+1)
			}
		}
	}
	walk("", m, 1)
}

// topKeys are the n key paths most lines had, the most first, each with
// its count of lines, sanitized (a key is input too).
func (d *jsonlDecoder) topKeys(n int) string {
	keys := make([]string, 0, len(d.keys))
	for k := range d.keys {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d.keys[a] != d.keys[b] {
			return d.keys[b] - d.keys[a]
		}
		return strings.Compare(a, b)
	})
	more := ""
	if len(keys) > n {
		more = fmt.Sprintf(" and %d more", len(keys)-n)
		keys = keys[:n]
	}
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s %d", strconv.Quote(display.Text(k)), d.keys[k])
	}
	return strings.Join(keys, ", ") + more
}

// keySynonyms are names loggers give the canonical fields that the
// canonical spellings do not include, for a --map suggestion only: a
// leaf's name lower-cased, or its parent's and its ("job.id").
var keySynonyms = map[string]string{
	"job": "job_id", "jobid": "job_id", "job.id": "job_id", "job.name": "job_type", "job.kind": "job_type", "job.type": "job_type",
	"model_name": "model", "modelname": "model", "statuscode": "status", "http_status": "status",
	"vendor": "provider", "try": "attempt", "retry": "retry_count", "cost": "cost_usd",
	"usage.in": "input_tokens", "usage.input": "input_tokens", "usage.prompt": "input_tokens",
	"usage.out": "output_tokens", "usage.output": "output_tokens", "usage.completion": "output_tokens",
	"res.ms": "latency_ms", "elapsed_ms": "latency_ms", "durationms": "latency_ms",
}

// suggestMaps is the --map that would read the keys seen: each nested
// path whose last name is a field's spelling (or a common synonym) mapped
// to that field; a generic example when none is.
func (d *jsonlDecoder) suggestMaps() string {
	best := map[string]string{} // canonical field → path
	for path, n := range d.keys {
		key, scalar := d.scalars[path]
		if !scalar || len(key) == len(path) {
			continue // a top-level key with a known name would have been read
		}
		i := len(path) - len(key) - 1
		leaf := strings.ToLower(key)
		parentLeaf := strings.ToLower(path[strings.LastIndexByte(path[:i], '.')+1:])
		field := ""
		f, known := jsonFields[key]
		switch f {
		case FieldRequestModel, FieldResponseModel:
			f = FieldModel
		case FieldSystem:
			f = FieldProvider
		}
		if known && slices.Contains(CanonicalFields, fieldSpellings[f].json[0]) {
			field = fieldSpellings[f].json[0] // gen_ai.usage.input_tokens: prompt_tokens, cache included
		} else if f, ok := keySynonyms[parentLeaf]; ok {
			field = f
		} else if f, ok := keySynonyms[leaf]; ok {
			field = f
		}
		if field == "" || !safeMapPath(path) {
			continue
		}
		if cur, ok := best[field]; !ok || n > d.keys[cur] || (n == d.keys[cur] && path < cur) {
			best[field] = path
		}
	}
	if len(best) == 0 {
		return "Tell burnrate where the fields are, e.g. --map model=llm.model --map job_id=ctx.job.id --map status=res.statusCode (docs/formats.md: Any other JSON logger)"
	}
	fields := make([]string, 0, len(best))
	for f := range best {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for i, f := range fields {
		fields[i] = "--map " + f + "=" + best[f]
	}
	return "The keys burnrate knows by name read with " + strings.Join(fields, " ") + "; map any other as --map FIELD=path (docs/formats.md: Any other JSON logger)"
}

// safeMapPath: a path shown as a flag to copy holds only plain key
// characters, never a quote, a space or a control byte from the input.
func safeMapPath(p string) bool {
	for _, c := range []byte(p) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c == '@') {
			return false
		}
	}
	return len(p) > 0 && len(p) <= 128
}

// Hinter is implemented by decoders that can explain an empty result.
type Hinter interface {
	Hint(events int64) string
}

// FieldMap maps a canonical field to a dotted path in nested JSON.
type FieldMap struct {
	Field string
	Path  []string
}

// ParseFieldMap reads "job_id=ctx.job.id".
func ParseFieldMap(s string) (FieldMap, error) {
	field, path, ok := strings.Cut(s, "=")
	field, path = strings.TrimSpace(field), strings.TrimSpace(path)
	if !ok || field == "" || path == "" {
		return FieldMap{}, fmt.Errorf("--map %q: use CANONICAL=dotted.path, e.g. job_id=ctx.job.id", s)
	}
	if !slices.Contains(CanonicalFields, field) {
		return FieldMap{}, fmt.Errorf("--map %q: %q is not a canonical field; use one of %s", s, field, strings.Join(CanonicalFields, ", "))
	}
	return FieldMap{Field: field, Path: strings.Split(path, ".")}, nil
}

// lookupPath walks path through nested objects. A key may itself hold
// dots (OTel's attributes: {"attributes":{"gen_ai.usage.input_tokens":…}}):
// at each level the shortest run of the path's parts that is a key is
// taken, so attributes.gen_ai.usage.input_tokens reads it.
func lookupPath(v any, path []string) any {
	for i := 0; i < len(path); {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		var next any
		found := false
		k := ""
		for j := i; j < len(path) && !found; j++ {
			if j > i {
				k += "."
			}
			k += path[j]
			if next, found = o[k]; found {
				i = j + 1
			}
		}
		if !found {
			return nil
		}
		v = next
	}
	return v
}

// applyMaps copies mapped nested values to canonical top-level keys.
func applyMaps(line []byte, maps []FieldMap) ([]byte, bool) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil, false
	}
	changed := false
	for _, m := range maps {
		cur := lookupPath(obj, m.Path)
		if cur != nil {
			obj[m.Field] = cur
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(obj)
	return b, err == nil
}

// Detection looks at the start of a file.
const DetectLines = 200

// Detection counts how many of the first lines each format's rule matched.
type Detection struct {
	Format Format
	// Document is set when the file is a JSON document (an array, pretty
	// objects, OTLP requests) read record by record, not line by line.
	Document bool
	Counts   map[Format]int
	Lines    int
}

// Detect decides a file's format from its first lines: the batch and
// LiteLLM shapes by their own keys, Claude Code transcripts by theirs, SDK
// retry lines by their text, and canonical JSON lines otherwise.
func Detect(lines [][]byte) Detection {
	d := NewDetector()
	for _, l := range lines {
		d.Add(l)
	}
	return d.Result()
}

// Detector counts, line by line, which format's rule each line matches.
type Detector struct {
	det Detection
	p   *Parser
	ev  ingest.Event
	// Patterns are the user's line formats, counted as pattern.
	Patterns []*LinePattern
}

func NewDetector() *Detector {
	return &Detector{det: Detection{Counts: map[Format]int{}}, p: NewParser()}
}

func (d *Detector) Add(l []byte) {
	det := &d.det
	l = bytes.TrimSpace(l)
	if len(l) == 0 {
		return
	}
	det.Lines++
	if l[0] != '{' {
		for _, p := range d.Patterns {
			if p.re.Match(l[:min(len(l), p.maxBytes)]) { // as the decoder matches it
				det.Counts[FormatPattern]++
				return
			}
		}
		if aiderLine(l) {
			det.Counts[FormatAider]++
			return
		}
		if aiRetryLine(l) {
			det.Counts[FormatAIRetry]++
			return
		}
		if f := sdkLineKind(l[:min(len(l), maxTextBytes)]); f != "" {
			det.Counts[f]++
		}
		return
	}
	for _, f := range keyed {
		for _, keys := range f.Keys {
			if jsonHasKeys(l, keys...) {
				if f.Reads != nil && !f.Reads(l) {
					break // an app's line of the agent's keys: the next rows, then JSON lines
				}
				det.Counts[f.Name]++
				return
			}
		}
	}
	if d.p.ParseLine(l, &d.ev) == ingest.Accepted {
		det.Counts[FormatJSONL]++
	}
}

// decided reports a verdict that more lines cannot change: 16 lines, every
// one of a format with keys of its own. A projects directory of small
// transcripts then costs one detection pass of 16 lines per file, not 200.
func (d *Detector) Decided() bool {
	if d.det.Lines < 16 {
		return false
	}
	for _, f := range keyed {
		if d.det.Counts[f.Name] == d.det.Lines {
			return true
		}
	}
	return false
}

func (d *Detector) Result() Detection {
	det := d.det
	best, bestN := FormatJSONL, 0
	for _, f := range keyed {
		if n := det.Counts[f.Name]; n > bestN && n >= det.Counts[FormatJSONL] {
			best, bestN = f.Name, n
		}
	}
	if bestN == 0 {
		// Text lines, beside JSON lines or alone: the text format most
		// lines matched (a tie to the first in the table). The decoder
		// reads every text format whichever it is.
		for _, f := range Formats {
			if n := det.Counts[f.Name]; isTextFormat(f.Name) && n > bestN {
				best, bestN = f.Name, n
			}
		}
	}
	det.Format = best
	return det
}

// jsonHasKeys reports whether a JSON object has all the top-level keys
// (a key written "k=a|b" must hold the string a or b).
func jsonHasKeys(line []byte, keys ...string) bool {
	var sc scanner
	sc.reset(line)
	found := 0
	sc.object(func(k []byte) {
		for _, want := range keys {
			name, values, valued := strings.Cut(want, "=")
			if name != string(k) {
				continue
			}
			if !valued {
				found++
				break
			}
			if sc.peek() == '"' {
				v := string(sc.str())
				if slices.Contains(strings.Split(values, "|"), v) {
					found++
				}
				return
			}
			break
		}
		sc.skip()
	})
	return !sc.err && found == len(keys)
}

func atoi16(s string) (int16, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 999 {
		return 0, false
	}
	return int16(n), true
}

// NewStreamDecoder returns a decoder for a followed file: a forced format
// at once, else the format of the first non-blank line.
func NewStreamDecoder(opts Options) Decoder {
	if opts.Format != FormatAuto {
		return NewDecoder(opts.Format, opts.Maps, opts)
	}
	return &streamDecoder{opts: opts}
}

type streamDecoder struct {
	opts  Options
	inner Decoder
	// held and stopping: see InFlight (inflight.go).
	held     []ingest.Event
	stopping bool
}

func (d *streamDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if d.inner == nil {
		if len(bytes.TrimSpace(line)) == 0 {
			return ingest.SkipBlank
		}
		det := NewDetector()
		det.Patterns = d.opts.Patterns
		det.Add(line)
		d.inner = NewDecoder(det.Result().Format, d.opts.Maps, d.opts)
		d.handHeld()
	}
	return d.inner.Decode(line, emit)
}

func (d *streamDecoder) Flush(emit func(*ingest.Event)) int {
	n := d.flushHeld(emit)
	if f, ok := d.inner.(Flusher); ok {
		return n + f.Flush(emit)
	}
	return n
}

func (d *streamDecoder) Hint(events int64) string {
	if h, ok := d.inner.(Hinter); ok {
		return h.Hint(events)
	}
	return ""
}

// JSONLines is the canonical JSON-lines decoder behind a Decoder, for a
// reader that parses a big file's lines on other goroutines (one Parser
// each) and hands the accepted ones back in order.
type JSONLines struct{ jd *jsonlDecoder }

// ParallelJSONL returns d's JSON-lines decoder when its lines may be parsed
// apart from each other: canonical JSON lines, no --map rules, no SDK text
// seen (whose lines depend on the lines before them).
func ParallelJSONL(d Decoder) (JSONLines, bool) {
	j, ok := JSONLinesOf(d)
	if !ok || j.jd.maps != nil || j.jd.text.sawSDK {
		return JSONLines{}, false
	}
	return j, true
}

// JSONLinesOf returns d's JSON-lines decoder, if it is one, whatever it
// has seen since parallel reading began (SDK text seen later is handled
// by Took's caller sending such lines through Decode).
func JSONLinesOf(d Decoder) (JSONLines, bool) {
	c, ok := d.(*checked)
	if !ok {
		return JSONLines{}, false
	}
	jd, ok := c.inner.(*jsonlDecoder)
	return JSONLines{jd}, ok
}

// Took is what the decoder would have done with an accepted, timestamped
// line another Parser parsed: its time carries to a line that has none,
// and it counts as JSON among the file's lines.
func (j JSONLines) Took(ev *ingest.Event) { j.TookHashed(ev, 0) }

// TookHashed is Took with ev.JobID's hash under OpenSeed (OpenHash), made
// by the worker that parsed the line, or 0 when it made none.
func (j JSONLines) TookHashed(ev *ingest.Event, h uint64) {
	j.jd.p.lastTS = ev.TS
	j.jd.text.noteJSONHashed(ev, h)
}

// OpenSeed is the seed under which a job ID's hash (OpenHash) is what
// TookHashed takes. It never changes once read; read it before the
// workers that use it start.
func (j JSONLines) OpenSeed() maphash.Seed { return j.jd.text.openSeed() }

// Warm loads what TookHashed of a job hashed h will look up first, ahead
// of it (openJobs.warm); its result means nothing, and is for the caller
// to keep so that the load is not optimized away.
func (j JSONLines) Warm(h uint64) uint64 { return j.jd.text.open.warm(h) }

// Release emits, before an event at ts another Parser parsed, the
// assumptions held for a time (see jsonlDecoder.held).
func (j JSONLines) Release(ts int64, emit func(*ingest.Event)) {
	if len(j.jd.held) > 0 && ts != 0 {
		j.jd.releaseAt(ts, emit)
	}
}

// Pairs reports whether an event another Parser parsed must go through
// Emit: the decoder holds announcements (or remembers answered or let-go
// ones) that it may answer.
func (j JSONLines) Pairs() bool {
	d := j.jd
	return d.announced.len() > 0 || len(d.sdkAnswered) > 0 || d.sdkLast.len() > 0 || d.released.len() > 0 || d.packed.len() > 0
}

// Emit emits an accepted line another Parser parsed as Decode would have:
// an answer of an announced call completes it, rather than adding a call
// beside it (F8). A line that is itself an announcement is not given here
// (Parser.Announces): it is decoded again, in order.
func (j JSONLines) Emit(ev *ingest.Event, emit func(*ingest.Event)) {
	d := j.jd
	if !j.Pairs() {
		emit(ev)
		return
	}
	if d.pairFn == nil {
		d.pairFn = d.pair
	}
	announce := d.p.announce
	d.ev, d.p.announce = *ev, false
	d.pairOuter = emit
	d.pair(&d.ev)
	d.pairOuter, d.p.announce = nil, announce
}

// Announces reports whether the line just parsed is an app's announced
// call ("calling model"), which waits for its answer.
func (p *Parser) Announces() bool { return p.announce }

// Ends reports whether the line ParseLine last parsed is a call that also
// ends its job (its outcome field): only the decoder emits that end, so
// such a line is decoded in order, not taken from another Parser.
func (p *Parser) Ends() bool { return p.ends != ingest.KindUnknown || p.summary != ingest.KindUnknown }

// Serial reports whether the next line must be decoded in order even when
// another Parser parsed it: the decoder holds a provider's response
// object that a call line may be the record of (respcopy.go).
func (j JSONLines) Serial() bool { return len(j.jd.resp.held) > 0 }

// ParseAlone parses a line as though it were the first: no time carried
// from a line before it (a line without one is decoded again in order).
func (p *Parser) ParseAlone(line []byte, ev *ingest.Event) ingest.SkipReason {
	p.lastTS = 0
	return p.ParseLine(line, ev)
}
