package audit

import "testing"

// Round 7's false criticals and false layers (issue 37), each a general
// rule with a fixture of our own shape and its near miss. Round 7 is
// development data from here on.

const localWorkPy = `import time

from openai import OpenAI

client = OpenAI()


class Notes:
    def load(self):
        max_retries = 5
        for attempt in range(max_retries):
            try:
                text = self.path.read_text(encoding="utf-8").strip()
                self.items = text.split("\n") if text else []
                return
            except (IOError, OSError):
                time.sleep(0.1 * (attempt + 1))

    def ask(self, prompt):
        max_retries = 5
        for attempt in range(max_retries):
            try:
                return client.chat.completions.create(model="m", messages=[prompt])
            except (IOError, OSError):
                time.sleep(0.1 * (attempt + 1))
`

const localWorkTS = `import lockfile from "proper-lockfile";

export function lock(path: string): () => void {
  const maxAttempts = 10;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return lockfile.lockSync(path, { realpath: false });
    } catch (error) {
      if (attempt === maxAttempts) throw error;
    }
  }
  throw new Error("no lock");
}

export async function send(url: string, body: string): Promise<Response> {
  const maxAttempts = 4;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return await fetch(url, { method: "POST", body });
    } catch (error) {
      if (attempt === maxAttempts) throw error;
    }
  }
  throw new Error("unreachable");
}
`

// A loop whose try does only local work (a file read, a lock) sends no
// request again: no layer (camel's registry and pi-mono's lock file, false
// criticals in round 7). The near misses, the same loops around a model
// call or a fetch, stay layers.
func TestLoopsOfLocalWorkAreNoLayers(t *testing.T) {
	r := scanTree(t, map[string]string{"notes.py": localWorkPy, "lock.ts": localWorkTS})
	noLayerAt(t, r, "notes.py", 11, "a file read retried")
	noLayerAt(t, r, "lock.ts", 5, "a lock file retried")
	if l := layerAt(t, r, "notes.py", 21); l.Attempts != 5 {
		t.Errorf("notes.py:21: %d attempts, want the model call's loop, 5", l.Attempts)
	}
	if l := layerAt(t, r, "lock.ts", 17); l.Attempts != 4 {
		t.Errorf("lock.ts:17: %d attempts, want the fetch loop, 4", l.Attempts)
	}
}

// tenacity stopped by a function of the project's own that returns
// stop_after_attempt(3 if … else 0) is bounded by 3, not unbounded
// (MetaGPT's JSON repair, a false critical in round 7); a stop that only
// fires at shutdown stays unbounded (TestTenacityDeadlineIsBounded).
func TestTenacityStopOfOwnFunction(t *testing.T) {
	r := scanOne(t, "repair.py", `from tenacity import retry, stop_after_attempt, wait_fixed

REPAIR = True


def repair_stop(retry_state):
    return stop_after_attempt(3 if REPAIR else 0)(retry_state)


@retry(stop=repair_stop, wait=wait_fixed(1))
def parse(text):
    return fix(text)
`)
	l := layerAt(t, r, "repair.py", 10)
	if l.Unbounded || l.Attempts != 3 || len(findingsAt(r, "repair.py", 10, FindingUnbounded)) > 0 {
		t.Errorf("%+v: want 3 attempts, bounded, no critical", l)
	}
}

// A loop that goes on only for an error that is no client's — a context
// window exceeded, compacted before the next try, tested with isinstance
// under an except Exception that raises otherwise — does not send a 400
// again (letta's summarize-and-retry, a false critical in round 7). The
// near miss, an except Exception that goes on for everything, does.
func TestLoopGoingOnOnlyForSpecificErrors(t *testing.T) {
	r := scanOne(t, "agent.py", `from openai import OpenAI

client = OpenAI()


class ContextWindowExceededError(Exception):
    pass


def step(messages, max_retries=3):
    for llm_request_attempt in range(max_retries + 1):
        try:
            return client.chat.completions.create(model="m", messages=messages)
        except Exception as e:
            if isinstance(e, ContextWindowExceededError) and llm_request_attempt < max_retries:
                messages = compact(messages)
            else:
                raise e


def anything(messages, max_retries=3):
    for llm_request_attempt in range(max_retries + 1):
        try:
            return client.chat.completions.create(model="m", messages=messages)
        except Exception as e:
            log(e)
`)
	if l := layerAt(t, r, "agent.py", 11); l.Retries4xx || l.Attempts != 4 {
		t.Errorf("agent.py:11: %+v, want 4 attempts that do not retry a 400", l)
	}
	if l := layerAt(t, r, "agent.py", 22); !l.Retries4xx {
		t.Errorf("agent.py:22: %+v, want a retry of every error, a 400 included", l)
	}
}

