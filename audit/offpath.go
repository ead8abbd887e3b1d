package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// Loops and handlers that are off every API path (issue 37, round 8's
// false reports): the loop and handler rules find a retry by its shape —
// a counted loop that catches and sleeps, an except that calls again —
// and that shape is as common around a browser or a result record as
// around a request. Two kinds are taken back after the rules ran, by
// reading the function that holds the layer:
//
//   - a browser's retry: the function drives a browser — Playwright,
//     Puppeteer, Selenium, CDP (page.goto, page.screenshot,
//     launch_persistent_context, connect_over_cdp, a frame's or a
//     locator's method) — and makes no model call and no HTTP API call.
//     A browser launched again, a page navigated or a screenshot taken
//     again re-sends no request to an API (skyvern's 12, browser-use's
//     two in round 8);
//   - a failure recorded, not a call made again: the handler's "call
//     again" builds the failed result — its arguments carry the error
//     (success=False, status="error", ok: false, the caught error itself)
//     or it only serializes (json.dumps) — as `return await
//     self.build_block_result(success=False, …)` after a try whose last
//     statement built the good one (skyvern's 8, agno's 2, chatbox's 2).
//
// A function with a model call or an HTTP call anywhere in it keeps its
// layer: the filter only removes, and only where the function shows no
// way to an API.

// browserCall: a call of a browser driver's method, or of any method on
// a page, frame, browser, locator, CDP session or web driver.
var browserCall = regexp.MustCompile(`\.\s*(?:goto|screenshot|hover|dblclick|wait_for_selector|waitForSelector|new_page|newPage|new_context|newContext|launch_persistent_context|launchPersistentContext|connect_over_cdp|connectOverCDP|scroll_into_view_if_needed|scrollIntoViewIfNeeded|query_selector(?:_all)?|querySelector(?:All)?|find_element(?:s)?|wait_for_load_state|waitForLoadState|waitForNavigation|set_content|setContent|add_init_script|addInitScript)\s*\(` +
	`|\b\w*(?:[pP]age|[fF]rame|[bB]rowser|[lL]ocator|[cC]dp|CDP|[dD]river)\s*(?:\(\s*\))?\s*\.\s*[A-Za-z_$][\w$]*\s*\(`)

// browserWord: a name of the function's code that names a browser or its
// debugging protocol (BrowserReconnectingEvent, cdp_url, chromium_path).
var browserWord = regexp.MustCompile(`(?i)\b\w*(?:browser|cdp|chromium|playwright|puppeteer|selenium|webdriver)\w*`)

var agentWord = regexp.MustCompile(`(?i)agent|step|ai_|_ai\b|\bask|generat`)

// apiCall: a call that reaches an API — an HTTP client (requests, httpx,
// aiohttp, urllib, fetch, axios, ofetch) or a request method, or a model
// (an SDK's create, a completion, an invoke, a helper named for a model).
var apiCall = regexp.MustCompile(`\b(?:requests|httpx|aiohttp|urllib3?|axios|ofetch|got|ky|superagent|boto3|aioboto3|openai|anthropic|litellm)\b` +
	`|\bfetch\s*\(|\.\s*(?:post|put|patch|request|urlopen|send_request|sendRequest|get_json|getJson)\s*\(` +
	`|\.\s*(?:get|delete|head)\s*\(\s*(?:url|endpoint|api|f?["'\x60]\s*https?:|[A-Za-z_$][\w$]*_url|[A-Za-z_$][\w$]*Url)`)

// modelCallJS is pyAsksModel's JavaScript reading: an SDK's create, a
// generateText/streamText, an invoke, a helper named for a model.
var modelCallJS = regexp.MustCompile(`\.(?:chat\.)?completions\.create\s*\(|\.messages\.(?:create|stream)\s*\(|\.responses\.create\s*\(|\b(?:generateText|streamText|generateObject|streamObject|embed|embedMany)\s*\(|\.invoke\s*\(|(?i:\b[a-z_$]*(?:gpt|llm|openai|claude|anthropic|chat_?complet)[a-z_$0-9]*\s*\()`)

