package audit

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Round 8's misses (issue 37), clients and queries, each a general rule
// with a fixture of our own shape and its near miss. Round 8 is
// development data from here on.

const ofetchTS = `import { ofetch } from "ofetch";

export async function plans(base: string) {
  return ofetch(base + "/plans");
}

export async function activate(base: string, key: string) {
  return ofetch(base + "/activate", {
    method: "POST",
    retry: 4,
    body: { key },
  });
}

export async function record(base: string, event: string) {
  await ofetch(base + "/events", { method: "POST", body: { event } });
}

export async function quota(base: string) {
  return ofetch<{ left: number }>(base + "/quota", { retry: false });
}

export async function search(url: string, options: Record<string, unknown>) {
  return ofetch(url, options);
}

export async function status(base: string) {
  return ofetch.raw(base + "/status", { headers: { accept: "{" }, method: "GET" });
}
`

// ofetch retries a GET once by default and a POST not at all; retry: N is
// N + 1 attempts whatever the method; retry: false is none (unjs/ofetch
// src/fetch.ts). Chatbox's thirteen calls had no row.
func TestOfetchRetryAndItsDefault(t *testing.T) {
	r := scanTree(t, map[string]string{"src/api.ts": ofetchTS})
	for _, c := range []struct {
		line, attempts int
		conf           Confidence
	}{{4, 2, ConfidenceMedium}, {8, 5, ConfidenceMedium}, {24, 2, ConfidenceLow}, {28, 2, ConfidenceMedium}} {
		l := layerAt(t, r, "src/api.ts", c.line)
		if l.DefaultID != "ofetch" || l.Attempts != c.attempts || l.Confidence != c.conf {
			t.Errorf("src/api.ts:%d: %s %d attempts (%s), want ofetch %d (%s)", c.line, l.DefaultID, l.Attempts, l.Confidence, c.attempts, c.conf)
		}
	}
	noLayerAt(t, r, "src/api.ts", 16, "a POST with no retry is sent once")
	noLayerAt(t, r, "src/api.ts", 20, "retry: false is no retry")
}

// The near miss: a function of the project's own named ofetch, and a fetch
// from another package, are no ofetch calls.
func TestOfetchNearMiss(t *testing.T) {
	r := scanTree(t, map[string]string{"src/own.ts": `import { ofetch } from "./http";
import { $fetch } from "undici-helpers";

export const a = () => ofetch("/x");
export const b = () => $fetch("/y");
`})
	for _, l := range r.Layers {
		if l.DefaultID == "ofetch" {
			t.Errorf("%s:%d reported as ofetch: not the unjs package", l.File, l.Line)
		}
	}
}

const pyClientsRound8 = `import openai
from openai import AsyncClient as Gateway
from httpx import AsyncClient as HttpClient
from anthropic import AnthropicFoundry
import anthropic
from cerebras.cloud.sdk import AsyncCerebras as CerebrasClient
from llama_api_client import LlamaAPIClient
from azure.storage.blob import BlobServiceClient
from azure.storage.blob import BlobProperties


def clients(params, url, cred):
    sync = openai.Client(**params)
    aio = Gateway(base_url=url)
    plain = HttpClient(timeout=5)
    foundry = AnthropicFoundry(resource="r", max_retries=1)
    fast = CerebrasClient()
    llama = LlamaAPIClient(api_key="k")
    blobs = BlobServiceClient(account_url=url, credential=cred)
    again = BlobServiceClient.from_connection_string(url, retry_total=1)
    props = BlobProperties()
    claude = anthropic.AsyncClient()
    return sync, aio, plain, foundry, fast, llama, blobs, again, props, claude
`

