package audit

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// TanStack Query retries each failed query 3 times in the browser
// (packages/query-core/src/retryer.ts: config.retry ?? (isServer ? 0 :
// 3)) and a mutation none (mutation.ts: retry ?? 0), a query's own retry:
// over the QueryClient's defaultOptions. The layer is each query that
// calls an API, not the client: a query over local storage sends no
// request (issue 37, round 8: chatbox's seven queries, reported once at
// its QueryClient).

// queryHooks are the hooks that run a query function, true for a mutation.
var queryHooks = map[string]bool{
	"useQuery": false, "useInfiniteQuery": false, "useSuspenseQuery": false,
	"useSuspenseInfiniteQuery": false, "useMutation": true,
}

var (
	// jsHTTPTail: what follows a request function's name (fetch, axios,
	// ky, got, ofetch, $fetch) when it is called: a method, type
	// arguments, the parenthesis (directHTTP).
	jsHTTPTail   = regexp.MustCompile(`^\s*(?:\.\s*(?:get|post|put|patch|delete|request|head)\s*)?(?:<[^;()]{0,200}?>\s*)?\(`)
	jsQueryFn    = regexp.MustCompile(`\b(?:queryFn|mutationFn)\s*:`)
	jsFnShort    = regexp.MustCompile(`\b(?:queryFn|mutationFn)\s*[,}]`)
	jsCalledName = regexp.MustCompile(`([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?\s*(?:<[^;()]{0,200}?>\s*)?\(`)
	jsBareName   = regexp.MustCompile(`^\s*([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?\s*$`)
	jsQueriesObj = regexp.MustCompile(`\bqueries\s*:\s*\{`)
	jsRetryKey   = regexp.MustCompile(`\bretry\s*:`)
	jsMutateObj  = regexp.MustCompile(`\bmutations\s*:\s*\{`)
)

// queryRef is what a query hook's layer waits on: the functions its
// query function calls that are imported from the project's own modules
// (one of which must send a request), whether it set retry itself, and
// whether it is a mutation.
type queryRef struct {
	from     string // the file the hook is in
	calls    []moduleName
	local    bool // no request found, in the function or through an import: no layer
	ownRetry bool
	mutation bool
}

// moduleName is a name imported from a module.
type moduleName struct{ module, name string }

// queryClientDefaults is a QueryClient's defaultOptions: the retries of
// its queries and of its mutations (-1: not written; -2: written, not a
// number).
type queryClientDefaults struct{ queries, mutations int }

// isQueryModule: @tanstack/react-query and its siblings, and react-query
// (v3), whose defaults are the same.
func isQueryModule(mod string) bool {
	return strings.HasPrefix(mod, "@tanstack/") && strings.HasSuffix(mod, "-query") || mod == "react-query"
}

