package audit

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// JavaScript and TypeScript: imports say which binding is which library,
// then each library's call shape is matched in the blanked source and its
// knob read from the call's arguments.

var (
	jsImportDefault = regexp.MustCompile(`^import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,\s*\{([^}]*)\})?\s*from\s*['"]([^'"\n]+)['"]`)
	jsImportNamed   = regexp.MustCompile(`^import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"\n]+)['"]`)
	jsImportStar    = regexp.MustCompile(`^import\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\s*['"]([^'"\n]+)['"]`)
	jsRequire       = regexp.MustCompile(`^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"\n]+)['"]\s*\)`)
	jsRequireNamed  = regexp.MustCompile(`^(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*['"]([^'"\n]+)['"]\s*\)`)

	jsMaxRetries  = knobRe("maxRetries")
	jsRetries     = knobRe("retries")
	jsAttempts    = knobRe("attempts")
	jsRetryKnob   = knobRe("retry")
	jsApolloMax   = regexp.MustCompile(`\battempts\s*:\s*\{[^}]*\bmax\s*:\s*([0-9_]+)`)
	jsErrorRetry  = knobRe("errorRetryCount")
	jsNoRetryErr  = regexp.MustCompile(`\bshouldRetryOnError\s*:\s*false`)
	jsNetRetries  = knobRe("maxNetworkRetries")
	jsMaxAttempts = knobRe("maximumAttempts")
	jsQueueAdd    = regexp.MustCompile(`\.add(?:Bulk)?\s*\(`)
	jsNewQueue    = regexp.MustCompile(`\bnew\s+Queue\s*\(`)
	jsBackoff     = regexp.MustCompile(`\bbackoff\s*:\s*\{([^}]*)\}`)
	jsDelay       = regexp.MustCompile(`\bdelay\s*:\s*([0-9_]+)`)
	jsExpType     = regexp.MustCompile(`\btype\s*:\s*['"]exponential['"]`)
	jsHandLoop    = regexp.MustCompile(`^for\s*\(\s*(?:let|var)\s+(\w+)\s*=\s*([01])\s*;\s*(\w+)\s*(<=?)\s*([0-9]+)\s*;`)
	jsLoopCatch   = regexp.MustCompile(`\bcatch\b`)
	jsLoopWait    = regexp.MustCompile(`\bsetTimeout\s*\(|\bsleep\s*\(|\bdelay\s*\(|\bwait\s*\(`)
	jsUsesSWR     = regexp.MustCompile(`\buseSWR\w*\s*\(|\bSWRConfig\b`)
	jsInfinity    = regexp.MustCompile(`\bretries\s*:\s*(?:Infinity|Number\.POSITIVE_INFINITY)`)
	jsRetryTrue   = regexp.MustCompile(`\bretry\s*:\s*true\b`)
	jsRetryFalse  = regexp.MustCompile(`\bretry\s*:\s*false\b`)
	vercelAICalls = map[string]bool{"generateText": true, "streamText": true, "generateObject": true, "streamObject": true, "embed": true, "embedMany": true}
)

// binding is a local name bound to an import.
type binding struct {
	module   string
	imported string // "default", "*", or the exported name
}

func jsImports(raw, code []byte) map[string]binding {
	bs := map[string]binding{}
	live := func(at int) bool { return code[at] != ' ' } // the keyword survived blanking: not in a comment
	named := func(list, module string) {
		for _, part := range strings.Split(list, ",") {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "type "))
			if part == "" {
				continue
			}
			name, local, ok := strings.Cut(part, " as ")
			if !ok {
				local = name
			}
			if name == "default" {
				name = "default"
			}
			bs[strings.TrimSpace(local)] = binding{module, strings.TrimSpace(name)}
		}
	}
	const window = 2048
	for _, m := range scanAt(raw, "import", jsImportDefault, window) {
		if !live(m[0]) {
			continue
		}
		mod := string(raw[m[6]:m[7]])
		bs[string(raw[m[2]:m[3]])] = binding{mod, "default"}
		if m[4] >= 0 {
			named(string(raw[m[4]:m[5]]), mod)
		}
	}
	for _, m := range scanAt(raw, "import", jsImportNamed, window) {
		if live(m[0]) {
			named(string(raw[m[2]:m[3]]), string(raw[m[4]:m[5]]))
		}
	}
	for _, m := range scanAt(raw, "import", jsImportStar, window) {
		if live(m[0]) {
			bs[string(raw[m[2]:m[3]])] = binding{string(raw[m[4]:m[5]]), "*"}
		}
	}
	if bytes.Contains(code, []byte("require")) {
		for _, kw := range []string{"const", "let", "var"} {
			for _, m := range scanAt(raw, kw, jsRequire, window) {
				if live(m[0]) {
					bs[string(raw[m[2]:m[3]])] = binding{string(raw[m[4]:m[5]]), "default"}
				}
			}
			for _, m := range scanAt(raw, kw, jsRequireNamed, window) {
				if live(m[0]) {
					list := strings.ReplaceAll(string(raw[m[2]:m[3]]), ":", " as ")
					named(list, string(raw[m[4]:m[5]]))
				}
			}
		}
	}
	return bs
}

