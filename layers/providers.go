package layers

import "strings"

// Provider is one row of the provider table: how a host, a log's provider
// field, a model ID and a defaults row (audit.Defaults) each name it.
type Provider struct {
	// Name is the provider as the price table and events name it
	// (LiteLLM's custom_llm_provider): the account that bills the call.
	Name string
	// Family is whose client SDK and models it serves: Azure serves
	// OpenAI's, Vertex Google's. A declared stack meets the logs by it.
	Family string
	// Hosts are substrings of its API host, tried in the table's order.
	Hosts []string
	// LogNames are the provider names logs and gateways give it.
	LogNames []string
	// ModelPrefixes and ModelWords name its family's model IDs.
	ModelPrefixes, ModelWords []string
	// LayerIDs and LayerPrefixes are the defaults rows of the SDKs and
	// agents that call it (anthropic-python, claude-code).
	LayerIDs, LayerPrefixes []string
	// SDKs maps the Stainless SDKs' x-stainless-lang to their defaults row;
	// only a provider whose SDK sends it has any.
	SDKs map[string]string
}

// Providers is the table. Its order is the order hosts are tried in: a
// more specific host first (Azure's *.openai.azure.com before openai).
var Providers = []Provider{
	{Name: "bedrock", Family: "bedrock", Hosts: []string{"bedrock"},
		LogNames: []string{"bedrock", "aws", "aws_bedrock"}, LayerIDs: []string{"botocore"}},
	{Name: "vertex_ai", Family: "google", Hosts: []string{"aiplatform.googleapis.com"},
		LogNames: []string{"vertex_ai", "vertex", "gemini", "google"}, ModelWords: []string{"gemini"}, LayerIDs: []string{"google-genai"}},
	{Name: "azure", Family: "openai", Hosts: []string{".azure.com", "azure-api.net"},
		LogNames: []string{"azure", "azure_openai"}},
	{Name: "anthropic", Family: "anthropic", Hosts: []string{"anthropic"},
		LogNames: []string{"anthropic"}, ModelWords: []string{"claude"},
		LayerIDs: []string{"claude-code"}, LayerPrefixes: []string{"anthropic-"},
		SDKs: map[string]string{"python": "anthropic-python", "js": "anthropic-ts", "go": "anthropic-go"}},
	{Name: "openai", Family: "openai", Hosts: []string{"openai"},
		LogNames: []string{"openai"}, ModelPrefixes: []string{"gpt", "o1", "o3", "o4"}, ModelWords: []string{"text-embedding"},
		LayerIDs: []string{"llamaindex-openai", "codex"}, LayerPrefixes: []string{"openai-"},
		SDKs: map[string]string{"python": "openai-python", "js": "openai-node", "go": "openai-go"}},
}

// ByHost is the provider whose API host host is, or nil.
func ByHost(host string) *Provider {
	for i := range Providers {
		for _, h := range Providers[i].Hosts {
			if strings.Contains(host, h) {
				return &Providers[i]
			}
		}
	}
	return nil
}

// SDKMakerOfHost is the provider whose own SDK a call to host was made
// with, as far as the host tells: of the providers with Stainless SDKs,
// the first whose host names it ("" for any other).
func SDKMakerOfHost(host string) string {
	for _, p := range Providers {
		if p.SDKs == nil {
			continue
		}
		for _, h := range p.Hosts {
			if strings.Contains(host, h) {
				return p.Name
			}
		}
	}
	return ""
}

// SDKRow is the defaults row of provider's Stainless SDK in lang
// (x-stainless-lang: python, js, go), or "".
func SDKRow(provider, lang string) string {
	for _, p := range Providers {
		if p.Name == provider {
			return p.SDKs[lang]
		}
	}
	return ""
}

// FamilyOfLayer is the family of providers an SDK or agent layer calls,
// by its defaults row; "" for a layer that calls any (a queue, a wrapper,
// a multi-provider framework).
func FamilyOfLayer(id string) string {
	return familyOf(func(p *Provider) bool { return named(id, p.LayerIDs, p.LayerPrefixes, nil) })
}

// FamilyOfModel is the family a model ID names, or "".
func FamilyOfModel(model string) string {
	m := strings.ToLower(model)
	return familyOf(func(p *Provider) bool { return named(m, nil, p.ModelPrefixes, p.ModelWords) })
}

// familyOf is the family of the first row match takes, or "".
func familyOf(match func(*Provider) bool) string {
	for i := range Providers {
		if match(&Providers[i]) {
			return Providers[i].Family
		}
	}
	return ""
}

// named: s is one of exact, begins with one of prefixes or holds one of
// words.
func named(s string, exact, prefixes, words []string) bool {
	for _, x := range exact {
		if s == x {
			return true
		}
	}
	for _, x := range prefixes {
		if strings.HasPrefix(s, x) {
			return true
		}
	}
	for _, x := range words {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// FamilyOfLogged is the family of a provider name a log gives; the name
// itself, lower-cased, when no row knows it.
func FamilyOfLogged(provider string) string {
	p := strings.ToLower(provider)
	for _, r := range Providers {
		for _, n := range r.LogNames {
			if p == n {
				return r.Family
			}
		}
	}
	return p
}

// FamilyOfRequestID is the family a provider request ID's own shape names,
// or "": OpenAI's x-request-id is "req_" and 32 lower-case hex digits,
// Anthropic's request-id "req_011C" and at least 16 more letters and
// digits. An app line that names no model but keeps the request ID of its
// failed call ("job failed", status 503, requestId) still says whose SDK,
// and so whose retries, are below it.
func FamilyOfRequestID(id string) string {
	rest, ok := strings.CutPrefix(id, "req_")
	if !ok {
		return ""
	}
	if len(rest) == 32 && strings.Trim(rest, "0123456789abcdef") == "" {
		return "openai"
	}
	if tail, ok := strings.CutPrefix(rest, "011C"); ok && len(tail) >= 16 && len(tail) <= 64 && alnum(tail) {
		return "anthropic"
	}
	return ""
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