// tanstackHooks: each useQuery / useInfiniteQuery / useSuspenseQuery /
// useMutation call, its retry read from its options. Whether its query
// calls an API is settled here when the function sends a request itself,
// and by resolveQueries when it calls a function imported from another
// file of the root.
func tanstackHooks(f *file) []Layer {
	code := f.blanked()
	imports := f.jsImports()
	var out []Layer
	for local, b := range imports {
		mutation, ok := queryHooks[b.imported]
		if !ok || !isQueryModule(jsPackage(b.module)) {
			continue
		}
		for _, o := range callsOf(code, local, false) {
			if len(out) >= maxCandidates {
				return out
			}
			a, e := args(code, o)
			parts := topLevelArgs(code[a:e])
			var opts []byte // the options object's inside
			var fn []byte   // the query function as written
			if first := trimLeft(parts[0]); len(first) > 0 && first[0] == '{' {
				oa := a + (len(parts[0]) - len(first))
				_, oe := args(code, oa)
				opts = code[oa+1 : oe]
				fn = queryFnOf(opts)
			} else if len(parts) >= 2 {
				// v3's useQuery(key, fn, options), useMutation(fn, options).
				k := 1
				if mutation {
					k = 0
				}
				if k < len(parts) {
					fn = parts[k]
				}
				if k+1 < len(parts) {
					if o := trimLeft(parts[k+1]); len(o) > 0 && o[0] == '{' {
						opts = o[1:]
					}
				}
			}
			l := newLayer("tanstack-query", f.rel, f.lines().at(o), "javascript", ConfidenceMedium)
			q := &queryRef{from: f.rel, mutation: mutation}
			if mutation {
				l.Attempts, l.Setting = 1, "retry (not set: a mutation's default, 0)"
			}
			if opts != nil {
				if t := topLevel(jsRetryKnob, opts); t != nil {
					q.ownRetry = true
					setQueryRetry(&l, opts[t[0]:])
				} else if t := topLevel(jsRetryKey, opts); t != nil {
					q.ownRetry = true
					retryFunction(&l, snippet(opts, t[0]))
				}
			}
			if fn == nil {
				q.local = true
			} else if directHTTP(fn) {
				// fetch('/api/…') in the function itself.
			} else {
				q.calls = importedCalls(f, imports, fn)
				if len(q.calls) == 0 {
					q.local = true
				}
			}
			l.query = q
			out = append(out, l)
		}
	}
	return out
}

