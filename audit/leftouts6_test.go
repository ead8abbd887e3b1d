package audit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Round 6's left-outs (issue 37), each a general rule with a fixture of
// our own shape and its near misses.

// scanTree scans a tree of files (path → body).
func scanTree(t *testing.T, files map[string]string) *Result {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return scan(t, dir)
}

// noLayerAt fails when a layer is reported at file:line.
func noLayerAt(t *testing.T, r *Result, file string, line int, why string) {
	t.Helper()
	for _, l := range r.Layers {
		if l.File == file && l.Line == line {
			t.Errorf("%s:%d reported (%s, %s): %s", file, line, l.Library, l.Setting, why)
		}
	}
}

const emptyLoopsPy = `import time

from openai import OpenAI

client = OpenAI(max_retries=0)


def lookup(engine, query):
    hits, pages, code = engine.search(query)
    tries = 0
    while hits == [] and tries < 2:
        tries += 1
        time.sleep(3)
        hits, pages, code = engine.search(query)
    return hits


def summarize(text, max_tries=4):
    summary = None
    attempt = 0
    while not summary and attempt < max_tries:
        resp = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
        summary = resp.choices[0].message.content
        attempt += 1
    return summary


def label(text):
    for _ in range(3):
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
        if r.choices[0].message.content:
            break
    return r


def insist(text):
    answer = ""
    while not answer:
        answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}]).choices[0].message.content
    return answer


def wait_ready(svc):
    ready = False
    attempts = 0
    while not ready and attempts < 30:
        ready = svc.is_ready()
        attempts += 1
        time.sleep(1)


def first_line(fh):
    line = ""
    tries = 0
    while not line and tries < 3:
        line = fh.readline()
        tries += 1
    return line


def until_deadline(text, deadline):
    answer = ""
    while not answer:
        answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}]).choices[0].message.content
        if time.time() > deadline:
            break
    return answer


def samples(text):
    out = []
    for _ in range(3):
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
        out.append(r)
    return out


def stuck(engine, query):
    hits = []
    tries = 0
    while not hits and tries < 3:
        hits = engine.search(query)
    return hits
`

const emptyLoopsTS = `import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });

export async function ask(prompt: string, n = 3) {
  let text = "";
  let i = 0;
  do {
    const r = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: prompt }] });
    text = r.choices[0].message.content ?? "";
  } while (!text && ++i < n);
  return text;
}

export async function insist(prompt: string) {
  let text = "";
  while (!text) {
    const r = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: prompt }] });
    text = r.choices[0].message.content ?? "";
  }
  return text;
}

export async function fetchPage(url: string) {
  let body = await getPage(url);
  body = body.trim();
  let attempts = 0;
  while (body === "" && attempts < 2) {
    attempts++;
    body = await getPage(url);
  }
  return body;
}

export async function waitReady(svc: { status(): Promise<boolean> }) {
  let ready = false;
  let attempts = 0;
  while (!ready && attempts < 10) {
    ready = await svc.status();
    attempts++;
  }
}

export async function drain(reader: { read(): Promise<string> }) {
  let chunk = "";
  do {
    chunk = await reader.read();
  } while (!chunk);
  return chunk;
}

async function getPage(url: string): Promise<string> {
  return (await fetch(url)).text();
}
`

// Loops that call again while the result is empty: bounded by their
// count (the first call above the loop one more), unbounded — critical —
// without one (round 6: SuperAGI's four searches and page fetches). Near
// misses: a wait for a state, a file read until it gives a line, a loop
// with a deadline out, a batch of samples, a count that never moves.
func TestLoopsThatCallAgainWhileEmpty(t *testing.T) {
	r := scanTree(t, map[string]string{"llm/ask.py": emptyLoopsPy, "web/ask.ts": emptyLoopsTS, "package.json": `{"dependencies": {"openai": "4.95.1"}}`})
	for _, c := range []struct {
		file          string
		line, attempt int
		setting       string
	}{
		{"llm/ask.py", 11, 3, "while hits == [] and tries < 2:"},
		{"llm/ask.py", 21, 4, "max_tries = 4"},
		{"llm/ask.py", 29, 3, "for _ in range(3):"},
		{"web/ask.ts", 8, 3, "++i < n"},
		{"web/ask.ts", 28, 3, `body === "" && attempts < 2`},
	} {
		l := layerAt(t, r, c.file, c.line)
		if l.Attempts != c.attempt || l.Unbounded || !strings.Contains(l.Setting, c.setting) || l.Retries4xx {
			t.Errorf("%s:%d: %d attempts, unbounded %v, retries 4xx %v (%s); want %d from %q, no 4xx", c.file, c.line, l.Attempts, l.Unbounded, l.Retries4xx, l.Setting, c.attempt, c.setting)
		}
	}
	for _, c := range []struct {
		file string
		line int
	}{{"llm/ask.py", 38}, {"web/ask.ts", 17}} {
		if l := layerAt(t, r, c.file, c.line); !l.Unbounded || len(findingsAt(r, c.file, c.line, FindingUnbounded)) != 1 {
			t.Errorf("%s:%d: %+v, want unbounded and critical", c.file, c.line, l)
		}
	}
	noLayerAt(t, r, "llm/ask.py", 46, "a wait for a state")
	noLayerAt(t, r, "llm/ask.py", 55, "a file read until it gives a line")
	noLayerAt(t, r, "llm/ask.py", 63, "a loop with a deadline out")
	noLayerAt(t, r, "llm/ask.py", 72, "a batch of samples")
	noLayerAt(t, r, "llm/ask.py", 81, "a count that never moves")
	noLayerAt(t, r, "web/ask.ts", 38, "a wait for a state")
	noLayerAt(t, r, "web/ask.ts", 46, "a stream read until it gives data")
}

