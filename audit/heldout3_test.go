package audit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Shapes of the third held-out check (issue 37), written for these tests:
// each with its near miss.

// layerList is "line attempts" per layer ("line unbounded" when it is).
func layerList(ls []Layer) string {
	var got []string
	for _, l := range ls {
		n := strconv.Itoa(l.Attempts)
		if l.Unbounded {
			n = "unbounded"
		}
		got = append(got, strconv.Itoa(l.Line)+" "+n)
	}
	return strings.Join(got, ",")
}

const flagLoopPy = `import time
import openai


def ask(messages, model="gpt-4"):
    again = True
    while again:
        try:
            reply = openai.ChatCompletion.create(model=model, messages=messages)
            again = False
        except Exception as err:
            print("busy, waiting", err)
            time.sleep(20)
    return reply


def ask_forever(client, prompt):
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(5)


def ask_counted(client, prompt):
    tries = 0
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            tries += 1
            if tries > 4:
                raise
            time.sleep(5)


def wait_for_port(sock):
    up = True
    while up:
        try:
            sock.connect(("localhost", 8080))
            up = False
        except OSError:
            time.sleep(1)


def ask_by_deadline(client, prompt):
    deadline = time.time() + 120
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            if time.time() > deadline:
                raise
            time.sleep(5)


def ask_counted_longhand(client, prompt):
    n = 0
    while True:
        n = n + 1
        if n > 4:
            raise RuntimeError("gave up")
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(5)


def ask_until_done(client, prompt):
    done = False
    while not done:
        try:
            out = client.messages.create(model="m", max_tokens=10, messages=[prompt])
            done = True
        except Exception:
            time.sleep(5)
    return out


def ask_not_flagged(client, prompt):
    done = True
    while not done:
        try:
            out = client.messages.create(model="m", max_tokens=10, messages=[prompt])
            done = False
        except Exception:
            time.sleep(5)
    return out


def ask_once_then_stop(client, prompt):
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(5)
            raise
`

// A loop that sends a model call again after every error and counts
// nothing never stops: an unbounded layer, a critical finding. One that
// counts, one that waits for a port and one whose handler raises are not.
func TestFlagLoopUnbounded(t *testing.T) {
	ls := scanPython("gen/main_no_queue.py", []byte(flagLoopPy))
	if got, want := layerList(ls), "7 unbounded,18 unbounded,72 unbounded"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
}

const helperBoundGo = `package llm

import (
	"context"
	"errors"
	"time"
)

const maxAttempts = 5

type rateErr struct{ status int }

func (e *rateErr) Error() string { return "rate limited" }

type chat struct{ send func(context.Context, string) (string, error) }

func (c *chat) Ask(ctx context.Context, prompt string) (string, error) {
	tries := 0
	for {
		tries++
		out, err := c.send(ctx, prompt)
		if err == nil {
			return out, nil
		}
		again, wait := c.backoff(tries, err)
		if !again {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(wait):
		}
	}
}

func (c *chat) backoff(tries int, err error) (bool, time.Duration) {
	var re *rateErr
	if !errors.As(err, &re) || re.status != 429 {
		return false, 0
	}
	if tries >= maxAttempts {
		return false, 0
	}
	return true, time.Duration(tries) * time.Second
}

func (c *chat) Stream(ctx context.Context, prompt string) (string, error) {
	attempts := 0
	for {
		attempts++
		out, err := c.send(ctx, prompt)
		if err == nil {
			return out, nil
		}
		if !c.retryable(attempts, err) {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// retryable never looks at the count: nothing here bounds the loop by it.
func (c *chat) retryable(attempts int, err error) bool {
	var re *rateErr
	return errors.As(err, &re) && attempts != 0
}
`

// A Go counter loop whose bound is checked in a helper method it calls
// with the counter, and whose wait is a select on time.After, is a layer
// at the helper's bound (>= 5: 5 tries); a loop whose helper never
// compares the count to a bound is not found as a bounded layer.
func TestGoHelperBound(t *testing.T) {
	ls, err := scanGo("llm/chat.go", []byte(helperBoundGo))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := layerList(ls), "18 5"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
	if !strings.Contains(ls[0].Setting, "maxAttempts = 5") {
		t.Errorf("setting %q does not show the resolved bound", ls[0].Setting)
	}
	if ls[0].Retries4xx {
		t.Errorf("a helper that lets only a 429 through is reported as retrying a 400")
	}
}

