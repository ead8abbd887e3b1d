package audit

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundsAreValuesNotLiterals: loops and knobs bounded by a name — a
// parameter's default, a constant of any case, a class field, an
// environment variable's default, an envconfig struct tag — count what the
// name resolves to, and the setting says where it came from. Before, the
// parameter-bounded loop was no layer at all (the path read 3 calls, truly
// 9) and the named knobs showed the library's default at low confidence.
func TestBoundsAreValuesNotLiterals(t *testing.T) {
	r := scan(t, "testdata/values")
	type row struct {
		attempts int
		shows    string
	}
	want := map[string]row{
		"web/retry.ts:8 hand-rolled":          {3, "attempts = 3, default of the parameter at web/retry.ts:6"},
		"web/retry.ts:21 anthropic-ts":        {6, "MAX_RETRIES = 5, constant at web/retry.ts:19"},
		"worker/job.py:14 anthropic-python":   {7, "settings.max_retries = 6, attribute default at worker/job.py:10"},
		"worker/job.py:18 hand-rolled":        {4, "MAX_ATTEMPTS = 4, default of the environment variable JOB_MAX_ATTEMPTS at worker/job.py:6"},
		"gosvc/client.go:19 go-retryablehttp": {11, "cfg.RetryMax = 10, default of the environment variable RETRY_MAX at gosvc/client.go:13"},
		"gosvc/client.go:26 hand-rolled":      {4, "maxPolls = 4, constant at gosvc/client.go:16"},
		// A shorthand property, and a fallback for a caller that passes none.
		"web/factory.ts:6 openai-node":   {5, "maxRetries = 4, default of the parameter at web/factory.ts:5"},
		"web/factory.ts:10 anthropic-ts": {2, "1 when the caller passes none"},
		// A default that is itself a constant (openai/openai-agents-python's
		// sandbox retry_async has this shape), and range(1, n + 1).
		// (The decorator's own parameter since issue 37's closure rule:
		// read as its default plus the decorator's uses, none here.)
		"worker/transient.py:9 hand-rolled": {3, "max_attempt = 3, default of the parameter (DEFAULT_MAX_ATTEMPT = 3, constant at worker/transient.py:3) at worker/transient.py:6"},
		// Defined in another file of the package or the project.
		"gosvc/batch.go:10 go-retryablehttp":  {7, "defaultRetryMax = 6, constant at gosvc/config.go:4"},
		"gosvc/batch.go:16 hand-rolled":       {4, "maxTries = 4, constant at gosvc/config.go:7"},
		"worker/loop.py:11 hand-rolled":       {5, "cfg.api_retry_max_attempts = 5, attribute default at worker/config.py:6"},
		"worker/summarize.py:5 openai-python": {9, "OPENAI_MAX_RETRIES = 8, default of the environment variable OPENAI_MAX_RETRIES at worker/settings.py:4"},
	}
	got := map[string]Layer{}
	for _, l := range r.Layers {
		if l.File == "worker/loop.py" && l.Line == 21 {
			t.Errorf("a loop bounded by a parameter with no default is a layer: %+v", l)
		}
		got[l.File+":"+itoa(l.Line)+" "+l.DefaultID] = l
	}
	for k, w := range want {
		l, ok := got[k]
		if !ok {
			t.Errorf("%s: no layer (layers %v)", k, layersOf(r))
			continue
		}
		if l.Attempts != w.attempts || !strings.Contains(l.Setting, w.shows) || l.Confidence == "" {
			t.Errorf("%s: %d attempts, setting %q, want %d and %q", k, l.Attempts, l.Setting, w.attempts, w.shows)
		}
	}
}

