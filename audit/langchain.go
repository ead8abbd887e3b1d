package audit

import (
	"fmt"
	"regexp"
	"strings"
)

// LangChain (Python and JS): the chat model is a layer whether or not
// max_retries is written (the one nobody set), and .with_retry() wraps a
// model in another.

// pyLangChain: each chat model's layer, then each .with_retry(…) and the
// line of the model it wraps. ChatOpenAI and ChatAnthropic pass
// max_retries to the SDK client (default 2, the SDK's own);
// ChatGoogleGenerativeAI to google-genai's HttpRetryOptions(attempts=)
// (default 6; 0 means Google's default of 5); ChatVertexAI to its own
// tenacity decorator (6 attempts); ChatBedrock to botocore's
// retries.max_attempts (botocore's legacy 5 attempts when unset).
func pyLangChain(f *file) []Layer {
	out, models, chained := pyChatModelLayers(f)
	bs := f.pyImports()
	if importsPrefix(bs, "langchain_core") || importsPrefix(bs, "langchain") || importsPrefix(bs, "langchain_openai") || importsPrefix(bs, "langchain_anthropic") || importsPrefix(bs, "langgraph") {
		out = append(out, pyWithRetries(f, models, chained)...)
	}
	return out
}

// pyChatModelLayers returns the chat models' layers, the line of the model
// each variable is bound to, and the line of the model whose constructor's
// ) ends just before each offset (ChatAnthropic(…).with_retry).
func pyChatModelLayers(f *file) ([]Layer, map[string]int, map[int]int) {
	code := f.blanked()
	var out []Layer
	models := map[string]int{}
	chained := map[int]int{}
	for _, c := range pyChatModels {
		for _, n := range pyNames(f.pyImports(), c.module, c.name) {
			for _, o := range pyCalls(code, n) {
				a, b := args(code, o)
				l := newLayer(c.id, f.rel, f.lines().at(o), "python", ConfidenceMedium)
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
				pySplatInto(f, &l, a, b) // ChatOpenAI(**kwargs) (kwargs.go)
				l.Note = c.note
				out = append(out, l)
				if name := assignedTo(code, o-len(n)); name != "" {
					models[name] = l.Line
				}
				chained[b+1] = l.Line
			}
		}
	}
	for _, n := range pyNames(f.pyImports(), "langchain.chat_models", "init_chat_model") {
		for _, o := range pyCalls(code, n) {
			a, b := args(code, o)
			c, ok := initChatModelClass(f.raw[a:b])
			conf, runtime := ConfidenceMedium, false
			if !ok {
				if pyFirstString.Match(f.raw[a:b]) || pyModelProvider.Match(f.raw[a:b]) {
					continue // a provider not modelled (ChatOllama: no retries)
				}
				// The model is chosen at run time (a variable, a
				// configurable model): whichever provider it is, its chat
				// model has an SDK that retries. ChatOpenAI's default
				// stands in, at low confidence.
				conf, runtime = ConfidenceLow, true
			}
			l := newLayer(c.id, f.rel, f.lines().at(o), "python", conf)
			v, ok, num, k := intKnob(pyMaxRetries, code[a:b])
			switch {
			case ok && num:
				l.set(v, snippet(code[a:b], k))
			case ok:
				l.setUnknown(snippet(code[a:b], k))
			case c.unset > 0:
				l.Attempts = c.unset
				l.Setting = fmt.Sprintf("max_retries (not set: %s's default, %d attempts)", c.name, c.unset)
			}
			pySplatInto(f, &l, a, b)
			l.Note = "init_chat_model builds " + c.name + " and passes max_retries to it; " + c.note
			if runtime {
				l.Note = "init_chat_model's provider is chosen at run time (the model is not a string here): " + c.name + "'s default is shown — ChatAnthropic's is the same 3 attempts, ChatGoogleGenerativeAI's 6"
			}
			out = append(out, l)
			if name := assignedTo(code, o-len(n)); name != "" {
				models[name] = l.Line
			}
			chained[b+1] = l.Line
		}
	}
	return out, models, chained
}