// Together's TypeScript SDK (a Stainless client: maxRetries ?? 2) built
// with new is a layer at 3 attempts, or what maxRetries says; a class of
// the repository's own named Together is not.
func TestTogetherClient(t *testing.T) {
	src := `import Together from "together-ai";
import { Together as Local } from "./local";

export async function title(prompt: string) {
  const together = new Together();
  const quiet = new Together({ maxRetries: 0 });
  const mine = new Local();
  return together.chat.completions.create({ model: "m", messages: [{ role: "user", content: prompt }] });
}
`
	var got []string
	for _, l := range scanJS("app/api/title/route.ts", []byte(src), nil) {
		got = append(got, strconv.Itoa(l.Line)+" "+l.DefaultID+" "+strconv.Itoa(l.Attempts))
	}
	if g, want := strings.Join(got, ","), "5 together-ts 3,6 together-ts 1"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
}

const modalPy = `import modal

app = modal.App("summaries")
image = modal.Image.debian_slim().pip_install("anthropic")


@app.function(
    image=image,
    retries=modal.Retries(
        max_retries=4,
        backoff_coefficient=2.0,
    ),
)
def summarise(text):
    import anthropic
    return anthropic.Anthropic(max_retries=0).messages.create(model="m", max_tokens=100, messages=[])


@app.function(retries=2, timeout=600)
def embed(text):
    return text


@app.function(image=image)
def once(text):
    return text


@app.local_entrypoint()
def main():
    summarise.remote("hi")
`

// Modal's platform retries: retries=modal.Retries(max_retries=4) runs the
// function 5 times, retries=2 three; a function with no retries, and a
// decorator of the same shape in a file that does not import modal, are
// no layer.
func TestModalRetries(t *testing.T) {
	var got []string
	for _, l := range scanPython("jobs/summaries.py", []byte(modalPy)) {
		got = append(got, strconv.Itoa(l.Line)+" "+l.DefaultID+" "+strconv.Itoa(l.Attempts))
	}
	if g, want := strings.Join(got, ","), "16 anthropic-python 1,9 modal 5,19 modal 3"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
	other := strings.Replace(modalPy, "import modal\n", "import mymodal as modal\n", 1)
	for _, l := range scanPython("jobs/other.py", []byte(other)) {
		if l.DefaultID == "modal" {
			t.Errorf("a file not importing modal: layer at line %d", l.Line)
		}
	}
}

const countedNoSleepTs = `type Opts = { maxAttempts?: number; tries?: number };

export async function grade(opts: Opts, ask: () => Promise<string>) {
  const maxAttempts = opts.maxAttempts ?? 3;
  let last: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return await ask();
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

export async function gradeLoud(ask: () => Promise<string>) {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return await ask();
    } catch (err) {
      if (attempt === 3) throw err;
      console.warn("again", err);
    }
  }
}

export function parseAll(rows: string[]) {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    try {
      out.push(JSON.parse(rows[i]));
    } catch (err) {
      out.push(0);
    }
  }
  return out;
}

export async function firstOnly(ask: () => Promise<string>) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await ask();
    } catch (err) {
      throw new Error("gave up: " + String(err));
    }
  }
}
`

// A counted JavaScript loop that catches and tries again at once — no
// sleep — is a layer when its counter is named for attempts and a catch
// lets it go on; its bound may be an option's fallback (opts.maxAttempts
// ?? 3). A loop over rows, and one whose catch always throws, are not.
func TestJSCountedLoopWithoutSleep(t *testing.T) {
	ls := scanJS("scripts/grade.ts", []byte(countedNoSleepTs), nil)
	if got, want := layerList(ls), "6 3,17 4"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
	if !strings.Contains(ls[0].Setting, "maxAttempts = 3, fallback") {
		t.Errorf("setting %q does not show the fallback", ls[0].Setting)
	}
}

const rateOnlyPy = `import time
from anthropic import APIStatusError


def ask(client, messages):
    wait = 5
    for attempt in range(3):
        try:
            return client.messages.create(model="m", max_tokens=10, messages=messages)
        except APIStatusError as e:
            if e.status_code == 429 and attempt < 2:
                time.sleep(wait)
                wait *= 2
            else:
                return None


def ask_any(client, messages):
    for attempt in range(3):
        try:
            return client.messages.create(model="m", max_tokens=10, messages=messages)
        except APIStatusError as e:
            if e.status_code == 429:
                time.sleep(5)
        except Exception:
            time.sleep(1)
`

// A loop that tries again only on a rate limit does not retry a 400; one
// that also goes on after any exception does.
func TestLoopOnlyOn429(t *testing.T) {
	ls := scanPython("agent/main.py", []byte(rateOnlyPy))
	if len(ls) != 2 {
		t.Fatalf("layers %q, want 2", layerList(ls))
	}
	if ls[0].Retries4xx || !ls[1].Retries4xx {
		t.Errorf("retries 4xx: %v and %v, want false and true", ls[0].Retries4xx, ls[1].Retries4xx)
	}
}

