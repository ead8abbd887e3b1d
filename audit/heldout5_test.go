package audit

import (
	"strings"
	"testing"
)

// Shapes of the fifth held-out check (issue 37), written for these tests:
// each with its near miss.

// A catch of an abort that closes a measurement, writes a last chunk or
// answers the client sends nothing again, though the try called the same
// functions: the call a try waits for is its first await — a `for await`
// loop's head, the stream it reads — not an early return of a guard nor
// the bookkeeping in the loop's body (anything-llm's stream handlers and
// image endpoint in round 5: five false watchdogs). A loop whose head asks
// for the stream and whose abort handler asks again is one.
func TestAbortHandlersThatSendNothing(t *testing.T) {
	r := scan(t, "testdata/heldout5/aborts")
	sameLayers(t, r, []want{
		{"provider.js:6", "openai-node", 1, true},
		{"provider.js:46", "stall-watchdog", 2, true},
	})
}

// Python's `async for` is the same: an except of a timeout that tells the
// client the stream stopped sends nothing to the model; one that asks for the stream again
// is a watchdog.
func TestPythonAsyncForHandlerThatSendsNothing(t *testing.T) {
	src := []byte(`import asyncio
from anthropic import AsyncAnthropic

client = AsyncAnthropic(max_retries=0)


async def relay(ws, stream, meter):
    try:
        async for event in stream:
            await ws.send(event.text)
            meter.close(event)
    except asyncio.TimeoutError:
        await ws.send("[the model stopped answering]")
    await ws.close()


async def ask_again(messages):
    try:
        async for event in client.messages.stream(model="m", messages=messages):
            pass
    except asyncio.TimeoutError:
        return await client.messages.stream(model="m", messages=messages)


async def reopen(messages, out):
    try:
        async with client.messages.stream(model="m", messages=messages) as stream:
            async for text in stream.text_stream:
                out.write(text)
    except asyncio.TimeoutError:
        async with client.messages.stream(model="m", messages=messages) as stream:
            out.write(await stream.get_final_text())
`)
	if got, want := layerList(scanPython("relay.py", src)), "4 1,21 2,30 2"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
}

// A function that calls itself again, the complaint appended, when the
// model's answer cannot be used — no loop, no count — regenerates until the
// model answers well: unbounded (anything-llm's 31 agent providers in
// round 5: `if (result.retryWithError) return this.complete([...messages,
// result.retryWithError], functions)`). The near misses are not layers: a
// count passed on (`attempt + 1`, `tries - 1`), pages or a tree walked, a
// method of the same name on another object; one that counts its retries
// in its object is bounded by that counter's guard (`if (this.retries++ >
// 3) throw`: 5, the hand-counted rule's), not unbounded.
func TestReaskByRecursionIsUnbounded(t *testing.T) {
	r := scan(t, "testdata/heldout5/reask")
	sameLayers(t, r, []want{
		{"agent.js:6", "openai-node", 1, true},
		{"agent.js:15", "hand-rolled", 0, true},
		{"agent.js:59", "hand-rolled", 5, true}, // the counter's own guard, read by jsCounterRetry
		{"agent.js:80", "hand-rolled", 0, true}, // in an else, the conversation sent back extended
		{"judge.py:5", "openai-python", 2, true},
		{"judge.py:17", "hand-rolled", 0, true},
		{"judge.py:39", "hand-rolled", 0, true},
	})
	for _, l := range r.Layers {
		if l.DefaultID == "hand-rolled" && l.Line != 59 && (!l.Unbounded || l.Retries4xx) {
			t.Errorf("%s:%d: %+v", l.File, l.Line, l)
		}
	}
}

// A `while True:` retry with no count, bounded by its backoff: the delay
// doubles after each failure and the loop stops once it passes a cap — 0.125
// s doubled until it passes 60 is 9 attempts; 0.5 doubled until it reaches
// 60 (`>=`, the cap imported from the other file) is 7 (aider's two
// send-with-retries loops in round 5). A poll that backs off without a try
// sends nothing again: not a layer.
func TestLoopBoundedByItsBackoff(t *testing.T) {
	r := scan(t, "testdata/heldout5/delayloops")
	sameLayers(t, r, []want{
		{"llm/coder.py:13", "hand-rolled", 7, true},
		{"llm/models.py:7", "openai-python", 1, true},
		{"llm/models.py:16", "hand-rolled", 9, true},
	})
}

