package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The red team's round 6 findings on the audit (issue 37), each a general
// rule with a fixture of our own shape (trimmed from /work/rt6-cases/37).

// --max-layers applies to the layers that survive resolution: loops whose
// bound is a parameter (pending, dropped when no caller passes one) once
// took every place, then vanished with the critical that came after them —
// "no retry layers" and exit 0 (R6-1).
func TestMaxLayersKeepsCriticalPastPendingLoops(t *testing.T) {
	dir := t.TempDir()
	var js strings.Builder
	js.WriteString("async function big(q, n) {\n")
	for i := range 20 {
		u := "u" + strconv.Itoa(i)
		js.WriteString("  while (!" + u + " && i < n) { i++; " + u + " = await client.chat.completions.create(q); }\n")
	}
	js.WriteString("}\n")
	files := map[string]string{
		"a.js": js.String(),
		"z.go": `package wf
import ("time"; "go.temporal.io/sdk/temporal"; "go.temporal.io/sdk/workflow")
func W(ctx workflow.Context) error {
	ao := workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 0}}
	ctx = workflow.WithActivityOptions(ctx, ao)
	return workflow.ExecuteActivity(ctx, CallLLM).Get(ctx, nil)
}
`,
	}
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full := scan(t, dir)
	opt := DefaultOptions()
	opt.MaxLayers = 5
	cut, err := Scan([]string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Layers) == 0 || len(cut.Layers) != len(full.Layers) {
		t.Fatalf("--max-layers 5 kept %v, want what the full scan keeps, %v", layersOf(cut), layersOf(full))
	}
	crit := 0
	for _, f := range cut.Findings {
		if f.Severity == SeverityCritical {
			crit++
		}
	}
	if crit == 0 {
		t.Errorf("--max-layers 5: no critical; layers %v", layersOf(cut))
	}
	// The 15 candidates cut are said as such, not as layers cut.
	said := false
	for _, k := range cut.Skipped {
		said = said || k.Reason == candidatesCut && k.Count == 15
	}
	if cut.Truncated || !said {
		t.Errorf("--max-layers 5: truncated %v, skipped %+v; want the 15 candidates cut said, no layer cut", cut.Truncated, cut.Skipped)
	}
}

// A bound the audit cannot read exactly, or over 1,000 tries, is an
// unbounded critical — never a small number (10**9 read as 10, 1e9 as 1),
// never silence (a literal too big for an int, float("inf"), -1); a
// module name bound twice is in force at its last binding (R6-9, R6-12).
func TestUnreadableOrHugeBoundsAreUnbounded(t *testing.T) {
	var pf strings.Builder
	pf.WriteString("from prefect import task\nfrom openai import OpenAI\nclient = OpenAI(max_retries=0)\n")
	exprs := []string{"10**9", "-1", "1e9", "99999999999999999999999", "N_RETRIES", "1_000_000", "2**40", "5"}
	for _, e := range exprs {
		pf.WriteString("\n@task(retries=" + e + ")\ndef t(q): return client.chat.completions.create(model=\"m\", messages=q)\n")
	}
	pf.WriteString("\nN_RETRIES = 5000\n")
	var empty strings.Builder
	empty.WriteString("from openai import OpenAI\nclient = OpenAI(max_retries=0)\n")
	bounds := []string{"10**9", "1_000_000", `float("inf")`, "5000", "4"}
	for _, b := range bounds {
		empty.WriteString("\ndef a(q):\n    ans = None\n    i = 0\n    while not ans and i < " + b + ":\n        ans = client.chat.completions.create(model=\"m\", messages=q).choices[0].message.content\n        i += 1\n    return ans\n")
	}
	r := scanTree(t, map[string]string{
		"pf.py":    pf.String(),
		"empty.py": empty.String(),
		"li.py": `from llama_index.core.workflow import Workflow, step, StartEvent, StopEvent
from llama_index.core.workflow.retry_policy import ConstantDelayRetryPolicy
RETRY = ConstantDelayRetryPolicy(delay=5, maximum_attempts=4)
RETRY = ConstantDelayRetryPolicy(delay=5, maximum_attempts=2)
class W(Workflow):
    @step(retry_policy=RETRY)
    async def a(self, ev: StartEvent) -> StopEvent: ...
`,
		"wf.ts": "import { proxyActivities } from '@temporalio/workflow';\nconst { callLLM } = proxyActivities({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1e400 } });\n",
	})
	for i, e := range exprs {
		l := layerAt(t, r, "pf.py", 5+3*i)
		if e == "5" {
			if l.Unbounded || l.Attempts != 6 {
				t.Errorf("retries=5: %+v, want 6 attempts (the near miss)", l)
			}
			continue
		}
		if !l.Unbounded {
			t.Errorf("retries=%s: %d attempts (%s), want unbounded", e, l.Attempts, l.Setting)
		}
	}
	for i, b := range bounds {
		l := layerAt(t, r, "empty.py", 7+8*i)
		if b == "4" {
			if l.Unbounded || l.Attempts != 4 {
				t.Errorf("i < 4: %+v, want 4 attempts (the near miss)", l)
			}
			continue
		}
		if !l.Unbounded {
			t.Errorf("i < %s: %d attempts (%s), want unbounded", b, l.Attempts, l.Setting)
		}
	}
	if l := layerAt(t, r, "li.py", 6); l.Attempts != 2 {
		t.Errorf("RETRY bound twice: %d attempts (%s), want the last binding's 2", l.Attempts, l.Setting)
	}
	if l := layerAt(t, r, "wf.ts", 2); !l.Unbounded {
		t.Errorf("maximumAttempts: 1e400: %d attempts (%s), want unbounded", l.Attempts, l.Setting)
	}
}