// tenacity's stop_after_attempt given a config object's field: the
// field's default in another file (a dataclass, max_attempts: int = 5) is
// the count — not a stop nobody set (unbounded, a false critical).
func TestTenacityStopFromDataclassField(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"settings/retry.py": `from dataclasses import dataclass


@dataclass
class ModelRetry:
    enabled: bool = True
    max_attempts: int = 5
    min_wait: float = 1.0
`,
		"runner/call.py": `from tenacity import Retrying, stop_after_attempt, wait_random_exponential


def call_model(fn, retry_config):
    retrier = Retrying(
        stop=stop_after_attempt(retry_config.max_attempts),
        wait=wait_random_exponential(min=1, max=6),
        reraise=True,
    )
    return retrier(fn)
`,
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := scan(t, dir)
	if got := layerList(r.Layers); got != "5 5" {
		t.Fatalf("layers %q, want %q", got, "5 5")
	}
	for _, fd := range r.Findings {
		if fd.Kind == FindingUnbounded {
			t.Errorf("unbounded finding on a stop the config gives: %s", fd.Message)
		}
	}
	// The same call with a name no file defines keeps the default.
	ls := scanPython("runner/call.py", []byte(files["runner/call.py"]))
	if len(ls) != 1 || !ls[0].Unbounded {
		t.Errorf("an undefined name: layers %q, want the default standing in", layerList(ls))
	}
}

const localBoundPy = `import time


def listen(max_retries=3):
    return max_retries


def chat(client, messages):
    max_retries = 4
    for attempt in range(max_retries):
        try:
            return client.messages.create(model="m", max_tokens=10, messages=messages)
        except Exception:
            time.sleep(2)


def chat_param(client, messages, max_retries=3):
    for attempt in range(max_retries):
        try:
            return client.messages.create(model="m", max_tokens=10, messages=messages)
        except Exception:
            time.sleep(2)
`

// A loop's bound assigned in its own function just above it is the bound,
// whatever another function's parameter of the same name defaults to; a
// loop with no local assignment takes its parameter's default.
func TestLoopBoundLocalAssignment(t *testing.T) {
	ls := scanPython("agent/chat.py", []byte(localBoundPy))
	if got, want := layerList(ls), "10 4,18 3"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
	if !strings.Contains(ls[0].Setting, "assigned at agent/chat.py:9") {
		t.Errorf("setting %q does not name the local assignment", ls[0].Setting)
	}
}

const timeoutReadsErrorPy = `import subprocess


def run_script(cmd, limit):
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=limit, check=False)
        out = done.stdout.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode("utf-8", errors="replace") if exc.stdout else ""
        out += "timed out"
    return out


def ask(client, prompt):
    try:
        reply = client.generate(prompt, timeout=30)
        text = reply.decode()
    except TimeoutError as exc:
        reply = client.generate(prompt, timeout=60)
        text = reply.decode()
    return text
`

// A timeout handler that reads what the caught error carries
// (exc.stdout.decode()) sends nothing again, though the try called decode
// too; one that calls the guarded call again is a watchdog layer.
func TestTimeoutHandlerReadingTheError(t *testing.T) {
	ls := scanPython("tools/run.py", []byte(timeoutReadsErrorPy))
	if got, want := layerList(ls), "18 2"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
}

// avast/retry-go: retry.Do(fn, retry.Attempts(N)) is N tries, 10 with no
// Attempts option, never-ending with Attempts(0); a project's own package
// also imported as a Do is not it. Shape of j178/chatgpt's Send (round 4).
func TestAvastRetryGo(t *testing.T) {
	r := scan(t, "testdata/goretrylib")
	sameLayers(t, r, []want{
		{"summarise.go:15", "avast-retry-go", 3, true},
		{"summarise.go:23", "avast-retry-go", 10, false},
		{"summarise.go:29", "avast-retry-go", 0, true},
	})
	for _, l := range r.Layers {
		if l.Line == 29 && !l.Unbounded {
			t.Errorf("Attempts(0) retries until success: %+v", l)
		}
	}
}

// LangChain.js's legacy entry points (langchain/chat_models/openai …,
// gpt4-pdf-chatbot-langchain's imports in round 4) are the same
// AsyncCaller: 7 attempts by default; the package's prompts and
// documents are not models.
func TestLangChainJSLegacyEntryPoints(t *testing.T) {
	r := scan(t, "testdata/lclegacy")
	sameLayers(t, r, []want{
		{"src/chain.ts:7", "langchainjs-asynccaller", 7, false},
		{"src/chain.ts:8", "langchainjs-asynccaller", 7, false},
		{"src/chain.ts:9", "langchainjs-asynccaller", 3, true},
	})
}

