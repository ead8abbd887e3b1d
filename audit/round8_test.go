package audit

import (
	"strings"
	"testing"
)

// Round 8's false reports and misses (issue 37), each a general rule with
// a fixture of our own shape and its near miss. Round 8 is development
// data from here on.

const browserRetryPy = `import asyncio

from openai import AsyncOpenAI
from playwright.async_api import async_playwright

client = AsyncOpenAI()


async def launch(playwright, args):
    for attempt in range(3):
        try:
            return await playwright.chromium.launch_persistent_context(**args)
        except Exception:
            await asyncio.sleep(2 ** attempt)


async def connect(playwright, url):
    try:
        return await playwright.chromium.connect_over_cdp(url, timeout=5000)
    except Exception as first_error:
        return await playwright.chromium.connect_over_cdp(url, timeout=20000)


async def snap(page, path):
    try:
        return await page.screenshot(path=path, timeout=3000)
    except TimeoutError:
        return await page.screenshot(path=path, animations="allow")


async def describe(page, prompt):
    for attempt in range(3):
        try:
            shot = await page.screenshot()
            return await client.chat.completions.create(model="m", messages=[prompt, shot])
        except Exception:
            await asyncio.sleep(2 ** attempt)
`

const browserRetryTS = `import puppeteer from "puppeteer";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function open(url: string) {
  const browser = await puppeteer.launch();
  const page = await browser.newPage();
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await page.goto(url, { waitUntil: "networkidle0" });
    } catch (err) {
      await sleep(1000 * attempt);
    }
  }
}

export async function post(url: string, body: string) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await fetch(url, { method: "POST", body });
    } catch (err) {
      await sleep(1000 * attempt);
    }
  }
}
`

// A retry of a browser — a launch, a CDP connection, a screenshot, a page
// navigated again — with no model or HTTP API call in its function is no
// API retry layer (skyvern's 12 and browser-use's 2 false in round 8). The
// near misses, a loop that takes a screenshot and asks the model, and a
// fetch loop beside the page loop, stay layers.
func TestBrowserRetriesAreNoLayers(t *testing.T) {
	r := scanTree(t, map[string]string{"browser.py": browserRetryPy, "open.ts": browserRetryTS})
	noLayerAt(t, r, "browser.py", 10, "a browser launched again")
	noLayerAt(t, r, "browser.py", 20, "a CDP connection made again")
	noLayerAt(t, r, "browser.py", 27, "a screenshot taken again on a timeout")
	noLayerAt(t, r, "open.ts", 8, "a page navigated again")
	if l := layerAt(t, r, "browser.py", 32); l.Attempts != 3 {
		t.Errorf("browser.py:32: %d attempts, want the model call's loop, 3", l.Attempts)
	}
	if l := layerAt(t, r, "open.ts", 18); l.Attempts != 3 {
		t.Errorf("open.ts:18: %d attempts, want the fetch loop, 3", l.Attempts)
	}
}

const failureRecordPy = `import asyncio
import json
import subprocess

import httpx


class Block:
    async def run(self, url):
        try:
            await self.send(url)
            return await self.build_result(success=True, output=self.text)
        except asyncio.TimeoutError:
            return await self.build_result(success=False, failure_reason="timed out")
        except Exception as e:
            return await self.build_result(success=False, failure_reason=str(e))

    async def load(self, path):
        try:
            try:
                data = parse(path)
            except ValueError as e:
                return await self._record_failure(path, f"bad file: {e}")
            return data
        except Exception as e:
            return await self._record_failure(path, f"could not load: {e}")

    async def ask(self, prompt):
        try:
            return await self.complete(prompt)
        except Exception as e:
            return await self.complete(prompt)


def run_script(args, timeout):
    try:
        return json.dumps({"stdout": subprocess.run(args, timeout=timeout).stdout})
    except subprocess.TimeoutExpired:
        return json.dumps({"error": "timed out"})
`