// jsCalls finds `new NAME(` (ctor) or `NAME(` calls of a binding in code,
// and returns the offset of each opening parenthesis.
func jsCalls(code []byte, name string, ctor bool) []int { return callsOf(code, name, ctor) }

func scanJS(rel string, raw []byte, vs versionSet) []Layer {
	code := blank(raw, jsSyntax)
	ln := newLines(raw)
	bs := jsImports(raw, code)
	var out []Layer
	add := func(id string, open int, conf Confidence, knob *regexp.Regexp, tune func(*Layer, []byte)) {
		a, b := args(code, open)
		l := newLayer(id, rel, ln.at(open), "javascript", conf)
		region := code[a:b]
		if knob != nil {
			if v, ok, num, at := intKnob(knob, region); ok {
				if num {
					l.set(v, snippet(region, at))
				} else {
					l.setUnknown(snippet(region, at))
				}
			}
		}
		if tune != nil {
			tune(&l, region)
		}
		out = append(out, l)
	}
	for name, b := range bs {
		// '@anthropic-ai/sdk/index' is '@anthropic-ai/sdk'.
		for _, pkg := range []string{"@anthropic-ai/sdk", "openai", "stripe", "p-retry", "async-retry", "ai", "bullmq", "swr"} {
			if strings.HasPrefix(b.module, pkg+"/") {
				b.module = pkg
			}
		}
		switch {
		case b.module == "@anthropic-ai/sdk" && (b.imported == "default" || b.imported == "Anthropic"):
			for _, o := range jsCalls(code, name, true) {
				add("anthropic-ts", o, ConfidenceMedium, jsMaxRetries, nil)
			}
		case b.module == "openai" && (b.imported == "default" || b.imported == "OpenAI" || b.imported == "AzureOpenAI"):
			for _, o := range jsCalls(code, name, true) {
				add("openai-node", o, ConfidenceMedium, jsMaxRetries, nil)
			}
		case b.module == "stripe" && b.imported == "default":
			// new Stripe(key) and Stripe(key): one layer per call, whichever shape.
			for _, o := range jsCalls(code, name, false) {
				add("stripe-node", o, ConfidenceMedium, jsNetRetries, nil)
			}
		case b.module == "p-retry" && b.imported == "default":
			for _, o := range jsCalls(code, name, false) {
				add("p-retry", o, ConfidenceMedium, jsRetries, func(l *Layer, r []byte) {
					if m := jsInfinity.FindIndex(r); m != nil {
						l.setUnbounded(snippet(r, m[0]))
					}
				})
			}
		case b.module == "async-retry" && b.imported == "default":
			for _, o := range jsCalls(code, name, false) {
				add("async-retry", o, ConfidenceMedium, jsRetries, nil)
			}
		case b.module == "ai" && vercelAICalls[b.imported]:
			for _, o := range jsCalls(code, name, false) {
				add("vercel-ai", o, ConfidenceMedium, jsMaxRetries, nil)
			}
		case strings.HasPrefix(b.module, "@tanstack/") && strings.HasSuffix(b.module, "query") || strings.HasPrefix(b.module, "@tanstack/query-core"):
			if b.imported != "QueryClient" {
				continue
			}
			for _, o := range jsCalls(code, name, true) {
				add("tanstack-query", o, ConfidenceMedium, jsRetryKnob, func(l *Layer, r []byte) {
					if m := jsRetryFalse.FindIndex(r); m != nil {
						l.setAttempts(1, snippet(r, m[0]))
					} else if m := jsRetryTrue.FindIndex(r); m != nil {
						l.setUnbounded(snippet(r, m[0]))
					}
				})
			}
		case b.module == "@temporalio/workflow" && (b.imported == "proxyActivities" || b.imported == "proxyLocalActivities"):
			for _, o := range jsCalls(code, name, false) {
				add("temporal-activity", o, ConfidenceMedium, nil, func(l *Layer, r []byte) {
					if v, ok, num, at := intKnob(jsMaxAttempts, r); ok {
						switch {
						case num && v > 0:
							l.setAttempts(v, snippet(r, at))
						case !num && strings.Contains(snippet(r, at), "Infinity"):
							l.setUnbounded(snippet(r, at))
						default:
							l.setUnknown(snippet(r, at))
						}
					}
				})
			}
		case isLangChainJSModel(b):
			for _, o := range jsCalls(code, name, true) {
				add("langchainjs-asynccaller", o, ConfidenceMedium, jsMaxRetries, func(l *Layer, _ []byte) {
					l.Note = langChainJSNote(b.module)
				})
			}
		case strings.HasPrefix(b.module, "@apollo/client") && b.imported == "RetryLink":
			for _, o := range jsCalls(code, name, true) {
				add("apollo-retrylink", o, ConfidenceMedium, nil, func(l *Layer, r []byte) {
					if v, ok, num, _ := intKnob(jsApolloMax, r); ok && num {
						l.setAttempts(v, "attempts: { max: "+strconv.Itoa(v)+" }")
					}
				})
			}
		}
	}
	// SWR: one layer per file that uses it, unless errorRetryCount or
	// shouldRetryOnError bounds it.
	for _, b := range bs {
		if b.module != "swr" {
			continue
		}
		if m := jsUsesSWR.FindIndex(code); m != nil && !jsNoRetryErr.Match(code) {
			l := newLayer("swr", rel, ln.at(m[0]), "javascript", ConfidenceMedium)
			if v, ok, num, at := intKnob(jsErrorRetry, code); ok {
				if num {
					l.set(v, snippet(code, at))
				} else {
					l.setUnknown(snippet(code, at))
				}
			}
			out = append(out, l)
		}
		break
	}
	// BullMQ: a job's attempts are set where it is added, often in a
	// file that never imports bullmq; trust the shape when the file or a
	// manifest of the repository names bullmq.
	usesBull := vs.declares("npm", "bullmq")
	for _, b := range bs {
		usesBull = usesBull || b.module == "bullmq"
	}
	if usesBull {
		for _, re := range []*regexp.Regexp{jsQueueAdd, jsNewQueue} {
			for _, m := range re.FindAllIndex(code, maxCandidates) {
				open := m[1] - 1
				a, e := args(code, open)
				region := code[a:e]
				v, ok, num, at := intKnob(jsAttempts, region)
				if !ok {
					// The options are a constant: defaultJobOptions: NAME, a
					// spread ...NAME, or .add(name, data, NAME). It is
					// resolved once every file is read (resolveConstants);
					// only defaultJobOptions is a layer when it cannot be.
					name, at, sure := bullOptionsConst(region, re == jsNewQueue)
					if name == "" {
						continue
					}
					l := newLayer("bullmq", rel, ln.at(a+at), "javascript", ConfidenceLow)
					l.setUnknown(snippet(region, at))
					l.fromConst, l.constRequired = name, sure
					l.Backoff = bullBackoff(raw[a:e])
					out = append(out, l)
					continue
				}
				l := newLayer("bullmq", rel, ln.at(a+at), "javascript", ConfidenceMedium)
				switch {
				case num:
					l.setAttempts(v, snippet(region, at))
				default:
					if fb, ok := fallbackLiteral(region[at:]); ok {
						// attempts: opts?.attempts || 3 — the literal is what
						// a caller that passes nothing gets.
						l.setAttempts(fb, snippet(region, at))
						l.Note = fmt.Sprintf("an expression with a fallback: %d attempts when the caller passes none", fb)
					} else {
						l.setUnknown(snippet(region, at))
					}
				}
				l.Backoff = bullBackoff(raw[a:e])
				out = append(out, l)
			}
		}
	}
	out = append(out, jsQueuesAndAzure(rel, code, ln, bs, vs)...)
	out = append(out, handLoops(rel, code, ln, "javascript", jsHandLoop, jsLoopCatch, jsLoopWait)...)
	return out
}

