package audit

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// LLM frameworks that retry the model call above the SDK client, or build
// the client with their own max_retries: LlamaIndex, Instructor, Pydantic
// AI, DSPy.

// llamaIndex: LlamaIndex's OpenAI: the client and the tenacity decorator
// both take max_retries, so one constructor is two layers.
func llamaIndex(f *file) []Layer {
	var out []Layer
	for _, o := range pyCallsOf(f, "llama_index.llms.openai", "OpenAI") {
		fw := pyCallLayer(f, "llamaindex-openai", o, pyMaxRetries)
		fw.Confidence = ConfidenceHigh
		sdk := newLayer("openai-python", f.rel, fw.Line, "python", ConfidenceMedium)
		sdk.Attempts = fw.Attempts + 1
		sdk.Note = "the OpenAI client LlamaIndex builds with the same max_retries"
		if fw.Configured {
			sdk.Configured, sdk.Setting = true, fw.Setting
		} else {
			sdk.Setting = "max_retries (LlamaIndex's default 3, passed to the client)"
		}
		out = append(out, fw, sdk)
	}
	return out
}

// llamaIndexEmbeddings: LlamaIndex's OpenAIEmbedding (and OpenAILikeEmbedding,
// its subclass) builds the OpenAI client with its own max_retries, default
// 10 — 11 attempts, not the SDK's 3 (issue 37, round 6: private-gpt's four,
// no row). Read from run-llama/llama_index
// llama-index-integrations/embeddings/llama-index-embeddings-openai/llama_index/embeddings/openai/base.py
// @722aac969980 (max_retries: int = Field(default=10); _get_credential_kwargs
// passes it to OpenAI()). Its tenacity decorator around each call
// (stop_after_attempt(max_retries) or 60 s) is not counted here.
func llamaIndexEmbeddings(f *file) []Layer {
	var out []Layer
	var offs []int
	offs = append(offs, pyCallsOf(f, "llama_index.embeddings.openai", "OpenAIEmbedding")...)
	offs = append(offs, pyCallsOf(f, "llama_index.embeddings.openai_like", "OpenAILikeEmbedding")...)
	// AzureOpenAIEmbedding extends OpenAIEmbedding, its max_retries default
	// with it (issue 37, round 7: MetaGPT's, missed).
	offs = append(offs, pyCallsOf(f, "llama_index.embeddings.azure_openai", "AzureOpenAIEmbedding")...)
	slices.Sort(offs)
	for _, o := range offs {
		l := pyCallLayer(f, "openai-python", o, pyMaxRetries)
		if !l.Configured {
			l.Attempts = 11
			l.Setting = "max_retries (LlamaIndex OpenAIEmbedding's default 10, passed to the client)"
		}
		l.Note = "LlamaIndex's OpenAIEmbedding builds the OpenAI client with its max_retries (default 10)"
		out = append(out, l)
	}
	return out
}

var (
	pyInstrCreate   = regexp.MustCompile(`\.(?:create|create_with_completion|create_partial|create_iterable)\s*\(`)
	pyResponseModel = regexp.MustCompile(`\bresponse_model\s*=`)
	pyInstrPatch    = regexp.MustCompile(`\binstructor\.a?patch\s*\(|(?m)^from\s+instructor\s+import\s+[^\n]*\ba?patch\b`)
	pyInstrFrom     = regexp.MustCompile(`\bfrom_(?:openai|anthropic|provider|litellm|gemini|genai|mistral|cohere|groq|vertexai|bedrock)\s*\(`)
)

// instructor's create: Instructor.create (from_openai, from_anthropic,
// from_provider) defaults max_retries to 3; only the legacy
// instructor.patch(client) defaults to 1. A create call is instructor's
// when it passes response_model or max_retries (a plain SDK create in the
// same file passes neither).
func instructor(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "instructor") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	legacy := pyInstrPatch.Match(code) && !pyInstrFrom.Match(code)
	for _, m := range pyInstrCreate.FindAllIndex(code, maxCandidates) {
		o := m[1] - 1
		a, b := args(code, o)
		v, ok, num, k := intKnob(pyMaxRetries, code[a:b])
		if !ok && !pyResponseModel.Match(code[a:b]) {
			continue
		}
		l := newLayer("instructor", f.rel, f.lines().at(o), "python", ConfidenceMedium)
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
	return out
}