const failureRecordTS = `export async function generate(id: string, signal: AbortSignal) {
  try {
    await updateRecord(id, { status: "running" });
    const images = render(id, signal);
    return await updateRecord(id, { status: "done", images });
  } catch (err) {
    if (err instanceof Error && err.name === "AbortError") {
      await updateRecord(id, { status: "error", error: "aborted" });
    }
  }
}
`

// A handler that builds the failed result — the same builder called with
// success=False, status "error", the caught error, or a failure recorded
// by a function named for it; a value serialized — sends nothing again
// (skyvern's 8, agno's 2 and chatbox's 2 false in round 8). The near
// miss, the same request made again, stays a layer.
func TestFailureRecordedInHandlerIsNoRetry(t *testing.T) {
	r := scanTree(t, map[string]string{"block.py": failureRecordPy, "gen.ts": failureRecordTS})
	noLayerAt(t, r, "block.py", 13, "a timed-out result built")
	noLayerAt(t, r, "block.py", 15, "a failed result built")
	noLayerAt(t, r, "block.py", 25, "a failure recorded")
	noLayerAt(t, r, "block.py", 38, "a timeout serialized")
	noLayerAt(t, r, "gen.ts", 6, "a record marked as failed")
	if l := layerAt(t, r, "block.py", 31); l.Attempts != 2 {
		t.Errorf("block.py:31: %d attempts, want the call made again once, 2", l.Attempts)
	}
}

// A loop that polls a local process's own API (ngrok's 127.0.0.1:4040)
// re-sends nothing to an API (skyvern's tunnel wait, false in round 8);
// the same loop polling a remote API stays a layer.
func TestLoopbackPollIsNoLayer(t *testing.T) {
	body := func(url string) string {
		return `import asyncio

import aiohttp


async def wait_for_tunnel():
    async with aiohttp.ClientSession() as session:
        for attempt in range(10):
            try:
                async with session.get("` + url + `") as resp:
                    return await resp.json()
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.5)
`
	}
	r := scanTree(t, map[string]string{"tunnel.py": body("http://127.0.0.1:4040/api/tunnels"), "remote.py": body("https://api.example.com/v1/status")})
	noLayerAt(t, r, "tunnel.py", 8, "a local process polled")
	if l := layerAt(t, r, "remote.py", 8); l.Attempts != 10 {
		t.Errorf("remote.py:8: %d attempts, want 10", l.Attempts)
	}
}

const storeRetryPy = `import asyncio

from openai import AsyncOpenAI

client = AsyncOpenAI()
MAX_RETRIES = 2


async def validate(key, prompt):
    answer = await client.chat.completions.create(model="m", messages=[prompt])
    for attempt in range(MAX_RETRIES + 1):
        if attempt > 0:
            await asyncio.sleep(0.5)
        try:
            return await lookup_key(key, get_auth_db())
        except Exception:
            continue


async def summarize(prompt):
    for attempt in range(MAX_RETRIES + 1):
        if attempt > 0:
            await asyncio.sleep(0.5)
        try:
            return await client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            continue
`

// A loop whose block retries a database, a storage or a session manager
// and reaches no API is no layer, even in a function that asks a model
// elsewhere (skyvern's key lookup, storage listing and session release in
// round 8); the same loop around the model call stays one.
func TestStoreRetriesAreNoLayers(t *testing.T) {
	r := scanOne(t, "keys.py", storeRetryPy)
	noLayerAt(t, r, "keys.py", 11, "a database lookup retried")
	if l := layerAt(t, r, "keys.py", 21); l.Attempts != 3 {
		t.Errorf("keys.py:21: %d attempts, want 3", l.Attempts)
	}
}