// handLoops finds `for (let i = 0; i < 3; i++) { try … catch … sleep }`:
// a retry loop written by hand, a low-confidence layer.
func handLoops(rel string, code []byte, ln lines, group string, loop, catch, wait *regexp.Regexp) []Layer {
	var out []Layer
	for _, m := range scanAt(code, "for", loop, 200) {
		start, _ := strconv.Atoi(string(code[m[4]:m[5]]))
		n, err := strconv.Atoi(string(code[m[10]:m[11]]))
		if err != nil || string(code[m[2]:m[3]]) != string(code[m[6]:m[7]]) {
			continue
		}
		attempts := n - start
		if string(code[m[8]:m[9]]) == "<=" {
			attempts++
		}
		if attempts < 2 || attempts > 1000 {
			continue
		}
		open := m[1]
		for open < len(code) && open-m[1] < 200 && code[open] != '{' {
			open++
		}
		if open >= len(code) || code[open] != '{' {
			continue
		}
		a, b := args(code, open)
		body := code[a:b]
		if !catch.Match(body) || !wait.Match(body) {
			continue
		}
		l := Layer{File: rel, Line: ln.at(m[0]), DefaultID: "hand-rolled", Library: "hand-rolled retry loop", Kind: KindWrapper,
			Attempts: attempts, Configured: true, Setting: strings.TrimSpace(string(code[m[0]:m[1]])),
			Retries4xx: true, Backoff: "none", Confidence: ConfidenceLow, group: group,
			Note: "a loop that catches and sleeps: read it to confirm it retries the call"}
		out = append(out, l)
	}
	return out
}