// openai.Client and AsyncClient (the SDK's aliases, under any local name),
// AnthropicFoundry, Cerebras, Llama API and Azure Storage clients: each
// its row (round 8: Langchain-Chatchat's eight, agno's eight). The near
// misses — httpx's AsyncClient under an alias, a storage model class —
// are no clients.
func TestPythonClientsWithNoRowRound8(t *testing.T) {
	r := scanTree(t, map[string]string{"app/clients.py": pyClientsRound8})
	for _, c := range []struct {
		line     int
		id       string
		attempts int
	}{{13, "openai-python", 3}, {14, "openai-python", 3}, {16, "anthropic-python", 2}, {17, "cerebras-python", 3}, {18, "llama-api-python", 3}, {19, "azure-storage-python", 4}, {20, "azure-storage-python", 2}, {22, "anthropic-python", 3}} {
		l := layerAt(t, r, "app/clients.py", c.line)
		if l.DefaultID != c.id || l.Attempts != c.attempts {
			t.Errorf("app/clients.py:%d: %s %d attempts, want %s %d", c.line, l.DefaultID, l.Attempts, c.id, c.attempts)
		}
	}
	noLayerAt(t, r, "app/clients.py", 15, "httpx's AsyncClient is no SDK client")
	noLayerAt(t, r, "app/clients.py", 21, "BlobProperties is no client")
}

const jsClientsRound8 = `import { CohereClient } from "cohere-ai";
import { experimental_generateImage as generateImage } from "ai";
import { generateImage as drawLocally } from "./canvas";

const cohere = new CohereClient({ token: process.env.COHERE_KEY });

export async function draw(model: any, prompt: string) {
  const a = await generateImage({ model, prompt });
  const b = await drawLocally({ prompt });
  return [a, b];
}
`

