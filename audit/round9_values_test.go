package audit

import (
	"strings"
	"testing"
)

// Round 9's misses (issue 37), values half: a loop's bound read through an
// attribute set in __init__ from a getter whose default is an environment
// variable's, a conditional falling back to one, a pydantic field's
// default factory. Fixtures of our own shape.

const attrEnvBoundPy = `import asyncio
import os

from openai import AsyncOpenAI


class Chat:
    def __init__(self, key, **kwargs):
        self.client = AsyncOpenAI(api_key=key)
        self.max_retries = kwargs.get("max_retries", int(os.environ.get("CHAT_MAX_RETRIES", 5)))

    async def _on_error(self, e, attempt):
        if attempt == self.max_retries:
            return str(e)
        await asyncio.sleep(2)
        return None

    async def ask(self, prompt):
        for attempt in range(self.max_retries + 1):
            try:
                return await self.client.chat.completions.create(model="m", messages=[prompt])
            except Exception as e:
                e = await self._on_error(e, attempt)
                if e:
                    return e
`

const condEnvBoundPy = `import os
import time

import httpx


class Fetcher:
    def __init__(self, retries: int | None = None):
        self.retries = retries

    def fetch(self, url):
        tries = (
            self.retries if self.retries is not None else int(os.getenv("FETCH_TRIES", "4"))
        )  # the environment's, else 4
        for attempt in range(tries):
            try:
                return httpx.get(url)
            except httpx.HTTPError:
                time.sleep(1)
`

const fieldEnvBoundPy = `import os
import time

import requests
from pydantic import BaseModel, Field


class Settings(BaseModel):
    upload_tries: int = Field(default_factory=lambda: int(os.environ.get("UPLOAD_TRIES", "7")))


settings = Settings()


def upload(url, body):
    for attempt in range(settings.upload_tries):
        try:
            return requests.put(url, data=body, timeout=10)
        except requests.RequestException:
            time.sleep(2)
`

func TestBoundThroughAttributeFromEnvironmentDefault(t *testing.T) {
	r := scanTree(t, map[string]string{"rag/chat.py": attrEnvBoundPy, "net/fetch.py": condEnvBoundPy, "store/upload.py": fieldEnvBoundPy})
	for _, c := range []struct {
		file      string
		line, n   int
		how, name string
	}{
		{"rag/chat.py", 19, 6, "default of the environment variable CHAT_MAX_RETRIES at rag/chat.py:10", "self.max_retries = 5"},
		{"net/fetch.py", 15, 4, "default of the environment variable FETCH_TRIES at net/fetch.py:12", "tries = 4"},
		{"store/upload.py", 16, 7, "default of the environment variable UPLOAD_TRIES", "upload_tries = 7"},
	} {
		l := layerAt(t, r, c.file, c.line)
		if l.Attempts != c.n || !strings.Contains(l.Setting, c.how) || !strings.Contains(l.Setting, c.name) {
			t.Errorf("%s:%d: %d attempts (%s), want %d shown as %q, %q", c.file, c.line, l.Attempts, l.Setting, c.n, c.name, c.how)
		}
	}
}

func TestPyDefaultOf(t *testing.T) {
	for _, c := range []struct {
		expr string
		n    int
		ok   bool
	}{
		{`kwargs.get("max_retries", int(os.environ.get("X", 5)))`, 5, true},
		{`p if p is not None else int(os.environ.get("X", "5"))`, 5, true},
		{`int(os.getenv("X", default="3"))`, 3, true},
		{`cfg.getint("retries", 4)`, 4, true},
		{`getattr(settings, "retries", 2)`, 2, true},
		{`Field(default=3, ge=0)`, 3, true},
		{`opts.retries or 3`, 3, true},
		{`3 if fast else 8`, 8, true},
		{`"5"`, 0, false},                                  // a string is no count
		{`os.environ.get("X")`, 0, false},                  // no default
		{`kwargs.get(key, 3)`, 0, false},                   // not a named setting
		{`int(os.environ.get("X", "5")) + foo(`, 0, false}, // cut off
		{strings.Repeat("(", 500) + "3" + strings.Repeat(")", 500), 0, false},
	} {
		n, _, ok := pyDefaultOf([]byte(c.expr), 0)
		if ok != c.ok || n != c.n {
			t.Errorf("pyDefaultOf(%q) = %d, %v; want %d, %v", c.expr, n, ok, c.n, c.ok)
		}
	}
}