const rateLimitPy = `import time

import httpx
from openai import RateLimitError


class Builder:
    def __init__(self, session, url):
        self.session = session
        self.url = url
        self.retries = 0

    def build(self, context, tags):
        try:
            response = self.session.post(f"{self.url}/build", files=context, timeout=30)
            response.raise_for_status()
        except httpx.HTTPStatusError as e:
            if e.response.status_code == 429:
                time.sleep(30)
                return self.build(context, tags)
            raise
        return response.json()

    def quota(self, context):
        try:
            return self.session.post(f"{self.url}/q", files=context)
        except httpx.HTTPStatusError as e:
            if e.response.status_code == 429:
                raise RuntimeError("out of quota")
            return self.fallback(context)

    def counted(self, context):
        response = self.session.post(f"{self.url}/c", files=context)
        if response.status_code == 429:
            self.retries += 1
            return self.counted(context)
        return response

    def unguarded(self, context, attempt=0):
        response = self.session.post(f"{self.url}/u", files=context)
        if response.status_code == 429:
            return self.unguarded(context, attempt + 1)
        return response


def complete(client, prompt, retries=0):
    try:
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    except RateLimitError:
        if retries >= 4:
            raise
        time.sleep(2 ** retries)
        return complete(client, prompt, retries + 1)


def fetch_page(session, url, tries=3):
    resp = session.get(url)
    if resp.status_code == 429 and tries > 0:
        time.sleep(5)
        return fetch_page(session, url, tries - 1)
    return resp


def walk(session, url):
    resp = session.get(url)
    if resp.links.get("next"):
        return walk(session, resp.links["next"]["url"])
    return resp
`

const rateLimitTS = `const MAX_RETRIES = 5;

export class Client {
  retries = 0;
  constructor(private base: string) {}

  async send(body: unknown, retries = 0): Promise<Response> {
    try {
      return await post(this.base, body);
    } catch (err: any) {
      if (err.status === 429 && retries < MAX_RETRIES) {
        await sleep(2 ** retries * 1000);
        return this.send(body, retries + 1);
      }
      throw err;
    }
  }

  async forever(body: unknown): Promise<Response> {
    const res = await post(this.base, body);
    if (res.status === 429) {
      await sleep(1000);
      return this.forever(body);
    }
    return res;
  }

  async counted(body: unknown): Promise<Response> {
    const res = await post(this.base, body);
    if (res.status === 429) {
      this.retries++;
      return this.counted(body);
    }
    return res;
  }

  async pages(url: string): Promise<Response[]> {
    const res = await post(url, {});
    if (res.next) return this.pages(res.next);
    return [res];
  }
}

declare function post(url: string, body: unknown): Promise<any>;
declare function sleep(ms: number): Promise<void>;
`

