package audit

import (
	"go/ast"
	"regexp"
	"strconv"
	"strings"
)

// The providers' own SDK clients, each a layer whether or not its retry
// knob is written: the one nobody set is the common case.

// pySDKClasses are the client classes of the Python SDKs and their rows.
var pySDKClasses = []struct {
	module, id string
	names      []string
}{
	// AnthropicFoundry subclasses Anthropic with its max_retries default
	// (anthropics/anthropic-sdk-python src/anthropic/lib/foundry.py
	// @009b035305e0; issue 37, round 8: agno's two); Client and
	// AsyncClient are the SDK's aliases, as in OpenAI's (_client.py:
	// Client = Anthropic).
	{"anthropic", "anthropic-python", []string{"Anthropic", "AsyncAnthropic", "AnthropicBedrock", "AsyncAnthropicBedrock", "AnthropicVertex", "AsyncAnthropicVertex", "AnthropicFoundry", "AsyncAnthropicFoundry", "Client", "AsyncClient"}},
	// Client and AsyncClient are the v1 SDK's aliases of OpenAI and
	// AsyncOpenAI (openai/openai-python src/openai/_client.py: Client =
	// OpenAI, AsyncClient = AsyncOpenAI @e43b422412a9; issue 37, round 8:
	// Langchain-Chatchat's eight openai.Client calls).
	{"openai", "openai-python", []string{"OpenAI", "AsyncOpenAI", "AzureOpenAI", "AsyncAzureOpenAI", "Client", "AsyncClient"}},
	// Langfuse's drop-in: the OpenAI SDK's own classes, traced (issue 37,
	// round 7: camel's six).
	{"langfuse.openai", "openai-python", []string{"OpenAI", "AsyncOpenAI", "AzureOpenAI", "AsyncAzureOpenAI"}},
	{"groq", "groq-python", []string{"Groq", "AsyncGroq"}},
	{"together", "together-python", []string{"Together", "AsyncTogether"}},
	{"cohere", "cohere-python", []string{"Client", "ClientV2", "AsyncClient", "AsyncClientV2"}},
	// Cerebras and Llama API: Stainless clients with their own rows
	// (issue 37, round 8: agno's four); Client and AsyncClient are their
	// aliases as in the OpenAI SDK.
	{"cerebras.cloud.sdk", "cerebras-python", []string{"Cerebras", "AsyncCerebras", "Client", "AsyncClient"}},
	{"llama_api_client", "llama-api-python", []string{"LlamaAPIClient", "AsyncLlamaAPIClient", "Client", "AsyncClient"}},
	// ZhipuAI: a Stainless-derived client whose default is 3 retries
	// (issue 37, round 8: Langchain-Chatchat's embeddings).
	{"zhipuai", "zhipuai-python", []string{"ZhipuAI"}},
}

// pySDKClients: Anthropic(max_retries=…), OpenAI(max_retries=…) and
// Groq(max_retries=…), the same generated client; Together(max_retries=…),
// its own requestor with the same knob.
func pySDKClients(f *file) []Layer {
	var out []Layer
	for _, c := range pySDKClasses {
		for _, o := range pyCallsOf(f, c.module, c.names...) {
			out = append(out, pyCallLayer(f, c.id, o, pyMaxRetries))
		}
	}
	return out
}

var (
	jsNetRetries  = knobRe("maxNetworkRetries")
	jsAws4Retries = knobRe("retries")
	// llamaIndexTSClasses: the llamaindex package's classes whose
	// maxRetries default (10) was read; its Groq, MistralAI and Ollama were
	// not, and are left out.
	llamaIndexTSClasses = map[string]bool{"OpenAI": true, "OpenAIEmbedding": true, "TogetherLLM": true, "Anthropic": true}
	// jsAwsMaxAttempts: the AWS SDK v3 client config's total attempts.
	jsAwsMaxAttempts = knobRe("maxAttempts")
	// vercelAICalls are the ai package's calls that take maxRetries.
	// generateImage (and its experimental_ name, imported under an alias
	// or not) retries by the same prepareRetries, maxRetries 2 (vercel/ai
	// packages/ai/src/generate-image/generate-image.ts @00b29610775b;
	// issue 37, round 8: chatbox's image call).
	vercelAICalls = map[string]bool{"generateText": true, "streamText": true, "generateObject": true, "streamObject": true, "embed": true, "embedMany": true, "generateImage": true, "experimental_generateImage": true}
	// cohereTSClasses: cohere-ai's Fern clients (CohereClient,
	// CohereClientV2), maxRetries 2 by default.
	cohereTSClasses = map[string]bool{"CohereClient": true, "CohereClientV2": true}
)

