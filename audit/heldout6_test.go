package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Shapes of the sixth held-out check (issue 37), written for these tests
// (no third-party code): each with its near miss. Round 6 is development
// data now: these fix what it showed.

func findingsAt(r *Result, file string, line int, kind FindingKind) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.File == file && f.Line == line && f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func layerAt(t *testing.T, r *Result, file string, line int) Layer {
	t.Helper()
	for _, l := range r.Layers {
		if l.File == file && l.Line == line {
			return l
		}
	}
	t.Fatalf("no layer at %s:%d; layers %v", file, line, layersOf(r))
	return Layer{}
}

// A tenacity decorator whose retry= names rate-limit, timeout and
// try-again errors — one retry_if_exception_type per type, or'ed — or
// hands the choice to a predicate does not retry every error: no critical
// retries_4xx (SuperAGI's chat_completion in round 6). The near misses
// still retry every error: retry_if_exception_type() with no type, with
// Exception, and retry_if_not_exception_type.
func TestTenacityRetryPredicateLimitsErrors(t *testing.T) {
	r := scanOne(t, "llm/chat.py", `from tenacity import retry, retry_if_exception_type, retry_if_exception, retry_if_not_exception_type, stop_after_attempt, wait_random_exponential
from openai import RateLimitError, APITimeoutError

ATTEMPTS = 4


class TryAgain(Exception):
    pass


@retry(
    retry=(
        retry_if_exception_type(RateLimitError)
        | retry_if_exception_type(APITimeoutError)
        | retry_if_exception_type(TryAgain)
    ),
    stop=stop_after_attempt(ATTEMPTS),
    wait=wait_random_exponential(min=1, max=30),
)
def complete(client, messages):
    return client.chat.completions.create(model="m", messages=messages)


def _transient(exc):
    return getattr(exc, "status_code", 500) >= 500


@retry(stop=stop_after_attempt(3), retry=retry_if_exception(_transient))
def embed(client, text):
    return client.embeddings.create(model="e", input=text)


@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type())
def any_error(client, text):
    return client.embeddings.create(model="e", input=text)


@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type((ValueError, Exception)))
def also_any(client, text):
    return client.embeddings.create(model="e", input=text)


@retry(stop=stop_after_attempt(3), retry=retry_if_not_exception_type(KeyError))
def all_but_one(client, text):
    return client.embeddings.create(model="e", input=text)
`)
	for _, c := range []struct {
		line     int
		attempts int
		all      bool
	}{{11, 4, false}, {28, 3, false}, {33, 3, true}, {38, 3, true}, {43, 3, true}} {
		l := layerAt(t, r, "llm/chat.py", c.line)
		if l.DefaultID != "tenacity" || l.Attempts != c.attempts || l.Retries4xx != c.all {
			t.Errorf("line %d: %s %d attempts, retries every error %v; want tenacity %d, %v", c.line, l.DefaultID, l.Attempts, l.Retries4xx, c.attempts, c.all)
		}
		if got := len(findingsAt(r, "llm/chat.py", c.line, FindingRetries4xx)); (got > 0) != c.all {
			t.Errorf("line %d: %d retries_4xx findings, want any: %v", c.line, got, c.all)
		}
	}
}