var (
	pyModelProvider = regexp.MustCompile(`\bmodel_provider\s*=\s*['"]([\w-]+)['"]`)
	pyFirstString   = regexp.MustCompile(`^\s*(?:model\s*=\s*)?['"]([^'"\n]{1,120})['"]`)
)

// initChatModelClass is the chat model class init_chat_model builds: the
// provider named by model_provider= or by "provider:model", else inferred
// from the model's name as LangChain does (gpt-/o1/o3 → openai, claude →
// anthropic, gemini → google_vertexai, amazon. → bedrock;
// langchain-ai/langchain libs/langchain/langchain/chat_models/base.py
// _attempt_infer_model_provider). The model is a string: read raw.
func initChatModelClass(raw []byte) (struct {
	module, name, id string
	unset            int
	note             string
}, bool) {
	provider, model := "", ""
	if m := pyModelProvider.FindSubmatch(raw); m != nil {
		provider = string(m[1])
	}
	if m := pyFirstString.FindSubmatch(raw); m != nil {
		model = string(m[1])
	}
	if p, _, ok := strings.Cut(model, ":"); ok && provider == "" {
		provider = p
	}
	if provider == "" {
		switch {
		case strings.HasPrefix(model, "gpt-") || strings.HasPrefix(model, "o1") || strings.HasPrefix(model, "o3"):
			provider = "openai"
		case strings.HasPrefix(model, "claude"):
			provider = "anthropic"
		case strings.HasPrefix(model, "gemini"):
			provider = "google_vertexai"
		case strings.HasPrefix(model, "amazon."):
			provider = "bedrock"
		}
	}
	class := map[string]string{"openai": "ChatOpenAI", "azure_openai": "AzureChatOpenAI", "anthropic": "ChatAnthropic",
		"google_genai": "ChatGoogleGenerativeAI", "google_vertexai": "ChatVertexAI", "bedrock": "ChatBedrock", "bedrock_converse": "ChatBedrockConverse"}[provider]
	for _, c := range pyChatModels {
		if c.name == class {
			return c, true
		}
	}
	return pyChatModels[0], false
}

var (
	pyWithRetry      = regexp.MustCompile(`\.with_retry\s*\(`)
	pyStopAfter      = knobRe("stop_after_attempt")
	pyRetryIfExcType = regexp.MustCompile(`\bretry_if_exception_type\s*=`)
)