// A loop over rounds around an inner retry loop is not the retry: the
// inner loop is (MetaGPT's optimizer rounds, a false layer in round 7).
func TestOuterLoopOfAnInnerRetryIsNoLayer(t *testing.T) {
	r := scanOne(t, "opt.py", `import time


class Optimizer:
    def __init__(self, max_rounds=20):
        self.max_rounds = max_rounds

    def run(self):
        for opt_round in range(self.max_rounds):
            retry_count = 0
            max_retries = 3
            while retry_count < max_retries:
                try:
                    score = self.llm.ask(self.prompt)
                    break
                except Exception:
                    retry_count += 1
                    time.sleep(5 * retry_count)
`)
	noLayerAt(t, r, "opt.py", 9, "the rounds around the retry")
	if l := layerAt(t, r, "opt.py", 12); l.Attempts != 3 {
		t.Errorf("opt.py:12: %+v, want the inner loop, 3", l)
	}
}

// A file that talks to a database and to no API client retries the
// database (letta's deadlock retries, false layers in round 7); the near
// miss, the same loop in a file that also imports an LLM client, stays.
func TestLoopsOfADatabaseFileAreNoLayers(t *testing.T) {
	loop := `

_DEADLOCK_MAX_RETRIES = 3


async def save(session, row):
    for attempt in range(_DEADLOCK_MAX_RETRIES):
        try:
            session.add(row)
            await session.commit()
            return row
        except Exception:
            await asyncio.sleep(0.1 * (attempt + 1))
`
	r := scanTree(t, map[string]string{
		"orm/base.py":  "import asyncio\n\nfrom sqlalchemy import select\nfrom asyncpg.exceptions import DeadlockDetectedError" + loop,
		"llm/store.py": "import asyncio\n\nfrom sqlalchemy import select\nimport openai" + loop,
	})
	noLayerAt(t, r, "orm/base.py", 10, "a database's retry")
	if l := layerAt(t, r, "llm/store.py", 10); l.Attempts != 3 {
		t.Errorf("llm/store.py:10: %+v, want 3", l)
	}
}

// AWS SDK for JavaScript v3 service clients retry 3 times unless
// maxAttempts says otherwise (Flowise's Bedrock and S3 clients, pi-mono's
// Bedrock: no row in round 7). The near miss, a Command of the same
// package, is no client.
func TestAWSSDKJSv3Clients(t *testing.T) {
	r := scanOne(t, "aws.ts", `import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import { S3Client } from "@aws-sdk/client-s3";

export const bedrock = new BedrockRuntimeClient({ region: "us-east-1" });
export const s3 = new S3Client({ region: "us-east-1", maxAttempts: 5 });
export const cmd = new InvokeModelCommand({ modelId: "m", body: "{}" });
`)
	for _, c := range []struct{ line, n int }{{4, 3}, {5, 5}} {
		if l := layerAt(t, r, "aws.ts", c.line); l.DefaultID != "aws-sdk-js-v3" || l.Attempts != c.n {
			t.Errorf("aws.ts:%d: %s %d, want aws-sdk-js-v3 %d", c.line, l.DefaultID, l.Attempts, c.n)
		}
	}
	noLayerAt(t, r, "aws.ts", 6, "a command is no client")
}