// jsSDKClients: new Anthropic({ maxRetries }), new OpenAI(…), new
// Together(…) (the same Stainless client), Stripe(key,
// { maxNetworkRetries }) and the Vercel AI SDK's generateText({ maxRetries }).
func jsSDKClients(f *file) []Layer {
	var out []Layer
	for name, b := range f.jsImports() {
		mod := jsPackage(b.module)
		switch {
		case mod == "@anthropic-ai/sdk" && (b.imported == "default" || b.imported == "Anthropic"):
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "anthropic-ts", o, jsMaxRetries, nil))
			}
		case mod == "openai" && (b.imported == "default" || b.imported == "OpenAI" || b.imported == "AzureOpenAI"):
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "openai-node", o, jsMaxRetries, nil))
			}
		case mod == "together-ai" && (b.imported == "default" || b.imported == "Together"):
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "together-ts", o, jsMaxRetries, nil))
			}
		case mod == "stripe" && b.imported == "default":
			// new Stripe(key) and Stripe(key): one layer per call, whichever shape.
			for _, o := range jsCalls(f.blanked(), name, false) {
				out = append(out, jsCallLayer(f, "stripe-node", o, jsNetRetries, nil))
			}
		case mod == "aws4fetch" && b.imported == "AwsClient":
			// new AwsClient({ accessKeyId, secretAccessKey, retries }):
			// its fetch retries 5xx and 429, 10 times unless set (issue
			// 37, round 6: cline's two, no row).
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "aws4fetch", o, jsAws4Retries, nil))
			}
		case strings.HasPrefix(mod, "@aws-sdk/client-") && strings.HasSuffix(b.imported, "Client") && b.imported != "Client":
			// new BedrockRuntimeClient(config), new S3Client({ region }):
			// every v3 service client retries 3 times unless maxAttempts
			// says otherwise (issue 37, round 7: Flowise's ten, pi-mono's
			// Bedrock, no row).
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "aws-sdk-js-v3", o, jsAwsMaxAttempts, nil))
			}
		case mod == "llamaindex" && llamaIndexTSClasses[b.imported]:
			// LlamaIndex.TS's own classes default maxRetries to 10 and hand
			// it to the SDK session they build (issue 37, round 7:
			// Flowise's five, no row).
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "llamaindex-ts", o, jsMaxRetries, nil))
			}
		case mod == "cohere-ai" && cohereTSClasses[b.imported]:
			// new CohereClient({ token }): every request retried twice on
			// 408, 429 and 5xx (issue 37, round 8: chatbox's rerank, no row).
			for _, o := range jsCalls(f.blanked(), name, true) {
				out = append(out, jsCallLayer(f, "cohere-ts", o, jsMaxRetries, nil))
			}
		case mod == "ai" && vercelAICalls[b.imported]:
			for _, o := range jsCalls(f.blanked(), name, false) {
				out = append(out, jsCallLayer(f, "vercel-ai", o, jsMaxRetries, nil))
			}
		}
	}
	return out
}

// goSDKClients: anthropic.NewClient(option.WithMaxRetries(N)) and
// openai.NewClient(…).
func goSDKClients(f *file) []Layer {
	g := f.goSource()
	if g == nil {
		return nil
	}
	var out []Layer
	for _, call := range g.calls {
		path, fn := g.pkgOf(call.Fun)
		if fn == "NewFromConfig" && strings.HasPrefix(path, "github.com/aws/aws-sdk-go-v2/service/") {
			out = append(out, awsV2Client(f, g, call))
			continue
		}
		if awsV1Service(path, fn) {
			out = append(out, awsV1Client(f, g, call)) // aws_go_v1.go
			continue
		}
		if azOpenAIClient(path, fn) {
			out = append(out, azcoreClient(f, g, call))
			continue
		}
		if fn != "NewClient" {
			continue
		}
		knob := "WithMaxRetries"
		var id string
		switch {
		case path == "github.com/anthropics/anthropic-sdk-go":
			id = "anthropic-go"
		case path == "github.com/openai/openai-go" || strings.HasPrefix(path, "github.com/openai/openai-go/v"):
			id = "openai-go"
		case strings.HasPrefix(path, "github.com/cohere-ai/cohere-go/v2/client"):
			id, knob = "cohere-go", "WithMaxAttempts" // Fern's retrier: attempts, the first included
		default:
			continue
		}
		l := newLayer(id, f.rel, g.line(call), "go", ConfidenceHigh)
		for _, a := range call.Args {
			if c, ok := a.(*ast.CallExpr); ok {
				if _, opt := g.pkgOf(c.Fun); opt == knob && len(c.Args) == 1 {
					if v, ok := g.intArg(c.Args[0]); ok {
						l.set(v, g.text(c))
					} else {
						l.setUnknown(g.text(c))
					}
				}
			}
		}
		out = append(out, l)
	}
	return out
}