// A function that calls itself again after a rate limit: unbounded with
// no count (OpenHands' build in round 6), bounded by the guard of the count
// it passes on. Near misses: a 429 that raises, a count kept in the object,
// a count with no guard in sight, a walk of pages.
func TestRecursionAfterARateLimit(t *testing.T) {
	r := scanTree(t, map[string]string{"svc/build.py": rateLimitPy, "web/client.ts": rateLimitTS})
	for _, c := range []struct {
		file    string
		line, n int // n 0: unbounded
	}{
		{"svc/build.py", 20, 0},
		{"svc/build.py", 53, 5},
		{"svc/build.py", 60, 4},
		{"web/client.ts", 13, 6},
		{"web/client.ts", 23, 0},
	} {
		l := layerAt(t, r, c.file, c.line)
		if c.n == 0 && (!l.Unbounded || len(findingsAt(r, c.file, c.line, FindingUnbounded)) != 1) || c.n > 0 && (l.Attempts != c.n || l.Unbounded) || l.Retries4xx {
			t.Errorf("%s:%d: %d attempts, unbounded %v, 4xx %v (%s); want %d (0: unbounded, critical)", c.file, c.line, l.Attempts, l.Unbounded, l.Retries4xx, l.Setting, c.n)
		}
	}
	noLayerAt(t, r, "svc/build.py", 30, "a 429 that raises; the recursion is on another error")
	noLayerAt(t, r, "svc/build.py", 36, "a count kept in the object")
	noLayerAt(t, r, "svc/build.py", 42, "a count with no guard in sight")
	noLayerAt(t, r, "svc/build.py", 67, "a walk of pages")
	noLayerAt(t, r, "web/client.ts", 32, "a count kept in the object")
	noLayerAt(t, r, "web/client.ts", 39, "a walk of pages")
}

const reenqueueJobsPy = `from celery import Celery
from rq import Queue

app = Celery("jobs")
q = Queue()


@app.task
def summarize(doc_id):
    try:
        run_summary(doc_id)
    except Exception:
        summarize.apply_async((doc_id,), countdown=15)


@app.task(bind=True)
def embed(self, doc_id, attempt=0):
    try:
        run_embedding(doc_id)
    except ConnectionError:
        if attempt >= 3:
            raise
        self.apply_async((doc_id,), kwargs={"attempt": attempt + 1}, countdown=30)


def process(job_id):
    try:
        handle(job_id)
    except TimeoutError:
        q.enqueue(process, job_id)


@app.task
def cleanup(doc_id):
    try:
        remove(doc_id)
    except Exception:
        notify_failure.delay(doc_id)


@app.task
def notify_failure(doc_id):
    send_mail(doc_id)
`

const reenqueueStepPy = `from app import worker


class Agent:
    def step(self, run_id):
        try:
            self.think(run_id)
        except Exception:
            worker.run_step.apply_async((run_id,), countdown=15)
            return

    def finish(self, run_id):
        try:
            self.close(run_id)
        except Exception:
            worker.report.delay(run_id)
`

const reenqueueWorkerPy = `from celery import Celery

app = Celery("app")


@app.task(name="run_step")
def run_step(run_id):
    from agents.step import Agent
    Agent().step(run_id)


@app.task(name="report")
def report(run_id):
    print(run_id)
`

const reenqueueTS = `import { Queue, Worker, Job } from "bullmq";

const queue = new Queue("summaries");

export const summaries = new Worker("summaries", async (job) => {
  try {
    await summarize(job.data);
  } catch (err) {
    await queue.add(job.name, job.data, { delay: 5000 });
  }
});

export const embeds = new Worker("embeds", async (job: Job) => {
  try {
    await embed(job.data);
  } catch (err) {
    if (job.data.attempt >= 5) throw err;
    await queue.add(job.name, { ...job.data, attempt: job.data.attempt + 1 });
  }
});

export const mail = new Worker("mail", async (job) => {
  try {
    await send(job.data);
  } catch (err) {
    await queue.add("alert", { id: job.id });
  }
});

declare function summarize(d: unknown): Promise<void>;
declare function embed(d: unknown): Promise<void>;
declare function send(d: unknown): Promise<void>;
`

