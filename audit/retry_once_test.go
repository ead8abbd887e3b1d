package audit

import "testing"

// Issue 37: a synchronous retry-once — the same call made again, as
// written, in the handler of every error. Fixtures written for these
// tests, each with its near misses.

const syncRetryOncePy = `import json
from anthropic import Anthropic

client = Anthropic(max_retries=0)


def summarize(params):
    try:
        reply = client.messages.create(**params)
    except Exception:
        reply = client.messages.create(**params)
    return reply


def summarize_hard(params):
    try:
        return client.messages.create(**params)
    except Exception:
        try:
            return client.messages.create(**params)
        except Exception:
            return client.messages.create(**params)


def dump(output):
    try:
        data = output.model_dump(mode="json")
    except Exception:
        data = output.model_dump()
    return data


def parse(text):
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = json.loads(text)
    return value


def fallback(params):
    try:
        reply = client.messages.create(**params)
    except Exception:
        reply = backup.messages.create(**params)
    return reply


def loop(params):
    for _ in range(3):
        try:
            reply = client.messages.create(**params)
        except Exception:
            reply = client.messages.create(**params)
    return reply
`

func TestSyncRetryOncePython(t *testing.T) {
	var got []Layer
	for _, l := range scanPython("svc/summary.py", []byte(syncRetryOncePy)) {
		if l.DefaultID == "hand-rolled" {
			got = append(got, l)
		}
	}
	// summarize: 2 tries; summarize_hard: 3. Not: a serializer's fallback
	// with other arguments, a handler of one named error, a call of
	// another client, a handler inside a loop (the loop's rule reads it).
	if g, want := layerList(got), "10 2,18 3"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
}

const jsRetryOnceTs = `import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({ maxRetries: 0 });

export async function draft(input: string) {
  try {
    return await client.messages.create({ model: "m", max_tokens: 100, messages: [input] });
  } catch (err) {
    return await client.messages.create({ model: "m", max_tokens: 100, messages: [input] });
  }
}

export async function cached(key: string) {
  try {
    return await cache.get(key);
  } catch (err) {
    return await cache.get(key + ":old");
  }
}

export async function onlyRateLimit(input: string) {
  try {
    return await client.messages.create({ model: "m", max_tokens: 100, messages: [input] });
  } catch (err) {
    if (err.status === 429) {
      return await client.messages.create({ model: "m", max_tokens: 100, messages: [input] });
    }
    throw err;
  }
}

export async function sweep(items: string[]) {
  for (const it of items) {
    try {
      await send(it);
    } catch (e) {
      await send(it);
    }
  }
}
`

func TestRetryOnceJS(t *testing.T) {
	var got []Layer
	for _, l := range scanJS("src/draft.ts", []byte(jsRetryOnceTs), nil) {
		if l.DefaultID == "hand-rolled" {
			got = append(got, l)
		}
	}
	if g, want := layerList(got), "8 2"; g != want {
		t.Fatalf("layers %q, want %q (only draft's catch sends the same call again whatever the error)", g, want)
	}
}