// requests and fetch hand a 400 back as a response: a poll around them
// that never turns a status into an error does not send a 400 again (agno's
// snapshot poll, a false critical in round 8); the same loop calling
// raise_for_status() does.
func TestPollWithoutStatusRaiseDoesNotRetry400(t *testing.T) {
	loop := func(check string) string {
		return `import time

import requests


def wait(url):
    attempts = 0
    while attempts < 60:
        try:
            r = requests.get(url, timeout=30)` + check + `
            data = r.json()
            if data.get("state") == "running":
                attempts += 1
                time.sleep(1)
                continue
            return data
        except Exception:
            attempts += 1
            time.sleep(1)
`
	}
	r := scanTree(t, map[string]string{"poll.py": loop(""), "strict.py": loop("\n            r.raise_for_status()")})
	if l := layerAt(t, r, "poll.py", 8); l.Retries4xx {
		t.Errorf("poll.py:8: %+v, want no retry of a 400", l)
	}
	if l := layerAt(t, r, "strict.py", 8); !l.Retries4xx {
		t.Errorf("strict.py:8: %+v, want a retry of every error, a 400 included", l)
	}
}

const boundElsewherePy = `from openai import AsyncOpenAI, RateLimitError


class Agent:
    def __init__(self, llm, fallback):
        self.llm, self.fallback = llm, fallback
        self._on_fallback = False

    def _switch_to_fallback(self):
        if self._on_fallback or self.fallback is None:
            return False
        self.llm = self.fallback
        self._on_fallback = True
        return True

    async def next_action(self, messages):
        try:
            return await self.llm.chat.completions.create(model="m", messages=messages)
        except RateLimitError:
            if not self._switch_to_fallback():
                raise
            return await self.next_action(messages)

    async def next_step_for(self, task, step):
        if step.failures >= task.max_retries:
            return None
        return step.retry()

    async def run_step(self, task, step, prompt):
        answer = await self.llm.chat.completions.create(model="m", messages=[prompt])
        retry = False
        maybe_next = await self.next_step_for(task, step)
        if maybe_next:
            next_step = maybe_next
            retry = True
        if retry and next_step:
            return await self.run_step(task, next_step, prompt)
        return answer

    async def ask(self, messages):
        try:
            return await self.llm.chat.completions.create(model="m", messages=messages)
        except RateLimitError:
            return await self.ask(messages)
`

// A self-call with no count of its own, guarded by another method of its
// object, is bounded there: a flag the method tests and sets is one
// re-send (browser-use's fallback model, a false unbounded critical in
// round 8); a count the method compares is a bound not resolved, never an
// unbounded critical (skyvern's step retry). The near miss, the same
// recursion with no guard at all, stays unbounded and critical.
func TestSelfCallBoundInAnotherMethod(t *testing.T) {
	r := scanOne(t, "agent.py", boundElsewherePy)
	if l := layerAt(t, r, "agent.py", 22); l.Unbounded || l.Attempts != 2 || len(findingsAt(r, "agent.py", 22, FindingUnbounded)) > 0 {
		t.Errorf("agent.py:22: %+v, want 2 attempts (the fallback switched once), no critical", l)
	}
	l := layerAt(t, r, "agent.py", 37)
	if l.Unbounded || !strings.Contains(l.Setting, "bound not resolved") || len(findingsAt(r, "agent.py", 37, FindingUnbounded)) > 0 {
		t.Errorf("agent.py:37: %+v, want a bound not resolved, no critical", l)
	}
	if l := layerAt(t, r, "agent.py", 44); !l.Unbounded || len(findingsAt(r, "agent.py", 44, FindingUnbounded)) == 0 {
		t.Errorf("agent.py:44: %+v, want unbounded and critical", l)
	}
}