// cohere-ai's CohereClient (Fern: 2 retries) and the AI SDK's
// generateImage imported under an alias (round 8: chatbox's); the near
// miss, a project's own generateImage, is no layer.
func TestJSClientsWithNoRowRound8(t *testing.T) {
	r := scanTree(t, map[string]string{"src/models.ts": jsClientsRound8})
	if l := layerAt(t, r, "src/models.ts", 5); l.DefaultID != "cohere-ts" || l.Attempts != 3 {
		t.Errorf("src/models.ts:5: %s %d, want cohere-ts 3", l.DefaultID, l.Attempts)
	}
	if l := layerAt(t, r, "src/models.ts", 8); l.DefaultID != "vercel-ai" || l.Attempts != 3 {
		t.Errorf("src/models.ts:8: %s %d, want vercel-ai 3", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "src/models.ts", 9, "a local generateImage is no AI SDK call")
}

const fantasyGo = `package chat

import (
	"context"

	"charm.land/fantasy"
)

func ptr(n int) *int { return &n }

func Reply(ctx context.Context, agent fantasy.Agent, prompt string) error {
	_, err := agent.Stream(ctx, fantasy.AgentStreamCall{Prompt: prompt})
	return err
}

func Title(ctx context.Context, agent fantasy.Agent, prompt string) error {
	call := fantasy.AgentStreamCall{Prompt: prompt, MaxRetries: ptr(1)}
	_, err := agent.Stream(ctx, call)
	return err
}

func Once(ctx context.Context, agent fantasy.Agent, prompt string) error {
	_, err := agent.Generate(ctx, fantasy.AgentCall{Prompt: prompt})
	return err
}

type feed struct{}

func (feed) Stream(ctx context.Context, topic string) error { return nil }

func Follow(ctx context.Context, f feed) error { return f.Stream(ctx, "news") }
`

// charm.land/fantasy's agent retries each step 3 times and sets the SDKs
// under it to none: each Stream or Generate with a fantasy call literal,
// in place or bound to a name, is the layer (round 8: crush's three). The
// near miss, a Stream method of the project's own, is none.
func TestFantasyAgentCalls(t *testing.T) {
	r := scanTree(t, map[string]string{"chat/agent.go": fantasyGo})
	for _, c := range []struct{ line, attempts int }{{12, 4}, {18, 2}, {23, 4}} {
		l := layerAt(t, r, "chat/agent.go", c.line)
		if l.DefaultID != "fantasy" || l.Attempts != c.attempts {
			t.Errorf("chat/agent.go:%d: %s %d attempts, want fantasy %d", c.line, l.DefaultID, l.Attempts, c.attempts)
		}
	}
	noLayerAt(t, r, "chat/agent.go", 31, "a project's own Stream method")
}

const botoSessionHelperPy = `import aioboto3


class Cloud:
    def __init__(self, region):
        self.region = region
        self._sessions = {}

    def _get_session(self, kind=None) -> aioboto3.Session:
        return self._sessions.setdefault(kind, aioboto3.Session())

    def fresh(self) -> aioboto3.Session:
        return aioboto3.Session()

    def _http(self):
        return self._pool

    def queue_client(self):
        return self._get_session("sqs").client("sqs", region_name=self.region)

    def bucket(self):
        return self.fresh().resource("s3")

    def plain(self):
        return self._http().client("local")
`

// A boto3/aioboto3 client made from the session a helper returns — the
// helper named for a session or annotated to return one — is botocore's
// layer (round 8: skyvern's five). The near miss, .client on what another
// helper returns, is none.
func TestBotoClientFromHelperSession(t *testing.T) {
	r := scanTree(t, map[string]string{"cloud/aws.py": botoSessionHelperPy})
	for _, line := range []int{19, 22} {
		if l := layerAt(t, r, "cloud/aws.py", line); l.DefaultID != "botocore" || l.Attempts != 5 {
			t.Errorf("cloud/aws.py:%d: %s %d, want botocore 5", line, l.DefaultID, l.Attempts)
		}
	}
	noLayerAt(t, r, "cloud/aws.py", 25, "a client of a helper that returns no session")
}

const rqHooksTS = `import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import * as api from "@/api/models";
import { listModels } from "../api/index";
import { loadDrafts } from "./store";

export function useModels() {
  return useQuery({ queryKey: ["models"], queryFn: listModels });
}

export function useModel(id: string) {
  return useQuery({ queryKey: ["model", id], queryFn: () => api.getModel(id), retry: 5 });
}

export function usePages() {
  return useInfiniteQuery({
    queryKey: ["pages"],
    queryFn: ({ pageParam }) => fetch("/api/pages?cursor=" + pageParam),
    initialPageParam: "",
    getNextPageParam: (p: any) => p.next,
  });
}

export function useDrafts() {
  return useQuery({ queryKey: ["drafts"], queryFn: loadDrafts });
}

export function useRename() {
  return useMutation({ mutationFn: (id: string) => api.rename(id) });
}

export function useRenameHard() {
  return useMutation({ mutationFn: (id: string) => api.rename(id), retry: 2 });
}
`

var rqTree = map[string]string{
	"src/api/models.ts": `export async function getModel(id: string) {
  const r = await fetch("/api/models/" + id);
  return r.json();
}
export async function rename(id: string) {
  return fetch("/api/models/" + id, { method: "PATCH" });
}
`,
	"src/api/index.ts": `export async function listModels() {
  const r = await fetch("/api/models");
  return r.json();
}
`,
	"src/hooks/store.ts": `export function loadDrafts() {
  return JSON.parse(localStorage.getItem("drafts") || "[]");
}
`,
	"src/hooks/models.ts": rqHooksTS,
	"src/queryClient.ts": `import { QueryClient } from "@tanstack/react-query";

export const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1 } } });
`,
	"src/queryClient.test.ts": `import { QueryClient } from "@tanstack/react-query";

export const testClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
`,
}

// TanStack Query's retry is reported at each query whose function sends a
// request — itself or through a function imported from a file that does
// (an @/ alias, a relative path, the directory's index named) — with the
// query's own retry over the QueryClient's defaultOptions, and no longer
// once at the client (round 8: chatbox's seven). A query over local
// storage and a mutation with no retry are none; a test's QueryClient sets
// nothing.
func TestReactQueryAtEachQuery(t *testing.T) {
	r := scanTree(t, rqTree)
	for _, c := range []struct{ line, attempts int }{{7, 2}, {11, 6}, {15, 2}, {32, 3}} {
		l := layerAt(t, r, "src/hooks/models.ts", c.line)
		if l.DefaultID != "tanstack-query" || l.Attempts != c.attempts {
			t.Errorf("src/hooks/models.ts:%d: %s %d attempts (%s), want tanstack-query %d", c.line, l.DefaultID, l.Attempts, l.Setting, c.attempts)
		}
	}
	noLayerAt(t, r, "src/hooks/models.ts", 24, "a query over local storage sends no request")
	noLayerAt(t, r, "src/hooks/models.ts", 28, "a mutation retries nothing by default")
	noLayerAt(t, r, "src/queryClient.ts", 3, "the client's retry is reported at its queries")
	noLayerAt(t, r, "src/queryClient.test.ts", 3, "a test's client")
}

// With no query in the root that the audit can see, the QueryClient's own
// layer stays (its hooks may live in a package not scanned).
func TestQueryClientWithoutQueriesStays(t *testing.T) {
	r := scanTree(t, map[string]string{"src/queryClient.ts": rqTree["src/queryClient.ts"]})
	if l := layerAt(t, r, "src/queryClient.ts", 3); l.DefaultID != "tanstack-query" || l.Attempts != 2 {
		t.Errorf("src/queryClient.ts:3: %s %d, want tanstack-query 2", l.DefaultID, l.Attempts)
	}
}

const lcCompletionPy = `from langchain_openai.llms import OpenAI
from langchain_openai import ChatOpenAI


def completion(params):
    import zhipuai

    legacy = OpenAI(**params)
    chat = ChatOpenAI(max_retries=4)
    glm = zhipuai.ZhipuAI(api_key="k")
    return legacy, chat, glm
`

// langchain_openai's completion OpenAI (max_retries 2 into the OpenAI
// client) and zhipuai.ZhipuAI (3 retries), imported inside a function
// (round 8: Langchain-Chatchat's). The near miss: a class of that name
// from another package is no layer.
func TestCompletionLLMAndZhipuAI(t *testing.T) {
	r := scanTree(t, map[string]string{"server/llm.py": lcCompletionPy, "server/other.py": "from mylib.llms import OpenAI\n\nx = OpenAI()\n"})
	for _, c := range []struct {
		line     int
		id       string
		attempts int
	}{{8, "openai-python", 3}, {9, "openai-python", 5}, {10, "zhipuai-python", 4}} {
		if l := layerAt(t, r, "server/llm.py", c.line); l.DefaultID != c.id || l.Attempts != c.attempts {
			t.Errorf("server/llm.py:%d: %s %d, want %s %d", c.line, l.DefaultID, l.Attempts, c.id, c.attempts)
		}
	}
	noLayerAt(t, r, "server/other.py", 3, "another package's OpenAI")
}

// A negative bound is read by the library's own meaning, not as no bound
// (issue 37, the audit's leftovers): the Python SDK's range(max_retries +
// 1) and urllib3's Retry(total=-1) send the call once; HTTPAdapter(
// max_retries=-1) is such a Retry; a project loop `while attempt < -1`
// never runs. The near miss: OpenAI's Node SDK retries while
// retriesRemaining is truthy, so maxRetries: -1 never ends — unbounded.
func TestNegativeBoundsByTheLibrarysMeaning(t *testing.T) {
	r := scanTree(t, map[string]string{
		"neg.py": `import time
import requests
from requests.adapters import HTTPAdapter
from urllib3 import Retry
from openai import OpenAI

client = OpenAI(max_retries=-1)
s = requests.Session()
s.mount("https://", HTTPAdapter(max_retries=-1))
policy = Retry(total=-1)


def ask(prompt):
    attempt = 0
    while attempt < -1:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            attempt += 1
            time.sleep(1)
`,
		"neg.ts": `import OpenAI from "openai";
export const client = new OpenAI({ maxRetries: -1 });
`})
	for _, line := range []int{7, 10} {
		if l := layerAt(t, r, "neg.py", line); l.Unbounded || l.Attempts != 1 {
			t.Errorf("neg.py:%d: %d attempts (unbounded %v), want 1: a negative knob is no retry there", line, l.Attempts, l.Unbounded)
		}
	}
	noLayerAt(t, r, "neg.py", 9, "HTTPAdapter(max_retries=-1) retries nothing")
	noLayerAt(t, r, "neg.py", 15, "a loop while attempt < -1 never runs")
	if l := layerAt(t, r, "neg.ts", 2); !l.Unbounded {
		t.Errorf("neg.ts:2: %d attempts, want unbounded: openai-node's maxRetries -1 never reaches 0", l.Attempts)
	}
	for _, fd := range r.Findings {
		if fd.Severity == SeverityCritical && fd.File == "neg.py" {
			t.Errorf("a critical finding on neg.py:%d (%s): a negative knob there is no retry", fd.Line, fd.Kind)
		}
	}
}

const reboundPy = `import time

from openai import OpenAI

RETRIES = 2
first = OpenAI(max_retries=RETRIES)
RETRIES = 9
second = OpenAI(max_retries=RETRIES)

MAX_TRIES = 8
MAX_TRIES = 3


def ask(prompt):
    for attempt in range(MAX_TRIES):
        try:
            return first.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(2 ** attempt)
`

// A plain value bound twice at module level is read at the binding the
// site sees — the last before a module-level statement, the last in the
// module for a function, which runs after the module loads — not the
// larger (issue 37's leftovers).
func TestValueBoundTwiceTakesTheBindingInForce(t *testing.T) {
	r := scanTree(t, map[string]string{"bot.py": reboundPy})
	for _, c := range []struct{ line, attempts int }{{6, 3}, {8, 10}, {15, 3}} {
		if l := layerAt(t, r, "bot.py", c.line); l.Attempts != c.attempts {
			t.Errorf("bot.py:%d: %d attempts (%s), want %d: the binding in force there", c.line, l.Attempts, l.Setting, c.attempts)
		}
	}
}

const retryHelperTS = "export async function withRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch (e) { if (i === attempts - 1) throw e; }\n  }\n  throw new Error('x');\n}\n"

const retryHelperPy = `import time


def with_retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2 ** attempt)
`

// A helper's callers written with the module's name — mod.withRetry(fn,
// 11) after import * as mod, pkg.with_retry(fn, 11) after from helpers
// import retry as pkg — and an import that names the directory's index
// file itself ('../utils/index', '../utils/index.ts') are call sites of
// the helper's parameter (issue 37's leftovers, R6-14). The near miss: a
// same-named helper of another module, called with more, is not.
func TestQualifiedAndIndexCallersOfAHelper(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		at    string
		want  int
	}{
		"js namespace": {map[string]string{
			"utils/retry.ts": retryHelperTS,
			"app/use.ts":     "import OpenAI from 'openai';\nimport * as mod from '../utils/retry';\nconst client = new OpenAI({ maxRetries: 0 });\nexport const r = () => mod.withRetry(() => client.chat.completions.create({}), 11);\n",
			"app/other.ts":   "import * as other from '../lib/retry';\nexport const r = () => other.withRetry(() => 1, 40);\n",
		}, "utils/retry.ts", 11},
		"js index named": {map[string]string{
			"utils/index.ts": "export * from './retry';\n",
			"utils/retry.ts": retryHelperTS,
			"app/use.ts":     "import OpenAI from 'openai';\nimport { withRetry } from '../utils/index';\nconst client = new OpenAI({ maxRetries: 0 });\nexport const r = () => withRetry(() => client.chat.completions.create({}), 7);\n",
			"app/use2.ts":    "import OpenAI from 'openai';\nimport { withRetry } from '../utils/index.ts';\nconst client = new OpenAI({ maxRetries: 0 });\nexport const r = () => withRetry(() => client.chat.completions.create({}), 8);\n",
		}, "utils/retry.ts", 8},
		"python module alias": {map[string]string{
			"helpers/__init__.py": "",
			"helpers/retry.py":    retryHelperPy,
			"app/use.py":          "from openai import OpenAI\nfrom helpers import retry as pkg\n\nclient = OpenAI(max_retries=0)\n\n\ndef ask(m):\n    return pkg.with_retry(lambda: client.chat.completions.create(model=\"m\", messages=m), 11)\n",
			"app/other.py":        "import otherlib.retry as pkg\n\n\ndef go():\n    return pkg.with_retry(lambda: 1, 40)\n",
		}, "helpers/retry.py", 11},
	} {
		r := scanTree(t, c.files)
		line := 2
		if c.at == "helpers/retry.py" {
			line = 5
		}
		if l := layerAt(t, r, c.at, line); l.Attempts != c.want {
			t.Errorf("%s: %s:%d: %d attempts (%s), want %d from its callers", name, c.at, line, l.Attempts, l.Setting, c.want)
		}
	}
}