// A task enqueued again from its own error handler: unbounded with no
// count, bounded by the guard of the count it passes on; under another
// task's name when that task calls the handler's function (SuperAGI's
// agent step in round 6). Near misses: a handler that enqueues another
// task, a task named that does not call the function, a processor that
// adds a different job.
func TestTaskEnqueuedAgainFromItsExcept(t *testing.T) {
	r := scanTree(t, map[string]string{
		"jobs/tasks.py": reenqueueJobsPy, "agents/step.py": reenqueueStepPy, "app/worker.py": reenqueueWorkerPy,
		"web/queue.ts": reenqueueTS, "package.json": `{"dependencies": {"bullmq": "5.0.0"}}`,
	})
	for _, c := range []struct {
		file    string
		line, n int // n 0: unbounded
	}{
		{"jobs/tasks.py", 13, 0},
		{"jobs/tasks.py", 23, 4},
		{"jobs/tasks.py", 30, 0},
		{"agents/step.py", 9, 0},
		{"web/queue.ts", 9, 0},
		{"web/queue.ts", 18, 6},
	} {
		l := layerAt(t, r, c.file, c.line)
		if c.n == 0 && (!l.Unbounded || len(findingsAt(r, c.file, c.line, FindingUnbounded)) != 1) || c.n > 0 && (l.Attempts != c.n || l.Unbounded) || l.Kind != KindQueue {
			t.Errorf("%s:%d: %d attempts, unbounded %v, kind %s (%s); want %d (0: unbounded, critical), a queue", c.file, c.line, l.Attempts, l.Unbounded, l.Kind, l.Setting, c.n)
		}
	}
	noLayerAt(t, r, "jobs/tasks.py", 38, "a handler that enqueues another task")
	noLayerAt(t, r, "agents/step.py", 16, "the task named does not call this function")
	noLayerAt(t, r, "web/queue.ts", 26, "a processor that adds a different job")
}

const workflowStepsPy = `from llama_index.core.workflow import Workflow, step, StartEvent, StopEvent
from workflows.retry_policy import ConstantDelayRetryPolicy

MAX_TRIES = 5
RETRY = ConstantDelayRetryPolicy(delay=2, maximum_attempts=MAX_TRIES)


class Answer(Workflow):
    @step(retry_policy=RETRY)
    async def retrieve(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result=await self.llm.acomplete(ev.query))

    @step(retry_policy=ConstantDelayRetryPolicy())
    async def rerank(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result=await self.llm.acomplete(ev.query))

    @step
    async def format(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result=ev.query)

    @step()
    async def log(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result=ev.query)
`

const prefectFlowPy = `from prefect import flow, task


@task(retries=3, retry_delay_seconds=10)
def summarize(doc):
    return client.messages.create(model="m", max_tokens=10, messages=[doc])


@task(retry_delay_seconds=10)
def once(doc):
    return doc


@flow(retries=1)
def nightly(docs):
    return [summarize(d) for d in docs]
`

const hatchetTasksPy = `from hatchet_sdk import Context, Hatchet

hatchet = Hatchet()


@hatchet.task(name="draft", retries=2, execution_timeout="5m")
def draft(input, ctx: Context):
    return client.chat.completions.create(model="m", messages=[input])


@hatchet.task(name="notify")
def notify(input, ctx: Context):
    return input
`

const temporalPolicyPy = `from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

POLICY = RetryPolicy(maximum_attempts=4, initial_interval=timedelta(seconds=2))


@workflow.defn
class Nightly:
    @workflow.run
    async def run(self, doc):
        await workflow.execute_activity(summarize, doc, start_to_close_timeout=timedelta(minutes=5), retry_policy=POLICY)
        await workflow.execute_activity(summarize, doc, start_to_close_timeout=timedelta(minutes=5))
`

// A workflow engine's step retries: LlamaIndex's @step(retry_policy=…)
// (a module-level policy, its bound a constant; the class default 3),
// Prefect's and Hatchet's retries=N (N + 1 runs), Temporal's retry_policy
// named at module level (4, not the default's none) — private-gpt's
// retrieval step in round 6. Near misses: a step with no policy, a task
// with no retries (run once).
func TestWorkflowStepRetries(t *testing.T) {
	r := scanTree(t, map[string]string{"wf/answer.py": workflowStepsPy, "wf/flow.py": prefectFlowPy, "wf/hatchet.py": hatchetTasksPy, "wf/temporal.py": temporalPolicyPy})
	for _, c := range []struct {
		file    string
		line, n int // n 0: unbounded
		id      string
	}{
		{"wf/answer.py", 9, 5, "llamaindex-workflow-step"},
		{"wf/answer.py", 13, 3, "llamaindex-workflow-step"},
		{"wf/flow.py", 4, 4, "prefect"},
		{"wf/flow.py", 14, 2, "prefect"},
		{"wf/hatchet.py", 6, 3, "hatchet"},
		{"wf/temporal.py", 13, 4, "temporal-activity"},
		{"wf/temporal.py", 14, 0, "temporal-activity"},
	} {
		l := layerAt(t, r, c.file, c.line)
		if l.DefaultID != c.id || c.n == 0 && !l.Unbounded || c.n > 0 && (l.Attempts != c.n || l.Unbounded) {
			t.Errorf("%s:%d: %s, %d attempts, unbounded %v (%s); want %s, %d (0: unbounded)", c.file, c.line, l.DefaultID, l.Attempts, l.Unbounded, l.Setting, c.id, c.n)
		}
	}
	for _, c := range []struct {
		file string
		line int
	}{{"wf/answer.py", 17}, {"wf/answer.py", 21}, {"wf/flow.py", 9}, {"wf/hatchet.py", 11}} {
		noLayerAt(t, r, c.file, c.line, "a step with no retries runs once")
	}
}