// stop=stop_after_delay(N) is a deadline: the layer ends N seconds after it
// began, so it is bounded — never the critical "no attempt limit"
// (OpenHands' four readiness waits in round 6). With wait_fixed(2) and 120
// s it is about 61 attempts; without a wait it is at least 2, at low
// confidence. The near miss, a stop that is neither count nor deadline
// (stop=stop_if_should_exit()), is still not bounded by anything the
// audit can read.
func TestTenacityDeadlineIsBounded(t *testing.T) {
	r := scanOne(t, "runtime/remote.py", `import httpx
import tenacity
from tenacity import stop_if_should_exit


class Runtime:
    @tenacity.retry(
        stop=tenacity.stop_after_delay(120) | stop_if_should_exit(),
        retry=tenacity.retry_if_exception_type(httpx.NetworkError),
        reraise=True,
        wait=tenacity.wait_fixed(2),
    )
    def wait_until_alive(self):
        return httpx.get(self.url + "/alive")

    @tenacity.retry(stop=tenacity.stop_after_delay(self_timeout()))
    def ping(self):
        return httpx.get(self.url + "/ping")

    @tenacity.retry(stop=stop_if_should_exit())
    def forever(self):
        return httpx.get(self.url + "/alive")
`)
	for _, c := range []struct {
		line      int
		attempts  int
		unbounded bool
	}{{7, 61, false}, {16, 2, false}, {20, 0, true}} {
		l := layerAt(t, r, "runtime/remote.py", c.line)
		if l.Attempts != c.attempts || l.Unbounded != c.unbounded {
			t.Errorf("line %d: %d attempts, unbounded %v (%s); want %d, %v", c.line, l.Attempts, l.Unbounded, l.Note, c.attempts, c.unbounded)
		}
		if got := len(findingsAt(r, "runtime/remote.py", c.line, FindingUnbounded)); (got > 0) != c.unbounded {
			t.Errorf("line %d: %d unbounded findings, want any: %v", c.line, got, c.unbounded)
		}
	}
}

