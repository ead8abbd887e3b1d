package audit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	pyFromImport = regexp.MustCompile(`^from\s+([\w.]+)\s+import\s+(?:\(([^)]{0,1000})\)|([^\n(]+))`)
	pyImport     = regexp.MustCompile(`^import\s+([\w.]+)(?:\s+as\s+(\w+))?`)

	pyMaxRetries    = knobRe("max_retries")
	pyMaxTries      = knobRe("max_tries")
	pyMaxTime       = regexp.MustCompile(`\bmax_time\s*=`)
	pyStopAttempt   = regexp.MustCompile(`\bstop_after_attempt\s*[=(]\s*([0-9_]+|[A-Za-z_][\w.]*)`)
	pyStopAny       = regexp.MustCompile(`\bstop\s*=`)
	pyRetryIf       = regexp.MustCompile(`\bretry\s*=\s*retry_if_exception_type\s*\(\s*\(?\s*([\w.]+)`)
	pyAutoretry     = regexp.MustCompile(`\bautoretry_for\s*=`)
	pyBindTrue      = regexp.MustCompile(`\bbind\s*=\s*True\b`)
	pySelfRetry     = regexp.MustCompile(`\bself\.retry\s*\(`)
	pyTaskClass     = regexp.MustCompile(`(?m)^class\s+(\w+)\s*\(([^)]*Task\b[^)]*)\)\s*:`)
	pyTopLevel      = regexp.MustCompile(`(?m)^(?:class|def|@)\b`)
	pyRetryKwargs   = regexp.MustCompile(`['"]max_retries['"]\s*:\s*(\d+|None)`)
	pyTaskDeco      = regexp.MustCompile(`(?m)^[ \t]*@\s*(?:[\w]+\.)?(?:task|shared_task)\b\s*(\()?`)
	pyRQRetry       = regexp.MustCompile(`\bRetry\s*\(`)
	pyRQMax         = knobRe("max")
	pyWithRetry     = regexp.MustCompile(`\.with_retry\s*\(`)
	pyInstrCreate   = regexp.MustCompile(`\.(?:create|create_with_completion|create_partial|create_iterable)\s*\(`)
	pyResponseModel = regexp.MustCompile(`\bresponse_model\s*=`)
	pyInstrPatch    = regexp.MustCompile(`\binstructor\.a?patch\s*\(|(?m)^from\s+instructor\s+import\s+[^\n]*\ba?patch\b`)
	pyInstrFrom     = regexp.MustCompile(`\bfrom_(?:openai|anthropic|provider|litellm|gemini|genai|mistral|cohere|groq|vertexai|bedrock)\s*\(`)
	pyBotoClient    = regexp.MustCompile(`\b(?:boto3|session|\w*[sS]ession)\.(?:client|resource)\s*\(`)
	pyBotoTotal     = regexp.MustCompile(`['"]total_max_attempts['"]\s*:\s*([0-9]+)`)
	pyBotoMax       = regexp.MustCompile(`['"]max_attempts['"]\s*:\s*([0-9]+)`)
	pyBotoStandard  = regexp.MustCompile(`['"]mode['"]\s*:\s*['"](?:standard|adaptive)['"]`)
	pyGenaiRetry    = regexp.MustCompile(`\bHttpRetryOptions\s*\(`)
	pyGenaiAttempt  = knobRe("attempts")
	pyProvider      = regexp.MustCompile(`['"](openai|anthropic)(?:-chat|-responses)?:[\w.{-]`)
	pyTemporalCall  = regexp.MustCompile(`\.(?:execute|start)_(?:local_)?activity(?:_method)?\s*\(`)
	pyMaxAttempts   = knobRe("maximum_attempts")
	pyTotal         = knobRe("total")
	pyFirstInt      = regexp.MustCompile(`^\s*([0-9]+)\s*[,)]?`)
	pyRangeLoop     = regexp.MustCompile(`^for\s+(\w+)\s+in\s+range\(\s*(?:([0-9]+)\s*,\s*)?([0-9]+)\s*\)\s*:`)
	pyTry           = regexp.MustCompile(`\btry\s*:`)
	pySleep         = regexp.MustCompile(`\bsleep\s*\(`)
)

// pyImports maps local names to "module.Name" (or "module" for a module).
func pyImports(code []byte) map[string]string {
	bs := map[string]string{}
	sub := func(m []int, k int) string {
		if m[2*k] < 0 {
			return ""
		}
		return string(code[m[2*k]:m[2*k+1]])
	}
	for _, m := range scanAt(code, "from", pyFromImport, 1200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		mod := sub(m, 1)
		list := sub(m, 2) + sub(m, 3)
		for _, part := range strings.Split(strings.ReplaceAll(list, "\\\n", " "), ",") {
			part = strings.TrimSpace(strings.Trim(strings.TrimSpace(part), "()"))
			if part == "" || part == "\\" {
				continue
			}
			name, local, ok := strings.Cut(part, " as ")
			name = strings.TrimSpace(name)
			if !ok {
				local = name
			}
			bs[strings.TrimSpace(local)] = mod + "." + name
		}
	}
	for _, m := range scanAt(code, "import", pyImport, 300) {
		if !atLineStart(code, m[0]) {
			continue
		}
		mod := sub(m, 1)
		local := mod
		if s := sub(m, 2); s != "" {
			local = s
		}
		bs[local] = mod
	}
	return bs
}