// bullBackoff reads a job's backoff option: { type: "exponential" | "fixed", delay: ms }.
func bullBackoff(raw []byte) string {
	bm := jsBackoff.FindSubmatch(raw)
	if bm == nil {
		return "none"
	}
	dm := jsDelay.FindSubmatch(bm[1])
	if dm == nil {
		return "none"
	}
	d, err := strconv.Atoi(strings.ReplaceAll(string(dm[1]), "_", ""))
	if err != nil {
		return "none"
	}
	if jsExpType.Match(bm[1]) {
		return "exp:" + strconv.Itoa(d) + "ms"
	}
	return "fixed:" + strconv.Itoa(d) + "ms"
}

var (
	jsAzureRetry    = regexp.MustCompile(`\bretryOptions\s*:\s*\{[^}]*\bmaxRetries\s*:\s*([0-9_]+|[A-Za-z_$][\w$.]*)`)
	jsAzureModule   = regexp.MustCompile(`^@azure(?:-rest)?/(?:ai-[\w-]+|openai)$`)
	jsCreateFn      = regexp.MustCompile(`\.createFunction\s*\(`)
	jsRetryObj      = regexp.MustCompile(`\bretry\s*:\s*\{`)
	jsRetriesObj    = regexp.MustCompile(`\bretries\s*:\s*\{`)
	jsDefaultObj    = regexp.MustCompile(`\bdefault\s*:\s*\{`)
	jsMaxAttemptsTD = knobRe("maxAttempts")
)

