package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 5 (issue 37 round), findings F1–F6: fixtures of our own, in the
// shape of the cases.

// F1: a name a call passes is the caller's own when its function assigns
// it, not the module's constant of the same spelling.
func TestCallArgumentReadInTheCallersScope(t *testing.T) {
	py := `import time
from openai import OpenAI

client = OpenAI(max_retries=0)
attempts = 40


def with_retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2)


def draft(prompt):
    attempts = 2
    return with_retry(lambda: client.responses.create(input=prompt), attempts=attempts)
`
	var loops []Layer
	for _, l := range scanPython("app/llm.py", []byte(py)) {
		if l.DefaultID == "hand-rolled" {
			loops = append(loops, l)
		}
	}
	if got, want := layerList(loops), "9 2"; got != want {
		t.Errorf("python: loops %q, want %q (draft's attempts = 2, not the module's 40)", got, want)
	}
	gosrc := `package search

const n = 40

func optimize(q string) (string, error) {
	n := 2
	return extractWithRetry(q, n)
}

func extractWithRetry(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if out, err := askModel(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", nil
}
`
	dir := t.TempDir()
	files := map[string]string{
		"search/search.go": gosrc,
		"web/retry.js": `export async function withRetry(fn, retries = 2) {
  for (let attempt = 0; attempt <= retries; attempt++) {
    try {
      return await fn();
    } catch (e) {
      last = e;
    }
  }
}
`,
		"web/ask.js": `import { withRetry } from "./retry";
const n = 40;
export async function ask(prompt) {
  const n = 1;
  return withRetry(() => client.chat.completions.create({ messages: [prompt] }), n);
}
`,
		// A same-shaped call in another file of the package: its own n.
		"search/other.go": `package search

func deep(q string) { m := 3; extractWithRetry(q, m) }
`,
	}
	for rel, body := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(rel)), []byte(body))
	}
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Layer{}
	for _, l := range r.Layers {
		got[l.File] = l
	}
	if l := got["search/search.go"]; l.Attempts != 3 || strings.Contains(l.Setting, "40") {
		t.Errorf("go: %d attempts (%q), want 3: optimize's n := 2, other.go's m := 3, never the package's 40", l.Attempts, l.Setting)
	}
	if l := got["web/retry.js"]; l.Attempts != 3 || strings.Contains(l.Setting, "40") {
		t.Errorf("js: %d attempts (%q), want the default's 3: ask's own n = 1, not the module's 40", l.Attempts, l.Setting)
	}
}

// F2: a splatted dict's max_retries taken out before the call (pop, del,
// clear) no longer counts; a lambda's own parameter shadows the outer dict.
func TestKwargsDictKeyRemovedOrShadowed(t *testing.T) {
	src := `from openai import OpenAI


def popped():
    kw = {"max_retries": 9, "timeout": 10}
    kw.pop("max_retries")
    return OpenAI(**kw)


def deleted():
    kw = {"max_retries": 9, "timeout": 10}
    del kw["max_retries"]
    return OpenAI(**kw)


def put_back():
    kw = {"max_retries": 9}
    kw.pop("max_retries", None)
    kw["max_retries"] = 5
    return OpenAI(**kw)


def shadowed():
    kw = {"max_retries": 9}
    mk = lambda kw={"max_retries": 2}: OpenAI(**kw)
    return mk()


def said_only():
    kw = {"max_retries": 7}
    log("kw.pop('max_retries') is not called")  # del kw["max_retries"]
    return OpenAI(**kw)
`
	ls := scanPython("svc/clients.py", []byte(src))
	if got, want := layerList(ls), "7 3,13 3,20 6,25 3,32 8"; got != want {
		t.Fatalf("layers %q, want %q (popped, deleted: the default 3; put back: 6; the lambda's own kw: 3; a string or comment removes nothing: 8)", got, want)
	}
}

// F4: a bound over 1,000 — a default, a literal range, a countdown's
// start, a call — is reported unbounded (critical), never a smaller call's
// value and never dropped.
func TestBoundOverTheCapIsUnbounded(t *testing.T) {
	src := `import time
from openai import OpenAI

client = OpenAI(max_retries=0)


def big_default(fn, attempts=1000000000000):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2)


def first(prompt):
    return big_default(lambda: client.responses.create(input=prompt), attempts=4)


def literal(prompt):
    for attempt in range(10**12):
        try:
            return client.responses.create(input=prompt)
        except Exception:
            time.sleep(2)


def countdown(prompt):
    remaining_retries = 10**12
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            if remaining_retries <= 0:
                raise
            remaining_retries -= 1
            time.sleep(1)


def small(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2)


def second(prompt):
    small(lambda: client.responses.create(input=prompt), attempts=5000)
    return small(lambda: client.responses.create(input=prompt), attempts=2)


def near(prompt):
    for attempt in range(1000):
        try:
            return client.responses.create(input=prompt)
        except Exception:
            time.sleep(2)
`
	dir := t.TempDir()
	write(t, filepath.Join(dir, "app", "llm.py"), []byte(src))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var loops []string
	for _, l := range r.Layers {
		if l.DefaultID == "hand-rolled" {
			loops = append(loops, layerList([]Layer{l}))
		}
	}
	if got, want := strings.Join(loops, ","), "8 unbounded,20 unbounded,29 unbounded,40 unbounded,53 1000"; got != want {
		t.Fatalf("loops %q, want %q (a default, a range, a countdown, a call over 1,000: unbounded; exactly 1,000 is a bound)", got, want)
	}
	crit := 0
	for _, fd := range r.Findings {
		if fd.Kind == FindingUnbounded && fd.Severity == SeverityCritical {
			crit++
		}
	}
	if crit != 4 {
		t.Fatalf("%d critical unbounded_layer findings, want 4: %+v", crit, r.Findings)
	}
}