// pyCalls finds calls of NAME( or ALIAS.NAME( and returns the offsets of
// each opening parenthesis.
func pyCalls(code []byte, qualified string) []int { return callsOf(code, qualified, false) }

// pyNames returns every way this file can write module.Name: the local
// names bound to it and alias.Name for each import of the module.
func pyNames(bs map[string]string, module string, names ...string) []string {
	var out []string
	for local, full := range bs {
		for _, n := range names {
			// from openai import OpenAI, and from openai.lib.azure import
			// AzureOpenAI: a submodule re-exporting the class.
			if full == module+"."+n || strings.HasPrefix(full, module+".") && strings.HasSuffix(full, "."+n) {
				out = append(out, local)
			}
		}
		if full == module {
			for _, n := range names {
				out = append(out, local+"."+n)
			}
		}
	}
	return out
}

func importsPrefix(bs map[string]string, prefix string) bool {
	for _, full := range bs {
		if full == prefix || strings.HasPrefix(full, prefix+".") {
			return true
		}
	}
	return false
}

func scanPython(rel string, raw []byte) []Layer {
	code := blank(raw, pySyntax)
	ln := newLines(raw)
	bs := pyImports(code)
	var out []Layer
	at := func(id string, open int, knob *regexp.Regexp) Layer {
		a, b := args(code, open)
		l := newLayer(id, rel, ln.at(open), "python", ConfidenceMedium)
		if knob != nil {
			if v, ok, num, k := intKnob(knob, code[a:b]); ok {
				if num {
					l.set(v, snippet(code[a:b], k))
				} else {
					l.setUnknown(snippet(code[a:b], k))
				}
			}
		}
		return l
	}
	for _, n := range pyNames(bs, "anthropic", "Anthropic", "AsyncAnthropic", "AnthropicBedrock", "AsyncAnthropicBedrock", "AnthropicVertex", "AsyncAnthropicVertex") {
		for _, o := range pyCalls(code, n) {
			out = append(out, at("anthropic-python", o, pyMaxRetries))
		}
	}
	for _, n := range pyNames(bs, "openai", "OpenAI", "AsyncOpenAI", "AzureOpenAI", "AsyncAzureOpenAI") {
		for _, o := range pyCalls(code, n) {
			out = append(out, at("openai-python", o, pyMaxRetries))
		}
	}
	// LlamaIndex's OpenAI: the client and the tenacity decorator both take
	// max_retries, so one constructor is two layers.
	for _, n := range pyNames(bs, "llama_index.llms.openai", "OpenAI") {
		for _, o := range pyCalls(code, n) {
			fw := at("llamaindex-openai", o, pyMaxRetries)
			fw.Confidence = ConfidenceHigh
			sdk := newLayer("openai-python", rel, fw.Line, "python", ConfidenceMedium)
			sdk.Attempts = fw.Attempts + 1
			sdk.Note = "the OpenAI client LlamaIndex builds with the same max_retries"
			if fw.Configured {
				sdk.Configured, sdk.Setting = true, fw.Setting
			} else {
				sdk.Setting = "max_retries (LlamaIndex's default 3, passed to the client)"
			}
			out = append(out, fw, sdk)
		}
	}
	// LangChain's chat models: each is a layer whether or not max_retries
	// is written (the one nobody set). ChatOpenAI and ChatAnthropic pass
	// max_retries to the SDK client (default 2, the SDK's own);
	// ChatGoogleGenerativeAI to google-genai's HttpRetryOptions(attempts=)
	// (default 6; 0 means Google's default of 5); ChatVertexAI to its own
	// tenacity decorator (6 attempts); ChatBedrock to botocore's
	// retries.max_attempts (botocore's legacy 5 attempts when unset).
	models := map[string]int{} // variable bound to a chat model → its layer's index in out
	chained := map[int]int{}   // offset just past a model constructor's ) → its layer's index
	for _, c := range pyChatModels {
		for _, n := range pyNames(bs, c.module, c.name) {
			for _, o := range pyCalls(code, n) {
				a, b := args(code, o)
				l := newLayer(c.id, rel, ln.at(o), "python", ConfidenceMedium)
				v, ok, num, k := intKnob(pyMaxRetries, code[a:b])
				switch {
				case ok && num && c.id == "google-genai" && v == 0:
					l.setAttempts(5, snippet(code[a:b], k)+" (0: Google's default, 5 attempts)")
				case ok && num:
					l.set(v, snippet(code[a:b], k))
				case ok:
					l.setUnknown(snippet(code[a:b], k))
				case c.unset > 0:
					l.Attempts = c.unset
					l.Setting = fmt.Sprintf("max_retries (not set: %s's default, %d attempts)", c.name, c.unset)
				}
				l.Note = c.note
				out = append(out, l)
				if name := assignedTo(code, o-len(n)); name != "" {
					models[name] = len(out) - 1
				}
				chained[b+1] = len(out) - 1
			}
		}
	}
	if importsPrefix(bs, "langchain_core") || importsPrefix(bs, "langchain") || importsPrefix(bs, "langchain_openai") || importsPrefix(bs, "langchain_anthropic") || importsPrefix(bs, "langgraph") {
		for _, m := range pyWithRetry.FindAllIndex(code, maxCandidates) {
			o := m[1] - 1
			l := at("langchain-with-retry", o, nil)
			a, b := args(code, o)
			if v, ok, num, k := intKnob(knobRe("stop_after_attempt"), code[a:b]); ok {
				if num {
					l.setAttempts(v, snippet(code[a:b], k))
				} else {
					l.setUnknown(snippet(code[a:b], k))
				}
			}
			if rm := regexp.MustCompile(`\bretry_if_exception_type\s*=`).FindIndex(code[a:b]); rm != nil {
				l.Retries4xx = false
				l.Note = "retry_if_exception_type narrows what it retries"
			}
			// The model it wraps: model.with_retry(…) of a variable bound
			// to a chat model here, or ChatAnthropic(…).with_retry(…).
			recv := m[0]
			if i, ok := chained[recv]; ok {
				l.wraps = out[i].Line
			} else if name := receiver(code, recv); name != "" {
				if i, ok := models[name]; ok {
					l.wraps = out[i].Line
				}
			} else if i, ok := pipedModel(code, recv, models); ok {
				l.wraps = out[i].Line // (prompt | model).with_retry(…)
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "instructor") {
		// instructor's create: Instructor.create (from_openai,
		// from_anthropic, from_provider) defaults max_retries to 3; only
		// the legacy instructor.patch(client) defaults to 1. A create
		// call is instructor's when it passes response_model or
		// max_retries (a plain SDK create in the same file passes neither).
		legacy := pyInstrPatch.Match(code) && !pyInstrFrom.Match(code)
		for _, m := range pyInstrCreate.FindAllIndex(code, maxCandidates) {
			o := m[1] - 1
			a, b := args(code, o)
			v, ok, num, k := intKnob(pyMaxRetries, code[a:b])
			if !ok && !pyResponseModel.Match(code[a:b]) {
				continue
			}
			l := newLayer("instructor", rel, ln.at(o), "python", ConfidenceMedium)
			switch {
			case ok && num:
				l.setAttempts(v, snippet(code[a:b], k))
			case ok:
				l.setUnknown(snippet(code[a:b], k))
			case legacy:
				l.Attempts = 1
				l.Setting = "max_retries (not set: instructor.patch's default, 1 attempt)"
			default:
				l.Note = "Instructor.create's default max_retries=3, each attempt a full round of the SDK's own retries"
			}
			out = append(out, l)
		}
	}
	out = append(out, pyTenacity(rel, code, ln, bs)...)
	for _, n := range pyNames(bs, "backoff", "on_exception", "on_predicate") {
		for _, o := range pyCalls(code, n) {
			l := at("backoff", o, pyMaxTries)
			a, b := args(code, o)
			if !l.Configured && pyMaxTime.Match(code[a:b]) {
				l.Note = "max_time bounds it in time, not in attempts"
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "celery") {
		out = append(out, pyCelery(rel, raw, code, ln)...)
	}
	for _, n := range pyNames(bs, "rq", "Retry") {
		if n != "Retry" && !strings.HasSuffix(n, ".Retry") {
			continue
		}
		for _, o := range pyCalls(code, n) {
			out = append(out, at("rq", o, pyRQMax))
		}
	}
	if importsPrefix(bs, "boto3") {
		for _, m := range pyBotoClient.FindAllIndex(code, maxCandidates) {
			l := newLayer("botocore", rel, ln.at(m[0]), "python", ConfidenceMedium)
			// The retry config is a dict of strings: read it from the
			// source, where a Config(...) of this file sets it.
			if v := pyBotoTotal.FindSubmatch(raw); v != nil {
				n, _ := strconv.Atoi(string(v[1]))
				l.setAttempts(n, string(v[0]))
			} else if v := pyBotoMax.FindSubmatch(raw); v != nil {
				n, _ := strconv.Atoi(string(v[1]))
				l.set(n, string(v[0])+" (retries: botocore adds the first attempt)")
			} else if v := pyBotoStandard.Find(raw); v != nil {
				l.setAttempts(3, string(v)+" (standard mode's default)")
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "google.genai") || importsPrefix(bs, "google") {
		for _, m := range pyGenaiRetry.FindAllIndex(code, maxCandidates) {
			o := m[1] - 1
			l := newLayer("google-genai", rel, ln.at(o), "python", ConfidenceMedium)
			a, b := args(code, o)
			if v, ok, num, k := intKnob(pyGenaiAttempt, code[a:b]); ok && num {
				l.setAttempts(v, snippet(code[a:b], k))
			} else {
				l.setAttempts(5, "HttpRetryOptions() (5 attempts when enabled)")
				l.Configured = false
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "temporalio") {
		for _, m := range pyTemporalCall.FindAllIndex(code, maxCandidates) {
			o := m[1] - 1
			l := newLayer("temporal-activity", rel, ln.at(o), "python", ConfidenceMedium)
			a, b := args(code, o)
			if v, ok, num, k := intKnob(pyMaxAttempts, code[a:b]); ok {
				switch {
				case num && v == 0:
					l.setUnbounded(snippet(code[a:b], k) + " (0: no maximum)")
				case num:
					l.setAttempts(v, snippet(code[a:b], k))
				default:
					l.setUnknown(snippet(code[a:b], k))
				}
			}
			out = append(out, l)
		}
	}
	// Pydantic AI builds the provider's SDK client without max_retries
	// (providers/_openai_compatible.py and providers/anthropic.py in
	// pydantic/pydantic-ai @4fda38988f29): an Agent is an SDK layer at the
	// SDK's default.
	for _, n := range pyNames(bs, "pydantic_ai", "Agent") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			provider := pyProvider.FindSubmatch(raw[a:b])
			conf := ConfidenceMedium
			if provider == nil {
				provider, conf = pyProvider.FindSubmatch(raw), ConfidenceLow // a model string elsewhere in the file
			}
			if provider == nil {
				continue
			}
			id := "openai-python"
			if string(provider[1]) == "anthropic" {
				id = "anthropic-python"
			}
			l := newLayer(id, rel, ln.at(o), "python", conf)
			l.Note = "the " + string(provider[1]) + " client Pydantic AI builds, with the SDK's default max_retries"
			out = append(out, l)
		}
	}
	retryNames := append(pyNames(bs, "urllib3", "Retry"), pyNames(bs, "requests.packages.urllib3", "Retry")...)
	for _, n := range retryNames {
		for _, o := range pyCalls(code, n) {
			l := newLayer("urllib3-retry", rel, ln.at(o), "python", ConfidenceMedium)
			a, b := args(code, o)
			region := code[a:b]
			if v, ok, num, k := intKnob(pyTotal, region); ok {
				if num {
					l.set(v, snippet(region, k))
				} else {
					l.setUnknown(snippet(region, k))
				}
			} else if pm := pyFirstInt.FindSubmatch(region); pm != nil {
				v, _ := strconv.Atoi(string(pm[1]))
				l.set(v, "Retry("+string(pm[1])+")")
			}
			out = append(out, l)
		}
	}
	for _, n := range pyNames(bs, "requests.adapters", "HTTPAdapter") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			if v, ok, num, k := intKnob(pyMaxRetries, code[a:b]); ok && num && v > 0 {
				l := newLayer("urllib3-retry", rel, ln.at(o), "python", ConfidenceMedium)
				l.set(v, snippet(code[a:b], k))
				out = append(out, l)
			}
		}
	}
	out = append(out, pyFrameworks(rel, raw, code, ln, bs)...)
	out = append(out, pyHandLoops(rel, code, ln)...)
	return out
}

// pyChatModels are LangChain's chat-model classes, the row their retries
// belong to, and the attempts when max_retries is not written (0: the
// row's own default).
var pyChatModels = []struct {
	module, name, id string
	unset            int
	note             string
}{
	{"langchain_openai", "ChatOpenAI", "openai-python", 0, "ChatOpenAI builds the OpenAI client with its max_retries (default: the SDK's 2)"},
	{"langchain_openai", "AzureChatOpenAI", "openai-python", 0, "AzureChatOpenAI builds the OpenAI client with its max_retries (default: the SDK's 2)"},
	{"langchain_anthropic", "ChatAnthropic", "anthropic-python", 0, "ChatAnthropic builds the Anthropic client with its max_retries (default 2, the SDK's)"},
	{"langchain_google_genai", "ChatGoogleGenerativeAI", "google-genai", 6, "ChatGoogleGenerativeAI passes max_retries (default 6) to google-genai as HttpRetryOptions(attempts=)"},
	{"langchain_google_vertexai", "ChatVertexAI", "langchain-vertexai", 0, "ChatVertexAI's own tenacity decorator; the Vertex client's GAPIC retry is not modelled"},
	{"langchain_aws", "ChatBedrock", "botocore", 0, "ChatBedrock builds a boto3 client: max_retries sets botocore's retries.max_attempts"},
	{"langchain_aws", "ChatBedrockConverse", "botocore", 0, "ChatBedrockConverse builds a boto3 client: max_retries sets botocore's retries.max_attempts"},
}

var (
	pyAssign   = regexp.MustCompile(`(?:^|\n)[ \t]*([A-Za-z_][\w.]*)[ \t]*(?::[^=\n]*)?=[ \t]*$`)
	pyReceiver = regexp.MustCompile(`([A-Za-z_][\w.]*)\s*$`)
)

// assignedTo is the name a call at offset at is assigned to on its line
// ("model = ChatAnthropic(…)", "self.llm: BaseChatModel = …"), or "".
func assignedTo(code []byte, at int) string {
	start := max(0, at-200)
	if m := pyAssign.FindSubmatch(code[start:at]); m != nil {
		return string(m[1])
	}
	return ""
}

// receiver is the name just before offset at ("model" of model.with_retry).
func receiver(code []byte, at int) string {
	if m := pyReceiver.FindSubmatch(code[max(0, at-200):at]); m != nil {
		return string(m[1])
	}
	return ""
}

var pyIdent = regexp.MustCompile(`[A-Za-z_][\w.]*`)

// pipedModel: the chat model named inside the parenthesised expression
// that ends just before offset at ("(prompt | model)"), when one is.
func pipedModel(code []byte, at int, models map[string]int) (int, bool) {
	i := at - 1
	for i >= 0 && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n') {
		i--
	}
	if i < 0 || code[i] != ')' {
		return 0, false
	}
	depth := 0
	j := i
	for ; j >= 0 && i-j < maxArgBytes; j-- {
		if code[j] == ')' {
			depth++
		} else if code[j] == '(' {
			if depth--; depth == 0 {
				break
			}
		}
	}
	if j < 0 || depth != 0 {
		return 0, false
	}
	found, idx := false, 0
	for _, id := range pyIdent.FindAll(code[j+1:i], -1) {
		if k, ok := models[string(id)]; ok {
			found, idx = true, k
		}
	}
	return idx, found
}

// pyTenacity: @retry bare is forever; @retry(...) and Retrying(...) stop
// where stop_after_attempt says, and never when no stop is given.
func pyTenacity(rel string, code []byte, ln lines, bs map[string]string) []Layer {
	var out []Layer
	names := pyNames(bs, "tenacity", "retry", "Retrying", "AsyncRetrying")
	for _, n := range names {
		re := regexp.MustCompile(`(?:^|[^\w.])(@\s*)?` + regexp.QuoteMeta(n) + `\b(\s*\()?`)
		for _, m := range re.FindAllSubmatchIndex(code, maxCandidates) {
			deco, call := m[2] >= 0, m[4] >= 0
			isRetry := strings.HasSuffix(n, "retry") && !strings.HasSuffix(n, "Retrying")
			if !call && !(deco && isRetry) {
				continue // a mention, not a use
			}
			if !call && deco {
				// @retry bare
				l := newLayer("tenacity", rel, ln.at(m[0]), "python", ConfidenceHigh)
				l.Setting = "@retry (no stop: retries forever)"
				out = append(out, l)
				continue
			}
			if isRetry && !deco {
				continue // retry(...) called as a function is rare; skip the ambiguity
			}
			open := m[5] - 1
			a, b := args(code, open)
			region := code[a:b]
			l := newLayer("tenacity", rel, ln.at(m[0]), "python", ConfidenceMedium)
			if sm := pyStopAttempt.FindSubmatchIndex(region); sm != nil {
				if v, err := strconv.Atoi(strings.ReplaceAll(string(region[sm[2]:sm[3]]), "_", "")); err == nil {
					l.setAttempts(v, "stop_after_attempt("+strconv.Itoa(v)+")")
				} else {
					l.setUnknown(snippet(region, sm[0]))
				}
			} else if sm := pyStopAny.FindIndex(region); sm != nil {
				l.Configured = true
				l.Setting = snippet(region, sm[0])
				l.Note = "stopped by a condition other than an attempt count (stop_after_delay?): attempts not bounded by count"
			}
			if rm := pyRetryIf.FindSubmatch(region); rm != nil && string(rm[1]) != "Exception" && string(rm[1]) != "BaseException" {
				l.Retries4xx = false
			}
			out = append(out, l)
		}
	}
	return out
}

// pyCelery: a task retries when autoretry_for is set or it calls
// self.retry(); max_retries defaults to 3 (4 attempts), None is forever.
func pyCelery(rel string, raw, code []byte, ln lines) []Layer {
	var out []Layer
	// A task class: autoretry_for and max_retries as class attributes
	// (the shape Celery's docs and many projects use for a base task).
	for _, m := range pyTaskClass.FindAllIndex(code, maxCandidates) {
		end := min(len(code), m[1]+maxBodyBytes)
		if nx := pyTopLevel.FindIndex(code[m[1]:end]); nx != nil {
			end = m[1] + nx[0]
		}
		body := code[m[1]:end]
		if !pyAutoretry.Match(body) {
			continue
		}
		l := newLayer("celery", rel, ln.at(m[0]), "python", ConfidenceMedium)
		celeryMax(&l, raw[m[1]:end], body)
		out = append(out, l)
	}
	decos := pyTaskDeco.FindAllSubmatchIndex(code, maxCandidates)
	for i, m := range decos {
		var region, rawRegion []byte
		if m[2] >= 0 {
			a, b := args(code, m[3]-1)
			region, rawRegion = code[a:b], raw[a:b]
		}
		end := min(len(code), m[1]+maxBodyBytes)
		if i+1 < len(decos) {
			end = min(end, decos[i+1][0])
		}
		body, rawBody := code[m[1]:end], raw[m[1]:end]
		auto := region != nil && pyAutoretry.Match(region)
		selfRetry := region != nil && pyBindTrue.Match(region) && pySelfRetry.Match(body)
		if !auto && !selfRetry {
			continue
		}
		l := newLayer("celery", rel, ln.at(m[0]), "python", ConfidenceMedium)
		knobIn, rawIn := region, rawRegion
		if _, ok, _, _ := intKnob(pyMaxRetries, region); !ok && !pyRetryKwargs.Match(rawRegion) && selfRetry {
			// self.retry(exc=e, max_retries=N) in the task's body
			if sm := pySelfRetry.FindIndex(body); sm != nil {
				a, b := args(body, sm[1]-1)
				knobIn, rawIn = body[a:b], rawBody[a:b]
			}
		}
		celeryMax(&l, rawIn, knobIn)
		out = append(out, l)
	}
	return out
}

// maxBodyBytes bounds how much of a task's body is read for self.retry()
// and its class attributes.
const maxBodyBytes = 64 << 10

// celeryMax reads max_retries from code (max_retries=N, max_retries = None)
// or from a retry_kwargs dict in the raw source ({"max_retries": N}).
func celeryMax(l *Layer, raw, code []byte) {
	if mm := regexp.MustCompile(`\bmax_retries\s*=\s*None\b`).FindIndex(code); mm != nil {
		l.setUnbounded(snippet(code, mm[0]))
		return
	}
	if v, ok, num, k := intKnob(pyMaxRetries, code); ok {
		if num {
			l.set(v, snippet(code, k))
		} else {
			l.setUnknown(snippet(code, k))
		}
		return
	}
	if rm := pyRetryKwargs.FindSubmatch(raw); rm != nil {
		if string(rm[1]) == "None" {
			l.setUnbounded("retry_kwargs " + string(rm[0]))
		} else {
			n, _ := strconv.Atoi(string(rm[1]))
			l.set(n, "retry_kwargs "+string(rm[0]))
		}
	}
}

// pyHandLoops: `for attempt in range(3):` whose block has a try and a
// sleep.
func pyHandLoops(rel string, code []byte, ln lines) []Layer {
	var out []Layer
	for _, m := range scanAt(code, "for", pyRangeLoop, 200) {
		if !atLineStart(code, m[0]) {
			continue
		}
		start := 0
		if m[4] >= 0 {
			start, _ = strconv.Atoi(string(code[m[4]:m[5]]))
		}
		n, err := strconv.Atoi(string(code[m[6]:m[7]]))
		if err != nil {
			continue
		}
		attempts := n - start
		if attempts < 2 || attempts > 1000 {
			continue
		}
		indent := 0
		for i := m[0] - 1; i >= 0 && code[i] != '\n'; i-- {
			indent++
		}
		// The block: following lines indented deeper than the for.
		end := m[1]
		for end < len(code) && end-m[1] < maxArgBytes {
			nl := end
			for nl < len(code) && code[nl] != '\n' {
				nl++
			}
			if nl >= len(code) {
				end = nl
				break
			}
			next := nl + 1
			ind := 0
			for next+ind < len(code) && (code[next+ind] == ' ' || code[next+ind] == '\t') {
				ind++
			}
			blankLine := next+ind >= len(code) || code[next+ind] == '\n'
			if !blankLine && ind <= indent {
				end = nl
				break
			}
			end = next
		}
		body := code[m[1]:min(end, len(code))]
		if !pyTry.Match(body) || !pySleep.Match(body) {
			continue
		}
		out = append(out, Layer{File: rel, Line: ln.at(m[0]), DefaultID: "hand-rolled", Library: "hand-rolled retry loop", Kind: KindWrapper,
			Attempts: attempts, Configured: true, Setting: strings.TrimSpace(string(code[m[0]:m[1]])), Retries4xx: true, Backoff: "none",
			Confidence: ConfidenceLow, group: "python", Note: "a loop that tries and sleeps: read it to confirm it retries the call"})
	}
	return out
}

var (
	pyRetries        = knobRe("retries")
	pyOutputRetries  = knobRe("output_retries")
	pyRetriesDict    = regexp.MustCompile(`\bretries\s*=\s*\{([^}]{0,400})\}`)
	pyRetriesDictVal = regexp.MustCompile(`['"](?:tools|output)['"]\s*:\s*([0-9]+)`)
	pyNumRetries     = knobRe("num_retries")
	pyFallbacks      = regexp.MustCompile(`\bfallbacks\s*=`)
	pyGlobalRetries  = regexp.MustCompile(`(?m)^([A-Za-z_]\w*)\.num_retries\s*=\s*([0-9]+)\b`)
	pyStopMaxAttempt = knobRe("stop_max_attempt_number")
	pyStopMaxDelay   = regexp.MustCompile(`\bstop_max_delay\s*=`)
	pyRetryTotal     = knobRe("retry_total")
	pyRetryStatus    = knobRe("retry_status")
	pyAirflowDict    = regexp.MustCompile(`['"]retries['"]\s*:\s*([0-9]+|[A-Za-z_][\w.]*)`)
)

// pyFrameworks finds the layers of Pydantic AI, LiteLLM, DSPy, retrying,
// the Azure AI clients and Airflow tasks.
func pyFrameworks(rel string, raw, code []byte, ln lines, bs map[string]string) []Layer {
	var out []Layer
	knob := func(l *Layer, re *regexp.Regexp, region []byte) bool {
		v, ok, num, k := intKnob(re, region)
		switch {
		case ok && num:
			l.set(v, snippet(region, k))
		case ok:
			l.setUnknown(snippet(region, k))
		}
		return ok
	}
	// Pydantic AI: retries re-ask the model on a bad answer or a tool's
	// ModelRetry (1 by default for tools and for output); the HTTP layer
	// under it is the SDK client the Agent builds, found above.
	for _, n := range pyNames(bs, "pydantic_ai", "Agent") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			l := newLayer("pydantic-ai", rel, ln.at(o), "python", ConfidenceMedium)
			if dm := pyRetriesDict.FindSubmatchIndex(raw[a:b]); dm != nil && code[a+dm[0]] == 'r' {
				worst := -1
				for _, v := range pyRetriesDictVal.FindAllSubmatch(raw[a+dm[2]:a+dm[3]], -1) {
					if n, err := strconv.Atoi(string(v[1])); err == nil && n <= 1_000_000 {
						worst = max(worst, n)
					}
				}
				if worst >= 0 {
					l.set(worst, strings.Join(strings.Fields(string(raw[a+dm[0]:a+dm[1]])), " "))
				}
			} else if !knob(&l, pyRetries, code[a:b]) {
				knob(&l, pyOutputRetries, code[a:b])
			}
			l.Note = "re-asks the model on output that fails validation or a tool's ModelRetry; HTTP errors are the SDK client's"
			out = append(out, l)
		}
	}
	// LiteLLM: completion() retries only when num_retries is given, as N
	// retries after the first failed call (which hands N to the provider
	// client too); completion_with_retries is N attempts (3 unset); a
	// Router retries twice unless told.
	for _, n := range pyNames(bs, "litellm", "completion", "acompletion", "text_completion", "responses", "aresponses") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			if _, ok, _, _ := intKnob(pyNumRetries, code[a:b]); !ok {
				continue
			}
			l := newLayer("litellm", rel, ln.at(o), "python", ConfidenceMedium)
			knob(&l, pyNumRetries, code[a:b])
			l.Note = "the first call also passes num_retries to the provider client as max_retries: an OpenAI-backed call can make 2N+1 requests"
			out = append(out, l)
		}
	}
	for _, n := range pyNames(bs, "litellm", "completion_with_retries", "acompletion_with_retries") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			l := newLayer("litellm", rel, ln.at(o), "python", ConfidenceMedium)
			l.Attempts, l.Setting = 3, "completion_with_retries (num_retries not set: stop_after_attempt(3))"
			if v, ok, num, k := intKnob(pyNumRetries, code[a:b]); ok && num {
				l.setAttempts(v, snippet(code[a:b], k)+" (stop_after_attempt: attempts)")
			} else if ok {
				l.setUnknown(snippet(code[a:b], k))
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "litellm") {
		for _, m := range pyGlobalRetries.FindAllSubmatchIndex(code, maxCandidates) {
			if bs[string(code[m[2]:m[3]])] != "litellm" {
				continue
			}
			l := newLayer("litellm", rel, ln.at(m[0]), "python", ConfidenceMedium)
			v, _ := strconv.Atoi(string(code[m[4]:m[5]]))
			l.set(min(v, 1_000_000), strings.TrimSpace(string(code[m[0]:m[1]])))
			l.Note = "a global: every completion() of the process retries this many times"
			out = append(out, l)
		}
	}
	for _, n := range pyNames(bs, "litellm", "Router") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			l := newLayer("litellm-router", rel, ln.at(o), "python", ConfidenceMedium)
			knob(&l, pyNumRetries, code[a:b])
			if pyFallbacks.Match(code[a:b]) {
				l.Note = "fallbacks: each fallback model group gets another round of these retries"
			}
			out = append(out, l)
		}
	}
	// DSPy: dspy.LM(num_retries=3) by default, through LiteLLM.
	for _, n := range pyNames(bs, "dspy", "LM") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			l := newLayer("dspy", rel, ln.at(o), "python", ConfidenceMedium)
			knob(&l, pyNumRetries, code[a:b])
			l.Note = "retried by LiteLLM, whose first call hands the same num_retries to an OpenAI client"
			out = append(out, l)
		}
	}
	// retrying: @retry without a stop never stops.
	for _, n := range pyNames(bs, "retrying", "retry") {
		re := regexp.MustCompile(`(?:^|[^\w.])@\s*` + regexp.QuoteMeta(n) + `\b(\s*\()?`)
		for _, m := range re.FindAllSubmatchIndex(code, maxCandidates) {
			l := newLayer("retrying", rel, ln.at(m[0]), "python", ConfidenceHigh)
			if m[2] < 0 {
				l.Setting = "@retry (no stop: retries forever)"
				out = append(out, l)
				continue
			}
			l.Confidence = ConfidenceMedium
			a, b := args(code, m[3]-1)
			if !knob(&l, pyStopMaxAttempt, code[a:b]) {
				if sm := pyStopMaxDelay.FindIndex(code[a:b]); sm != nil {
					l.Configured, l.Setting = true, snippet(code[a:b], sm[0])
					l.Note = "stopped by elapsed time (stop_max_delay), not by a count of attempts"
				}
			}
			out = append(out, l)
		}
	}
	// Azure AI clients (azure.ai.inference, azure.ai.projects, …): each
	// carries azure-core's RetryPolicy. A status error has retry_status (3)
	// retries, and never more than retry_total (10).
	for local, full := range bs {
		mod, name, ok := cutLast(full)
		if !ok || !strings.HasPrefix(mod, "azure.ai.") || !strings.HasSuffix(name, "Client") {
			continue
		}
		for _, o := range pyCalls(code, local) {
			a, b := args(code, o)
			l := newLayer("azure-core-python", rel, ln.at(o), "python", ConfidenceMedium)
			total, status := 10, 3
			var written []string
			for _, k := range []struct {
				re  *regexp.Regexp
				dst *int
			}{{pyRetryTotal, &total}, {pyRetryStatus, &status}} {
				if v, ok, num, at := intKnob(k.re, code[a:b]); ok {
					written = append(written, snippet(code[a:b], at))
					if num {
						*k.dst = v
					} else {
						l.setUnknown(snippet(code[a:b], at))
					}
				}
			}
			if len(written) > 0 && l.Confidence != ConfidenceLow {
				l.set(min(total, status), strings.Join(written, ", "))
			}
			out = append(out, l)
		}
	}
	if importsPrefix(bs, "airflow") {
		out = append(out, pyAirflow(rel, raw, code, ln)...)
	}
	// Inngest's Python SDK: @client.create_function(fn_id=…, retries=N);
	// without retries it registers none and the server's default applies.
	if importsPrefix(bs, "inngest") {
		for _, m := range pyCreateFn.FindAllIndex(code, maxCandidates) {
			a, b := args(code, m[1]-1)
			l := newLayer("inngest", rel, ln.at(m[0]), "python", ConfidenceMedium)
			knob(&l, pyRetries, code[a:b])
			out = append(out, l)
		}
	}
	return out
}