// jsQueuesAndAzure finds Azure AI clients, Inngest functions and
// Trigger.dev tasks and configs.
func jsQueuesAndAzure(rel string, code []byte, ln lines, bs map[string]binding, vs versionSet) []Layer {
	var out []Layer
	for name, b := range bs {
		mod := strings.TrimSuffix(b.module, "/v3")
		switch {
		case jsAzureModule.MatchString(b.module) && (b.imported == "default" || strings.HasSuffix(b.imported, "Client")):
			// new ChatCompletionsClient(...), and @azure-rest/ai-inference's
			// ModelClient(...) called without new.
			for _, o := range jsCalls(code, name, false) {
				a, e := args(code, o)
				l := newLayer("azure-core-js", rel, ln.at(o), "javascript", ConfidenceMedium)
				if v, ok, num, at := intKnob(jsAzureRetry, code[a:e]); ok {
					if num {
						l.set(v, "retryOptions: { maxRetries: "+strconv.Itoa(v)+" }")
					} else {
						l.setUnknown(snippet(code[a:e], at))
					}
				}
				out = append(out, l)
			}
		case mod == "@trigger.dev/sdk" && (b.imported == "task" || b.imported == "schemaTask"):
			for _, o := range jsCalls(code, name, false) {
				if l, ok := triggerTask(rel, code, ln, o); ok {
					out = append(out, l)
				}
			}
		case mod == "@trigger.dev/sdk" && b.imported == "schedules":
			for _, o := range jsCalls(code, name+".task", false) {
				if l, ok := triggerTask(rel, code, ln, o); ok {
					out = append(out, l)
				}
			}
		case mod == "@trigger.dev/sdk" && b.imported == "defineConfig":
			for _, o := range jsCalls(code, name, false) {
				a, e, ok := firstObject(code, o)
				if !ok {
					continue
				}
				rm := topLevel(jsRetriesObj, code[a:e])
				if rm == nil {
					continue
				}
				ra, re := args(code, a+rm[1]-1)
				dm := topLevel(jsDefaultObj, code[ra:re])
				if dm == nil {
					continue
				}
				da, de := args(code, ra+dm[1]-1)
				l := triggerLayer(rel, ln.at(a+rm[0]), "retries.default", code[da:de])
				l.Note = "the default of every task without its own retry"
				out = append(out, l)
			}
		}
	}
	// Inngest: functions are created on a client often built in another
	// file; trust .createFunction( when the file or a manifest names inngest.
	usesInngest := vs.declares("npm", "inngest")
	for _, b := range bs {
		usesInngest = usesInngest || b.module == "inngest" || strings.HasPrefix(b.module, "inngest/")
	}
	if usesInngest {
		for _, m := range jsCreateFn.FindAllIndex(code, maxCandidates) {
			a, e, ok := firstObject(code, m[1]-1)
			if !ok {
				continue
			}
			l := newLayer("inngest", rel, ln.at(m[0]), "javascript", ConfidenceMedium)
			if km := topLevel(jsRetries, code[a:e]); km != nil {
				if v, ok, num, at := intKnob(jsRetries, code[a+km[0]:e]); ok && num {
					l.set(v, snippet(code[a+km[0]:e], at))
				} else if ok {
					l.setUnknown(snippet(code[a+km[0]:e], at))
				}
				l.Line = ln.at(a + km[0])
			}
			out = append(out, l)
		}
	}
	return out
}

// triggerTask is a task({ retry: { maxAttempts } }) layer; a task without
// retry takes trigger.config's default, reported there.
func triggerTask(rel string, code []byte, ln lines, open int) (Layer, bool) {
	a, e, ok := firstObject(code, open)
	if !ok {
		return Layer{}, false
	}
	rm := topLevel(jsRetryObj, code[a:e])
	if rm == nil {
		return Layer{}, false
	}
	ra, re := args(code, a+rm[1]-1)
	return triggerLayer(rel, ln.at(a+rm[0]), "retry", code[ra:re]), true
}

// triggerLayer is a Trigger.dev retry object's layer, written at where:
// its maxAttempts, else Trigger.dev's defaultRetryOptions (3).
func triggerLayer(rel string, line int, where string, obj []byte) Layer {
	l := newLayer("trigger-dev", rel, line, "javascript", ConfidenceMedium)
	l.Attempts, l.Setting = 3, where+" without maxAttempts (defaultRetryOptions: 3)"
	if v, ok, num, at := intKnob(jsMaxAttemptsTD, obj); ok && num {
		l.setAttempts(v, where+"."+snippet(obj, at))
	} else if ok {
		l.setUnknown(snippet(obj, at))
	}
	return l
}

// firstObject is the inside of the { … } a call's first argument opens.
func firstObject(code []byte, open int) (int, int, bool) {
	k := open + 1
	for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n' || code[k] == '\r') {
		k++
	}
	if k >= len(code) || code[k] != '{' {
		return 0, 0, false
	}
	a, b := args(code, k)
	return a, b, true
}

// topLevel is the first match of re at the object's own level, not in a
// nested object, array or call: { concurrency: { retries: 1 } } is not
// the function's retries.
func topLevel(re *regexp.Regexp, obj []byte) []int {
	for _, m := range re.FindAllIndex(obj, maxCandidates) {
		depth := 0
		for _, c := range obj[:m[0]] {
			switch c {
			case '{', '[', '(':
				depth++
			case '}', ']', ')':
				depth--
			}
		}
		if depth == 0 {
			return m
		}
	}
	return nil
}