// Python LangChain's OpenAIEmbeddings: the langchain package's own
// (0.0.x; AgentGPT's pinecone memory in round 4) counts max_retries as
// tenacity attempts, 6 by default; langchain_openai's passes its 2 to
// the SDK (3 attempts). The Embeddings interface is not a model.
func TestLangChainPythonOpenAIEmbeddings(t *testing.T) {
	r := scan(t, "testdata/lcembed")
	sameLayers(t, r, []want{
		{"memory/store.py:9", "langchain-embeddings-legacy", 6, false},
		{"memory/store.py:13", "openai-python", 3, false},
		{"memory/store.py:14", "langchain-embeddings-legacy", 3, true},
	})
}

// A `while True:` that calls the model again when its answer does not
// parse (except: continue, no sleep, no count) never stops on a model that
// keeps answering badly: unbounded (babyagi's code_writing_functions in
// round 4). A loop asking the user and a loop that breaks are not layers.
func TestRegenerateUntilItParsesIsUnbounded(t *testing.T) {
	r := scan(t, "testdata/regenparse")
	// classify.py: the prompt, an f-string of 8 KB whose lines start at
	// column 0, sits between the while and its try.
	sameLayers(t, r, []want{{"classify.py:7", "hand-rolled", 0, true}, {"plan.py:7", "hand-rolled", 0, true}})
	for _, l := range r.Layers {
		if !l.Unbounded {
			t.Errorf("not unbounded: %+v", l)
		}
	}
	crit := false
	for _, f := range r.Findings {
		crit = crit || f.Severity == SeverityCritical
	}
	if !crit {
		t.Errorf("an unbounded layer is critical: %+v", r.Findings)
	}
}

// A Go loop counted to maxAttempts that sleeps and polls a job's status,
// every error returning, re-sends nothing: not a retry layer (tgpt's
// aihorde polls in round 4). The same loop that goes on after an error is.
func TestGoStatusPollIsNotARetry(t *testing.T) {
	r := scan(t, "testdata/gopoll")
	sameLayers(t, r, []want{{"poll.go:43", "hand-rolled", 4, true}})
}

// Jupyter notebooks: the code cells are Python, each layer reported at
// the notebook's JSON line of its source line (mshumer/gpt-prompt-engineer
// in round 4 is notebooks only). A markdown or raw cell and a cell's
// outputs are not code; magics and shell escapes are blanked; a
// truncated notebook is a counted parse failure.
func TestNotebookCodeCells(t *testing.T) {
	r := scan(t, "testdata/notebooks")
	sameLayers(t, r, []want{
		{"eval.ipynb:28", "openai-python", 5, true},
		{"eval.ipynb:29", "anthropic-python", 3, false},
		{"eval.ipynb:33", "tenacity", 5, true}, // a source written as one string
	})
	n := 0
	for _, s := range r.Skipped {
		if s.Reason == skipUnparsed {
			n += s.Count
		}
	}
	if n != 1 {
		t.Errorf("truncated.ipynb: %+v", r.Skipped)
	}
}

// Hostile notebooks: deep nesting, cells that are not objects, sources
// and types of the wrong kind, no cells at all — an error or nothing,
// never a crash, and the good cell of a file still read.
func TestNotebookHostileJSON(t *testing.T) {
	deep := `{"cells": [{"cell_type": "code", "outputs": ` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `, "source": "x = 1\n"}]}`
	for name, in := range map[string]string{
		"deep":        deep,
		"cells-odd":   `{"cells": [1, "s", null, [], {"cell_type": {"a": 1}, "source": 3}, {"cell_type": "code", "source": [1, {"x": 2}, "x = 1\n"]}]}`,
		"source-obj":  `{"cells": [{"cell_type": "code", "source": {"a": "b"}}, {"cell_type": "code", "source": "x = 1\n"}]}`,
		"no-cells":    `{"metadata": {}}`,
		"not-object":  `[1, 2]`,
		"cells-twice": `{"cells": [{"cell_type": "code", "source": "x = 1\n"}], "cells": 5}`,
		"empty":       ``,
		"unclosed":    `{"cells": [{"cell_type": "code", "source": ["x = 1\n"`,
	} {
		src, lineOf, err := notebookPython([]byte(in))
		if err == nil && len(lineOf) != strings.Count(string(src), "\n") {
			t.Errorf("%s: %d lines mapped for %d", name, len(lineOf), strings.Count(string(src), "\n"))
		}
		wantCode := name == "deep" || name == "cells-odd" || name == "source-obj" || name == "cells-twice"
		if wantCode != (err == nil && strings.Contains(string(src), "x = 1")) {
			t.Errorf("%s: src %q err %v", name, src, err)
		}
	}
}