// Red team: a guard method that only tests the error (`return
// e.status_code == 429`) bounds nothing: the recursion stays unbounded and
// critical, not "bound not resolved".
func TestGuardMethodTestingTheErrorBoundsNothing(t *testing.T) {
	r := scanOne(t, "client.py", `from openai import AsyncOpenAI, RateLimitError


class Client:
    def _retryable(self, e):
        return e.status_code == 429

    async def ask(self, messages):
        try:
            return await self.llm.chat.completions.create(model="m", messages=messages)
        except RateLimitError as e:
            if not self._retryable(e):
                raise
            return await self.ask(messages)
`)
	if l := layerAt(t, r, "client.py", 14); !l.Unbounded || len(findingsAt(r, "client.py", 14, FindingUnbounded)) == 0 {
		t.Errorf("client.py:14: %+v, want unbounded and critical", l)
	}
}

// A loop whose status handler goes on only inside an if on a retryable
// status and raises after it (through a helper named for raising) does
// not send a 400 again (browser-use's cloud LLM loop); the same handler
// that goes on after the if, raising nothing, does.
func TestLoopGoingOnOnlyForRetryableStatus(t *testing.T) {
	loop := func(after string) string {
		return `import asyncio

import httpx

RETRYABLE_STATUS_CODES = {429, 500, 502, 503}


class Client:
    async def send(self, payload, max_retries=5):
        for attempt in range(max_retries):
            try:
                return await self._post(payload)
            except httpx.HTTPStatusError as e:
                if e.response.status_code in RETRYABLE_STATUS_CODES and attempt < max_retries - 1:
                    await asyncio.sleep(2 ** attempt)
                    continue
                ` + after + `
            except (httpx.TimeoutException, httpx.ConnectError):
                await asyncio.sleep(2 ** attempt)
`
	}
	r := scanTree(t, map[string]string{"strict.py": loop("self._raise_http_error(e)"), "loose.py": loop("await asyncio.sleep(1)")})
	if l := layerAt(t, r, "strict.py", 10); l.Retries4xx || l.Attempts != 5 {
		t.Errorf("strict.py:10: %+v, want 5 attempts that do not retry a 400", l)
	}
	if l := layerAt(t, r, "loose.py", 10); !l.Retries4xx {
		t.Errorf("loose.py:10: %+v, want a retry of a 400", l)
	}
}

const whileRetryPy = `import httpx


class ApiRequest:
    def __init__(self, base_url):
        self.client = httpx.Client(base_url=base_url)

    def get(self, url, params=None, retry: int = 3):
        while retry > 0:
            try:
                return self.client.get(url, params=params)
            except Exception as e:
                log(e)
                retry -= 1

    def drain(self, queue, pages: int = 3):
        while pages > 0:
            try:
                queue.pop()
            except IndexError:
                pages -= 1
`

// A loop whose head tests the count its handler takes 1 from (`while
// retry > 0:` … `retry -= 1`) around an HTTP call is a layer of the count's
// start, here a parameter's default (Langchain-Chatchat's four web-UI
// requests, missed in round 8). The near miss, a count of pages drained
// from a local queue, is none.
func TestWhileHeadCountdownAroundHTTP(t *testing.T) {
	r := scanOne(t, "api.py", whileRetryPy)
	if l := layerAt(t, r, "api.py", 9); l.Attempts != 3 {
		t.Errorf("api.py:9: %d attempts, want 3", l.Attempts)
	}
	noLayerAt(t, r, "api.py", 17, "a local queue drained")
}

const reaskOncePy = `class Agent:
    async def next_action(self, messages):
        output = await self.get_model_output(messages)
        if (
            not output.action
            or not isinstance(output.action, list)
        ):
            nudge = "You returned no action. Answer with one."
            output = await self.get_model_output(messages + [nudge])
        return output

    async def settings(self, key):
        value = await self.cache.get(key)
        if not value:
            value = await self.cache.get(key)
        return value

    async def caller(self, engine):
        llm_caller = get_llm_caller(engine)
        if not llm_caller:
            llm_caller = get_llm_caller("default")
        return llm_caller
`

const reaskOnceTS = `export async function reply(messages: string[]) {
  let answer = await generateText({ model, messages });
  if (!answer.text) {
    answer = await generateText({ model, messages: [...messages, "Answer in text."] });
  }
  return answer;
}
`