// TestInitChatModelPassesMaxRetriesToTheSDK: LangChain's init_chat_model
// builds the provider's chat model, whose max_retries goes to the SDK
// (anthropic:… with max_retries=3 is 4 attempts; gpt-4o-mini unset is
// the OpenAI SDK's 3), and .with_retry(stop_after_attempt=4) around it
// multiplies: 4 × 4 = 16. Before, init_chat_model was no layer: 4.
func TestInitChatModelPassesMaxRetriesToTheSDK(t *testing.T) {
	r := scan(t, "testdata/lcinit")
	sameLayers(t, r, []want{
		{"agent.py:5", "anthropic-python", 4, true},
		{"agent.py:7", "langchain-with-retry", 4, true},
		{"agent.py:9", "openai-python", 3, false},
	})
	worst := 0
	for _, s := range r.Stacks {
		worst = max(worst, s.Attempts)
	}
	if worst != 16 {
		t.Errorf("stacks %+v, want the path 4 × 4 = 16", r.Stacks)
	}
}

// TestARegenerateCounterIsALayer: a turn regenerated while the response is
// empty, counted by hand up to a config field of another file (3, so 4
// tries: anthropics/claude-quickstarts' computer-use loop has this shape),
// multiplies the SDK's 3: 12. A counter not named for retries is not a
// layer. Before, the path read 3.
func TestARegenerateCounterIsALayer(t *testing.T) {
	r := scan(t, "testdata/regenerate")
	sameLayers(t, r, []want{
		{"loop.py:5", "anthropic-python", 3, true},
		{"loop.py:14", "hand-rolled", 4, true},
		{"stream.ts:3", "anthropic-ts", 3, true}, // TestARegenerateCounterInTypeScript
		{"stream.ts:15", "stall-watchdog", 2, true},
	})
	if len(r.Stacks) != 2 || r.Stacks[0].Group != "python" || r.Stacks[0].Attempts != 12 {
		t.Errorf("stacks %+v, want the python path 4 × 3 = 12", r.Stacks)
	}
}

// TestARegenerateCounterInTypeScript: a stalled stream regenerated once
// (++retries > MAX_REGENERATIONS, a constant 1: 2 tries) around the SDK's
// 3 is 2 × 3 = 6 (seed 003's watchdog, written in the code: its handler
// tests for a StallError, so it is a stall watchdog, watchdog.go); a
// counter not named for retries is no layer.
func TestARegenerateCounterInTypeScript(t *testing.T) {
	r := scan(t, "testdata/regenerate")
	got := map[string]int{}
	for _, l := range r.Layers {
		got[l.File+":"+itoa(l.Line)+" "+l.DefaultID] = l.Attempts
	}
	if got["stream.ts:15 stall-watchdog"] != 2 || got["stream.ts:3 anthropic-ts"] != 3 || len(got) != 4 {
		t.Errorf("layers %v", layersOf(r))
	}
	worst := 0
	for _, s := range r.Stacks {
		if s.Group == "javascript" {
			worst = s.Attempts
		}
	}
	if worst != 6 {
		t.Errorf("stacks %+v, want the javascript path 2 × 3 = 6", r.Stacks)
	}
}

// TestANameWithSeveralValuesIsTheLargestAtLowConfidence: two functions
// each with a `retries` default: the knob that reads `retries` takes the
// largest, says so, and is low confidence.
func TestANameWithSeveralValuesIsTheLargestAtLowConfidence(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), []byte(`{"dependencies": {"openai": "^4.80.0"}}`))
	write(t, filepath.Join(dir, "a.ts"), []byte("import OpenAI from \"openai\";\n\nexport function quick(retries = 1) {\n  return new OpenAI({ maxRetries: retries });\n}\n\nexport function batch(retries = 6) {\n  return retries;\n}\n"))
	r := scan(t, dir)
	if len(r.Layers) != 1 || r.Layers[0].Attempts != 7 || r.Layers[0].Confidence != ConfidenceLow || !strings.Contains(r.Layers[0].Setting, "the largest of 2 definitions") {
		t.Errorf("layers %+v", r.Layers)
	}
}