// BenchmarkHostileLeftouts: files built to make the round 6 and round 7
// rules pay — 10,000 nested empty-result loops, a megabyte of do-while
// heads that never close, thousands of 429 recursions and re-enqueues in
// one function, a megabyte line of workflow decorators.
func BenchmarkHostileLeftouts(b *testing.B) {
	dir := b.TempDir()
	var nested, do, rec, enq, deco strings.Builder
	for i := range 10_000 {
		nested.WriteString(strings.Repeat(" ", i%200) + "while not r and tries < 3:\n")
	}
	nested.WriteString("    r = llm(p)\n    tries += 1\n")
	for do.Len() < 1<<20 {
		do.WriteString("do { t = await c.chat.completions.create(q); } while (!t && ++i < n) ")
	}
	rec.WriteString("def f(self, retries=0):\n    try:\n        x()\n    except E as e:\n")
	enq.WriteString("@app.task\ndef s(d):\n    try:\n        r(d)\n    except Exception:\n")
	for rec.Len() < 1<<20 {
		rec.WriteString("        if e.status == 429 and retries < 5:\n            return self.f(retries + 1)\n")
		enq.WriteString("        s.apply_async((d,), countdown=1)\n")
	}
	deco.WriteString("from prefect import task\nfrom workflows.retry_policy import ConstantDelayRetryPolicy\n")
	for i := 0; deco.Len() < 1<<20; i++ {
		deco.WriteString("@task(retries=3)\n@step(retry_policy=R)\n@step(retry_policy=P" + strconv.Itoa(i) + ")\n")
	}
	benchScanFiles(b, dir, map[string]string{
		"nested.py": nested.String(), "do.ts": do.String(), "rec.py": rec.String(), "enq.py": enq.String(), "deco.py": deco.String(),
	})
}

// A helper's loop bounded by its parameter takes the largest bound its
// callers pass, and callers import it through the package's index.ts or
// __init__.py as often as from its own file (round 6's left-outs). The
// near miss: a function of the same name imported from another package.
func TestCallersThroughAReExport(t *testing.T) {
	r := scanTree(t, map[string]string{
		"src/utils/retry.ts": `export async function withRetry<T>(fn: () => Promise<T>, attempts = 1): Promise<T> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
  throw new Error("gave up");
}
`,
		"src/utils/index.ts": "export * from \"./retry\";\n",
		"src/app.ts": `import { withRetry } from "./utils";
import { withRetry as other } from "./vendor";

export const a = () => withRetry(() => fetch("https://example.invalid"), 5);
export const b = () => other(() => fetch("https://example.invalid"), 50);
`,
		"helpers/retry.py": `import time


def with_retry(fn, attempts=1):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(1)
`,
		"helpers/__init__.py": "from .retry import with_retry\n",
		"app.py":              "from helpers import with_retry\n\nwith_retry(lambda: None, attempts=4)\n",
	})
	if l := layerAt(t, r, "src/utils/retry.ts", 2); l.Attempts != 5 {
		t.Errorf("retry.ts:2: %d attempts (%s), want 5 from src/app.ts through the index", l.Attempts, l.Setting)
	}
	if l := layerAt(t, r, "helpers/retry.py", 5); l.Attempts != 4 {
		t.Errorf("retry.py:5: %d attempts (%s), want 4 from app.py through __init__.py", l.Attempts, l.Setting)
	}
}

// Red team: a view named like the task it enqueues (`def summarize(request)`
// calling `tasks.summarize.delay(…)` in its except) is no re-enqueue of
// itself: the task does not call the view. Before, it was read as one —
// unbounded, a critical finding.
func TestViewNamedLikeItsTaskIsNoReenqueue(t *testing.T) {
	r := scanTree(t, map[string]string{
		"web/views.py": `from jobs import tasks


def summarize(request):
    try:
        return render(request)
    except Exception:
        tasks.summarize.delay(request.id)
        return None
`,
		"jobs/tasks.py": `from celery import shared_task


@shared_task
def summarize(doc_id):
    return run(doc_id)
`,
	})
	noLayerAt(t, r, "web/views.py", 8, "a view enqueueing the task of its name")
}