// The model asked once more when its first answer is empty — the same
// name given again by the same model call in an if that finds it empty —
// is a layer of 2 tries (browser-use's two re-asks on an empty action,
// missed in round 8). Near misses: a cache read again when empty, a
// helper that only names a model (get_llm_caller) called again.
func TestReaskOnceOnEmptyAnswer(t *testing.T) {
	r := scanTree(t, map[string]string{"agent.py": reaskOncePy, "reply.ts": reaskOnceTS})
	if l := layerAt(t, r, "agent.py", 9); l.Attempts != 2 || l.Retries4xx {
		t.Errorf("agent.py:9: %+v, want 2 tries that do not retry a 400", l)
	}
	if l := layerAt(t, r, "reply.ts", 4); l.Attempts != 2 {
		t.Errorf("reply.ts:4: %+v, want 2 tries", l)
	}
	noLayerAt(t, r, "agent.py", 15, "a cache read again")
	noLayerAt(t, r, "agent.py", 21, "a caller looked up again")
}

const kwargsCountPy = `class ProviderRetry(Exception):
    pass


class Model:
    guidance_limit: int = 1

    def invoke_with_retry(self, **kwargs):
        count = kwargs.pop("guidance_count", 0)
        try:
            return self.invoke(**kwargs)
        except ProviderRetry as e:
            if count >= self.guidance_limit:
                raise
            kwargs["guidance_count"] = count + 1
            kwargs["messages"].append(e.guidance)
            return self.invoke_with_retry(**kwargs)

    def stream_with_retry(self, **kwargs):
        count = kwargs.pop("guidance_count", 0)
        try:
            yield from self.invoke_stream(**kwargs)
        except ProviderRetry as e:
            if count >= 3:
                raise
            kwargs["guidance_count"] = count + 1
            yield from self.stream_with_retry(**kwargs)

    def ask(self, prompt, **kwargs):
        if kwargs.get("retries", 0) < 2:
            return self.ask(prompt, retries=kwargs.get("retries", 0) + 1)
        return self.invoke(prompt)

    def unguarded(self, **kwargs):
        count = kwargs.pop("hops", 0)
        try:
            return self.invoke(**kwargs)
        except ProviderRetry:
            kwargs["hops"] = count + 1
            return self.unguarded(**kwargs)
`

// A count carried through a recursion in kwargs, under a guard against a
// limit, bounds the self-call at the limit + 1 tries (agno's retry with
// guidance, four times, missed in round 8: a class attribute's limit of
// 1, 2 tries), a generator's yield from alike, and a count passed as
// kwargs.get(…) + 1. The near miss, a count with no guard, is no layer
// of this rule.
func TestKwargsCountRecursion(t *testing.T) {
	r := scanOne(t, "model.py", kwargsCountPy)
	if l := layerAt(t, r, "model.py", 12); l.Attempts != 2 || l.Retries4xx {
		t.Errorf("model.py:12: %+v, want 2 attempts (limit 1 + 1), no 400 retried", l)
	}
	if l := layerAt(t, r, "model.py", 23); l.Attempts != 4 {
		t.Errorf("model.py:23: %+v, want 4 attempts", l)
	}
	if l := layerAt(t, r, "model.py", 31); l.Attempts != 3 {
		t.Errorf("model.py:31: %+v, want 3 attempts", l)
	}
	noLayerAt(t, r, "model.py", 38, "a count with no guard")
}