// pyWithRetries: .with_retry(stop_after_attempt=N) layers, each wrapping
// the model it is called on: a variable bound to a chat model here,
// ChatAnthropic(…).with_retry(…), or (prompt | model).with_retry(…).
func pyWithRetries(f *file, models map[string]int, chained map[int]int) []Layer {
	code := f.blanked()
	var out []Layer
	for _, m := range pyWithRetry.FindAllIndex(code, maxCandidates) {
		o := m[1] - 1
		l := pyCallLayer(f, "langchain-with-retry", o, nil)
		a, b := args(code, o)
		if v, ok, num, k := intKnob(pyStopAfter, code[a:b]); ok {
			if num {
				l.setAttempts(v, snippet(code[a:b], k))
			} else {
				l.setUnknown(snippet(code[a:b], k))
			}
		}
		if rm := pyRetryIfExcType.FindIndex(code[a:b]); rm != nil {
			l.Retries4xx = false
			l.Note = "retry_if_exception_type narrows what it retries"
		}
		recv := m[0]
		if line, ok := chained[recv]; ok {
			l.wraps = line
		} else if name := receiver(code, recv); name != "" {
			if line, ok := models[name]; ok {
				l.wraps = line
			}
		} else if line, ok := pipedModel(code, recv, models); ok {
			l.wraps = line
		}
		out = append(out, l)
	}
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
	// The completion LLMs (BaseOpenAI: max_retries: int = 2, handed to
	// openai.OpenAI; langchain-ai/langchain
	// libs/partners/openai/langchain_openai/llms/base.py @0339ba1c0781;
	// issue 37, round 8: Langchain-Chatchat's get_OpenAI).
	{"langchain_openai", "OpenAI", "openai-python", 0, "langchain_openai's OpenAI (completions) builds the OpenAI client with its max_retries (default 2)"},
	{"langchain_openai", "AzureOpenAI", "openai-python", 0, "langchain_openai's AzureOpenAI (completions) builds the OpenAI client with its max_retries (default 2)"},
	{"langchain_anthropic", "ChatAnthropic", "anthropic-python", 0, "ChatAnthropic builds the Anthropic client with its max_retries (default 2, the SDK's)"},
	{"langchain_google_genai", "ChatGoogleGenerativeAI", "google-genai", 6, "ChatGoogleGenerativeAI passes max_retries (default 6) to google-genai as HttpRetryOptions(attempts=)"},
	{"langchain_mistralai", "ChatMistralAI", "langchain-mistralai", 0, "ChatMistralAI retries its own httpx call in tenacity, stop_after_attempt(max_retries), max_retries = 5"},
	{"langchain_groq", "ChatGroq", "groq-python", 0, "ChatGroq builds the Groq client with its max_retries (default 2, the SDK's)"},
	{"langchain_cohere", "CohereRerank", "cohere-python", 0, "CohereRerank builds a cohere Client: its requests are retried by the SDK's default (2)"},
	{"langchain_cohere", "ChatCohere", "cohere-python", 0, "ChatCohere builds a cohere Client: its requests are retried by the SDK's default (2)"},
	{"langchain_cohere", "CohereEmbeddings", "cohere-python", 0, "CohereEmbeddings builds a cohere Client: its requests are retried by the SDK's default (2)"},
	{"langchain_google_vertexai", "ChatVertexAI", "langchain-vertexai", 0, "ChatVertexAI's own tenacity decorator; the Vertex client's GAPIC retry is not modelled"},
	{"langchain_aws", "ChatBedrock", "botocore", 0, "ChatBedrock builds a boto3 client: max_retries sets botocore's retries.max_attempts"},
	{"langchain_aws", "ChatBedrockConverse", "botocore", 0, "ChatBedrockConverse builds a boto3 client: max_retries sets botocore's retries.max_attempts"},
	// OpenAIEmbeddings: langchain_openai's (and langchain_community's)
	// passes max_retries (default 2) to the OpenAI client; the langchain
	// package's own (0.0.x, langchain.embeddings) wraps the 0.x SDK in
	// tenacity's stop_after_attempt(max_retries), max_retries = 6.
	{"langchain_openai", "OpenAIEmbeddings", "openai-python", 0, "OpenAIEmbeddings builds the OpenAI client with its max_retries (default: the SDK's 2)"},
	{"langchain_community.embeddings", "OpenAIEmbeddings", "openai-python", 0, "langchain_community's OpenAIEmbeddings builds the OpenAI client with its max_retries (default 2)"},
	// The langchain package's own chat models (0.0.x, langchain.chat_models):
	// ChatOpenAI (and AzureChatOpenAI, its subclass) retry the 0.x SDK's
	// call in tenacity, stop_after_attempt(max_retries), max_retries = 6.
	{"langchain.chat_models", "ChatOpenAI", "langchain-chat-legacy", 0, "the langchain package's ChatOpenAI (0.0.x) retries the call in tenacity, stop_after_attempt(max_retries)"},
	{"langchain.chat_models", "AzureChatOpenAI", "langchain-chat-legacy", 0, "the langchain package's AzureChatOpenAI (0.0.x) retries the call in tenacity, stop_after_attempt(max_retries)"},
	{"langchain.embeddings", "OpenAIEmbeddings", "langchain-embeddings-legacy", 0, "the langchain package's OpenAIEmbeddings (0.0.x) retries the call in tenacity, stop_after_attempt(max_retries)"},
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

// pipedModel: the line of the chat model named inside the parenthesised expression
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
	found, line := false, 0
	for _, id := range pyIdent.FindAll(code[j+1:i], -1) {
		if k, ok := models[string(id)]; ok {
			found, line = true, k
		}
	}
	return line, found
}