// LangChain.js text LLMs extend the same base as its chat models: a class
// of an …/llms/… module, or the class a provider package is named for
// (round 7: Flowise's Bedrock, Cohere, Ollama … missed). The near misses:
// a fake embeddings class (a test double), a vector store class.
func TestLangChainJSTextLLMs(t *testing.T) {
	r := scanOne(t, "llms.ts", `import { Bedrock } from "@langchain/community/llms/bedrock";
import { Cohere } from "@langchain/cohere";
import { Ollama } from "@langchain/ollama";
import { FakeEmbeddings } from "@langchain/classic/embeddings/fake";
import { ZepCloudVectorStore } from "@langchain/community/vectorstores/zep_cloud";

export const a = new Bedrock({ model: "m" });
export const b = new Cohere({ maxRetries: 2 });
export const c = new Ollama({ model: "m" });
export const d = new FakeEmbeddings();
export const e = new ZepCloudVectorStore(d, {});
`)
	for _, c := range []struct{ line, n int }{{7, 7}, {8, 3}, {9, 7}} {
		if l := layerAt(t, r, "llms.ts", c.line); l.DefaultID != "langchainjs-asynccaller" || l.Attempts != c.n {
			t.Errorf("llms.ts:%d: %s %d, want the AsyncCaller %d", c.line, l.DefaultID, l.Attempts, c.n)
		}
	}
	noLayerAt(t, r, "llms.ts", 10, "a fake is no model")
	noLayerAt(t, r, "llms.ts", 11, "a vector store is no model")
}