func TestDelayAttempts(t *testing.T) {
	for _, c := range []struct {
		start, factor, limit float64
		strict               bool
		want                 int
	}{
		{0.125, 2, 60, true, 9},     // 0.25 … 32 retried, 64 stops
		{0.5, 2, 64, true, 8},       // 1 … 64 retried (64 is not past 64)
		{0.5, 2, 64, false, 7},      // 64 reaches 64: stops
		{1, 1.5, 10, true, 6},       // 1.5 2.25 3.375 5.06 7.59 retried, 11.39 stops
		{10, 2, 5, true, 0},         // the first growth passes the cap: one try, no layer
		{1, 1, 5, true, 0},          // never grows
		{1e-300, 2, 1e300, true, 0}, // over 1000 tries: not a bound worth reading
	} {
		n, ok := delayAttempts(c.start, c.factor, c.limit, c.strict)
		if !ok {
			n = 0
		}
		if n != c.want {
			t.Errorf("%v: %d, want %d", c, n, c.want)
		}
	}
}

// A counted retry loop whose body is longer than a call's arguments — a
// stream handled event by event, 8 KB before its except and its sleep —
// is read to its end, as a flag loop's is (sweep's 6-try stream loop in
// round 5, its bound a constant local to the function).
func TestLongRetryLoopIsReadWhole(t *testing.T) {
	r := scan(t, "testdata/heldout5/longloop")
	sameLayers(t, r, []want{
		{"stream.py:5", "anthropic-python", 3, false},
		{"stream.py:11", "hand-rolled", 6, true},
	})
}

// BenchmarkHostileRound5: the round-5 rules on files built to make them
// pay — 256 nested counted loops over one long block (the counted loops
// now read 16 KiB of block, not 4), a megabyte of self-returns in a method
// that never closes, of Python self-returns, and of `while True:` loops
// whose delays grow. The round-5 rules take 0.2 s of the 2.7 s a run takes
// on a loaded machine (a CPU profile): the rest is the flag loops' (older)
// reading of 64 KiB per `while True:` in delay.py, 1.5 s.
//
//	go test ./audit -run x -bench HostileRound5 -benchtime 1x
func BenchmarkHostileRound5(b *testing.B) {
	dir := b.TempDir()
	var nested, delay strings.Builder
	for i := range 256 {
		nested.WriteString(strings.Repeat(" ", i) + "for attempt in range(3):\n")
		delay.WriteString(strings.Repeat(" ", i) + "d = 0.5\n" + strings.Repeat(" ", i) + "while True:\n")
	}
	for nested.Len() < 1_000_000 {
		nested.WriteString(strings.Repeat(" ", 256) + "try: sleepy = call_llm(prompt)\n")
		delay.WriteString(strings.Repeat(" ", 256) + "try: d *= 2\n" + strings.Repeat(" ", 256) + "sleepy = 1 if d > CAP else 0\n")
	}
	files := map[string]string{
		"nested.py": nested.String(),
		"delay.py":  delay.String(),
		"reask.js": "class A {\n  async complete(messages, fns) {\n" + strings.Repeat(
			"  if (result.retryWithError) return this.complete([...messages, result.retryWithError], fns);\n"+strings.Repeat("  const messagesModel = 1;\n", 3), 10_000),
		"reask.py": "class J:\n    def ask(self, messages):\n" + strings.Repeat("        if invalid:\n            return self.ask(messages + [x])\n", 18_000),
	}
	benchScanFiles(b, dir, files)
}

// A loop over numbered tries with no try that calls the model and leaves
// on an answer it can use regenerates: one generation per try, one more
// when the first answer was asked for just above the loop (sweep's
// `for attempt in [0, 1, 2]:` description loops and gpt-pilot's reviewer
// re-asked `for i in range(MAX_REVIEW_RETRIES)` in round 5). A loop over
// tries that calls no model, or over items, is not one.
func TestRegenerateOverNumberedTries(t *testing.T) {
	r := scan(t, "testdata/heldout5/regen")
	sameLayers(t, r, []want{
		{"describe.py:11", "hand-rolled", 3, true},
		{"describe.py:22", "hand-rolled", 3, true},
	})
	for _, l := range r.Layers {
		if l.Retries4xx {
			t.Errorf("a re-ask on an answer is not a retry of a 400: %+v", l)
		}
	}
}

// A loop that spends a budget of tries — `remaining_retries =
// max_retries` (a parameter's default, 3) taken from once per try, the
// loop left at 0; `try_times = 4` taken from in the except, left at
// `<= 0` — is a layer of the budget's tries (gpt-pilot's request loop and
// khoj's grounding agent in round 5). A countdown of a queue's items is
// not.
func TestCountdownRetries(t *testing.T) {
	r := scan(t, "testdata/heldout5/countdown")
	sameLayers(t, r, []want{
		{"client.py:11", "hand-rolled", 3, true},
		{"client.py:30", "hand-rolled", 4, true},
	})
}

// The Together Python SDK retries 5 times by default (6 attempts, twice the
// Stainless clients' 3): `Together()` is a layer, `Together(max_retries=0)`
// one attempt; a project's own class named Together is not it (mem0's two
// Together clients in round 5).
func TestTogetherPythonClient(t *testing.T) {
	r := scan(t, "testdata/heldout5/together")
	sameLayers(t, r, []want{
		{"llms/together_llm.py:12", "together-python", 6, false},
		{"llms/together_llm.py:13", "together-python", 1, true},
	})
}