// trimLeft drops leading white space.
func trimLeft(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

// queryFnOf is the text of the options' queryFn (or mutationFn) value, to
// the next top-level comma; nil when the options spread another object or
// write none.
func queryFnOf(opts []byte) []byte {
	t := topLevel(jsQueryFn, opts)
	if t == nil {
		if s := topLevel(jsFnShort, opts); s != nil {
			return opts[s[0] : s[1]-1] // { queryFn }: the local of that name
		}
		return nil
	}
	rest := opts[t[1]:]
	if c := topComma(rest); c >= 0 {
		rest = rest[:c]
	}
	return rest
}

// setQueryRetry reads `retry: …` at the start of r.
func setQueryRetry(l *Layer, r []byte) {
	m := jsRetryKnob.FindSubmatchIndex(r)
	if m == nil {
		return
	}
	v := strings.TrimSpace(string(r[m[2]:m[3]]))
	switch {
	case strings.HasPrefix(v, "-"):
		// retry: -1 — failureCount < retry is never true: no retry
		// (query-core's retryer.ts), not an unbounded count.
		l.setAttempts(1, snippet(r, m[0])+" (negative: no retry)")
	case v == "false":
		l.setAttempts(1, snippet(r, m[0]))
	case v == "true":
		l.setUnbounded(snippet(r, m[0]))
	default:
		if n, ok := numExpr(v); ok {
			l.set(max(0, n), snippet(r, m[0]))
		} else {
			l.setUnknown(snippet(r, m[0]))
		}
	}
}

// retryFunction: retry written as a function ((count, error) => …): the
// project decides which errors are retried and how often — the default
// count is shown at low confidence, and no 400 is said to be retried.
func retryFunction(l *Layer, written string) {
	l.setUnknown(written)
	l.pending = false // nothing resolvePending could read
	l.Retries4xx = false
	l.Note = "retry is a function: which errors it retries, and how often, is the project's; the default count (4 attempts) is shown"
}

// importedCalls are the functions fn calls or names that the file imports
// from its own project's modules (a relative, @/ or ~/ path): remote.list(…)
// for import * as remote, getUser for an imported getUser.
func importedCalls(f *file, imports map[string]binding, fn []byte) []moduleName {
	var out []moduleName
	add := func(first, second string) {
		b, ok := imports[first]
		if !ok || !isRelativeModule(b.module) && !strings.HasPrefix(b.module, "#/") {
			return // #/api/…: a package.json imports alias, as @/ is a tsconfig one
		}
		switch {
		case b.imported == "*" && second != "":
			out = append(out, moduleName{b.module, second})
		case b.imported != "*":
			out = append(out, moduleName{b.module, b.imported})
		}
	}
	if m := jsBareName.FindSubmatch(fn); m != nil {
		add(string(m[1]), string(m[2]))
		return out
	}
	for _, m := range jsCalledName.FindAllSubmatch(fn, 16) {
		add(string(m[1]), string(m[2]))
	}
	return out
}

// queryClientDefaultsOf reads new QueryClient({ defaultOptions: { queries:
// { retry }, mutations: { retry } } }) from the call's arguments.
func queryClientDefaultsOf(region []byte) *queryClientDefaults {
	d := &queryClientDefaults{queries: -1, mutations: -1}
	for _, k := range []struct {
		re  *regexp.Regexp
		dst *int
	}{{jsQueriesObj, &d.queries}, {jsMutateObj, &d.mutations}} {
		m := k.re.FindIndex(region)
		if m == nil {
			continue
		}
		_, e := args(region, m[1]-1)
		obj := region[m[1]:e]
		t := topLevel(jsRetryKnob, obj)
		if t == nil {
			if topLevel(jsRetryKey, obj) != nil {
				*k.dst = -3 // retry: (count, error) => …: the project's function
			}
			continue
		}
		var l Layer
		l.DefaultID = "tanstack-query"
		setQueryRetry(&l, obj[t[0]:])
		switch {
		case l.Unbounded:
			*k.dst = hugeBound
		case l.pending:
			*k.dst = -2
		default:
			*k.dst = l.Attempts - 1
		}
	}
	return d
}

// resolveQueries keeps the query hooks whose function sends a request —
// in itself, or through a function imported from a file of the root that
// does — gives those that set no retry the QueryClient's defaultOptions,
// and drops the QueryClient's own layer once one of its queries is
// reported (with none, the client stays the layer, as before).
func (s *rootScan) resolveQueries() {
	seen := false
	var clients []*queryClientDefaults
	for i := range s.layers {
		l := &s.layers[i]
		if l.query != nil {
			seen = true
		}
		// A test's QueryClient (retry: false, so a failing query fails
		// fast) is not the application's.
		if l.qc != nil && !isTestPath(l.File) {
			clients = append(clients, l.qc)
		}
	}
	if !seen {
		return
	}
	// The files that send requests, by the name an import path ends in:
	// those that write one, and those that call a verb on an HTTP client
	// instance another file of the root builds (axios.create).
	byStem := map[string][]string{}
	instances := map[string][]string{}
	// In path order, so which files a capped look-up reads does not depend
	// on a map's order: the same tree gives the same report.
	rels := make([]string, 0, len(s.jsFiles))
	for rel := range s.jsFiles {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		if s.jsFiles[rel].instance {
			instances[jsModuleName(rel)] = append(instances[jsModuleName(rel)], rel)
		}
	}
	for _, rel := range rels {
		info := s.jsFiles[rel]
		if !info.api && len(instances) > 0 && s.callsAPI(&queryRef{from: rel, calls: info.uses}, instances) {
			info.api = true
		}
		if info.api {
			byStem[jsModuleName(rel)] = append(byStem[jsModuleName(rel)], rel)
		}
	}
	// The client's defaults: one QueryClient (or several that agree) is
	// read; several that differ leave the default at low confidence.
	qDef, mDef, differ := -1, -1, false
	for i, c := range clients {
		if i > 0 && (c.queries != qDef || c.mutations != mDef) {
			differ = true
		}
		qDef, mDef = c.queries, c.mutations
	}
	kept := s.layers[:0]
	queries := 0
	for _, l := range s.layers {
		q := l.query
		if q == nil {
			kept = append(kept, l)
			continue
		}
		if q.local || len(q.calls) > 0 && !s.callsAPI(q, byStem) {
			continue
		}
		if !q.ownRetry {
			def := qDef
			if q.mutation {
				def = mDef
			}
			switch {
			case differ:
				l.Confidence = ConfidenceLow
				l.Note = "the project's QueryClients set different defaultOptions: the library's default is shown"
			case def == -2:
				l.setUnknown("defaultOptions retry (a QueryClient's)")
			case def == -3:
				retryFunction(&l, "defaultOptions retry: a function (the QueryClient's)")
			case def == hugeBound:
				l.setUnbounded("defaultOptions retry: true (the QueryClient's)")
			case def >= 0:
				l.set(def, "defaultOptions retry: "+strconv.Itoa(def)+" (the QueryClient's)")
			}
		}
		if !l.Unbounded && l.Attempts <= 1 {
			continue // a mutation, or retry: false or 0: sent once
		}
		l.query = nil
		kept = append(kept, l)
		queries++
	}
	s.layers = kept
	if queries == 0 {
		return // no query the audit follows to a request: the client stays the layer
	}
	// The client's retry is reported at its queries instead.
	kept = s.layers[:0]
	for _, l := range s.layers {
		if l.qc == nil {
			kept = append(kept, l)
		}
	}
	s.layers = kept
}

// callsAPI: one of the functions q calls is imported from a file of the
// root that sends a request.
func (s *rootScan) callsAPI(q *queryRef, byStem map[string][]string) bool {
	for _, c := range q.calls {
		// The stem as jsModuleName makes it of a file: its name to the
		// first dot (conversation-service.api.ts is conversation-service).
		mod := jsModuleDir(c.module)
		stem := path.Base(mod)
		if i := strings.IndexByte(stem, '.'); i > 0 {
			stem = stem[:i]
		}
		for k, rel := range byStem[stem] {
			if k >= maxStemFiles {
				break // a hostile tree of one name: the first 64 looked at
			}
			if jsImportResolves(q.from, c.module, rel) {
				return true
			}
		}
	}
	return false
}

// jsImportResolves: module, imported from the file at from, is the file
// rel — a relative path resolved from from's directory, an alias path
// (@/, ~/) matched by its tail; with or without an extension, and the
// directory's index named or not.
func jsImportResolves(from, module, rel string) bool {
	target := module
	for _, ext := range []string{".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"} {
		target = strings.TrimSuffix(target, ext)
	}
	target = strings.TrimSuffix(target, "/index")
	file := rel
	if i := strings.LastIndexByte(file, '.'); i > strings.LastIndexByte(file, '/') {
		file = file[:i]
	}
	file = strings.TrimSuffix(file, "/index")
	if strings.HasPrefix(target, ".") {
		return path.Clean(path.Join(path.Dir(from), target)) == file
	}
	tail := target[strings.IndexByte(target, '/')+1:]
	return file == tail || strings.HasSuffix(file, "/"+tail)
}

// jsFileInfo is what resolveQueries needs of a JS/TS file of the root.
type jsFileInfo struct {
	api      bool         // it sends a request itself (sendsRequests)
	instance bool         // it builds an HTTP client instance (axios.create)
	uses     []moduleName // bindings it imports and calls a verb on
}

// jsFileInfoOf reads f for resolveQueries; nil when it holds nothing it
// needs.
func jsFileInfoOf(f *file, ls []Layer) *jsFileInfo {
	code := f.blanked()
	info := &jsFileInfo{api: sendsRequests(f, ls)}
	// The regexp only where its literal is: most files build no client.
	info.instance = (bytes.Contains(code, []byte("create")) || bytes.Contains(code, []byte("extend"))) && jsHTTPInstance.Match(code)
	if !info.api {
		info.uses = jsHTTPUses(f)
	}
	if !info.api && !info.instance && len(info.uses) == 0 {
		return nil
	}
	return info
}

// sendsRequests: a JS/TS file writes a request (fetch, axios, ofetch, ky,
// got) or holds a layer of an HTTP or SDK client other than a query's.
func sendsRequests(f *file, ls []Layer) bool {
	for _, l := range ls {
		if l.query == nil && l.qc == nil && l.Kind != KindWatchdog {
			return true
		}
	}
	return directHTTP(f.blanked())
}

// httpCallees are the functions that send a request when called.
var httpCallees = []string{"fetch", "axios", "ky", "got"}

// directHTTP: code calls fetch(…), ofetch(…), $fetch(…), axios(…),
// axios.get(…), ky(…) or got(…) — found by literal search, each match's
// tail read in a bounded window.
func directHTTP(code []byte) bool {
	for _, name := range httpCallees {
		for i, tries := 0, 0; i < len(code) && tries < 4*maxCandidates; tries++ {
			j := bytes.Index(code[i:], []byte(name))
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(name)
			if at > 0 && !httpNameStart(code, at, name) {
				continue // part of a longer name (prefetch, refetch) or a method (this.fetch)
			}
			if i < len(code) && isWord(code[i]) {
				continue
			}
			if jsHTTPTail.Match(code[i:min(len(code), i+256)]) {
				return true
			}
		}
	}
	return false
}

// httpNameStart: the name at at starts a call of its own — nothing of a
// longer name or a member before it — or is fetch in ofetch or $fetch.
func httpNameStart(code []byte, at int, name string) bool {
	prev := code[at-1]
	if prev == '.' {
		return false
	}
	if !isWord(prev) {
		return true
	}
	if name != "fetch" || prev != 'o' && prev != '$' {
		return false
	}
	return at < 2 || !isWord(code[at-2]) && code[at-2] != '.'
}

var (
	// jsHTTPInstance: a module that builds an HTTP client instance for
	// others to call (export const api = axios.create({ baseURL })).
	jsHTTPInstance = regexp.MustCompile(`\b(?:axios|ky|ofetch|\$fetch|got)\s*\.\s*(?:create|extend)\s*\(`)
	jsVerbTail     = regexp.MustCompile(`^\s*(?:<[^;()]{0,200}?>\s*)?\(`)
)

// httpVerbs are the methods an HTTP client instance is called by.
var httpVerbs = []string{"get", "post", "put", "patch", "delete", "head", "request"}

// jsHTTPUses are the bindings a file imports from the project's own
// modules and calls an HTTP verb on (openHands.get(…), api.post(…)): a
// request when the module they come from builds an HTTP client instance
// (resolveQueries checks that). Each verb found by literal search, its
// receiver looked up among the file's own imports.
func jsHTTPUses(f *file) []moduleName {
	imports := f.jsImports()
	own := map[string]binding{}
	for local, b := range imports {
		if b.imported != "*" && (isRelativeModule(b.module) || strings.HasPrefix(b.module, "#/")) {
			own[local] = b
		}
	}
	if len(own) == 0 {
		return nil // nothing of the project's own imported: no regexp run
	}
	code := f.blanked()
	seen := map[string]bool{}
	var out []moduleName
	for _, verb := range httpVerbs {
		lit := []byte("." + verb)
		for i, tries := 0, 0; i < len(code) && tries < maxCandidates; tries++ {
			j := bytes.Index(code[i:], lit)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(lit)
			if i < len(code) && isWord(code[i]) {
				continue // .getItem, .postMessage
			}
			// The receiver: the name just before the dot.
			k := at
			for k > 0 && isSpace(code[k-1]) {
				k--
			}
			name := precedingName(code, k)
			if len(name) == 0 || bytes.IndexByte(name, '.') >= 0 || seen[string(name)] {
				continue // this.api.get: a member, not the import
			}
			b, ok := own[string(name)]
			if !ok || !jsVerbTail.Match(code[i:min(len(code), i+256)]) {
				continue
			}
			seen[string(name)] = true
			out = append(out, moduleName{b.module, b.imported})
			if len(out) >= maxHTTPUses {
				return out // enough to say the file sends requests
			}
		}
	}
	return out
}

// maxHTTPUses bounds the imported clients kept per file, and
// maxStemFiles the files of one name an import is resolved against: a
// hostile tree of 100,000 files costs 100,000 × 16 × 64 path comparisons
// at most.
const (
	maxHTTPUses  = 16
	maxStemFiles = 64
)