// directHTTP finds a request written in code, and not a longer name or a
// method of the project's own.
func TestDirectHTTP(t *testing.T) {
	for src, want := range map[string]bool{
		`() => fetch("/a")`: true, `() => ofetch("/a")`: true, `() => $fetch("/a")`: true,
		`() => axios.get("/a")`: true, `() => ky<Item>("/a")`: true, `() => got("/a")`: true,
		`() => prefetch("/a")`: false, `() => this.fetch("/a")`: false, `() => refetch()`: false,
		`() => axiosConfig("/a")`: false, `() => store.got("/a")`: false, `() => xofetch("/a")`: false,
	} {
		if got := directHTTP([]byte(src)); got != want {
			t.Errorf("directHTTP(%s) = %v, want %v", src, got, want)
		}
	}
}

// A query whose function calls a module that sends its requests through an
// HTTP client instance another file builds (export const http =
// axios.create(…); http.get(…)) calls an API; one that reads a store's
// get is none. With no query followed to a request, the QueryClient's own
// layer stays.
func TestReactQueryThroughAnHTTPInstance(t *testing.T) {
	r := scanTree(t, map[string]string{
		"src/api/http.ts":  "import axios from 'axios';\nexport const http = axios.create({ baseURL: '/api' });\n",
		"src/api/users.ts": "import { http } from './http';\nexport const getUsers = () => http.get('/users').then((r) => r.data);\n",
		"src/lib/store.ts": "import { cache } from './cache';\nexport const getDraft = () => cache.get('draft');\n",
		"src/lib/cache.ts": "export const cache = new Map<string, string>();\n",
		"src/hooks.ts": `import { useQuery } from "@tanstack/react-query";
import { getUsers } from "#/api/users";
import { getDraft } from "../src/lib/store";

export const useUsers = () => useQuery({ queryKey: ["users"], queryFn: getUsers });
export const useDraft = () => useQuery({ queryKey: ["draft"], queryFn: getDraft });
`,
		"src/client.ts": "import { QueryClient } from '@tanstack/react-query';\nexport const qc = new QueryClient();\n",
	})
	if l := layerAt(t, r, "src/hooks.ts", 5); l.DefaultID != "tanstack-query" || l.Attempts != 4 {
		t.Errorf("src/hooks.ts:5: %s %d, want tanstack-query 4", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "src/hooks.ts", 6, "a store's get is no request")
	noLayerAt(t, r, "src/client.ts", 2, "reported at its query instead")

	r = scanTree(t, map[string]string{
		"src/lib/store.ts": "export const getDraft = () => localStorage.getItem('draft');\n",
		"src/hooks.ts":     "import { useQuery } from '@tanstack/react-query';\nimport { getDraft } from './lib/store';\nexport const useDraft = () => useQuery({ queryKey: ['d'], queryFn: getDraft });\n",
		"src/client.ts":    "import { QueryClient } from '@tanstack/react-query';\nexport const qc = new QueryClient();\n",
	})
	if l := layerAt(t, r, "src/client.ts", 2); l.DefaultID != "tanstack-query" {
		t.Errorf("src/client.ts:2: %s, want the client's layer kept", l.DefaultID)
	}
}

// FuzzClientsAndQueries: round 8's client and query readers on any bytes,
// seeded with each shape cut short — none may panic or hang.
func FuzzClientsAndQueries(f *testing.F) {
	for _, s := range []string{ofetchTS, rqHooksTS, fantasyGo, botoSessionHelperPy, pyClientsRound8, jsClientsRound8,
		"import { ofetch } from 'ofetch';\nofetch(u, { retry: -", "import { ofetch } from 'ofetch';\nofetch(u, { method: '",
		"import { useQuery } from '@tanstack/react-query';\nuseQuery({ queryFn: () => api.", "new QueryClient({ defaultOptions: { queries: { retry:",
		"import { http } from './http';\nhttp.get<", "export const http = axios.create(", "x = self._get_session(k)).client(",
		"package p\nimport \"charm.land/fantasy\"\nfunc f() { a.Stream(ctx, &fantasy.AgentCall{MaxRetries: "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		scanJS("f.ts", b, nil)
		scanPython("f.py", b)
		scanGo("f.go", b)
		jf := newFile(fkJS, "src/f.ts", b, nil)
		jsFileInfoOf(jf, nil)
		queryClientDefaultsOf(b)
		directHTTP(b)
		importedCalls(jf, jf.jsImports(), b)
		jsImportResolves("src/f.ts", string(b), "src/api/x.ts")
		pyBotoSessionCalls(b)
	})
}

