package layers

import (
	"errors"
	"math"
	"testing"
)

func TestKnobGrammar(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		attempts   int
		err        error
	}{
		{"anthropic-sdk.maxRetries", "0", 1, nil},
		{"anthropic-sdk.max_retries", "2", 3, nil},
		{"scheduler.rerunsOnFailure", "1", 2, nil},
		{"queue.reruns", "6", 7, nil},
		{"wrapper.maxAttempts", "3", 3, nil},
		{"celery.max_attempts", "1", 1, nil},
		{"wrapper.attempts", "0", 0, ErrNotAttemptCount},
		{"anthropic-sdk.maxRetries", "-1", 0, ErrNotRetryCount},
		{"anthropic-sdk.maxRetries", "1000", 0, ErrNotRetryCount},
		{"anthropic-sdk.maxRetries", "two", 0, ErrNotRetryCount},
		{"claude-code.streaming-idle-watchdog", "default-on / 300s idle -> abort+retry", 2, nil},
		{"claude-code.streaming-idle-watchdog", "off", 0, nil},
		{"anthropic-sdk.timeout", "600", 0, nil},
	} {
		_, knob, ok := CutKey(tc.key)
		if !ok {
			t.Fatalf("%s: no knob", tc.key)
		}
		n, err := Attempts(ParseKnob(knob), tc.value)
		if n != tc.attempts || !errors.Is(err, tc.err) {
			t.Errorf("%s = %s: %d attempts, %v; want %d, %v", tc.key, tc.value, n, err, tc.attempts, tc.err)
		}
	}
	for _, k := range []string{"x.", ".x", "x"} {
		if _, _, ok := CutKey(k); ok {
			t.Errorf("%q cut", k)
		}
	}
	if l, ok := LayerOf("anthropic-sdk.max_retries", KnobRetries); !ok || l != "anthropic-sdk" {
		t.Errorf("LayerOf: %q %v", l, ok)
	}
	if _, ok := LayerOf("anthropic-sdk.maxAttempts", KnobRetries); ok {
		t.Error("an attempts key read as retries")
	}
	if !DeclaresCount(map[string]string{"w.maxAttempts": "3"}, "w") || DeclaresCount(map[string]string{"w.timeout": "3"}, "w") {
		t.Error("DeclaresCount")
	}
}

// TestProviderTable holds the three tables it replaced to what each said:
// the SDK text decoder's hosts, the OTLP mapper's SDK makers and the
// declared stack's families.
func TestProviderTable(t *testing.T) {
	for host, want := range map[string]string{
		"bedrock-runtime.us-east-1.amazonaws.com":      "bedrock",
		"us-east5-aiplatform.googleapis.com":           "vertex_ai",
		"my-resource.openai.azure.com":                 "azure",
		"apim.azure-api.net":                           "azure",
		"api.anthropic.com":                            "anthropic",
		"api.openai.com":                               "openai",
		"localhost:8080":                               "",
		"generativelanguage.googleapis.com (no match)": "",
	} {
		got := ""
		if p := ByHost(host); p != nil {
			got = p.Name
		}
		if got != want {
			t.Errorf("ByHost(%s) = %q, want %q", host, got, want)
		}
	}
	for host, want := range map[string]string{
		"api.anthropic.com": "anthropic", "my.openai.azure.com": "openai", "bedrock-runtime.amazonaws.com": "", "": "",
	} {
		if got := SDKMakerOfHost(host); got != want {
			t.Errorf("SDKMakerOfHost(%s) = %q, want %q", host, got, want)
		}
	}
	if SDKRow("anthropic", "js") != "anthropic-ts" || SDKRow("openai", "go") != "openai-go" || SDKRow("bedrock", "python") != "" {
		t.Error("SDKRow")
	}
	for id, want := range map[string]string{
		"anthropic-python": "anthropic", "claude-code": "anthropic", "openai-node": "openai", "codex": "openai",
		"llamaindex-openai": "openai", "google-genai": "google", "botocore": "bedrock", "celery": "", "tenacity": "",
	} {
		if got := FamilyOfLayer(id); got != want {
			t.Errorf("FamilyOfLayer(%s) = %q, want %q", id, got, want)
		}
	}
	for m, want := range map[string]string{
		"claude-sonnet-4-6": "anthropic", "anthropic.claude-3-5-sonnet-20240620-v1:0": "anthropic", "GPT-4o": "openai",
		"o3-mini": "openai", "text-embedding-3-small": "openai", "gemini-2.5-pro": "google", "mistral-large": "",
	} {
		if got := FamilyOfModel(m); got != want {
			t.Errorf("FamilyOfModel(%s) = %q, want %q", m, got, want)
		}
	}
	for p, want := range map[string]string{
		"vertex_ai": "google", "Gemini": "google", "azure_openai": "openai", "aws": "bedrock", "anthropic": "anthropic", "Groq": "groq",
	} {
		if got := FamilyOfLogged(p); got != want {
			t.Errorf("FamilyOfLogged(%s) = %q, want %q", p, got, want)
		}
	}
}

// TestProductSaturates: a product that wrapped would read as a small,
// safe stack (budget's and merge's copies multiplied without a bound).
func TestProductSaturates(t *testing.T) {
	if p := Product([]int{7, 3, 3}); p != 63 {
		t.Errorf("7×3×3 = %d", p)
	}
	if p := Product(nil); p != 0 {
		t.Errorf("no layer: %d", p)
	}
	big := []int{1000, 1000, 1000, 1000, 1000, 1000, 1000}
	if p := Product(big); p != math.MaxInt {
		t.Errorf("1000^7 = %d, want MaxInt", p)
	}
}
