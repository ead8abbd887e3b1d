package audit

import (
	"math"
	"testing"
)

// The second red team's findings on round 8's off-path filters, each with
// a fixture of our own shape and a near miss.

const localModelServerPy = `import time

import httpx


def ask_proxy(prompt):
    for attempt in range(5):
        try:
            return httpx.post("http://0.0.0.0:4000/chat/completions", json={"model": "gpt-4o", "messages": [prompt]})
        except httpx.HTTPError:
            time.sleep(1)


def tunnels():
    for attempt in range(5):
        try:
            return httpx.get("http://127.0.0.1:4040/api/tunnels").json()
        except httpx.HTTPError:
            time.sleep(1)
`

const localModelServerJS = `const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function ollama(prompt) {
  for (let i = 0; i < 5; i++) {
    try {
      return await fetch("http://localhost:11434/api/chat", { method: "POST", body: JSON.stringify({ prompt }) });
    } catch (err) {
      await sleep(1000);
    }
  }
}
`

// TestModelServerOnLoopbackIsNoLocalPoll: R7-10 — a retry loop against a
// model server on loopback (Ollama, vLLM, a LiteLLM proxy on :4000) was
// taken for a local process's poll and dropped: every attempt is a model
// call, and a proxy's a paid one. A poll of ngrok's API stays no layer.
func TestModelServerOnLoopbackIsNoLocalPoll(t *testing.T) {
	r := scanTree(t, map[string]string{"proxy.py": localModelServerPy, "ollama.js": localModelServerJS})
	if l := layerAt(t, r, "proxy.py", 7); l.Attempts != 5 {
		t.Errorf("proxy.py:7: %d attempts, want the proxy loop's 5", l.Attempts)
	}
	if l := layerAt(t, r, "ollama.js", 4); l.Attempts != 5 {
		t.Errorf("ollama.js:4: %d attempts, want 5", l.Attempts)
	}
	noLayerAt(t, r, "proxy.py", 15, "a poll of a local process's own API")
}

const browserHelperPy = `import asyncio

from openai import AsyncOpenAI

client = AsyncOpenAI()


async def decide(shot):
    return await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": shot}])


def save(shot):
    return shot


async def step(page, goal):
    for attempt in range(4):
        try:
            shot = await page.screenshot()
            return await decide(shot)
        except Exception:
            await asyncio.sleep(1)


async def capture(page):
    for attempt in range(4):
        try:
            return save(await page.screenshot())
        except Exception:
            await asyncio.sleep(1)
`

// TestBrowserStepAskingThroughAHelper: R7-11 — a browser agent's step
// loop asking the model through a helper of the same file was dropped as
// browser work. A helper whose body reaches an API keeps the loop a
// layer; one that does not (a local save) leaves it browser work.
func TestBrowserStepAskingThroughAHelper(t *testing.T) {
	r := scanTree(t, map[string]string{"agent.py": browserHelperPy})
	if l := layerAt(t, r, "agent.py", 17); l.Attempts != 4 {
		t.Errorf("agent.py:17: %d attempts, want the step loop's 4", l.Attempts)
	}
	noLayerAt(t, r, "agent.py", 25, "a screenshot taken again and saved")
}

// TestQualifiedCallOfAnotherServicesModule: R7-15 — pkg.retry.with_retry
// called in one service was matched to every pkg/retry.py of the tree: a
// second service's call with 5000 made the first's LLM helper a false
// critical. A module resolves by its path under a root that holds the
// importing file.
func TestQualifiedCallOfAnotherServicesModule(t *testing.T) {
	r := scanTree(t, map[string]string{
		"svc_a/pkg/__init__.py": "",
		"svc_a/pkg/retry.py": `import time
import openai

client = openai.OpenAI(max_retries=0)


def with_retry(prompt, attempts=3):
    for i in range(attempts):
        try:
            return client.chat.completions.create(model="gpt-4o", messages=[prompt])
        except openai.RateLimitError:
            time.sleep(2 ** i)
`,
		"svc_a/main.py":         "import pkg.retry\n\npkg.retry.with_retry(\"hello\", 4)\n",
		"svc_b/pkg/__init__.py": "",
		"svc_b/pkg/retry.py":    "import time\n\n\ndef with_retry(fn, attempts=3):\n    for i in range(attempts):\n        try:\n            return fn()\n        except OSError:\n            time.sleep(1)\n",
		"svc_b/main.py":         "import pkg.retry\n\npkg.retry.with_retry(lambda: open(\"x\").read(), 5000)\n",
	})
	if l := layerAt(t, r, "svc_a/pkg/retry.py", 8); l.Attempts != 4 {
		t.Errorf("svc_a/pkg/retry.py:8: %d attempts (%s), want its own caller's 4", l.Attempts, l.Setting)
	}
}

// TestOfetchQuotedMethodAndNamedBounds: R7-8 — ofetch(url, { "method":
// "POST" }) was a layer (the quoted key blanked with the strings: a POST
// ofetch sends once), and retry: Number.MAX_SAFE_INTEGER read as the
// default, 2 attempts, where ofetch tries 9e15 times.
func TestOfetchQuotedMethodAndNamedBounds(t *testing.T) {
	r := scanTree(t, map[string]string{"api.ts": `import { ofetch } from 'ofetch'
export async function post(url: string, body: any) {
  return ofetch(url, { "method": "POST", body })
}
export async function forever(url: string) {
  return ofetch(url, { retry: Number.MAX_SAFE_INTEGER })
}
export async function get(url: string) {
  return ofetch(url, { 'headers': {}, retry: 3 })
}
`})
	noLayerAt(t, r, "api.ts", 3, "a POST ofetch sends once")
	if l := layerAt(t, r, "api.ts", 6); !l.Unbounded {
		t.Errorf("api.ts:6: %d attempts (%s), want unbounded", l.Attempts, l.Setting)
	}
	if l := layerAt(t, r, "api.ts", 9); l.Attempts != 4 {
		t.Errorf("api.ts:9: %d attempts, want 4", l.Attempts)
	}
	for s, want := range map[string]int{"sys.maxsize": math.MaxInt, "Number.MAX_SAFE_INTEGER": 1<<53 - 1} {
		if n, ok := numExpr(s); ok != (want != 0) || want != 0 && n < 1000 {
			t.Errorf("numExpr(%q) = %d, %v", s, n, ok)
		}
	}
}