// A loop bounded by self.max_retries takes its bound from its own
// object's class or module, never from an unrelated class in another file
// that has a field of that name (private-gpt's Qdrant upsert loop in round
// 6 read a PandasAI service's max_retries = 3: a false critical). The near
// miss: a dotted name of another object (cfg.max_attempts) still resolves
// across files, as a settings module's field.
func TestOwnAttributeBoundStaysInItsScope(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tabular/service.py", `class TableService:
    max_retries: int = 3
`)
	write("settings.py", `class Settings:
    max_attempts: int = 4


cfg = Settings()
`)
	write("store/upsert.py", `import time

import anthropic


class Store:
    def upsert(self, fn):
        for attempt in range(self.max_retries):
            try:
                return fn()
            except anthropic.APIStatusError:
                time.sleep(2**attempt)
        raise RuntimeError("gave up")
`)
	write("store/fetch.py", `import time

import anthropic

from settings import cfg


def fetch(fn):
    for attempt in range(cfg.max_attempts):
        try:
            return fn()
        except anthropic.APIStatusError:
            time.sleep(2**attempt)
    raise RuntimeError("gave up")
`)
	r := scan(t, dir)
	for _, l := range r.Layers {
		if l.File == "store/upsert.py" && strings.Contains(l.Setting, "tabular/service.py") {
			t.Errorf("upsert loop bounded by another class's field: %+v", l)
		}
	}
	for _, f := range r.Findings {
		if f.File == "store/upsert.py" && f.Severity == SeverityCritical {
			t.Errorf("critical on a bound the audit cannot know: %+v", f)
		}
	}
	got := false
	for _, l := range r.Layers {
		if l.File == "store/fetch.py" && strings.Contains(l.Setting, "settings.py") {
			got = true
		}
	}
	if !got {
		t.Errorf("cfg.max_attempts not resolved across files: %v", layersOf(r))
	}
}

// A handler of a timeout that exits the process or moves a file back does
// not send the guarded call again: no watchdog, even when the try called
// the same function (private-gpt's `except TimeoutError: sys.exit(1)` after
// a try that exits on failure, cline's catch that renames a backup back in
// round 6). The near miss, a handler that asks the model again, is one.
func TestHandlersThatExitOrMoveFilesAreNoWatchdogs(t *testing.T) {
	r := scanOne(t, "cli/discover.py", `import asyncio
import sys

from openai import AsyncOpenAI

client = AsyncOpenAI(max_retries=0)


def main():
    try:
        result = asyncio.run(scan_models(REPOS, json_output=JSON_OUTPUT))
        if JSON_OUTPUT and result:
            print(json.dumps(result, indent=2))
            if result.get("status") == "error" or result.get("failed"):
                sys.exit(1)
    except SystemExit:
        raise
    except TimeoutError as e:
        logger.error(f"lock timeout: {e}")
        sys.exit(1)
    except Exception as e:
        logger.exception(f"unexpected: {e}")
        sys.exit(1)


async def ask(messages):
    try:
        return await asyncio.wait_for(client.chat.completions.create(model="m", messages=messages), 60)
    except asyncio.TimeoutError:
        return await client.chat.completions.create(model="m", messages=messages)
`)
	if got, want := layerList(r.Layers), "6 1,29 2"; got != want {
		t.Errorf("python layers %q, want %q", got, want)
	}
	r = scanOne(t, "src/install.ts", `import { existsSync, renameSync, rmSync } from "node:fs";

export function swap(staging: string, target: string, backup: string) {
	renameSync(target, backup);
	try {
		renameSync(staging, target);
	} catch (error) {
		if (error.code === "ETIMEDOUT" && !existsSync(target) && existsSync(backup)) {
			renameSync(backup, target);
		}
		throw error;
	}
	rmSync(backup, { recursive: true, force: true });
}
`)
	if len(r.Layers) != 0 {
		t.Errorf("ts layers %v, want none", layersOf(r))
	}
}

// A repository's own retry decorator over the retry_async package —
// `def retry(…, tries: int = -1, …)` in a utils module — is a layer at each
// use, bounded by the use's tries: a module constant, or the object's
// attribute set from a parameter whose default is a constant, in an
// `async with retry_context(tries=…)` (private-gpt's 18 uses in round 6:
// none found). Near misses: the wrapper's own body passing its tries on, a
// use in a file that talks only to a vector store (its upserts are the
// store's), a use with no tries (the wrapper's default is in another file).
// The retry package used directly with no tries retries forever.
func TestRepositoryTriesDecorator(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("app/utils/retry.py", `from contextlib import asynccontextmanager
from typing import Any

from retry_async import retry as retry_untyped
from retry_async.api import retry_call_async


def retry(exceptions: Any = Exception, *, is_async: bool = False, tries: int = -1, delay: float = 0):
    return retry_untyped(exceptions=exceptions, is_async=is_async, tries=tries, delay=delay)


@asynccontextmanager
async def retry_context(exceptions: Any = Exception, *, tries: int = -1, delay: float = 0):
    async def call(func, *args, **kwargs):
        return await retry_call_async(f=func, fargs=args, fkwargs=kwargs, exceptions=exceptions, tries=tries, delay=delay)

    yield call
`)
	write("app/llm/endpoint.py", `import aiohttp

from app.utils.retry import retry, retry_context

_MAX_RETRIES = 4
_DEFAULT_TRIES = 3


class Endpoint:
    def __init__(self, url: str, tries: int = _DEFAULT_TRIES):
        self.url = url
        self._tries = tries

    @retry(is_async=True, tries=_MAX_RETRIES, delay=1)
    async def complete(self, prompt):
        async with aiohttp.ClientSession() as s:
            return await s.post(self.url, json={"prompt": prompt})

    async def describe(self, image):
        async with retry_context(tries=self._tries) as again:
            return await again(self.complete, image)

    @retry(is_async=True)
    async def ping(self):
        async with aiohttp.ClientSession() as s:
            return await s.get(self.url)
`)
	write("app/store/vectors.py", `from qdrant_client import QdrantClient

from app.utils.retry import retry

_MAX_RETRIES = 5


class Vectors:
    @retry(tries=_MAX_RETRIES)
    def upsert(self, points):
        return self.client.upsert(collection_name="c", points=points)
`)
	write("app/jobs/fetch.py", `import requests
from retry import retry


@retry(delay=2)
def fetch(url):
    return requests.get(url, timeout=10)
`)
	r := scan(t, dir)
	sameLayers(t, r, []want{
		{"app/jobs/fetch.py:5", "py-retry", 0, false},
		{"app/llm/endpoint.py:14", "py-retry", 4, true},
		{"app/llm/endpoint.py:20", "py-retry", 3, true},
	})
}

// tenacity's retry(...) called as a function builds a decorator at run
// time: applied inline, `tenacity.retry(stop=stop_after_attempt(3))(fn)(…)`,
// or returned by a method, it is a layer bounded by its stop (OpenHands'
// LLM retry and remote runtime call in round 6: missed). The near miss,
// retry(fn) with no stop, is another name's call (a project's own helper),
// not tenacity's.
func TestTenacityBuiltAtRunTime(t *testing.T) {
	r := scanOne(t, "llm/mixin.py", `import httpx
import tenacity
from tenacity import retry, stop_after_attempt, wait_exponential


class RetryMixin:
    def retry_decorator(self, num_retries: int = 4):
        decorator = retry(
            stop=stop_after_attempt(num_retries),
            wait=wait_exponential(min=1, max=30),
        )
        return decorator


def send(url, body):
    return tenacity.retry(stop=tenacity.stop_after_attempt(3), reraise=True)(httpx.post)(url, json=body)


def again(fn):
    return retry(fn)
`)
	sameLayers(t, r, []want{
		{"llm/mixin.py:8", "tenacity", 4, true},
		{"llm/mixin.py:16", "tenacity", 3, true},
	})
}

// A Celery task whose app comes from the project's own module — no
// `import celery` in the file — and that sets autoretry_for without
// max_retries retries by Celery's default, 3 (4 attempts): private-gpt's
// two ingestion tasks in round 6, missed. Near misses: a task with bind=True
// alone (its self.retry may be anyone's), and a bare @task(...) of another
// scheduler.
func TestCeleryTaskOfAProjectApp(t *testing.T) {
	r := scanOne(t, "tasks/ingest.py", `from app.worker import celery_app
from app.errors import RETRYABLE
from flows import task


@celery_app.task(
    name="parse",
    autoretry_for=RETRYABLE,
)
def parse(body):
    return body


@celery_app.task(name="store", autoretry_for=RETRYABLE, max_retries=6)
def store(body):
    return body


@celery_app.task(bind=True)
def notify(self, body):
    try:
        return body
    except KeyError as e:
        raise self.retry(exc=e)


@task(autoretry_for=RETRYABLE)
def other(body):
    return body
`)
	sameLayers(t, r, []want{
		{"tasks/ingest.py:6", "celery", 4, false},
		{"tasks/ingest.py:14", "celery", 7, true},
	})
}

// LangChain's ChatMistralAI retries its own httpx call in tenacity,
// max_retries = 5 attempts; ChatGroq passes max_retries (2) to the Groq SDK:
// 3 attempts (quivr's two in round 6, no row). The near miss: a class of the
// same name from elsewhere is not LangChain's.
func TestChatMistralAIAndChatGroq(t *testing.T) {
	r := scanOne(t, "llm/endpoint.py", `from langchain_groq import ChatGroq
from langchain_mistralai import ChatMistralAI

from app.fakes import ChatMistralAI as FakeMistral


def build(kind, key):
    if kind == "mistral":
        return ChatMistralAI(model="mistral-large-latest", api_key=key)
    if kind == "mistral-fast":
        return ChatMistralAI(model="mistral-small", api_key=key, max_retries=2)
    if kind == "groq":
        return ChatGroq(model="llama-3.3-70b-versatile", api_key=key)
    return FakeMistral()
`)
	sameLayers(t, r, []want{
		{"llm/endpoint.py:9", "langchain-mistralai", 5, false},
		{"llm/endpoint.py:11", "langchain-mistralai", 2, true},
		{"llm/endpoint.py:13", "groq-python", 3, false},
	})
}

// An Azure OpenAI client for Go runs azcore's retry policy: MaxRetries 3
// when unset or 0, none when negative (kubectl-ai's two clients in round 6,
// no row). The near miss: a credential built by azidentity is no client.
func TestAzureOpenAIGoClients(t *testing.T) {
	r := scanOne(t, "llm/azure.go", `package llm

import (
	"github.com/Azure/azure-sdk-for-go/sdk/ai/azopenai"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

func clients(endpoint, key string) error {
	a, err := azopenai.NewClientWithKeyCredential(endpoint, azcore.NewKeyCredential(key), nil)
	if err != nil {
		return err
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return err
	}
	b, err := azopenai.NewClient(endpoint, cred, &azopenai.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		return err
	}
	c, err := azopenai.NewClient(endpoint, cred, &azopenai.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: 5}}})
	_, _, _ = a, b, c
	return err
}
`)
	sameLayers(t, r, []want{
		{"llm/azure.go:11", "azcore-go", 4, false},
		{"llm/azure.go:19", "azcore-go", 1, true},
		{"llm/azure.go:23", "azcore-go", 6, true},
	})
}

// LlamaIndex's OpenAIEmbedding builds the OpenAI client with its own
// max_retries, default 10: 11 attempts (private-gpt's four in round 6, no
// row), imported inside the function that builds it. The near miss:
// langchain_openai's OpenAIEmbeddings keeps the SDK's 2.
func TestLlamaIndexOpenAIEmbedding(t *testing.T) {
	r := scanOne(t, "embed/factory.py", `def build(kind, key, base):
    if kind == "openai":
        from llama_index.embeddings.openai import OpenAIEmbedding

        return OpenAIEmbedding(api_key=key, model="text-embedding-3-small")
    if kind == "like":
        from llama_index.embeddings.openai_like import OpenAILikeEmbedding

        return OpenAILikeEmbedding(api_base=base, api_key=key, max_retries=2, model_name="e5")
    from langchain_openai import OpenAIEmbeddings

    return OpenAIEmbeddings(api_key=key)