const selfCountdownPy = `import asyncio

from app.config import settings


class Vault:
    @staticmethod
    async def identity(item_id, remaining_retries: int = 3):
        try:
            return await run_cli(["get", "item", item_id])
        except Exception as e:
            if remaining_retries <= 0:
                raise LookupError(str(e))
            remaining_retries -= 1
            await asyncio.sleep(1)
            return await Vault.identity(item_id, remaining_retries=remaining_retries)

    @staticmethod
    async def card(item_id, remaining_retries: int = settings.VAULT_MAX_RETRIES):
        try:
            return await run_cli(["get", "card", item_id])
        except Exception:
            if remaining_retries <= 0:
                raise
            await asyncio.sleep(1)
            return await Vault.card(item_id, remaining_retries - 1)

    @staticmethod
    async def walk(item_id, remaining_retries: int = 3):
        try:
            return await run_cli(["list", item_id])
        except Exception:
            remaining_retries -= 1
            return await Vault.walk(item_id, remaining_retries=remaining_retries)
`

// A function that calls itself from its handler, counting down the
// tries left under a guard that raises when none is left, is a layer of
// the start + 1 tries — the start a parameter's default, or a settings
// value another module defines (skyvern's two Bitwarden lookups, missed in
// round 8). The near miss, a count taken down with no guard, is none.
func TestSelfCallCountingDown(t *testing.T) {
	r := scanTree(t, map[string]string{"vault.py": selfCountdownPy, "app/config.py": `class Settings:
    VAULT_MAX_RETRIES: int = 5


settings = Settings()
`})
	if l := layerAt(t, r, "vault.py", 11); l.Attempts != 4 {
		t.Errorf("vault.py:11: %+v, want 4 attempts", l)
	}
	if l := layerAt(t, r, "vault.py", 22); l.Attempts != 6 {
		t.Errorf("vault.py:22: %+v, want 6 attempts (settings.VAULT_MAX_RETRIES 5 + 1)", l)
	}
	noLayerAt(t, r, "vault.py", 32, "a count with no guard")
}

// A loop bounded by its function's parameter whose signature is written
// over lines, closed by `) -> dict:` at the def's indent, is bounded by
// what its callers in other files pass (skyvern's aiohttp_get_json, retry=3
// from the Bitwarden service, missed in round 8: the close of the
// signature was read as leaving the function).
func TestParamBoundThroughMultilineSignature(t *testing.T) {
	r := scanTree(t, map[string]string{
		"core/http.py": `import aiohttp


async def get_json(
    url: str,
    retry: int = 0,
) -> dict:
    async with aiohttp.ClientSession() as session:
        count = 0
        while count <= retry:
            try:
                async with session.get(url) as response:
                    return await response.json()
            except Exception:
                count += 1
        raise Exception(url)
`,
		"services/vault.py": `from core.http import get_json


async def status(base):
    return await get_json(base + "/status", retry=3)
`})
	if l := layerAt(t, r, "core/http.py", 10); l.Attempts != 4 {
		t.Errorf("core/http.py:10: %+v, want 4 attempts (retry=3 from the caller)", l)
	}
}