const litellmDictPy = `import os

import litellm


class Router:
    def __init__(self, model, provider, **kwargs):
        self.model = model
        self.provider = provider
        self.max_retries = kwargs.get("max_retries", int(os.environ.get("LLM_MAX_RETRIES", 4)))

    def _args(self, history, **kwargs):
        completion_args = {"model": self.model, "messages": history, **kwargs}
        if self.provider == "local":
            completion_args["num_retries"] = 0
        else:
            completion_args.setdefault("num_retries", self.max_retries)
        return completion_args

    async def chat(self, history):
        completion_args = self._args(history)
        return await litellm.acompletion(**completion_args, drop_params=True)


def log_args(history):
    # settings["num_retries"] = 9 is only logged here
    settings = {"messages": history}
    settings["num_retries"] = 9
    print(settings)
`

func TestLitellmNumRetriesInSpreadDict(t *testing.T) {
	r := scanTree(t, map[string]string{"llm/router.py": litellmDictPy})
	l := layerAt(t, r, "llm/router.py", 17)
	if l.DefaultID != "litellm" || l.Attempts != 5 || !strings.Contains(l.Setting, "LLM_MAX_RETRIES") {
		t.Errorf("llm/router.py:17: %s %d attempts (%s), want litellm at 5 from LLM_MAX_RETRIES", l.DefaultID, l.Attempts, l.Setting)
	}
	noLayerAt(t, r, "llm/router.py", 15, "num_retries 0: no retries")
	noLayerAt(t, r, "llm/router.py", 28, "a dictionary no completion is called with")
}

const clientKwargsMethodPy = `import os

import httpx
from openai import AsyncOpenAI, OpenAI
from tenacity import retry, stop_after_attempt, wait_exponential


class Embedder:
    def __init__(self, api_key, max_retries: int | None = None, fetch_tries: int = 3):
        self.api_key = api_key
        self.max_retries = max_retries
        self.fetch_tries = fetch_tries
        self.client = None

    def _client_kwargs(self):
        max_retries = (
            self.max_retries if self.max_retries is not None else int(os.environ.get("EMBED_MAX_RETRIES", "4"))
        )
        return {"api_key": self.api_key, "max_retries": max_retries}

    def warm_up(self):
        self.client = OpenAI(
            timeout=30,
            **self._client_kwargs(),
        )

    def fetch(self, url):
        @retry(stop=stop_after_attempt(self.fetch_tries + 1), wait=wait_exponential(min=1, max=8))
        def get():
            return httpx.get(url).raise_for_status()

        return get()
`

func TestClientFromMethodDictAndStopPlusOne(t *testing.T) {
	r := scanTree(t, map[string]string{"emb/openai.py": clientKwargsMethodPy})
	l := layerAt(t, r, "emb/openai.py", 22)
	if l.Attempts != 5 || !strings.Contains(l.Setting, "_client_kwargs() returns") || !strings.Contains(l.Setting, "EMBED_MAX_RETRIES") {
		t.Errorf("openai.py:22: %d attempts (%s), want 5: max_retries 4 from the method's dict, the environment's default", l.Attempts, l.Setting)
	}
	l = layerAt(t, r, "emb/openai.py", 28)
	if l.Attempts != 4 || !strings.Contains(l.Setting, "+ 1") {
		t.Errorf("openai.py:28: %d attempts (%s), want 4: stop_after_attempt(fetch_tries + 1), fetch_tries 3", l.Attempts, l.Setting)
	}
}