// reachesAPI: code makes a model call or an HTTP API call.
func reachesAPI(code []byte) bool {
	return apiCall.Match(code) || pyAsksModel(code) || modelCallJS.Match(code)
}

// dropOffPath removes from out the layers of f's hand-written loops and
// handlers that the function holding them shows to be off every API path.
func dropOffPath(f *file, out []Layer) []Layer {
	if f.kind != fkPython && f.kind != fkJS || len(out) == 0 {
		return out
	}
	kept := out[:0]
	// A function is read once however many layers it holds: a file of a
	// thousand retry loops in one function costs one reading of it.
	browser, poll := map[int]bool{}, map[int]bool{}
	memo := func(m map[int]bool, n int, judge func(a, b int) bool) bool {
		a, b, ok := enclosingFunc(f, n)
		if !ok {
			return false
		}
		v, seen := m[a]
		if !seen {
			v = judge(a, b)
			m[a] = v
		}
		return v
	}
	for _, l := range out {
		if (l.DefaultID == "hand-rolled" || l.DefaultID == "stall-watchdog") && l.File == f.rel &&
			(memo(browser, l.Line, func(a, b int) bool { return browserOnly(f, a, b) }) || recordsFailure(f, l) ||
				memo(poll, l.Line, func(a, b int) bool { return localPoll(f, a, b) }) || bodyOffPath(f, l.Line)) {
			continue
		}
		if l.DefaultID == "hand-rolled" && l.Retries4xx && l.File == f.rel && sendsWithoutStatusRaise(f, l.Line) {
			l.Retries4xx = false
		}
		kept = append(kept, l)
	}
	return kept
}

// lineOffset is the offset of line n's first byte (n 1-based), -1 past
// the end.
func lineOffset(f *file, n int) int {
	ls := f.lines()
	if n < 1 || n > len(ls) {
		return -1
	}
	return ls[n-1]
}

// enclosingFunc is the function holding line n: its def line to its
// block's end in Python, its head's brace to its close in JavaScript;
// ok false when none is found within reach (module level: no function to
// read, the layer stays).
func enclosingFunc(f *file, n int) (int, int, bool) {
	at := lineOffset(f, n)
	if at < 0 {
		return 0, 0, false
	}
	code := f.blanked()
	for at < len(code) && (code[at] == ' ' || code[at] == '\t') {
		at++
	}
	if f.kind == fkPython {
		ind := indentAt(code, at)
		lo := max(0, at-maxReaskFuncBytes)
		for end := lineStartBefore(code, at); end > lo; {
			start := lineStartBefore(code, end-1)
			line := code[start : end-1]
			end = start
			li := lineIndent(code, start)
			t := bytes.TrimSpace(line)
			if len(t) == 0 || li >= ind || t[0] == ')' || t[0] == ']' || t[0] == '}' {
				continue // a blank line, a deeper one, or the close of a signature written over lines
			}
			ind = li
			if pyReaskDef.Match(line) {
				head := start + li
				p := bytes.IndexByte(code[head:min(len(code), head+200)], '(')
				if p < 0 {
					return 0, 0, false
				}
				_, c := args(code, head+p)
				colon := bytes.IndexByte(code[c:min(len(code), c+400)], ':')
				if c <= head+p || colon < 0 {
					return 0, 0, false
				}
				return start, min(len(code), pyBlockEndWithin(code, head, c+colon+1, maxReaskFuncBytes)), true
			}
			if li == 0 {
				return 0, 0, false
			}
		}
		return 0, 0, false
	}
	a, b, ok := -1, -1, false
	jsOpenBlocks(code, at, func(i int) bool {
		name, _, _, isFn := jsFuncHead(code, i)
		if !isFn || jsNotFunc[name] {
			return false // a block of if, for, catch: look further out
		}
		if e := closeOf(code, i, maxReaskFuncBytes); e > at {
			a, b, ok = i, e, true
		}
		return true
	})
	return a, b, ok
}