// BenchmarkHostileRound8: files built to make round 8's rules pay — a
// megabyte of browser retry loops and handlers that rebuild a failed
// result (each read back to its function), 10,000 nested loops around a
// model re-ask, a megabyte line of kwargs bumps, a 10,000-deep chain of
// handlers that call themselves counting down, a megabyte of re-asks once.
//
//	go test ./audit -run x -bench HostileRound8 -benchtime 3x
func BenchmarkHostileRound8(b *testing.B) {
	dir := b.TempDir()
	var browser, nested, bumps, chain strings.Builder
	browser.WriteString("async def run(page):\n")
	for browser.Len() < 1<<20 {
		browser.WriteString("    for attempt in range(3):\n        try:\n            await page.goto(u)\n        except Exception as e:\n            await asyncio.sleep(1)\n" +
			"    try:\n        return await self.build_result(success=True)\n    except Exception as e:\n        return await self.build_result(success=False, error=str(e))\n")
	}
	nested.WriteString("async def ask(self, m):\n    out = await self.get_model_output(m)\n")
	for i := range 10_000 {
		nested.WriteString(strings.Repeat(" ", 4+i%200) + "if not out:\n")
	}
	nested.WriteString(strings.Repeat(" ", 208) + "out = await self.get_model_output(m)\n")
	bumps.WriteString("def f(self, **kwargs):\n    n = kwargs.pop(\"n\", 0)\n    ")
	for bumps.Len() < 1<<20 {
		bumps.WriteString("kwargs[\"n\"] = n + 1; ")
	}
	bumps.WriteString("\n    if n >= 3:\n        raise E\n    return self.f(**kwargs)\n")
	for i := range 10_000 {
		ind := strings.Repeat(" ", 4*(i%50))
		chain.WriteString(ind + "def g(x, retries=3):\n" + ind + "    try:\n" + ind + "        return h(x)\n" + ind + "    except Exception:\n" +
			ind + "        if retries <= 0:\n" + ind + "            raise\n" + ind + "        return g(x, retries - 1)\n")
	}
	var pairs strings.Builder
	pairs.WriteString("async def ask(self, m):\n")
	for pairs.Len() < 1<<20 {
		pairs.WriteString("    out = await self.get_model_output(m)\n    if not out:\n        out = await self.get_model_output(m)\n")
	}
	benchScanFiles(b, dir, map[string]string{
		"browser.py": browser.String(), "nested.py": nested.String(), "bumps.py": bumps.String(), "chain.py": chain.String(),
		"pairs.py": pairs.String(),
	})
}

// A retry counted by hand inside a `while True:` is the loop's layer, at
// its head, once however many tests of the counter its block holds
// (skyvern's Drive upload, reported twice 6 and 49 lines below its head
// in round 8). The near miss, the same counter in a function's body with
// no loop, stays at its test.
func TestHandCounterInWhileTrueAtItsHead(t *testing.T) {
	r := scanOne(t, "upload.py", `import httpx


async def upload(send, total, max_attempts: int = 3):
    attempts = 0
    offset = 0
    while True:
        try:
            response = await send(offset)
        except httpx.TransportError:
            attempts += 1
            if attempts >= max_attempts:
                raise
            continue
        if response.status_code == 308:
            offset = response.next
            continue
        if response.status_code >= 500:
            attempts += 1
            if attempts >= max_attempts:
                raise RuntimeError("upload failed")
            continue
        return response


def regenerate(prompt, retries=0):
    answer = ask(prompt)
    if not answer:
        retries += 1
        if retries > 2:
            raise ValueError("no answer")
        return regenerate(prompt, retries)
    return answer
`)
	if l := layerAt(t, r, "upload.py", 7); l.Attempts != 3 {
		t.Errorf("upload.py:7: %+v, want the while True loop, 3 attempts", l)
	}
	noLayerAt(t, r, "upload.py", 12, "the first test inside the loop")
	noLayerAt(t, r, "upload.py", 20, "the second test inside the loop")
	if l := layerAt(t, r, "upload.py", 30); l.Attempts != 3 {
		t.Errorf("upload.py:30: %+v, want the counter's test, 3 attempts", l)
	}
}

// Red team, round 8's filters: a handler that asks the model again with
// the error in its arguments (error=str(e)) re-asks, it records nothing;
// a loop that reads a store and asks a model in one block retries the
// model call too. Both stay layers.
func TestRound8FiltersKeepReasksAndModelCalls(t *testing.T) {
	r := scanOne(t, "rag.py", `import asyncio


class Rag:
    async def answer(self, prompt):
        try:
            return await self.generate(prompt)
        except Exception as e:
            return await self.generate(prompt, error=str(e))

    async def lookup(self, q):
        for attempt in range(3):
            try:
                docs = self.db.query(q)
                return await self.llm_chain.arun(docs)
            except Exception:
                await asyncio.sleep(1)
`)
	layerAt(t, r, "rag.py", 8)
	if l := layerAt(t, r, "rag.py", 12); l.Attempts != 3 {
		t.Errorf("rag.py:12: %+v, want 3 attempts", l)
	}
}
