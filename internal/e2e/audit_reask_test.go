package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// An agent provider that asks the model again, by calling itself, every
// time a tool call's arguments do not parse: the audit as a user runs it
// says the path is unbounded and exits 1 (issue 37, round 5: 31 such
// providers in anything-llm read as the SDK alone, 3 attempts, exit 0).
const reaskProviderJS = `const OpenAI = require("openai");
const { toolComplete } = require("./tools");

class Provider {
  constructor() {
    this.client = new OpenAI({ apiKey: process.env.KEY });
  }

  async complete(messages, functions = []) {
    const result = await toolComplete(this.client, messages, functions);
    if (result.retryWithError) {
      return this.complete([...messages, result.retryWithError], functions);
    }
    return result;
  }
}

module.exports = { Provider };
`

func TestAuditReaskByRecursionIsUnbounded(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"package.json":         `{"dependencies": {"openai": "4.95.1"}}`,
		"providers/generic.js": reaskProviderJS,
	})
	out, err := run(t, "audit", "--format", "json", dir)
	if !errors.Is(err, errCritical) {
		t.Fatalf("exit: %v, want critical\n%s", err, out)
	}
	var r struct {
		Layers []struct {
			File      string `json:"file"`
			Line      int    `json:"line"`
			Unbounded bool   `json:"unbounded"`
		} `json:"layers"`
		Findings []struct {
			Kind string `json:"kind"`
			Line int    `json:"line"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range r.Layers {
		found = found || l.File == "providers/generic.js" && l.Line == 12 && l.Unbounded
	}
	crit := false
	for _, f := range r.Findings {
		crit = crit || f.Kind == "unbounded_layer" && f.Line == 12
	}
	if !found || !crit {
		t.Fatalf("want the re-ask at providers/generic.js:12, unbounded and critical:\n%s", out)
	}
	if !strings.Contains(out, "retryWithError") {
		t.Errorf("the setting does not name the condition:\n%s", out)
	}
}