// aioboto3's session.client(…) is botocore's client (legacy mode, 5
// attempts), and Langfuse's drop-in OpenAI is the OpenAI SDK's (round 7:
// MetaGPT's S3 clients and camel's traced clients, missed). The near
// miss: aiofiles' open is no client.
func TestAioboto3AndLangfuseOpenAI(t *testing.T) {
	r := scanTree(t, map[string]string{
		"s3.py": `import aioboto3
import aiofiles


class S3:
    def __init__(self):
        self.session = aioboto3.Session()

    async def upload(self, path, bucket, key):
        async with self.session.client("s3") as client:
            async with aiofiles.open(path, mode="rb") as reader:
                await client.put_object(Body=await reader.read(), Bucket=bucket, Key=key)
`,
		"model.py": `from langfuse.openai import OpenAI as LangfuseOpenAI

client = LangfuseOpenAI(max_retries=2)
`,
	})
	if l := layerAt(t, r, "s3.py", 10); l.DefaultID != "botocore" || l.Attempts != 5 {
		t.Errorf("s3.py:10: %s %d, want botocore 5", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "s3.py", 11, "aiofiles is no client")
	if l := layerAt(t, r, "model.py", 3); l.DefaultID != "openai-python" || l.Attempts != 3 {
		t.Errorf("model.py:3: %s %d, want openai-python 3", l.DefaultID, l.Attempts)
	}
}

// LlamaIndex.TS's OpenAI and OpenAIEmbedding default maxRetries to 10
// (round 7: Flowise's five, no row); the near miss, a class whose default
// was not read (Groq), is left out.
func TestLlamaIndexTSClients(t *testing.T) {
	r := scanOne(t, "li.ts", `import { OpenAI, OpenAIEmbedding, Groq } from "llamaindex";

export const llm = new OpenAI({ model: "gpt-4o" });
export const emb = new OpenAIEmbedding({ maxRetries: 2 });
export const groq = new Groq({ model: "m" });
`)
	for _, c := range []struct{ line, n int }{{3, 11}, {4, 3}} {
		if l := layerAt(t, r, "li.ts", c.line); l.DefaultID != "llamaindex-ts" || l.Attempts != c.n {
			t.Errorf("li.ts:%d: %s %d, want llamaindex-ts %d", c.line, l.DefaultID, l.Attempts, c.n)
		}
	}
	noLayerAt(t, r, "li.ts", 5, "a default not read")
}

// A counted loop whose timeout handler raises is no watchdog's loop: its
// other handlers retry (letta's ChatGPT request loop, missed in round 7).
// The near miss, a timeout handler that goes on, stays the watchdogs'.
func TestLoopWhoseTimeoutHandlerRaises(t *testing.T) {
	r := scanOne(t, "chat.py", `import asyncio

import httpx


class Client(BaseClient):
    MAX_RETRIES = 3

    async def request(self, data):
        for attempt in range(self.MAX_RETRIES):
            try:
                async with httpx.AsyncClient() as client:
                    response = await client.post("https://example.invalid/v1", json=data)
                    response.raise_for_status()
                    return response.json()
            except httpx.TimeoutException:
                raise RuntimeError("timed out")
            except httpx.ConnectError:
                if attempt < self.MAX_RETRIES - 1:
                    await asyncio.sleep(2 ** attempt)
                    continue
                raise
`)
	if l := layerAt(t, r, "chat.py", 10); l.Attempts != 3 {
		t.Errorf("chat.py:10: %+v, want 3", l)
	}
}

// A while loop whose count is joined by `and` to another test counts
// its tries as a plain one does (camel's generators and MetaGPT's agent
// re-runs, missed in round 7); a loop that goes on only for errors that
// are no client's does not retry a 400. The near misses: an `or` (the
// count bounds nothing), a count of items, not tries.
func TestWhileCountJoinedByAnd(t *testing.T) {
	r := scanOne(t, "gen.py", `from openai import OpenAI

client = OpenAI()


def generate(n, max_retries=10):
    valid = []
    retries = 0
    while len(valid) < n and retries < max_retries:
        try:
            valid.append(parse(client.chat.completions.create(model="m", messages=[])))
        except (TypeError, KeyError):
            retries += 1


def rerun(agent, max_retries=3):
    num_runs = 0
    run_finished = False
    while num_runs <= max_retries and not run_finished:
        try:
            agent.run()
            run_finished = True
        except Exception:
            num_runs += 1


def either(n, max_retries=3):
    retries = 0
    while retries < max_retries or n:
        try:
            n = client.chat.completions.create(model="m", messages=[])
        except Exception:
            retries += 1


def pages(items, limit=5):
    count = 0
    while items and count < limit:
        try:
            items = fetch(items)
        except Exception:
            count += 1
`)
	for _, c := range []struct {
		line, n int
		r4xx    bool
	}{{9, 10, false}, {19, 4, true}} {
		if l := layerAt(t, r, "gen.py", c.line); l.Attempts != c.n || l.Retries4xx != c.r4xx {
			t.Errorf("gen.py:%d: %d attempts, 4xx %v (%s); want %d, %v", c.line, l.Attempts, l.Retries4xx, l.Setting, c.n, c.r4xx)
		}
	}
	noLayerAt(t, r, "gen.py", 29, "an or: the count bounds nothing")
	noLayerAt(t, r, "gen.py", 38, "a count of items")
}

// A class destructured from a dynamic import is bound as a static import
// is (Flowise's BedrockClient loaded on first use, missed in round 7);
// the near miss, a Command of the same import, is no client.
func TestDynamicImportDestructured(t *testing.T) {
	r := scanOne(t, "profiles.ts", `export async function profiles(region: string) {
  const { BedrockClient, ListInferenceProfilesCommand } = await import("@aws-sdk/client-bedrock");
  const client = new BedrockClient({ region });
  return client.send(new ListInferenceProfilesCommand({}));
}
`)
	if l := layerAt(t, r, "profiles.ts", 3); l.DefaultID != "aws-sdk-js-v3" || l.Attempts != 3 {
		t.Errorf("profiles.ts:3: %s %d, want aws-sdk-js-v3 3", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "profiles.ts", 4, "a command is no client")
}

// LlamaIndex's AzureOpenAIEmbedding extends OpenAIEmbedding and keeps its
// max_retries default, 10 (MetaGPT's, missed in round 7).
func TestLlamaIndexAzureOpenAIEmbedding(t *testing.T) {
	r := scanOne(t, "emb.py", `from llama_index.embeddings.azure_openai import AzureOpenAIEmbedding

emb = AzureOpenAIEmbedding(model="text-embedding-3-small", deployment_name="e")
`)
	if l := layerAt(t, r, "emb.py", 3); l.Attempts != 11 {
		t.Errorf("emb.py:3: %+v, want 11", l)
	}
}