// F3: a Go helper one of whose calls in its own file gives it one try
// (`< 2`) keeps its layer when another file of the package passes more.
func TestGoHelperOneTryHereMoreElsewhere(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "search", "search.go"), []byte(`package search

func optimize(q string) (string, error) {
	return extractWithRetry(q, 2)
}

func extractWithRetry(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt < maxAttempts; attempt++ {
		if out, err := askModel(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", nil
}
`))
	write(t, filepath.Join(dir, "search", "other.go"), []byte("package search\n\nfunc again(q string) { extractWithRetry(q, 7) }\n"))
	// The near miss: alone, one try is no retry layer.
	write(t, filepath.Join(dir, "lone", "lone.go"), []byte(`package lone

func optimize(q string) (string, error) {
	return extractWithRetry(q, 2)
}

func extractWithRetry(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt < maxAttempts; attempt++ {
		if out, err := askModel(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", nil
}
`))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || r.Layers[0].File != "search/search.go" || r.Layers[0].Attempts != 6 || !strings.Contains(r.Layers[0].Setting, "other.go:3") {
		t.Fatalf("layers %+v, want one: search/search.go, 6 tries (other.go passes 7, with <)", r.Layers)
	}
}

// F5: a budget tested in the handler, after the call was tried, makes one
// try more than its start; tested before the call, exactly its start.
func TestCountdownTestedAfterTheCall(t *testing.T) {
	src := `import time
import openai
from openai import OpenAI

client = OpenAI(max_retries=0)


def after(prompt):
    remaining_retries = 3
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            if remaining_retries <= 0:
                raise
            remaining_retries -= 1
            time.sleep(1)


def before(prompt):
    remaining_retries = 3
    while True:
        if remaining_retries == 0:
            raise RuntimeError("out of tries")
        remaining_retries -= 1
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except openai.APIConnectionError:
            continue
`
	var loops []Layer
	for _, l := range scanPython("app/llm.py", []byte(src)) {
		if strings.Contains(l.Setting, "counted down") {
			loops = append(loops, l)
		}
	}
	if got, want := layerList(loops), "10 4,22 3"; got != want {
		t.Fatalf("loops %q, want %q (tested after the call: 3 + 1 tries; before it: 3): %+v", got, want, loops)
	}
}

// F6: a parameter forwarded through a function (draft passes its own
// attempts on) takes what draft's callers pass, not only draft's default;
// functions calling each other in a ring end.
func TestForwardedParameterFollowsTheChain(t *testing.T) {
	src := `import time
from openai import OpenAI

client = OpenAI(max_retries=0)


def with_retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2)
    return ring(fn, attempts)


def draft(prompt, attempts=9):
    return with_retry(lambda: client.responses.create(input=prompt), attempts=attempts)


def top(prompt):
    return draft(prompt, attempts=12)


def ring(fn, attempts=4):
    return with_retry(fn, attempts=attempts)
`
	var loops []Layer
	for _, l := range scanPython("app/llm.py", []byte(src)) {
		if l.DefaultID == "hand-rolled" {
			loops = append(loops, l)
		}
	}
	if got, want := layerList(loops), "8 12"; got != want {
		t.Errorf("loops %q, want %q (top passes 12 through draft)", got, want)
	} else if !strings.Contains(loops[0].Setting, "llm.py:21") {
		t.Errorf("setting %q does not show top's call", loops[0].Setting)
	}
	// Go: a caller forwarding its own parameter.
	gosrc := `package search

func extractWithRetry(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if out, err := askModel(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", nil
}

func draft(q string, n int) (string, error) { return extractWithRetry(q, n) }

func top(q string) { draft(q, 12); extractWithRetry(q, 2) }
`
	ls, err := scanGo("search/search.go", []byte(gosrc))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := layerList(ls), "4 12"; got != want {
		t.Fatalf("go: layers %q, want %q (top passes 12 through draft's n)", got, want)
	}
}