// jsLangChain: a LangChain.js model class (isLangChainJSModel), whose
// AsyncCaller retries every call.
func jsLangChain(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		if !isLangChainJSModel(b) {
			continue
		}
		for _, o := range jsCalls(f.blanked(), name, true) {
			l := jsCallLayer(f, "langchainjs-asynccaller", o, jsMaxRetries, nil)
			l.Note = langChainJSNote(b.module)
			out = append(out, l)
		}
	}
	return out
}

// isLangChainJSModel: a chat model, LLM or embeddings class of a
// LangChain.js provider package (@langchain/openai, /anthropic,
// /google-genai, /community …). Each extends BaseLanguageModel or
// Embeddings, whose AsyncCaller retries every call (maxRetries ?? 6).
func isLangChainJSModel(b binding) bool {
	if isLegacyLangChainJS(b.module) {
		n := b.imported
		return strings.HasPrefix(n, "Chat") || strings.HasSuffix(n, "Embeddings") || n == "OpenAI" || n == "AzureOpenAI"
	}
	if !strings.HasPrefix(b.module, "@langchain/") || strings.HasPrefix(b.module, "@langchain/core") || strings.HasPrefix(b.module, "@langchain/langgraph") {
		return false
	}
	n := b.imported
	if strings.HasPrefix(n, "Fake") || strings.Contains(b.module, "/fake") {
		return false // a test double: no call, no retry (Flowise's FakeEmbeddings, round 7)
	}
	if strings.HasPrefix(n, "Chat") || strings.HasSuffix(n, "Embeddings") || n == "OpenAI" || n == "AzureOpenAI" {
		return true
	}
	// A text LLM of the same base class (round 7: Flowise's six): any
	// class of an …/llms/… module (Bedrock, Fireworks, TogetherAI), or the
	// class a provider package is named for (@langchain/cohere's Cohere,
	// @langchain/ollama's Ollama, @langchain/google-vertexai's VertexAI).
	if strings.Contains(b.module, "/llms/") && n != "" && n[0] >= 'A' && n[0] <= 'Z' {
		return true
	}
	pkg := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(b.module, "@langchain/"), "-", ""))
	return !strings.Contains(pkg, "/") && len(n) >= 4 && strings.HasSuffix(pkg, strings.ToLower(n))
}

// langChainJSNote says what sits under the AsyncCaller: the packages
// read (langchain-ai/langchainjs @62fc484b2a0d) build the provider's SDK
// client with maxRetries: 0, so the AsyncCaller is the one layer; for the
// others the provider's own client is not modelled.
func langChainJSNote(module string) string {
	if isLegacyLangChainJS(module) {
		return "the langchain package's own entry point (before @langchain/*): its models retry through the same AsyncCaller (maxRetries ?? 6)"
	}
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

// isLegacyLangChainJS: the langchain package's model entry points before
// the provider packages (langchain 0.0.x, still re-exported by 0.1:
// langchain/chat_models/openai, langchain/embeddings/openai,
// langchain/llms/openai …), whose classes extend the same
// BaseLanguageModel and Embeddings with the AsyncCaller.
func isLegacyLangChainJS(module string) bool {
	for _, p := range []string{"langchain/chat_models/", "langchain/embeddings/", "langchain/llms/"} {
		if strings.HasPrefix(module, p) {
			return true
		}
	}
	return false
}