var (
	pyProvider       = regexp.MustCompile(`['"](openai|anthropic)(?:-chat|-responses)?:[\w.{-]`)
	pyOutputRetries  = knobRe("output_retries")
	pyRetriesDict    = regexp.MustCompile(`\bretries\s*=\s*\{([^}]{0,400})\}`)
	pyRetriesDictVal = regexp.MustCompile(`['"](?:tools|output)['"]\s*:\s*([0-9]+)`)
)

// pydanticAI: an Agent is two layers. Pydantic AI builds the provider's SDK
// client without max_retries (providers/_openai_compatible.py and
// providers/anthropic.py in pydantic/pydantic-ai @4fda38988f29): an SDK
// layer at the SDK's default. Its own retries re-ask the model on a bad
// answer or a tool's ModelRetry (1 by default for tools and for output).
func pydanticAI(f *file) []Layer {
	agents := pyCallsOf(f, "pydantic_ai", "Agent")
	return append(pydanticClients(f, agents), pydanticRetries(f, agents)...)
}

func pydanticClients(f *file, agents []int) []Layer {
	var out []Layer
	for _, o := range agents {
		a, b := args(f.blanked(), o)
		provider := pyProvider.FindSubmatch(f.raw[a:b])
		conf := ConfidenceMedium
		if provider == nil {
			provider, conf = pyProvider.FindSubmatch(f.raw), ConfidenceLow // a model string elsewhere in the file
		}
		if provider == nil {
			continue
		}
		id := "openai-python"
		if string(provider[1]) == "anthropic" {
			id = "anthropic-python"
		}
		l := newLayer(id, f.rel, f.lines().at(o), "python", conf)
		l.Note = "the " + string(provider[1]) + " client Pydantic AI builds, with the SDK's default max_retries"
		out = append(out, l)
	}
	return out
}

func pydanticRetries(f *file, agents []int) []Layer {
	code, raw := f.blanked(), f.raw
	var out []Layer
	for _, o := range agents {
		a, b := args(code, o)
		l := newLayer("pydantic-ai", f.rel, f.lines().at(o), "python", ConfidenceMedium)
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
		} else if !setKnob(&l, pyRetries, code[a:b]) {
			setKnob(&l, pyOutputRetries, code[a:b])
		}
		l.Note = "re-asks the model on output that fails validation or a tool's ModelRetry; HTTP errors are the SDK client's"
		out = append(out, l)
	}
	return out
}

// dspy: dspy.LM(num_retries=3) by default, through LiteLLM.
func dspy(f *file) []Layer {
	var out []Layer
	for _, o := range pyCallsOf(f, "dspy", "LM") {
		l := pyCallLayer(f, "dspy", o, pyNumRetries)
		l.Note = "retried by LiteLLM, whose first call hands the same num_retries to an OpenAI client"
		out = append(out, l)
	}
	return out
}

var (
	pyMaxRetryLimit = knobRe("max_retry_limit")
	pyLLMArg        = regexp.MustCompile(`\bllm\s*=\s*(['"]([^'"\n]{0,120})['"])?`)
)

