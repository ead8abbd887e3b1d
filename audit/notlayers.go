package audit

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Shapes of retry that are not retry layers of an API call (issue 37,
// round 9's false reports and wrong criticals), each a general rule:
//
//   - a store's retries: a file that talks to a database, a cache or a
//     search store (Elasticsearch, OpenSearch, Redis, SQL through an ORM)
//     and to no API client retries the store — its loops, watchdogs and
//     decorators are no layer (ragflow's Elasticsearch and OpenSearch
//     loops, its deadlock retries, firecrawl's Redis health check: false
//     in round 9, the last a false critical). A loop whose body hands its
//     work to a store object (`thread_pool_exec(settings.docStoreConn.insert,
//     …)`) and reaches no API is the same;
//   - a credential client: boto3's `client("sts")` (assume-role), IAM,
//     SSO and Cognito identity are not the Bedrock or S3 client built
//     beside them (cloud_clients.go asks credentialService);
//   - a backoff decorator bounded by max_time is bounded in time, not
//     unbounded (backoffDeadline); one whose exceptions are a model SDK's
//     around a function that sends only through requests or httpx never
//     retries: those libraries never raise them (backoffNeverRetries).

// storeModulesPy extends loopStoreModules (localerrors.go) with the
// stores round 9 met under other module names: Elasticsearch's DSL and
// transport, ORMs and drivers.
var storeModulesPy = append(slices.Clone(loopStoreModules),
	"elasticsearch_dsl", "elastic_transport", "opensearch_dsl", "peewee", "pymysql", "MySQLdb", "mysql",
	"aiomysql", "aioredis", "valkey", "infinity", "neo4j", "cassandra", "couchbase", "pyodbc", "oracledb",
	"cx_Oracle", "duckdb", "tortoise", "mongoengine", "beanie", "supabase", "redis_lock", "pottery")

// storeModulesJS: a JavaScript file importing one of these talks to a
// database, a cache or a search store.
var storeModulesJS = []string{"ioredis", "redis", "@redis/client", "@upstash/redis", "pg", "postgres", "mysql",
	"mysql2", "mysql2/promise", "mongodb", "mongoose", "@supabase/supabase-js", "@elastic/elasticsearch",
	"@opensearch-project/opensearch", "@prisma/client", "drizzle-orm", "knex", "better-sqlite3", "sqlite3",
	"typeorm", "sequelize", "redlock", "@neondatabase/serverless", "@planetscale/database",
	"cassandra-driver", "neo4j-driver", "@qdrant/js-client-rest", "@pinecone-database/pinecone"}

// apiModulesJS: a JavaScript file importing one of these (or any module
// under the scoped prefixes) can reach an API.
var (
	apiModulesJS  = []string{"openai", "@anthropic-ai/sdk", "ai", "axios", "node-fetch", "undici", "got", "ky", "ofetch", "cohere-ai", "groq-sdk", "stripe", "langchain", "@google/genai", "@google/generative-ai", "@mistralai/mistralai", "superagent", "cross-fetch"}
	apiPrefixesJS = []string{"@ai-sdk/", "@aws-sdk/", "@langchain/", "@google-cloud/", "@azure/"}
)

// talksOnlyToStore: f imports a store and no API client (and, in
// JavaScript, calls no fetch), and asks no model through a helper of its
// project's (a service that imports its ORM beside `chat_mdl.async_chat`
// keeps its layers).
func talksOnlyToStore(f *file) bool {
	// The imports first: a file that imports no store is read no further.
	if !importsStore(f) || reachesAPI(f.blanked()) || callsModelNamed(f.blanked()) {
		return false
	}
	switch f.kind {
	case fkPython:
		imps := f.pyImports()
		return importsAny(imps, storeModulesPy) && !importsAny(imps, triesAPIModules)
	case fkJS:
		store := false
		for _, b := range f.jsImports() {
			if slices.Contains(storeModulesJS, b.module) {
				store = true
			}
			if slices.Contains(apiModulesJS, b.module) || slices.ContainsFunc(apiPrefixesJS, func(p string) bool { return strings.HasPrefix(b.module, p) }) {
				return false
			}
		}
		return store && !noRaiseClientJS.Match(f.blanked())
	}
	return false
}

// storeRef: a store object used, called or handed on
// (settings.docStoreConn.insert, self.es_conn.search, redis_client.get).
var storeRef = regexp.MustCompile(`(?i)\b\w*(?:doc_?store|store_?conn|db_?conn|_db|database|redis|elastic(?:search)?|opensearch|mongo|postgres|sqlite|supabase|prisma)\w*\s*\.\s*[A-Za-z_]\w*`)

// dropNotLayers removes from out the layers of f that retry a store, not
// an API (see above). Only retry shapes are removed: a client's, a
// queue's or a framework's layer stays.
func dropNotLayers(f *file, out []Layer) []Layer {
	if f.kind != fkPython && f.kind != fkJS || len(out) == 0 {
		return out
	}
	storeOnly, judged := false, false
	// A fallback or a re-ask found where another rule found the loop is
	// that loop, told once.
	taken := map[int]bool{}
	for _, l := range out {
		// A retry shape's line only: an SDK call written on the line of a
		// model switch is the call switched, not the switch found twice.
		if l.File == f.rel && l.DefaultID != "fallback" && l.DefaultID != "reask" && (l.Kind == KindWrapper || l.Kind == KindWatchdog) {
			taken[l.Line] = true
		}
	}
	kept := out[:0]
	for _, l := range out {
		if l.File == f.rel && (l.DefaultID == "fallback" || l.DefaultID == "reask") && taken[l.Line] {
			continue
		}
		if l.File == f.rel && (l.Kind == KindWrapper || l.Kind == KindWatchdog) {
			if !judged {
				storeOnly, judged = talksOnlyToStore(f), true
			}
			if storeOnly || (l.DefaultID == "hand-rolled" || l.DefaultID == "stall-watchdog") && bodyHandsToStore(f, l.Line) {
				continue
			}
		}
		kept = append(kept, l)
	}
	return kept
}

// bodyHandsToStore: the loop or handler at line n uses a store object and
// reaches no API.
func bodyHandsToStore(f *file, n int) bool {
	a, b, ok := layerBody(f, n)
	if !ok {
		return false
	}
	body := f.blanked()[a:b]
	if reachesAPI(body) || callsAPIHelper(f, body) || modelArgs.Match(body) {
		return false
	}
	// A name of the model's among the calls: a model call beside the
	// store's (a limiter named chat_limiter around a store call is no call
	// of a model).
	for _, m := range calleeRe.FindAllSubmatch(body, 256) {
		if talksToModel.Match(m[1]) {
			return false
		}
	}
	return storeRef.Match(body)
}

var modelArgs = regexp.MustCompile(`(?:messages|prompt|model)\s*[=:]`)

// credentialServices are AWS services a boto3 client is built for to get
// credentials or identities: no model or storage call goes through it.
var credentialServices = map[string]bool{"sts": true, "iam": true, "sso": true, "sso-oidc": true, "cognito-identity": true, "cognito-idp": true}

var pyServiceName = regexp.MustCompile(`^\s*(?:service_name\s*=\s*)?['"]([\w-]+)['"]`)

// credentialService: the boto3 client or resource whose call's opening
// parenthesis is at open names a credential service as its first
// argument or service_name (read from raw: the blanked source has no
// strings).
func credentialService(f *file, open int) bool {
	if open < 0 || open >= len(f.raw) {
		return false
	}
	a, b := args(f.blanked(), open)
	for _, p := range topLevelArgsAt(f.raw, a, b) {
		m := pyServiceName.FindSubmatch(p)
		if m != nil {
			return credentialServices[strings.ToLower(string(m[1]))]
		}
	}
	return false
}

// topLevelArgsAt splits raw[a:b] at the commas where the blanked source
// is at depth 0 (a string's comma is no argument's end).
func topLevelArgsAt(raw []byte, a, b int) [][]byte {
	var out [][]byte
	depth, start := 0, a
	for i := a; i < b && i < len(raw); i++ {
		switch raw[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, raw[start:i])
				start = i + 1
			}
		}
	}
	if start < b && b <= len(raw) {
		out = append(out, raw[start:b])
	}
	return out
}