func TestNumExpr(t *testing.T) {
	for s, want := range map[string]int{"3": 3, "1_000": 1000, "10**3": 1000, "2**3**2": 512, "60 * 24": 1440, "1e3": 1000, "5.0": 5,
		"1e400": hugeBound, "-1": hugeBound, "2.5": hugeBound, "Infinity": hugeBound, "math.inf": hugeBound, `float("inf")`: hugeBound,
		"18446744073709551617": hugeBound, "0": 0, "-0": 0} {
		if n, ok := numExpr(s); !ok || n != want {
			t.Errorf("numExpr(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
	for _, s := range []string{"N", "math.information", ""} {
		if n, ok := numExpr(s); ok {
			t.Errorf("numExpr(%q) = %d, want no number", s, n)
		}
	}
}

// A self-call after a 429 is bounded by the count its block's condition
// compares, not the first `x + 1` among its arguments nor the first
// comparison in the function (R6-8); the raise-guard form (the guard
// above, not holding the return) is still read.
func TestRateLimitRecursionGuardOfItsBlock(t *testing.T) {
	r := scanTree(t, map[string]string{"a.py": `import time, openai
client = openai.OpenAI(max_retries=0)

def fetch_page(q, page=0, retries=0):
    if page < 1000:
        pass
    try:
        return client.chat.completions.create(model="gpt-4o", messages=q)
    except openai.RateLimitError:
        if retries < 3:
            time.sleep(2)
            return fetch_page(q, page + 1, retries + 1)
        raise

def first_note(q, retries=0):
    if retries < 1:
        print("first try")
    try:
        return client.chat.completions.create(model="gpt-4o", messages=q)
    except openai.RateLimitError:
        if retries < 8:
            return first_note(q, retries + 1)
        raise

def raised(q, retries=0):
    try:
        return client.chat.completions.create(model="gpt-4o", messages=q)
    except openai.RateLimitError:
        if retries >= 5:
            raise
        return raised(q, retries + 1)
`, "r.ts": `import OpenAI from 'openai';
const client = new OpenAI({ maxRetries: 0 });
async function fetchPage(q: any, page = 0, retries = 0): Promise<any> {
  if (page < 1000) { console.log(page); }
  try {
    return await client.chat.completions.create(q);
  } catch (err: any) {
    if (err.status === 429 && retries < 3) {
      return fetchPage(q, page + 1, retries + 1);
    }
    throw err;
  }
}
`})
	for _, c := range []struct {
		file      string
		line, att int
	}{{"a.py", 12, 4}, {"a.py", 22, 9}, {"a.py", 31, 6}, {"r.ts", 9, 4}} {
		if l := layerAt(t, r, c.file, c.line); l.Unbounded || l.Attempts != c.att {
			t.Errorf("%s:%d: %d attempts, unbounded %v (%s), want %d", c.file, c.line, l.Attempts, l.Unbounded, l.Setting, c.att)
		}
	}
}

// A loop polling local state while it is empty — a file's text, a cache's
// or a queue's get — is no retry layer, whatever its count is named
// (R6-4). The near misses, the same loops sending a request (an HTTP
// client's get, a model call), stay layers.
func TestPollsOfLocalStateAreNoLayers(t *testing.T) {
	r := scanTree(t, map[string]string{"poll.py": `import time, redis, requests
from pathlib import Path
from openai import OpenAI
r = redis.Redis()
client = OpenAI(max_retries=0)

def wait_cache(key):
    value = None
    retries = 0
    while value is None and retries < 30:
        retries += 1
        value = r.get(key)
        time.sleep(1)
    return value

def wait_file(p):
    text = ""
    attempts = 0
    while not text and attempts < 20:
        attempts += 1
        text = Path(p).read_text()
        time.sleep(0.5)
    return text

def wait_queue(q):
    item = None
    tries = 0
    while item is None and tries < 100:
        tries += 1
        item = q.get(timeout=1)
    return item

def fetch_doc(url):
    resp = None
    retries = 0
    while resp is None and retries < 7:
        retries += 1
        resp = requests.get(url, timeout=5)
    return resp

def ask(q):
    ans = None
    tries = 0
    while not ans and tries < 6:
        tries += 1
        ans = client.chat.completions.create(model="m", messages=q).choices[0].message.content
    return ans
`, "poll.js": `async function waitCache(key) {
  let val = null, retries = 0;
  while (val === null && retries < 30) { retries++; val = await redis.get(key); await sleep(1000); }
  return val;
}
`})
	noLayerAt(t, r, "poll.py", 10, "a redis get polled")
	noLayerAt(t, r, "poll.py", 19, "a file re-read while empty")
	noLayerAt(t, r, "poll.py", 28, "a queue polled")
	noLayerAt(t, r, "poll.js", 3, "a redis get polled")
	if l := layerAt(t, r, "poll.py", 36); l.Attempts != 7 {
		t.Errorf("poll.py:36: %d attempts, want the HTTP get's loop, 7", l.Attempts)
	}
	if l := layerAt(t, r, "poll.py", 44); l.Attempts != 6 {
		t.Errorf("poll.py:44: %d attempts, want the model call's loop, 6", l.Attempts)
	}
}

// A task enqueued again through a name bound to itself — again = digest
// in the handler, resend = summarize.apply_async, redo = summarize at
// module level — is the task (R6-3). The near miss, a name bound to
// another task that does not call this one, is no layer.
func TestReenqueueThroughAliasOfItself(t *testing.T) {
	head := "from celery import shared_task\nimport openai\nclient = openai.OpenAI(max_retries=0)\n"
	task := func(name, handler string) string {
		return "\n@shared_task(bind=True)\ndef " + name + "(self, doc):\n    try:\n        return client.chat.completions.create(model=\"m\", messages=[doc])\n    except openai.RateLimitError:\n" + handler
	}
	r := scanTree(t, map[string]string{
		"a.py": head + task("digest", "        again = digest\n        again.apply_async((doc,), countdown=30)\n"),
		"b.py": head + task("summarize", "        resend = summarize.apply_async\n        resend(args=(doc,), countdown=30)\n"),
		"c.py": head + "\nredo = outline\n" + task("outline", "        redo.delay(doc)\n"),
		"d.py": head + "\nother = notify\n" + task("brief", "        other.delay(doc)\n") + "\n@shared_task\ndef notify(doc):\n    print(doc)\n",
	})
	for _, c := range []struct {
		file string
		line int
	}{{"a.py", 11}, {"b.py", 11}, {"c.py", 12}} {
		if l := layerAt(t, r, c.file, c.line); !l.Unbounded {
			t.Errorf("%s:%d: %d attempts (%s), want the task enqueued again with no count: unbounded", c.file, c.line, l.Attempts, l.Setting)
		}
	}
	noLayerAt(t, r, "d.py", 12, "another task enqueued")
}

// chainTS is a 1 MB TypeScript file of 4,500 functions, each calling
// itself again after a 429 and the next one otherwise (R6-2's shape).
func chainTS() string {
	var b strings.Builder
	b.WriteString("const client = new OpenAI();\n")
	for i := range 4500 {
		n, next := "g"+strconv.Itoa(i), "g"+strconv.Itoa(i+1)
		b.WriteString("async function " + n + "(body, retries = 0) {\n  try { return await client.chat.completions.create(body); }\n  catch (err) {\n    if (err.status === 429 && retries < " + strconv.Itoa(2+i%7) + ") { await sleep(1000); return " + n + "(body, retries + 1); }\n    return " + next + "(body);\n  }\n}\n")
	}
	return b.String()
}

// The self-call rules index a file's function definitions once, not once
// per callee name: the 1 MB file of 4,500 self-calling functions took
// 11–40 s of CPU, 0.26 s now — measured by -bench SelfCallChain, not
// timed here (a test's clock on a shared machine decides nothing); this
// holds what the one pass reads.
func TestSelfCallRulesOnePassPerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 1 MB file")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "chain.ts"), []byte(chainTS()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.MaxFileBytes = 2 << 20
	r, err := Scan([]string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if l := layerAt(t, r, "chain.ts", 5); l.Attempts != 3 {
		t.Errorf("chain.ts:5: %d attempts (%s), want 3", l.Attempts, l.Setting)
	}
}

func BenchmarkSelfCallChain(b *testing.B) {
	benchScanFiles(b, b.TempDir(), map[string]string{"chain.ts": chainTS()})
}

// Past 64 subclasses of a modelled client the rest are not followed, and
// the report says so rather than losing them silently (R6-7); the first
// 64 (by file) are layers.
func TestSubclassCapIsSaid(t *testing.T) {
	files := map[string]string{}
	for i := range 70 {
		c := "C" + strconv.Itoa(i)
		files["p/m"+strconv.Itoa(100+i)+".py"] = "import openai\nclass " + c + "(openai.OpenAI):\n    pass\nclient = " + c + "(max_retries=6)\n"
	}
	r := scanTree(t, files)
	n := 0
	for _, l := range r.Layers {
		if l.Line == 4 {
			n++
		}
	}
	cut := 0
	for _, k := range r.Skipped {
		if k.Reason == subclassesCut {
			cut = k.Count
		}
	}
	if n != maxSubclasses || cut != 70-maxSubclasses {
		t.Errorf("70 subclasses: %d layers, %d said cut; want %d and %d", n, cut, maxSubclasses, 70-maxSubclasses)
	}
}

// A helper's bound passed by its callers: only files whose calls resolve
// to this helper count against the 64 files read, so 70 callers of a
// same-named helper of another package no longer push the real caller's
// 9 out (R6-11).
func TestCallerCapCountsOnlyThisHelpersCallers(t *testing.T) {
	files := map[string]string{
		"d0/index.ts":    "export * from './retry';\n",
		"d0/retry.ts":    "export async function withRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch (e) { if (i === attempts - 1) throw e; }\n  }\n  throw new Error('x');\n}\n",
		"z/use.ts":       "import OpenAI from 'openai';\nimport { withRetry } from '../d0';\nconst client = new OpenAI({ maxRetries: 0 });\nexport const r = () => withRetry(() => client.chat.completions.create({}), 9);\n",
		"other/index.ts": "export function withRetry(fn: any, n: number) { return fn(); }\n",
	}
	for i := range 70 {
		files["a"+strconv.Itoa(100+i)+"/use.ts"] = "import { withRetry } from '../other';\nexport const r = () => withRetry(() => 1, 2);\n"
	}
	r := scanTree(t, files)
	if l := layerAt(t, r, "d0/retry.ts", 2); l.Attempts != 9 {
		t.Errorf("d0/retry.ts:2: %d attempts (%s), want the real caller's 9", l.Attempts, l.Setting)
	}
}

// A function that calls itself on something else after a 429 — a tree
// walked on to a child or parent, a paginator moved to its next page — is
// no retry of the request: it moves on (R6-16: four false criticals).
// The same request sent again, with or without a count, still is.
func TestRecursionThatMovesOnIsNoRetry(t *testing.T) {
	r := scanTree(t, map[string]string{
		"walk.py": `from openai import OpenAI, RateLimitError
client = OpenAI(max_retries=0)

def crawl(page):
    if page.status_code == 429:
        return crawl(page.next_page)
    return page.items

def walk(node):
    try:
        return client.chat.completions.create(model="gpt-4o", messages=node.messages)
    except RateLimitError:
        return walk(node.parent)

def ask(messages):
    try:
        return client.chat.completions.create(model="gpt-4o", messages=messages)
    except RateLimitError:
        return ask(messages)
`,
		"walk.js": `import OpenAI from "openai";
const client = new OpenAI({ maxRetries: 0 });
function walk(tree) {
  if (tree.status === 429) { return walk(tree.left); }
  return tree;
}
class Crawler {
  fetchAll(url) {
    try { return client.chat.completions.create({ url }); }
    catch (err) { if (err.status === 429) { return this.fetchAll(nextUrl(url)); } throw err; }
  }
  send(body, retries = 0) {
    try { return client.chat.completions.create(body); }
    catch (err) { if (err.status === 429 && retries < 4) { return this.send(body, retries + 1); } throw err; }
  }
}
`})
	var got []string
	for _, l := range r.Layers {
		if strings.Contains(l.Setting, "again after a rate limit") {
			got = append(got, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
	}
	want := []string{"walk.js:14", "walk.py:19"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("self-calls read as retries at %v, want only the same request sent again: %v", got, want)
	}
}