var (
	awsWithRetryMax = regexp.MustCompile(`\bWithRetryMaxAttempts\(\s*([0-9]+|[A-Za-z_][\w.]*)\s*\)`)
	awsRetryMaxSet  = regexp.MustCompile(`\bRetryMaxAttempts\s*[:=]\s*([0-9]+|[A-Za-z_][\w.]*)`)
)

// awsV2Client is the layer of an AWS SDK for Go v2 service client
// (bedrockruntime.NewFromConfig(cfg, …)): the standard retryer's 3
// attempts, or RetryMaxAttempts as the call's options set it, else as the
// file's config.WithRetryMaxAttempts does (the config the client is built
// from is most often loaded in the same function).
func awsV2Client(f *file, g *goFile, call *ast.CallExpr) Layer {
	l := newLayer("aws-sdk-go-v2", f.rel, g.line(call), "go", ConfidenceMedium)
	written := ""
	a, b := g.fset.Position(call.Pos()).Offset, g.fset.Position(call.End()).Offset
	var callSrc []byte
	if a >= 0 && a <= b && b <= len(g.src) {
		callSrc = g.src[a:min(b, a+maxArgBytes)] // the call with its option funcs
	}
	if m := awsRetryMaxSet.FindSubmatch(callSrc); m != nil {
		written = string(m[0])
	} else if m := awsWithRetryMax.FindSubmatch(f.blanked()); m != nil {
		written = string(m[0])
		l.Confidence = ConfidenceLow
	}
	if written == "" {
		return l
	}
	v := written[strings.LastIndexAny(written, "(=:")+1:]
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ")"))
	if n, ok := atoiBounded(v); ok {
		conf := l.Confidence
		l.setAttempts(n, written)
		l.Confidence = conf
		if n == 0 {
			// 0 is "not set": the SDK's default of 3 stands.
			l.setAttempts(3, written+" (0: the default, 3 attempts)")
		}
	} else {
		l.setUnknown(written)
	}
	return l
}

// azOpenAIClient: azopenai.NewClient, NewClientWithKeyCredential,
// NewClientForOpenAI — each runs azcore's retry policy (issue 37, round 6:
// kubectl-ai's two Azure OpenAI clients had no row).
func azOpenAIClient(path, fn string) bool {
	return path == "github.com/Azure/azure-sdk-for-go/sdk/ai/azopenai" && strings.HasPrefix(fn, "NewClient")
}

var azMaxRetries = regexp.MustCompile(`\bMaxRetries\s*:\s*(-?\s*[0-9]+|[A-Za-z_][\w.]*)`)

// azcoreClient reads Retry: policy.RetryOptions{MaxRetries: N} written in
// the call: 0 is azcore's default 3, a negative value is none.
func azcoreClient(f *file, g *goFile, call *ast.CallExpr) Layer {
	l := newLayer("azcore-go", f.rel, g.line(call), "go", ConfidenceHigh)
	var text string
	if a, b := g.fset.Position(call.Pos()).Offset, g.fset.Position(call.End()).Offset; a >= 0 && a <= b && b <= len(g.src) {
		text = string(g.src[a:min(b, a+4096)]) // the options written in the call
	}
	if m := azMaxRetries.FindStringSubmatch(text); m != nil {
		v := strings.ReplaceAll(m[1], " ", "")
		switch n, err := strconv.Atoi(v); {
		case err != nil || n > 1_000_000:
			l.setUnknown(m[0])
		case n < 0:
			l.setAttempts(1, m[0]+" (negative: no retries)")
		case n == 0:
			l.Configured, l.Setting = true, m[0]+" (0: azcore's default 3)"
		default:
			l.set(n, m[0])
		}
	}
	return l
}