var pyMaxTimeValue = regexp.MustCompile(`\bmax_time\s*=\s*([^,)\n]+)`)

// backoffDeadline: backoff.on_exception(…, max_time=N) with no max_tries
// ends N seconds after its first try: bounded in time, not by a count —
// at least two attempts is what is known, at low confidence (round 9:
// storm's two decorators with max_time=1000, called unbounded).
func backoffDeadline(l *Layer, a []byte) {
	m := pyMaxTimeValue.FindSubmatch(a)
	if m == nil {
		return
	}
	v := strings.TrimSpace(string(m[1]))
	l.Unbounded, l.Configured = false, true
	l.Attempts = 2
	l.Confidence = ConfidenceLow
	l.Setting = "max_time=" + v
	unit := ""
	if _, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err == nil {
		unit = " s"
	}
	l.Note = "bounded by " + v + unit + ", not by a count: at least 2 attempts; how many more depends on how fast each one fails"
}

// sdkErrorModules own exception classes that only their own clients raise.
var sdkErrorModules = []string{"openai", "anthropic", "dsp", "dspy", "cohere", "groq", "mistralai", "litellm", "together", "fireworks", "voyageai", "google.genai", "google.generativeai", "replicate"}

var (
	pyPlainSend = regexp.MustCompile(`\b(?:requests|httpx)\.(?:get|post|put|patch|delete|head|request)\s*\(`)
	pySelfCall  = regexp.MustCompile(`\bself\s*\.\s*[A-Za-z_]\w*\s*\(`)
	pyDefAt     = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(`)
	pyNameRe    = regexp.MustCompile(`[A-Za-z_][\w.]*`)
)

// backoffNeverRetries: the decorator whose arguments are code[a:b]
// catches only a model SDK's exceptions (imported from one, or written
// openai.RateLimitError), and the function it decorates sends only
// through requests or httpx, asks no model, calls no method of its own
// and no name of those SDKs: nothing it calls raises what the decorator
// catches, so it never tries again (round 9: storm's DeepSeek, Groq and
// Together clients under dsp's OpenAI ERRORS).
func backoffNeverRetries(f *file, a, b int) bool {
	code := f.blanked()
	parts := topLevelArgs(code[a:b])
	if len(parts) < 2 || bytes.Contains(parts[1], []byte("=")) {
		return false
	}
	imps := f.pyImports()
	sdkName := func(name string) bool {
		first, _, _ := strings.Cut(name, ".")
		full, ok := imps[first]
		if !ok {
			return false
		}
		return slices.ContainsFunc(sdkErrorModules, func(m string) bool { return full == m || dottedPrefix(full, m) })
	}
	names := pyNameRe.FindAll(parts[1], 16)
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		if !sdkName(string(n)) {
			return false
		}
	}
	// The decorated function: the first def after the decorator's close.
	d := pyDefAt.FindIndex(code[b:min(len(code), b+maxArgBytes)])
	if d == nil {
		return false
	}
	at := b + d[0]
	_, pb := args(code, b+d[1]-1)
	colon := bytes.IndexByte(code[pb:min(len(code), pb+256)], ':')
	if colon < 0 {
		return false
	}
	nl := bytes.IndexByte(code[pb+colon:], '\n')
	if nl < 0 {
		return false
	}
	for at < len(code) && (code[at] == ' ' || code[at] == '\t') {
		at++ // the def's own column: its block is what is indented past it
	}
	end := min(pyBlockEndWithin(code, at, pb+colon+nl, maxCountedLoopBytes), len(code))
	body := code[pb+colon+nl : end]
	if !pyPlainSend.Match(body) || pyAsksModel(body) || pySelfCall.Match(body) {
		return false
	}
	for _, m := range calleeRe.FindAllSubmatch(body, 256) {
		if sdkName(strings.TrimSpace(string(m[1]))) {
			return false
		}
	}
	return true
}

// loggerReceivers: a call on one of these (logger.child, this.logger.warn,
// console.error, logging.exception) writes a log line, it sends nothing:
// no recall of the call that stalled (round 9: firecrawl's
// `logger.child({…})`, an argument of the status call and made again in
// its catch, read as the call regenerated).
var loggerReceivers = map[string]bool{"log": true, "logger": true, "_logger": true, "__logger": true, "logging": true, "console": true, "slog": true, "structlog": true}

// loggerCall: the dotted callee name (spaces allowed around dots) is a
// method of a logger.
func loggerCall(name string) bool {
	segs := strings.Split(name, ".")
	for _, s := range segs[:len(segs)-1] {
		if loggerReceivers[strings.ToLower(strings.TrimSpace(s))] {
			return true
		}
	}
	return false
}

// transientErrors name failures a 400 never raises: a rate limit, a
// timeout, a lost connection, a server's error.
var transientErrors = map[string]bool{"RateLimitError": true, "RateLimitExceeded": true, "TooManyRequests": true,
	"Timeout": true, "TimeoutError": true, "APITimeoutError": true, "ReadTimeout": true, "ConnectTimeout": true,
	"ConnectionError": true, "APIConnectionError": true, "InternalServerError": true, "ServiceUnavailableError": true,
	"ServiceUnavailable": true, "OverloadedError": true, "ServerError": true, "RemoteDisconnected": true}

// backoffRetriesOnlyTransient: backoff.on_exception's exceptions (its
// second argument) are all transient ones: it does not send a 400 again
// (round 9: storm's `(RateLimitError,)` with max_tries=8, called a
// critical retry of "every error, a 400 included").
func backoffRetriesOnlyTransient(a []byte) bool {
	parts := topLevelArgs(a)
	if len(parts) < 2 || bytes.Contains(parts[1], []byte("=")) {
		return false
	}
	names := pyNameRe.FindAll(parts[1], 16)
	for _, n := range names {
		if !transientErrors[lastSegment(string(n))] {
			return false
		}
	}
	return len(names) > 0
}

// modelCallName: a call's name that asks a model (chat_mdl.async_chat,
// generate_completion, llm.invoke, embed_query) — not "model" alone,
// which an ORM's vocabulary shares (cls.model.select).
var modelCallName = regexp.MustCompile(`(?i)chat|llm|complet|prompt|gpt|claude|openai|anthropic|gemini|embed|agent|generat|summari[sz]|invoke|predict|\bask`)

// callsModelNamed: some call of code is named for a model.
func callsModelNamed(code []byte) bool {
	for _, m := range calleeRe.FindAllSubmatch(code, -1) {
		if modelCallName.Match(m[1]) {
			return true
		}
	}
	return false
}

// loops are the file's JavaScript loops, found once for every rule that
// asks whether a handler sits in one.
func (f *file) loops() []jsLoop {
	if !f.jslDone {
		f.jsl, f.jslDone = jsLoops(f.blanked()), true
	}
	return f.jsl
}

// importsStore: f imports a store module (its kind's list).
func importsStore(f *file) bool {
	switch f.kind {
	case fkPython:
		return importsAny(f.pyImports(), storeModulesPy)
	case fkJS:
		for _, b := range f.jsImports() {
			if slices.Contains(storeModulesJS, b.module) {
				return true
			}
		}
	}
	return false
}