// browserOnly: the function code[a:b] drives a browser and reaches
// no API.
func browserOnly(f *file, a, b int) bool {
	fn := f.blanked()[a:b]
	if reachesAPI(fn) || callsAPIHelper(f, fn) {
		return false
	}
	// A browser's method called is the browser driven; a browser only
	// named (a reconnect event, a CDP URL) is, when nothing in the
	// function speaks of a model, an agent or its step — an agent's step
	// replayed in a browser may ask the model through a helper.
	return browserCall.Match(fn) || browserWord.Match(fn) && !talksToModel.Match(fn) && !agentWord.Match(fn)
}

// recalledName is the callee a "called again" setting names (`except
// Exception as e: build_block_result(…) called again`, `catch:
// updateRecord(…) called again on a stall (once)`), "" for other layers.
func recalledName(setting string) string {
	i := strings.Index(setting, "(…) called again")
	if i < 0 {
		if i = strings.Index(setting, "(…) on a stall"); i < 0 {
			return ""
		}
	}
	head := setting[:i]
	j := strings.LastIndexAny(head, " :")
	return strings.TrimPrefix(head[j+1:], "return ")
}

// failureMark: an argument that says the result is a failure.
var failureMark = regexp.MustCompile(`(?i)\bsuccess\s*=\s*False\b|\bok\s*[=:]\s*(?:False|false)\b|\bstatus\s*[=:]\s*(?:["'](?:error|failed|failure|timed_?out)["']|\w+\.(?:failed|error|timed_out|timeout|failure)\b)|["']?\berror["']?\s*:|\b(?:error|failure_reason|error_message)\s*=`)