`)
	sameLayers(t, r, []want{
		{"embed/factory.py:5", "openai-python", 11, false},
		{"embed/factory.py:9", "openai-python", 3, true},
		{"embed/factory.py:12", "openai-python", 3, false},
	})
}

// aiobotocore's session.create_client(…) runs botocore's retries: legacy
// mode's 5 attempts unless a Config sets them (private-gpt's SageMaker and
// S3 async clients in round 6, missed). The near miss: create_client of
// another library (supabase) in a file without aiobotocore.
func TestAiobotocoreClients(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		"llm/sagemaker.py": `import json

from aiobotocore.session import get_session


async def invoke(endpoint, prompt):
    session = get_session()
    async with session.create_client("sagemaker-runtime") as client:
        return await client.invoke_endpoint(EndpointName=endpoint, Body=json.dumps(prompt))
`,
		"db/store.py": `from supabase import create_client


def store(url, key):
    return create_client(url, key)
`,
	} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sameLayers(t, scan(t, dir), []want{
		{"llm/sagemaker.py:8", "botocore", 5, false},
	})
}

// aws4fetch's AwsClient retries 5xx and 429 itself, 10 times unless
// retries is set: 11 attempts (cline's two storage clients in round 6, no
// row). The near miss: its AwsV4Signer signs and sends nothing.
func TestAws4fetchClient(t *testing.T) {
	r := scanOne(t, "src/storage.ts", `import { AwsClient, AwsV4Signer } from "aws4fetch"