// The findings' fixes on hostile shapes: a literal of thousands of digits
// and a huge power are bounds over the cap (unbounded, not dropped); a fan
// of functions forwarding a parameter to each other ends, and a minified
// line of lambdas and splats is read once per call.
func TestRT5FixesOnHostileShapes(t *testing.T) {
	src := "import time\n\n\ndef w(fn, attempts=" + strings.Repeat("9", 5000) + "):\n" +
		"    for attempt in range(attempts):\n        try:\n            return fn()\n        except Exception:\n            time.sleep(1)\n\n\n" +
		"def p(fn):\n    for attempt in range(10**99999999):\n        try:\n            return fn()\n        except Exception:\n            time.sleep(1)\n"
	var got []string
	for _, l := range scanPython("app/h.py", []byte(src)) {
		got = append(got, layerList([]Layer{l}))
	}
	if g, want := strings.Join(got, ","), "5 unbounded,13 unbounded"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
	var b strings.Builder
	b.WriteString("import time\n\n\ndef with_retry(fn, attempts=3):\n    for attempt in range(attempts):\n        try:\n            return fn()\n        except Exception:\n            time.sleep(2)\n\n")
	for i := range 64 {
		fmt.Fprintf(&b, "def a%d(fn, attempts=2):\n    return with_retry(fn, attempts=attempts)\n", i)
		for j := range 64 {
			fmt.Fprintf(&b, "def b%d_%d(fn, attempts=2):\n    return a%d(fn, attempts=attempts)\n", i, j, i)
			fmt.Fprintf(&b, "def c%d_%d(fn):\n    return b%d_%d(fn, attempts=5)\n", i, j, i, j)
		}
	}
	b.WriteString("kw = {\"max_retries\": 4}\nfrom openai import OpenAI\n" + strings.Repeat("x = (lambda kw={}: OpenAI(**kw)); ", 3000) + "\n")
	var loop []Layer
	var fan, chain []Layer
	noHang(t, "fan and chain of forwarding functions", func() {
		fan = scanPython("app/fan.py", []byte(b.String()))
	})
	for _, l := range fan {
		if l.DefaultID == "hand-rolled" {
			loop = append(loop, l)
		}
	}
	if got, want := layerList(loop), "5 5"; got != want {
		t.Fatalf("fan: loops %q, want %q (the c functions' 5 through b and a)", got, want)
	}
	// A chain of loops each forwarding its bound to the next: every setting
	// stays short, however long the chain.
	var c strings.Builder
	c.WriteString("import time\n")
	for i := range 200 {
		fmt.Fprintf(&c, "def g%d(fn, attempts=3):\n    for k in range(attempts):\n        try:\n            return g%d(fn, attempts)\n        except Exception:\n            time.sleep(1)\n", i, i+1)
	}
	noHang(t, "chain of forwarding loops", func() { chain = scanPython("app/chain.py", []byte(c.String())) })
	for _, l := range chain {
		if len(l.Setting) > 600 {
			t.Fatalf("line %d: setting of %d bytes: %.200s…", l.Line, len(l.Setting), l.Setting)
		}
	}
}

// The countdown's own documented shape (countdown.go) was also read by the
// flag-loop rule as a `while True:` with no count — a second, unbounded
// layer on the same line and a false critical — and, catching only a
// connection error and a rate limit, as retrying a 400. The decrement is a
// count; the handlers name what it retries.
func TestCountdownIsOneBoundedLayer(t *testing.T) {
	const src = `import openai


class Client:
    async def ask(self, convo, max_retries=3):
        remaining_retries = max_retries
        while True:
            if remaining_retries == 0:
                raise RuntimeError("out of retries")
            remaining_retries -= 1
            try:
                return await self.client.chat.completions.create(model="gpt-4o", messages=convo)
            except %s:
                continue
`
	for _, c := range []struct {
		except  string
		want4xx bool
	}{
		{"(openai.APIConnectionError, openai.RateLimitError)", false},
		{"openai.APITimeoutError as e", false},
		{"Exception", true},
		{"openai.APIStatusError", true}, // a 400 is an APIStatusError
	} {
		ls := scanPython("client.py", []byte(strings.Replace(src, "%s", c.except, 1)))
		var loops []Layer
		for _, l := range ls {
			if l.Line == 7 {
				loops = append(loops, l)
			}
		}
		if len(loops) != 1 || loops[0].Unbounded || loops[0].Attempts != 3 {
			t.Fatalf("except %s: %+v, want one layer of 3 tries", c.except, loops)
		}
		if loops[0].Retries4xx != c.want4xx {
			t.Errorf("except %s: retries 4xx %v, want %v", c.except, loops[0].Retries4xx, c.want4xx)
		}
	}
}

// The skipped files a report names are the first in path order, not the
// first the workers happened to reach: the same tree gives the same JSON
// (anything-llm's nine Helm templates named three ways in three runs).
func TestSkipExamplesAreTheFirstInOrder(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("t%02d.yaml", i))
		if err := os.WriteFile(p, []byte("kind: Deployment\nname: {{ .Values.name }}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opt := DefaultOptions()
	opt.Workers = 8
	for range 20 {
		r, err := Scan([]string{dir}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Skipped) != 1 || r.Skipped[0].Count != 40 {
			t.Fatalf("skipped %+v, want 40 templates", r.Skipped)
		}
		for i, e := range r.Skipped[0].Examples {
			if want := filepath.ToSlash(filepath.Join(dir, fmt.Sprintf("t%02d.yaml", i))); e != want {
				t.Fatalf("example %d is %s, want %s (all: %v)", i, e, want, r.Skipped[0].Examples)
			}
		}
	}
}