// recordsFailure: l is a handler's call made again whose handler call
// builds a failed result or only serializes — the handler answers the
// error locally, it sends nothing again.
func recordsFailure(f *file, l Layer) bool {
	name := recalledName(l.Setting)
	if name == "" {
		return false
	}
	at := lineOffset(f, l.Line)
	if at < 0 {
		return false
	}
	code, vis := f.blanked(), f.readable()
	var a, b int
	if f.kind == fkPython {
		hs, _ := f.handlers()
		found := false
		for _, h := range hs {
			if f.lines().at(h.at) == l.Line {
				a, b, found = h.end-len(h.body), h.end, true
				break
			}
		}
		if !found {
			return false
		}
	} else {
		cs, _ := f.catches()
		found := false
		for _, c := range cs {
			if f.lines().at(c.at) == l.Line {
				a, b, found = c.bodyA, c.bodyB, true
				break
			}
		}
		if !found {
			return false
		}
	}
	if localCalls[name] {
		return true // json.dumps, JSON.stringify: a value shaped, nothing sent
	}
	if sendsByName.MatchString(name) {
		return false // generate(prompt, error=str(e)): the model asked again with the error, a re-ask
	}
	namedFailure := failureName.MatchString(name) && !talksToModel.MatchString(name)
	exVar := ""
	if f.kind == fkPython {
		hs, _ := f.handlers()
		for _, h := range hs {
			if f.lines().at(h.at) == l.Line {
				exVar = pyExceptVar(h.clause)
			}
		}
	} else if m := jsCatchVar.FindSubmatch(code[at:min(len(code), at+200)]); m != nil {
		exVar = string(m[1])
	}
	// Every call of name in the handler carries a failure mark in its
	// arguments; a call that does not (the same request, or a re-ask
	// whose prompt carries the error) keeps the layer.
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\(`)
	n := 0
	for _, m := range re.FindAllIndex(code[a:b], 16) {
		open := a + m[1] - 1
		x, y := args(code, open)
		if y <= x || y > len(vis) {
			return false
		}
		call := vis[x:y]
		if !namedFailure && !failureMark.Match(call) && !passesError(code[x:y], exVar) || reachesAPI(code[x:y]) {
			return false
		}
		n++
	}
	return n > 0
}

// sendsByName: a callee named for asking or sending — never a record of
// the failure, whatever its arguments carry.
var sendsByName = regexp.MustCompile(`(?i)generat|ask|complet|invoke|chat|llm|model|prompt|send|request|fetch|call|query|retry|run\b|^run`)

// failureName: a function named for the failure it records
// (_record_failure, _direct_failure_result, markError).
var failureName = regexp.MustCompile(`(?i)fail|error`)

var jsCatchVar = regexp.MustCompile(`^catch\s*\(\s*([A-Za-z_$][\w$]*)`)

// passesError: one of the call's arguments (args, blanked) is the caught
// error itself, bare or as text (`e`, `str(e)`, `String(err)`), not
// spliced into a prompt: the call reports the error.
func passesError(call []byte, exVar string) bool {
	if exVar == "" {
		return false
	}
	for _, a := range topLevelArgs(call) {
		a = bytes.TrimSpace(a)
		if i := bytes.IndexByte(a, '='); i > 0 && isName(string(bytes.TrimSpace(a[:i]))) && (i+1 >= len(a) || a[i+1] != '=') {
			a = bytes.TrimSpace(a[i+1:]) // error=e
		} else if i := bytes.IndexByte(a, ':'); i > 0 && f2jsKey(a[:i]) {
			a = bytes.TrimSpace(a[i+1:]) // { error: err }
		}
		s := string(a)
		if s == exVar || s == "str("+exVar+")" || s == "String("+exVar+")" || s == "repr("+exVar+")" {
			return true
		}
	}
	return false
}

// f2jsKey: an object key (`error`, `"error"`).
func f2jsKey(k []byte) bool {
	k = bytes.Trim(bytes.TrimSpace(k), `"'`)
	return isName(string(k))
}

// loopbackOnly: every request code[a:b] makes goes to a literal loopback
// URL (a local process's own API polled: ngrok's 127.0.0.1:4040, a
// sidecar on localhost), and it makes one. readable keeps the strings.
func loopbackOnly(vis []byte) bool {
	n := 0
	for _, m := range requestArg.FindAllSubmatch(vis, 32) {
		arg := bytes.TrimSpace(m[1])
		if len(arg) > 0 && (arg[0] == '"' || arg[0] == '\'') && !bytes.Contains(arg, []byte("://")) {
			continue // data.get("tunnels", []): a key looked up, no request
		}
		if !loopbackURL.Match(arg) {
			return false
		}
		n++
	}
	return n > 0
}

var (
	requestArg  = regexp.MustCompile(`(?:\.\s*(?:get|post|put|patch|delete|head|request)|\bfetch|\burlopen)\s*\(\s*([^,)\n]*)`)
	loopbackURL = regexp.MustCompile(`^f?["'\x60]https?://(?:127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0|\[::1\])[:/"'\x60]`)
)

// localPoll: the function code[a:b] holding a loop or handler only asks a
// local process's API and asks no model. A model server on loopback
// (Ollama's /api/chat, vLLM's or a LiteLLM proxy's /v1/chat/completions)
// is no local poll: every attempt is a model call, and a proxy's a paid
// one (R7-10: its unbounded loops vanished).
func localPoll(f *file, a, b int) bool {
	code := f.blanked()[a:b]
	vis := f.readable()[a:b]
	return !pyAsksModel(code) && !modelCallJS.Match(code) && !modelEndpointText.Match(vis) && loopbackOnly(vis)
}

// modelEndpointText: a model API's path or a request body naming a model.
var modelEndpointText = regexp.MustCompile(`/(?:v1/)?(?:chat/completions|completions|messages|responses|embeddings)\b|/api/(?:generate|chat|embed)\b|["']model["']\s*:`)

// calleeName: a call of a plain name (decide(shot), await ask_model(x)).
var calleeName = regexp.MustCompile(`(?:^|[^\w.$])([A-Za-z_$][\w$]*)\s*\(`)

// Function definitions of a file: Python's def, JavaScript's function and
// a name bound to an arrow or function expression.
var (
	pyHelperDef = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(`)
	jsHelperDef = regexp.MustCompile(`function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)`)
)

// apiHelperIndex is f's functions whose own body reaches an API, built
// once per file (linear in it).
func apiHelperIndex(f *file) map[string]bool {
	if f.apiHelpers != nil {
		return f.apiHelpers
	}
	f.apiHelpers = map[string]bool{}
	code := f.blanked()
	re := jsHelperDef
	if f.kind == fkPython {
		re = pyHelperDef
	}
	for _, m := range re.FindAllSubmatchIndex(code, -1) {
		name := ""
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				name = string(code[m[g]:m[g+1]])
				break
			}
		}
		if name == "" || f.apiHelpers[name] {
			continue
		}
		line := bytes.Count(code[:m[1]], []byte("\n")) + 2 // a line of its body
		if a, b, ok := enclosingFunc(f, line); ok && a <= m[0]+64 && reachesAPI(code[a:b]) {
			f.apiHelpers[name] = true
		}
	}
	return f.apiHelpers
}

// callsAPIHelper: fn calls a function defined in the same file whose own
// body reaches an API — the resolution the loop rules make (R7-11: a
// browser step asking the model through a helper was dropped as browser
// work). One level deep.
func callsAPIHelper(f *file, fn []byte) bool {
	helpers := apiHelperIndex(f)
	if len(helpers) == 0 {
		return false
	}
	for _, m := range calleeName.FindAllSubmatch(fn, -1) {
		if helpers[string(m[1])] {
			return true
		}
	}
	return false
}

// storeCall: a call of a database's, a cache's, a store's or a session
// manager's (get_auth_db(), app.STORAGE.get_downloaded_files,
// PERSISTENT_SESSIONS_MANAGER.release_browser_session, self.db.query).
var storeCall = regexp.MustCompile(`(?i)\b[\w.]*(?:_db\b|\bdb[._]|database|storage|_store\b|\bstore\.|repository|redis|dynamo|postgres|sqlite|mongo|qdrant|pinecone|chroma|milvus|weaviate|sessions?_manager)[\w.]*\s*\(`)

// layerBody is the block the statement at line n heads: a Python loop's
// or handler's indented block, a JavaScript statement's braces.
func layerBody(f *file, n int) (int, int, bool) {
	at := lineOffset(f, n)
	if at < 0 {
		return 0, 0, false
	}
	code := f.blanked()
	for at < len(code) && (code[at] == ' ' || code[at] == '\t') {
		at++
	}
	if f.kind == fkPython {
		nl := bytes.IndexByte(code[at:], '\n')
		if nl < 0 {
			return 0, 0, false
		}
		return at, min(len(code), pyBlockEndWithin(code, at, at+nl, maxCountedLoopBytes)), true
	}
	open := bytes.IndexByte(code[at:min(len(code), at+maxArgBytes)], '{')
	if open < 0 {
		return 0, 0, false
	}
	end := closeOf(code, at+open, maxLoopBodyBytes)
	if end < 0 {
		return 0, 0, false
	}
	return at, end, true
}

// bodyOffPath: the loop or handler at line n, read alone (its function
// may ask a model elsewhere), retries a store or a browser and reaches no
// API: a database lookup, a storage listing, a browser session released
// (skyvern's three in round 8).
func bodyOffPath(f *file, n int) bool {
	a, b, ok := layerBody(f, n)
	if !ok {
		return false
	}
	body := f.blanked()[a:b]
	if reachesAPI(body) || talksToModel.Match(body) || callsAPIHelper(f, body) {
		return false // a store read beside a model call: the model call is retried too
	}
	return storeCall.Match(body) || browserCall.Match(body) || browserWord.Match(body) && !agentWord.Match(body)
}

// Clients that do not raise on an HTTP status: requests, httpx and
// urllib3 in Python, fetch in JavaScript hand back a 400 as a response.
// A loop around them that never turns a status into an error — no
// raise_for_status(), no test of the status or of res.ok, no throw or
// raise of its own — goes on after an exception only, a connection's or a
// timeout's: it does not send a 400 again (agno's snapshot poll, said to
// retry "a 400 included, 600 times" in round 8). A model SDK in the loop
// raises on a 400 itself: the loop keeps its reading.
var (
	noRaiseClientPy = regexp.MustCompile(`\b(?:requests|httpx|urllib3)\.(?:get|post|put|patch|delete|head|request)\s*\(`)
	noRaiseClientJS = regexp.MustCompile(`\bfetch\s*\(`)
	statusTurned    = regexp.MustCompile(`raise_for_status|status_code|\.status\b|\.ok\b|\bthrow\b|\braise\b`)
)

// sendsWithoutStatusRaise: the loop at line n sends through a client that
// does not raise on a status, and nothing in it turns one into an error.
func sendsWithoutStatusRaise(f *file, n int) bool {
	a, b, ok := layerBody(f, n)
	if !ok {
		return false
	}
	body := f.blanked()[a:b]
	client := noRaiseClientPy
	if f.kind == fkJS {
		client = noRaiseClientJS
	}
	return client.Match(body) && !statusTurned.Match(body) && !pyAsksModel(body) && !modelCallJS.Match(body)
}

// A loop whose status handler goes on only for the statuses it names as
// retryable and raises otherwise —
//
//	except httpx.HTTPStatusError as e:
//	    if e.response.status_code in RETRYABLE_STATUS_CODES and attempt < n - 1:
//	        await asyncio.sleep(delay)
//	        continue
//	    self._raise_http_error(e)
//	except (httpx.TimeoutException, httpx.ConnectError):
//	    …
//
// — does not send a 400 again (browser-use's cloud LLM loop, a false
// critical once round 8's unbounded ones were gone). Every handler that
// lets the loop go on either names only timeouts and connection errors,
// or goes on only inside an if testing a retryable status (a set named
// retryable, 429, 5xx, >= 500) and raises at its own level after it (raise,
// or a helper named for raising); and one handler is of the second kind.
var (
	retryableStatus = regexp.MustCompile(`(?i)retr?yable|\b429\b|\b5\d\d\b|>=?\s*500`)
	transientOnly   = regexp.MustCompile(`(?i)^(?:timeout|connect|network|readtimeout|writetimeout|pooltimeout|remoteprotocol)`)
	raisesAtLevel   = regexp.MustCompile(`^(?:raise\b|(?:(?:self|cls|this)\.)?_?(?:raise|throw)\w*\s*\()`)
)

func pyGoesOnOnlyForRetryableStatus(f *file, a, b int) bool {
	code := f.blanked()
	hs, _ := f.handlers()
	statusKind := 0
	for _, h := range hs {
		if h.at < a || h.at >= b || pyHandlerExits(code, h, "") {
			continue
		}
		names := pyErrorName.FindAll(bytes.TrimSpace(cutAs(h.clause)), 16)
		transient := len(names) > 0
		for _, n := range names {
			if !transientOnly.MatchString(strings.TrimPrefix(lastSegment(string(n)), "httpx.")) && !transientOnly.MatchString(strings.ToLower(lastSegment(string(n)))) {
				transient = false
			}
		}
		if transient {
			continue
		}
		// Its own level: an if on a retryable status holding the
		// continue, then a raise.
		ind, sawIf, raises := -1, false, false
		for _, line := range bytes.Split(h.body, []byte("\n")) {
			t := bytes.TrimLeft(line, " \t")
			if len(t) == 0 {
				continue
			}
			li := len(line) - len(t)
			if ind < 0 {
				ind = li
			}
			if li != ind {
				continue
			}
			switch {
			case bytes.HasPrefix(t, []byte("if ")) && retryableStatus.Match(t) && bytes.Contains(t, []byte("status")):
				sawIf = true
			case bytes.HasPrefix(t, []byte("continue")):
				return false // goes on whatever the status
			case sawIf && raisesAtLevel.Match(t):
				raises = true
			}
		}
		if !sawIf || !raises {
			return false
		}
		statusKind++
	}
	return statusKind > 0
}