// Query hooks not yet followed to a request are candidates: a tree of
// thousands of queries over local storage cannot push a real layer out
// under --max-layers before resolveQueries drops them (R6-1's rule).
func TestLocalQueriesDoNotPushLayersOut(t *testing.T) {
	var b strings.Builder
	b.WriteString("import { useQuery } from '@tanstack/react-query';\nimport { load } from './store';\n")
	for i := range 50 {
		fmt.Fprintf(&b, "export const q%d = () => useQuery({ queryKey: ['k%d'], queryFn: load });\n", i, i)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a/hooks.ts": b.String(),
		"a/store.ts": "export const load = () => localStorage.getItem('k');\n",
		"z/llm.py":   "from openai import OpenAI\n\nclient = OpenAI()\n",
	} {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), []byte(body))
	}
	opt := DefaultOptions()
	opt.MaxLayers = 10
	r, err := Scan([]string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	layerAt(t, r, "z/llm.py", 3)
	for _, l := range r.Layers {
		if l.File == "a/hooks.ts" {
			t.Errorf("a/hooks.ts:%d: a query over local storage reported", l.Line)
		}
	}
}

// A name bound to a fantasy call literal in one function is another
// variable in the next: its Stream is not fantasy's.
func TestFantasyBindingIsTheFunctionsOwn(t *testing.T) {
	r := scanTree(t, map[string]string{"chat/two.go": `package chat

import (
	"context"

	"charm.land/fantasy"
)

type pipe struct{}

func (pipe) Stream(ctx context.Context, call string) error { return nil }

func A(ctx context.Context, a fantasy.Agent) {
	call := fantasy.AgentStreamCall{Prompt: "p"}
	_, _ = a.Stream(ctx, call)
}

func B(ctx context.Context, p pipe, call string) error {
	return p.Stream(ctx, call)
}
`})
	if l := layerAt(t, r, "chat/two.go", 15); l.DefaultID != "fantasy" {
		t.Errorf("chat/two.go:15: %s, want fantasy", l.DefaultID)
	}
	noLayerAt(t, r, "chat/two.go", 19, "another function's variable of the same name")
}

