package audit

import (
	"os"
	"path/filepath"
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