export function clients(env: Record<string, string>) {
	const s3 = new AwsClient({ accessKeyId: env.KEY, secretAccessKey: env.SECRET, service: "s3" })
	const r2 = new AwsClient({ accessKeyId: env.KEY, secretAccessKey: env.SECRET, retries: 2 })
	const signer = new AwsV4Signer({ url: env.URL, accessKeyId: env.KEY, secretAccessKey: env.SECRET })
	return { s3, r2, signer }
}
`)
	sameLayers(t, r, []want{
		{"src/storage.ts:4", "aws4fetch", 11, false},
		{"src/storage.ts:5", "aws4fetch", 3, true},
	})
}

// Cohere's Python SDK retries every request 2 times (408, 409, 429, 5xx)
// unless its request_options say otherwise; LangChain's CohereRerank builds
// one (quivr's reranker in round 6, no row). The near miss: a Client of
// another package.
func TestCohereClients(t *testing.T) {
	r := scanOne(t, "rag/rerank.py", `import cohere
from langchain_cohere import CohereRerank
from qdrant_client import QdrantClient as Client


def rerankers(key):
    a = CohereRerank(model="rerank-v3.5", top_n=5, cohere_api_key=key)
    b = cohere.ClientV2(api_key=key)
    c = Client(url="http://localhost:6333")
    return a, b, c