// An agent that hands a failed turn back to itself, counting the tries in
// its own state (`if self.retry_count < self.config.max_retry_count:` …
// `self.retry_count += 1`, reset to 0 when it gives up) generates the code
// bound + 1 times; the bound is a config getter's default in another file
// (`self._get_int("max_retry_count", 3)`): 4 (TaskWeaver's code
// interpreter in round 5). A total of retries that is never reset is not
// a layer.
func TestRetryCountedAcrossTurns(t *testing.T) {
	r := scan(t, "testdata/heldout5/turns")
	sameLayers(t, r, []want{{"agent/coder.py:18", "hand-rolled", 4, true}})
	if len(r.Layers) == 1 && !strings.Contains(r.Layers[0].Setting, "config getter") {
		t.Errorf("setting %q does not say where the bound comes from", r.Layers[0].Setting)
	}
}

// FuzzRoundFiveShapes: the round-5 detectors, seeded with their shapes cut
// short, never panic or hang (`go test ./audit -run x -fuzz
// FuzzRoundFiveShapes`); FuzzDetectors drives them too, through the
// registry.
func FuzzRoundFiveShapes(f *testing.F) {
	for _, s := range []string{
		"class A {\n  async complete(messages) {\n    if (r.retryWithError) return this.complete([...messages, r.retryWithError]",
		"class A {\n  complete(m) { if (x.invalid) return this.complete(",
		"def ask(self, messages):\n    if not parsed:\n        return self.ask(messages + [",
		"d = 0.125\nwhile True:\n    try:\n        f()\n    except E:\n        d *= 2\n        if d > CAP:\n            raise\n        time.sleep(d)\n",
		"d = 1e-300\nwhile True:\n    try: x\n    except: d *= 1.0000001\n    if d > 1e300: raise\n    sleep(d)\n",
		"n = max_retries\nwhile True:\n    if n == 0:\n        raise E\n    n -= 1\n    try:\n        client.chat.completions.create(\n",
		"for attempt in [0, 1, 2]:\n    r = chat_llm(p)\n    if r:\n        break\n",
		"answer = llm(c)\nfor i in range(MAX_RETRIES):\n    if ok(answer): break\n    answer = llm(c)\n",
		"class C:\n    def f(self):\n        if self.retry_count < self.config.max_retry_count:\n            self.retry_count += 1\n    def g(self):\n        self.retry_count = 0\n",
		"self.max_retry_count = self._get_int(\"max_retry_count\", 3)\n",
		"try {\n  for await (const c of stream) { write(c) }\n} catch (e) { if (e.name === 'AbortError') write(c) }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		js := newFile(fkJS, "f.js", b, nil)
		jsReasks(js)
		jsWatchdogs(js)
		py := newFile(fkPython, "f.py", b, nil)
		pyReasks(py)
		pyDelayLoops(py)
		pyRegenLoops(py)
		pyCountdownLoops(py)
		pyTurnRetries(py)
		pyWatchdogs(py)
		scanPython("g.py", b)
	})
}

// A retry of the local machine — a loop that writes a file again while it
// is locked (`except PermissionError`), a backoff on `GitCommandError` —
// sends no request again: no layer (aider's file write and sweep's git
// review in round 5, false layers). The same shapes that also catch a
// model's errors, or an OSError (a connection's too), are layers.
func TestLocalRetriesAreNotLayers(t *testing.T) {
	r := scan(t, "testdata/heldout5/local")
	sameLayers(t, r, []want{
		{"files.py:7", "openai-python", 1, true},
		{"files.py:31", "hand-rolled", 4, true},
		{"files.py:38", "backoff", 3, true},
	})
}

// TypeScript methods carry a return type between their parameters and
// their body: `async complete(messages: Message[]): Promise<Reply> {`.
func TestReaskTypeScriptMethod(t *testing.T) {
	src := []byte(`import OpenAI from "openai";

const client = new OpenAI();

export class Agent {
  async complete(messages: Message[], tools: Tool[] = []): Promise<Reply> {
    const reply = await callTools(client, messages, tools);
    if (reply.retryWithError) return this.complete([...messages, reply.retryWithError], tools);
    return reply;
  }
}

export const ask = async (prompt: string, history: Turn[]): Promise<string> => {
  const out = await client.responses.create({ model: "m", input: [...history, prompt] });
  if (!parseable(out)) return ask(prompt, [...history, { role: "user", content: "JSON only" }]);
  return out.output_text;
};
`)
	r := scanOne(t, "agent.ts", string(src))
	sameLayers(t, r, []want{
		{"agent.ts:3", "openai-node", 3, false},
		{"agent.ts:8", "hand-rolled", 0, true},
		{"agent.ts:15", "hand-rolled", 0, true},
	})
}