// An ofetch.create instance's calls take its options' retry unless they
// set their own, whatever their method; an instance with no retry keeps
// the method's default.
func TestOfetchInstance(t *testing.T) {
	r := scanTree(t, map[string]string{"src/http.ts": `import { ofetch } from "ofetch";

const api = ofetch.create({ baseURL: "/api", retry: 4 });
const plain = ofetch.create({ baseURL: "/api" });

export const a = () => api("/a", { method: "POST" });
export const b = () => api("/b", { retry: 1 });
export const c = () => plain("/c", { method: "POST" });
export const d = () => plain("/d");
`})
	for _, c := range []struct{ line, attempts int }{{6, 5}, {7, 2}, {9, 2}} {
		if l := layerAt(t, r, "src/http.ts", c.line); l.DefaultID != "ofetch" || l.Attempts != c.attempts {
			t.Errorf("src/http.ts:%d: %s %d (%s), want ofetch %d", c.line, l.DefaultID, l.Attempts, l.Setting, c.attempts)
		}
	}
	noLayerAt(t, r, "src/http.ts", 8, "a POST on an instance with no retry")
}

// A query's retry written as a function decides which errors it retries:
// the default count at low confidence, no 400 said to be retried; retry:
// -1 is no retry (failureCount < -1 is never true), not unbounded.
func TestReactQueryRetryFunctionAndNegative(t *testing.T) {
	r := scanTree(t, map[string]string{
		"src/api.ts": "export const get = () => fetch('/api/x');\n",
		"src/hooks.ts": `import { useQuery } from "@tanstack/react-query";
import { get } from "./api";

export const a = () => useQuery({ queryKey: ["a"], queryFn: get, retry: (n: number, e: any) => n < 2 && e.status >= 500 });
export const b = () => useQuery({ queryKey: ["b"], queryFn: get, retry: -1 });
`})
	l := layerAt(t, r, "src/hooks.ts", 4)
	if l.Retries4xx || l.Confidence != ConfidenceLow {
		t.Errorf("src/hooks.ts:4: retries4xx %v, confidence %s: a retry function is the project's", l.Retries4xx, l.Confidence)
	}
	noLayerAt(t, r, "src/hooks.ts", 5, "retry: -1 retries nothing")
}