var pyCreateFn = regexp.MustCompile(`\.create_function\s*\(`)

// pyAirflow: retries in default_args dicts and as operator or @task
// arguments; retries=0 is no layer.
func pyAirflow(rel string, raw, code []byte, ln lines) []Layer {
	var out []Layer
	add := func(at int, val, written string) {
		l := newLayer("airflow", rel, ln.at(at), "python", ConfidenceMedium)
		if n, err := strconv.Atoi(val); err == nil {
			if n == 0 || n > 1_000_000 {
				return
			}
			l.set(n, written)
		} else {
			l.setUnknown(written)
		}
		out = append(out, l)
	}
	for _, m := range pyAirflowDict.FindAllSubmatchIndex(raw, maxCandidates) {
		// The key is a string (blanked in code); the value must be live
		// code, not a comment or a docstring.
		if code[m[2]] == ' ' {
			continue
		}
		add(m[0], string(raw[m[2]:m[3]]), strings.Join(strings.Fields(string(raw[m[0]:m[1]])), " "))
	}
	for _, m := range pyRetries.FindAllSubmatchIndex(code, maxCandidates) {
		if !isKwarg(code, m[0], m[1]) {
			continue // a dict key, an annotation or an assignment, not a keyword argument
		}
		add(m[0], string(code[m[2]:m[3]]), string(code[m[0]:m[1]]))
	}
	return out
}

// cutLast splits "a.b.C" into "a.b" and "C".
func cutLast(full string) (string, string, bool) {
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", "", false
	}
	return full[:i], full[i+1:], true
}

// isKwarg: the name at [at, end) is written `name=` right after a ( or a ,
// of a call, not `name:` nor a statement of its own.
func isKwarg(code []byte, at, end int) bool {
	i := at + len("retries")
	for i < end && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	if i >= end || code[i] != '=' {
		return false
	}
	j := at - 1
	for j >= 0 && (code[j] == ' ' || code[j] == '\t' || code[j] == '\n' || code[j] == '\r') {
		j--
	}
	return j >= 0 && (code[j] == '(' || code[j] == ',')
}