// crewAI: each Agent(...) re-executes its task on an error up to
// max_retry_limit times (2 unless set); an agent given no llm, or a model
// string, runs on the LLM CrewAI builds — the provider's own SDK at its
// default max_retries (2: 3 attempts), a layer of its own. An llm given as
// an object is that object's layer (a LangChain chat model, an LLM(…)
// built elsewhere), found where it is built.
func crewAI(f *file) []Layer {
	var out []Layer
	code := f.blanked()
	for _, o := range pyCallsOf(f, "crewai", "Agent") {
		out = append(out, pyCallLayer(f, "crewai-agent", o, pyMaxRetryLimit))
		a, b := args(code, o)
		m := pyLLMArg.FindSubmatchIndex(f.raw[a:b])
		if m != nil && m[2] < 0 {
			continue // llm=<an object>: its own layer
		}
		id, model := "openai-python", "CrewAI's default model (gpt-4.1-mini, or OPENAI_MODEL_NAME)"
		if m != nil {
			model = string(f.raw[a+m[4] : a+m[5]])
			if strings.HasPrefix(model, "anthropic/") || strings.HasPrefix(model, "claude") {
				id = "anthropic-python"
			} else if p, _, ok := strings.Cut(model, "/"); ok && p != "openai" {
				continue // served through LiteLLM or another provider: not modelled here
			}
		}
		l := newLayer(id, f.rel, f.lines().at(o), "python", ConfidenceLow)
		l.Note = "the SDK client of the LLM CrewAI builds for this agent (" + model + "), at the SDK's default max_retries"
		out = append(out, l)
	}
	// LLM(model="gpt-4o"): CrewAI's LLM on a native provider's SDK.
	for _, o := range pyCallsOf(f, "crewai", "LLM") {
		a, b := args(code, o)
		m := pyFirstString.FindSubmatch(f.raw[a:b])
		if m == nil {
			m = pyCrewModel.FindSubmatch(f.raw[a:b])
		}
		id := "openai-python"
		if m != nil {
			model := string(m[1])
			if strings.HasPrefix(model, "anthropic/") || strings.HasPrefix(model, "claude") {
				id = "anthropic-python"
			} else if p, _, ok := strings.Cut(model, "/"); ok && p != "openai" {
				continue // another provider: not modelled here
			}
		}
		l := pyCallLayer(f, id, o, pyMaxRetries)
		l.Note = "CrewAI's LLM builds the provider's SDK client and passes max_retries (default 2, the SDK's)"
		out = append(out, l)
	}
	return out
}

var pyCrewModel = regexp.MustCompile(`\bmodel\s*=\s*['"]([^'"\n]{1,120})['"]`)

var (
	pyAgentsNonOpenAI = regexp.MustCompile(`['"]litellm/`)
	// model= built there: a model object (a test's FakeModel(),
	// OpenAIChatCompletionsModel(…) with its own client, found where that
	// is built) — not the client the SDK builds. A name (model=MODEL) is
	// a model string more often than not.
	pyAgentsModelObj = regexp.MustCompile(`\bmodel\s*=\s*[A-Za-z_][\w.]*\s*\(`)
)

// openaiAgents: the OpenAI Agents SDK runs every Agent on one AsyncOpenAI
// client it builds itself, at the SDK's default max_retries (2: 3
// attempts), unless set_default_openai_client gives it one (found where
// that client is built). One layer per file that defines agents, at the
// first; an agent on a LiteLLM model is not on that client.
// (openai/openai-agents-python src/agents/models/openai_provider.py
// _get_client: AsyncOpenAI(api_key=…, base_url=…) with no max_retries;
// the runner's own retries, ModelSettings(retry=…), are opt-in.)
func openaiAgents(f *file) []Layer {
	// A package of one's own may be called agents: the SDK must be a
	// dependency a manifest names.
	if f.contains("set_default_openai_client") || !f.vs.declares("pypi", "openai-agents") {
		return nil
	}
	code := f.blanked()
	for _, o := range pyCallsOf(f, "agents", "Agent") {
		a, b := args(code, o)
		if pyAgentsNonOpenAI.Match(f.raw[a:b]) || pyAgentsModelObj.Match(code[a:b]) {
			continue
		}
		l := newLayer("openai-python", f.rel, f.lines().at(o), "python", ConfidenceLow)
		l.Note = "the AsyncOpenAI client the OpenAI Agents SDK builds for its agents, at the SDK's default max_retries (set_default_openai_client replaces it)"
		return []Layer{l}
	}
	return nil
}