// isLangChainJSModel: a chat model, LLM or embeddings class of a
// LangChain.js provider package (@langchain/openai, /anthropic,
// /google-genai, /community …). Each extends BaseLanguageModel or
// Embeddings, whose AsyncCaller retries every call (maxRetries ?? 6).
func isLangChainJSModel(b binding) bool {
	if !strings.HasPrefix(b.module, "@langchain/") || strings.HasPrefix(b.module, "@langchain/core") || strings.HasPrefix(b.module, "@langchain/langgraph") {
		return false
	}
	n := b.imported
	return strings.HasPrefix(n, "Chat") || strings.HasSuffix(n, "Embeddings") || n == "OpenAI" || n == "AzureOpenAI"
}

// langChainJSNote says what sits under the AsyncCaller: the packages
// read (langchain-ai/langchainjs @62fc484b2a0d) build the provider's SDK
// client with maxRetries: 0, so the AsyncCaller is the one layer; for the
// others the provider's own client is not modelled.
func langChainJSNote(module string) string {
	pkg := module
	if i := strings.Index(module[len("@langchain/"):], "/"); i >= 0 {
		pkg = module[:len("@langchain/")+i]
	}
	switch pkg {
	case "@langchain/openai", "@langchain/anthropic", "@langchain/groq":
		return "LangChain.js's AsyncCaller retries; it builds the provider's SDK client with maxRetries: 0"
	case "@langchain/google-genai":
		return "LangChain.js's AsyncCaller retries the @google/generative-ai call, which has no retries of its own"
	}
	return "LangChain.js's AsyncCaller retries; the provider client underneath may retry too (not modelled)"
}

var (
	jsFallback    = regexp.MustCompile(`^attempts\s*:\s*[^,}\n]{0,120}?(?:\|\||\?\?)\s*([0-9_]+)\s*(?:[,}\n]|$)`)
	jsDefaultOpts = regexp.MustCompile(`\bdefaultJobOptions\s*:\s*([A-Za-z_$][\w$]*)\s*(?:[,}]|$)`)
	jsSpread      = regexp.MustCompile(`\.\.\.\s*([A-Za-z_$][\w$]*)`)
	jsLastArg     = regexp.MustCompile(`,\s*([A-Za-z_$][\w$]*)\s*$`)
	jsObjConst    = regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{0,200})?=\s*\{`)
)

// fallbackLiteral reads the literal after || or ?? in an attempts value
// ("attempts: opts?.attempts || 3" → 3).
func fallbackLiteral(code []byte) (int, bool) {
	m := jsFallback.FindSubmatch(code)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(string(m[1]), "_", ""))
	return n, err == nil && n > 0 && n <= 1_000_000
}

// bullOptionsConst names the constant a queue's or job's options come
// from, where in region it is written, and whether the shape is BullMQ's
// beyond doubt (defaultJobOptions: NAME) rather than any .add(…, NAME).
func bullOptionsConst(region []byte, queue bool) (string, int, bool) {
	if m := jsDefaultOpts.FindSubmatchIndex(region); m != nil {
		return string(region[m[2]:m[3]]), m[0], true
	}
	if m := jsSpread.FindSubmatchIndex(region); m != nil {
		return string(region[m[2]:m[3]]), m[0], queue && jsDefaultOpts.Match(region)
	}
	if !queue {
		if m := jsLastArg.FindSubmatchIndex(region); m != nil {
			return string(region[m[2]:m[3]]), m[2], false
		}
	}
	return "", 0, false
}

// jsConst is an object constant with attempts: a job-options constant
// another file's queue may use.
type jsConst struct {
	file     string
	line     int
	attempts int
	written  string
	backoff  string // the constant's own backoff option, budget-layers syntax
}

// jsConstants finds `const NAME = { … attempts: N … }` in a file.
func jsConstants(rel string, raw []byte) map[string]jsConst {
	if !bytes.Contains(raw, []byte("attempts")) {
		return nil
	}
	code := blank(raw, jsSyntax)
	ln := newLines(raw)
	out := map[string]jsConst{}
	for _, m := range jsObjConst.FindAllSubmatchIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		v, ok, num, at := intKnob(jsAttempts, code[a:b])
		if ok && num {
			out[string(code[m[2]:m[3]])] = jsConst{file: rel, line: ln.at(a + at), attempts: v, written: snippet(code[a:b], at), backoff: bullBackoff(raw[a:b])}
		}
	}
	return out
}
