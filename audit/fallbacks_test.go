package audit

import (
	"strings"
	"testing"
)

// Round 9's fallbacks (issue 37, fallbacks.go): a list of models,
// generators or engines walked on error, and a handler that sends the
// call again to another model, each a layer bounded by the list; near
// misses that stay no layer.

const fallbackListsPy = `import logging

FALLBACK_MODELS = ["gpt-4o", "gpt-4o-mini", "claude-3-5-haiku"]


class FallbackGenerator:
    def __init__(self, generators):
        self.generators = list(generators)

    def run(self, messages):
        failed = []
        for idx, gen in enumerate(self.generators):
            try:
                return gen.run(messages=messages)
            except Exception as e:
                logging.warning("generator %s failed: %s", idx, e)
                failed.append(idx)
        raise RuntimeError(f"all failed: {failed}")


def ask(client, prompt):
    for model in FALLBACK_MODELS:
        try:
            return client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
        except Exception:
            continue
    return None


def strict(client, prompt, models):
    for model in models:
        try:
            return client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
        except Exception:
            raise


def lookup(providers, name):
    for provider in providers:
        try:
            return provider.resolve(name)
        except KeyError:
            continue
    return None


def ask_retryable(client, prompt, primary, fallbacks):
    models_to_try = [primary] + fallbacks
    for i, chat_model in enumerate(models_to_try):
        try:
            return client.chat.completions.create(model=chat_model, messages=[{"role": "user", "content": prompt}])
        except Exception as e:
            if is_retryable(e) and i < len(models_to_try) - 1:
                continue
            raise


def ask_or_smaller(client, prompt):
    try:
        return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
    except Exception:
        return client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}])
`

const fallbackListsTS = `import { generateText } from "ai";
import { getModel } from "./models";

const models = [getModel("gpt-4o"), getModel("claude-3-5-haiku")];

export async function ask(prompt: string) {
  let lastError: unknown;
  for (const model of models) {
    try {
      const result = await generateText({ model, prompt });
      return result.text;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

export async function extract(prompt: string) {
  let currentModel = getModel("gpt-4o");
  try {
    const result = await generateText({ model: currentModel, prompt });
    return result.text;
  } catch (error) {
    if (String(error).includes("rate limit")) {
      currentModel = getModel("gpt-4o-mini");
      const result = await generateText({ model: currentModel, prompt });
      return result.text;
    }
    throw error;
  }
}

export async function scrape(url: string, engines: string[]) {
  const remainingEngines = [...engines];
  while (remainingEngines.length > 0) {
    const engine = remainingEngines.shift()!;
    try {
      return await scrapeWith(engine, url);
    } catch (error) {
      console.warn("engine failed", engine);
    }
  }
  throw new Error("no engine");
}

export async function again(prompt: string) {
  const model = getModel("gpt-4o");
  try {
    return await generateText({ model: model, prompt });
  } catch (error) {
    return await generateText({ model: model, prompt });
  }
}
`

const fallbackGo = `package middleware

import "context"

type Fallback struct {
	Models []ModelRef
}

func (f *Fallback) Generate(ctx context.Context, req *Request) (*Response, error) {
	var lastErr error
	for _, ref := range f.Models {
		resp, err := lookup(ref).Generate(ctx, req)
		if err == nil {
			return resp, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func (f *Fallback) Names() []string {
	var out []string
	for _, ref := range f.Models {
		out = append(out, ref.Name())
	}
	return out
}
`

func TestFallbacksAreLayers(t *testing.T) {
	r := scanTree(t, map[string]string{
		"app/fallback.py":  fallbackListsPy,
		"src/ask.ts":       fallbackListsTS,
		"mw/fallback.go":   fallbackGo,
		"go.mod":           "module example.com/mw\n\ngo 1.22\n",
		"package.json":     `{"dependencies": {"ai": "4.0.0"}}`,
		"requirements.txt": "openai==1.50.0\n",
	})
	check := func(file string, line, attempts int, want string) {
		t.Helper()
		l := layerAt(t, r, file, line)
		if l.DefaultID != "fallback" || l.Attempts != attempts || !strings.Contains(l.Setting, want) || l.Retries4xx {
			t.Errorf("%s:%d: %s attempts=%d setting=%q 4xx=%v, want a fallback of %d (%q)", file, line, l.DefaultID, l.Attempts, l.Setting, l.Retries4xx, attempts, want)
		}
	}
	check("app/fallback.py", 12, 2, "the list's length is the bound")
	check("app/fallback.py", 22, 3, "FALLBACK_MODELS has 3 entries")
	check("src/ask.ts", 8, 2, "models has 2 entries")
	check("src/ask.ts", 26, 2, `currentModel=getModel("gpt-4o-mini")`)
	check("src/ask.ts", 36, 2, "remainingEngines")
	check("app/fallback.py", 62, 2, `model="gpt-4o-mini"`)
	check("mw/fallback.go", 11, 2, "f.Models")
	check("app/fallback.py", 49, 2, "the list's length is the bound")
	noLayerAt(t, r, "app/fallback.py", 31, "the handler raises: no next model")
	noLayerAt(t, r, "app/fallback.py", 40, "a registry lookup sends nothing")
	noLayerAt(t, r, "mw/fallback.go", 22, "a loop over models that sends nothing")
	for _, l := range r.Layers {
		if l.DefaultID == "fallback" && l.File == "src/ask.ts" && l.Line > 45 {
			t.Errorf("the same model asked again is a retry once, not a fallback: %s:%d", l.File, l.Line)
		}
	}
	for _, f := range r.Findings {
		if f.Kind == FindingRetries4xx && (f.File == "app/fallback.py" && f.Line < 30 || f.File == "mw/fallback.go") {
			t.Errorf("a fallback is no retry of a 400: %s:%d %s", f.File, f.Line, f.Message)
		}
	}
}

// A walk over model names that loads weights from disk sends no call: no
// fallback layer.
func TestModelLoadWalkIsNoFallback(t *testing.T) {
	r := scanOne(t, "train/load.py", `from transformers import AutoModel


def load_first(models):
    for model in models:
        try:
            return AutoModel.from_pretrained(model)
        except OSError:
            continue
    return None
`)
	noLayerAt(t, r, "train/load.py", 5, "weights loaded from disk")
}
