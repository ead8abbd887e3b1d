package audit

import (
	"regexp"
	"slices"
	"strings"
)

// Python retry decorators counted in tries: the `retry` package's
// @retry(tries=N) and retry_call(f, tries=N), its async fork retry_async,
// and a repository's own wrapper around them — `def retry(…, tries: int =
// -1, …)` in a utils module, applied as @retry(tries=_MAX_RETRIES) or
// entered as `async with retry_context(tries=…) as retry:` (private-gpt's
// 18 uses in round 6, issue 37: none found). Each use is a layer, its
// bound the use's tries (a module constant resolved as any knob); the
// wrapper's own body, passing its tries parameter on, is not. A
// repository's own wrapper is read only where a use writes tries=: its
// default is in another file the detector does not read.

var (
	pyTries      = knobRe("tries")
	pyTriesMinus = regexp.MustCompile(`\btries\s*=\s*-\s*1\b`)
	// The modules whose retry-named imports are other rows' (tenacity,
	// backoff, retrying, stamina) or no retry at all.
	triesOtherRows = []string{"tenacity", "backoff", "retrying", "stamina", "urllib3", "requests", "google", "celery", "openai", "anthropic", "langchain", "langchain_core", "llama_index", "httpx"}
	// A file that talks to a datastore or a broker and to no HTTP API or
	// LLM: its retries are the store's (a vector upsert, an AMQP publish),
	// not a call path's.
	triesStoreModules = []string{"qdrant_client", "pymilvus", "chromadb", "pinecone", "weaviate", "redis", "psycopg", "psycopg2", "pymongo", "motor", "sqlalchemy", "elasticsearch", "opensearchpy", "pika", "aio_pika", "kafka", "aiokafka", "lancedb"}
	triesAPIModules   = []string{"openai", "anthropic", "httpx", "aiohttp", "requests", "boto3", "aiobotocore", "botocore", "litellm", "cohere", "groq", "mistralai", "google.genai", "google.generativeai", "llama_index.core.llms", "langchain_openai", "urllib3", "websockets"}
)

// maxTriesNames bounds the retry-named imports one file is scanned for.
const maxTriesNames = 16

func pyTriesRetries(f *file) []Layer {
	code := f.blanked()
	imps := f.pyImports()
	var names []string
	known := map[string]bool{}
	locals := make([]string, 0, len(imps))
	for local := range imps {
		locals = append(locals, local)
	}
	slices.Sort(locals) // the same names, in the same order, every run
	for _, local := range locals {
		full := imps[local]
		if !strings.Contains(strings.ToLower(lastSegment(local)), "retry") || strings.Contains(local, ".") {
			continue
		}
		mod := full
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			mod = full[:i]
		}
		if importsAny(map[string]string{"": mod}, triesOtherRows) {
			continue
		}
		if len(names) >= maxTriesNames {
			break // a hostile file's thousand retry-named imports cost 16 scans, not a thousand
		}
		names = append(names, local)
		root := mod
		if i := strings.IndexByte(root, '.'); i >= 0 {
			root = root[:i]
		}
		known[local] = root == "retry" || root == "retry_async"
	}
	if len(names) == 0 {
		return nil
	}
	if importsAny(imps, triesStoreModules) && !importsAny(imps, triesAPIModules) {
		return nil
	}
	var out []Layer
	for _, n := range names {
		re := regexp.MustCompile(`(?:^|[^\w.])(@\s*|with\s+)?` + regexp.QuoteMeta(n) + `\s*\(`)
		for _, m := range re.FindAllSubmatchIndex(code, maxCandidates) {
			open := m[1] - 1
			a, b := args(code, open)
			region := code[a:b]
			use := m[2] >= 0 || n == "retry_call" || strings.HasSuffix(n, "retry_call")
			if !use {
				continue // a call, not a decorator, a context or retry_call
			}
			at := m[0]
			if at < len(code) && !isIdentByte(code[at]) && code[at] != '@' && code[at] != 'w' {
				at++
			}
			if m[2] >= 0 {
				at = m[2]
			}
			l := newLayer("py-retry", f.rel, f.lines().at(at), "python", ConfidenceMedium)
			switch {
			case pyTriesMinus.Match(region):
				l.setUnbounded("tries=-1 (forever)")
			case pyTries.Match(region):
				if sm := pyTries.FindSubmatch(region); sm != nil && string(sm[1]) == "tries" {
					continue // a wrapper passing its own tries on: its uses are the layers
				}
				setKnob(&l, pyTries, region)
				if l.pending {
					if sm := pyTries.FindSubmatch(region); sm != nil && isName(string(sm[1])) {
						l.valueName, l.valueExpr = lastSegment(string(sm[1])), string(sm[1])
					}
				}
			case known[n]:
				// the library's default: tries=-1, forever
			default:
				continue // a repository's wrapper with no tries at the use
			}
			if triesSomeErrors(region) {
				l.Retries4xx = false
			}
			out = append(out, l)
		}
	}
	return out
}

// triesSomeErrors: the use names the exceptions it retries (exceptions=…
// or its first positional argument) and none is Exception or
// BaseException: it does not retry every error, a 400 included.
func triesSomeErrors(region []byte) bool {
	parts := splitTop(region)
	for i, p := range parts {
		t := strings.TrimSpace(string(p))
		switch {
		case strings.HasPrefix(t, "exceptions") && strings.Contains(t, "="):
			t = strings.TrimSpace(t[strings.IndexByte(t, '=')+1:])
		case i == 0 && !strings.Contains(t, "="):
		default:
			continue
		}
		return t != "" && !pyAnyExc.MatchString(t)
	}
	return false
}

// importsAny: some import of imps is one of mods or inside one.
func importsAny(imps map[string]string, mods []string) bool {
	for _, full := range imps {
		for _, m := range mods {
			if full == m || dottedPrefix(full, m) {
				return true
			}
		}
	}
	return false
}