`)
	sameLayers(t, r, []want{
		{"rag/rerank.py:7", "cohere-python", 3, false},
		{"rag/rerank.py:8", "cohere-python", 3, false},
	})
}

// A tries decorator that names its exceptions retries only those: no
// critical "every error"; one left at its default (Exception) or naming
// Exception among others retries every error.
func TestTriesDecoratorExceptions(t *testing.T) {
	r := scanOne(t, "search/brave.py", `import aiohttp
from retry import retry


class RateLimited(Exception):
    pass


@retry(exceptions=(RateLimited, aiohttp.ClientConnectionError), tries=3)
def search(q):
    return aiohttp.request("GET", "https://search.example/" + q)


@retry(RateLimited, tries=3)
def suggest(q):
    return aiohttp.request("GET", "https://search.example/s/" + q)


@retry(exceptions=(RateLimited, Exception), tries=3)
def images(q):
    return aiohttp.request("GET", "https://search.example/i/" + q)


@retry(tries=3)
def news(q):
    return aiohttp.request("GET", "https://search.example/n/" + q)
`)
	for line, all := range map[int]bool{9: false, 14: false, 19: true, 24: true} {
		l := layerAt(t, r, "search/brave.py", line)
		if l.Retries4xx != all || l.Attempts != 3 {
			t.Errorf("line %d: retries every error %v, %d attempts; want %v, 3", line, l.Retries4xx, l.Attempts, all)
		}
	}
}

// A hostile file: a thousand retry-named imports, each used, costs a
// bounded scan and gives the same layers every run; a deadline of a
// billion seconds at a millisecond's wait and a MaxRetries past int range
// are not counts the audit multiplies.
func TestRound6RulesOnHostileInput(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "from app.r%d import retry%d\n", i, i)
	}
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "@retry%d(tries=%d)\ndef f%d():\n    return requests.get('u')\n", i, i%7+1, i)
	}
	b.WriteString("import requests\nimport tenacity\n\n@tenacity.retry(stop=tenacity.stop_after_delay(1000000000), wait=tenacity.wait_fixed(0.001))\ndef g():\n    return requests.get('u')\n")
	first := layerList(scanOne(t, "hostile.py", b.String()).Layers)
	for i := 0; i < 3; i++ {
		if again := layerList(scanOne(t, "hostile.py", b.String()).Layers); again != first {
			t.Fatalf("layers differ between runs:\n%s\n%s", first, again)
		}
	}
	if n := strings.Count(first, ",") + 1; n > 17 {
		t.Errorf("%d layers from 1000 retry-named imports: the scan is not bounded", n)
	}
	r := scanOne(t, "az.go", `package llm

import "github.com/Azure/azure-sdk-for-go/sdk/ai/azopenai"

func c(e string) { _, _ = azopenai.NewClient(e, nil, &azopenai.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: 99999999999999999999}}}) }
`)
	for _, l := range r.Layers {
		if l.Attempts > 1_000_001 || l.Attempts < 0 {
			t.Errorf("%s:%d: %d attempts", l.File, l.Line, l.Attempts)
		}
	}
}
