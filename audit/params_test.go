package audit

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37, the known misses of the fourth held-out round: a retry helper
// whose bound is its own parameter — its default, or what its callers pass.
// Fixtures written for these tests, each with its near miss.

const jsParamHelper = `import { api } from "./api";

export async function withRetries(
  fn: () => Promise<void>,
  onError: (error: unknown) => Promise<boolean>,
  retries = 3
): Promise<void> {
  for (let i = 0; i < retries + 1; i++) {
    try {
      return await fn();
    } catch (error) {
      if (!(await onError(error))) return;
    }
  }
}

export const sendAll = async (items: string[], pages = 5) => {
  for (let i = 0; i < pages; i++) {
    try {
      await api.post(items[i]);
    } catch (e) {
      console.log(e);
    }
  }
};
`

const jsParamHelperCalled = `export async function askWithRetry(prompt: string, maxAttempts: number) {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return await client.complete(prompt);
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

export async function summarize(text: string) {
  return askWithRetry(text, 2);
}

export async function forever(text: string) {
  return askWithRetry(text, 99999); // over the plausible cap: the loop is unbounded (rt5 F4)
}

export async function translate(text: string) {
  return askWithRetry(text, MAX_TRIES);
}

const MAX_TRIES = 6;
`

func TestJSLoopBoundByParameterDefault(t *testing.T) {
	ls := scanJS("src/services/api-utils.ts", []byte(jsParamHelper), nil)
	if got, want := layerList(ls), "8 4"; got != want {
		t.Fatalf("layers %q, want %q (retries = 3 by default: 4 tries; a loop over pages is no retry)", got, want)
	}
	if !strings.Contains(ls[0].Setting, "retries = 3, default of the parameter at src/services/api-utils.ts:6") {
		t.Fatalf("setting %q does not show the resolution", ls[0].Setting)
	}
}

func TestJSLoopBoundByCallSites(t *testing.T) {
	ls := scanJS("src/llm.ts", []byte(jsParamHelperCalled), nil)
	// Red team 5 (F4): a call passing 99999 was once left out as a
	// sentinel, hiding a loop that runs 99999 times behind the other calls'
	// 6; a bound over 1,000 is now the layer's, reported unbounded.
	if got, want := layerList(ls), "2 unbounded"; got != want {
		t.Fatalf("layers %q, want %q (the call's 99999 is over the cap, whatever the others' 2 and MAX_TRIES = 6)", got, want)
	}
	if !strings.Contains(ls[0].Setting, "passed by the call") || !strings.Contains(ls[0].Setting, "maxAttempts = 99999") || !strings.Contains(ls[0].Setting, "effectively unbounded") {
		t.Fatalf("setting %q does not show the call site", ls[0].Setting)
	}
}

const pyParamHelper = `import time
from openai import OpenAI

client = OpenAI(max_retries=0)


def with_retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(2)


def draft(prompt):
    return with_retry(lambda: client.responses.create(input=prompt), attempts=5)


def outline(prompt):
    return with_retry(lambda: client.responses.create(input=prompt))


def walk(pages=4):
    for page in range(pages):
        rows = fetch(page)
        if not rows:
            break
`

func TestPythonLoopBoundByCallSites(t *testing.T) {
	ls := scanPython("app/llm.py", []byte(pyParamHelper))
	var loops []Layer
	for _, l := range ls {
		if l.DefaultID == "hand-rolled" {
			loops = append(loops, l)
		}
	}
	if got, want := layerList(loops), "8 5"; got != want {
		t.Fatalf("loops %q, want %q (the default 3, a call's attempts=5)", got, want)
	}
	if !strings.Contains(loops[0].Setting, "passed by the call") {
		t.Fatalf("setting %q does not show the call site", loops[0].Setting)
	}
}

const goParamHelper = `package search

import "errors"

func optimize(q string) (string, error) {
	return extractWithRetry(q, 2)
}

func extractWithRetry(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if out, err := askModel(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", errors.New("no answer")
}

func collect(items []string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		if v, err := lookup(items[i]); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func all(items []string) []string { return collect(items, 10) }
`

func TestGoLoopBoundByArgument(t *testing.T) {
	ls, err := scanGo("search/search.go", []byte(goParamHelper))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := layerList(ls), "10 2"; got != want {
		t.Fatalf("layers %q, want %q (maxAttempts passed as 2; a loop over items is no retry)", got, want)
	}
	if !strings.Contains(ls[0].Setting, "maxAttempts = 2, passed by the call at search/search.go:6") {
		t.Fatalf("setting %q does not show the call site", ls[0].Setting)
	}
}

const goScopeAndStatus = `package provider

import (
	"net/http"
	"time"
)

const maxRetries = 2

func poll(c *http.Client, req *http.Request) error {
	const maxRetries = 60
	for i := 0; i < maxRetries; i++ {
		time.Sleep(2 * time.Second)
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		if res.Header.Get("X-Done") == "1" {
			return nil
		}
	}
	return nil
}

func send(c *http.Client, req *http.Request) (*http.Response, error) {
	for i := 0; i < maxRetries; i++ {
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}

func ask(c *http.Client, req *http.Request) (*http.Response, error) {
	const tries = 4
	for i := 0; i < tries; i++ {
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 {
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, nil
}

func other() {
	const tries = 9
	_ = tries
}
`

func TestGoStatusRetryAndScope(t *testing.T) {
	ls, err := scanGo("provider/http.go", []byte(goScopeAndStatus))
	if err != nil {
		t.Fatal(err)
	}
	// poll (line 12) is a status poll: every error leaves, no status test.
	// send retries a 429 only, bounded by the package-level maxRetries (2),
	// not poll's local 60; ask by its own tries (4), not other's 9.
	if got, want := layerList(ls), "26 2,41 4"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
	if ls[0].Retries4xx || !strings.Contains(ls[0].Setting, "maxRetries = 2, constant at provider/http.go:8") {
		t.Fatalf("send: retries 4xx %v, setting %q", ls[0].Retries4xx, ls[0].Setting)
	}
	if !strings.Contains(ls[1].Setting, "defined in the loop's function") {
		t.Fatalf("ask: setting %q", ls[1].Setting)
	}
}

const awsV1Go = `package ai

import (
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/sagemakerruntime"
	"github.com/aws/aws-sdk-go/service/bedrockruntime"
	"github.com/aws/aws-sdk-go/aws/client"
)

type Client struct {
	sm *sagemakerruntime.SageMakerRuntime
	br *bedrockruntime.BedrockRuntime
}

func (c *Client) Configure(region string) {
	sess := session.Must(session.NewSession(&aws.Config{Region: aws.String(region)}))
	c.sm = sagemakerruntime.New(sess)
	c.br = bedrockruntime.New(sess, &aws.Config{MaxRetries: aws.Int(1)})
	_ = client.DefaultRetryer{}
}

func New(s string) string { return s }
`

func TestAWSSDKGoV1Clients(t *testing.T) {
	ls, err := scanGo("pkg/ai/sagemaker.go", []byte(awsV1Go))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.DefaultID+" "+layerList([]Layer{l}))
	}
	// sagemakerruntime.New(sess): 3 retries, 4 attempts; MaxRetries 1: 2.
	// The file's own New is no client.
	if g, want := strings.Join(got, ","), "aws-sdk-go-v1 18 4,aws-sdk-go-v1 19 2"; g != want {
		t.Fatalf("layers %q, want %q", g, want)
	}
}

func TestAWSSDKGoV1SessionRetries(t *testing.T) {
	src := `package ai

import (
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/sagemakerruntime"
)

func client() *sagemakerruntime.SageMakerRuntime {
	sess := session.Must(session.NewSession(&aws.Config{
		Region:     aws.String("us-east-1"),
		MaxRetries: aws.Int(5),
	}))
	return sagemakerruntime.New(sess)
}
`
	ls, err := scanGo("pkg/ai/sm.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := layerList(ls); got != "14 6" || ls[0].Confidence != ConfidenceLow {
		t.Fatalf("layers %q (confidence %s), want 14 6 at low confidence: the session's MaxRetries 5", got, ls[0].Confidence)
	}
}

// TestNewRulesOnHostileFiles: files of a megabyte built of the shapes the
// issue-37 rules read — loops bounded by parameters with thousands of
// calls, dicts splatted into clients, Flow routers — are read in bounded
// time, the layers bounded per file.
func TestNewRulesOnHostileFiles(t *testing.T) {
	dir := t.TempDir()
	var js, gosrc, py, flow strings.Builder
	js.WriteString("export async function w(fn, retries = 3) {\n  for (let i = 0; i < retries + 1; i++) {\n    try { return await fn(); } catch (e) { last = e; }\n  }\n}\n")
	for i := 0; i < 300; i++ { // loops bounded by a module constant, each in its function
		fmt.Fprintf(&js, "function h%d(fn) {\n  for (let attempt = 0; attempt < MAX; attempt++) {\n    try { return fn(); } catch (e) { last = e; }\n  }\n}\n", i)
	}
	for i := 0; js.Len() < 900<<10; i++ {
		fmt.Fprintf(&js, "w(a, %d); try { return await w(b, 2) } catch (e) { return await w(b, 2) }\n", i%50)
	}
	js.WriteString("const MAX = 3;\n")
	gosrc.WriteString("package p\n\n")
	for i := 0; gosrc.Len() < 900<<10; i++ {
		fmt.Fprintf(&gosrc, "func f%d(n int) error {\n\tfor attempt := 0; attempt < n; attempt++ {\n\t\tif err := g(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn nil\n}\n\nfunc c%d() { f%d(%d); f0(7) }\n\n", i, i, i, i%9)
	}
	py.WriteString("from openai import OpenAI\nfrom langchain.chat_models import ChatOpenAI\n\nclass C(ChatOpenAI):\n    pass\n\n")
	for i := 0; py.Len() < 900<<10; i++ {
		fmt.Fprintf(&py, "kw = {\"max_retries\": %d}\nm = C\nclient = OpenAI(**kw)\nx = m(**kw)\n", i%7)
	}
	flow.WriteString("from crewai.flow.flow import Flow, listen, router, start\n\n")
	for i := 0; flow.Len() < 900<<10; i++ {
		fmt.Fprintf(&flow, "    @start(\"r%d\")\n    def g%d(self):\n        pass\n\n    @router(g%d)\n    def e%d(self):\n        if self.state.retry_count > 3:\n            return \"x\"\n        self.state.retry_count += 1\n        return \"r%d\"\n\n", i, i, i, i, i)
	}
	for name, body := range map[string]string{"w.ts": js.String(), "p.go": gosrc.String(), "k.py": py.String(), "flow.py": flow.String()} {
		write(t, filepath.Join(dir, name), []byte(body))
	}
	var r *Result
	var err error
	noHang(t, "the new rules on a hostile file", func() { r, err = Scan([]string{dir}, DefaultOptions()) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d layers, skipped %+v", len(r.Layers), r.Skipped)
	per := map[string]int{}
	for _, l := range r.Layers {
		per[l.File]++
	}
	t.Logf("per file: %v", per)
	if per["flow.py"] == 0 || per["p.go"] == 0 || per["w.ts"] == 0 || per["k.py"] == 0 {
		t.Errorf("per file %v: every file holds layers the rules must still find", per)
	}
	for f, n := range per {
		if n > 4*maxCandidates {
			t.Errorf("%s: %d layers, more than the per-file bounds allow", f, n)
		}
	}
}

// FuzzKnownMissRules: no input makes the issue-37 known-miss rules panic
// or hang — parameter bounds and their calls, splatted dicts, class
// aliases, retry-once, Flow routers, the Go v1 clients — seeded with their
// shapes and their broken halves.
func FuzzKnownMissRules(f *testing.F) {
	for _, s := range []string{jsParamHelper, jsParamHelperCalled, pyParamHelper, goParamHelper, goScopeAndStatus, awsV1Go,
		kwargsFactoryPy, kwargsSDKPy, syncRetryOncePy, jsRetryOnceTs, crewFlowPy,
		"function w(fn, retries = ", "w(", "for (let i = 0; i < retries + 1; i++) { try { } catch (e) { } }",
		"def f(a, *, attempts=3):\n    for x in range(attempts):\n        try:\n            pass\n        except Exception:\n            time.sleep(1)\nf(attempts=",
		"package p\nfunc f(n int){for attempt:=0;attempt<n;attempt++{if err:=g();err==nil{return}}}\nfunc h(){f(",
		"from openai import OpenAI\nkw = {\"max_retries\": \nOpenAI(**kw",
		"from crewai.flow.flow import router\n@router(g)\ndef e(self):\n    if self.state.retry_count > ",
		"try:\n    x = f(\nexcept Exception:\n    x = f("} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		scanJS("f.ts", b, nil)
		scanPython("f.py", b)
		scanGo("f.go", b)
	})
}

// A loop whose bound is no parameter, after one whose bound is, is not
// taken for a call of the first one's function: each loop's function is
// its own (the cache's last function was kept across loops).
func TestParamFunctionNotCarriedToTheNextLoop(t *testing.T) {
	src := `export async function a(fn, retries = 2) {
  for (let i = 0; i < retries; i++) {
    try { return await fn(); } catch (e) { last = e; }
  }
}

export async function b(fn) {
  for (let attempt = 0; attempt < this.retries; attempt++) {
    try { return await fn(); } catch (e) { last = e; }
  }
}
`
	f := newFile(fkJS, "src/r.ts", []byte(src), nil)
	ls, _ := detectIn(f)
	for _, l := range ls {
		if l.Line == 8 && l.calledAs != nil {
			t.Fatalf("b's loop carries %+v, a's function", *l.calledAs)
		}
	}
}

// A JavaScript bound by scope: the loop's own function's constant, else
// the module's, never the largest same-named constant of another function.
func TestJSLoopBoundByScope(t *testing.T) {
	src := `const MAX_TRIES = 2;

export async function quick(fn) {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    try { return await fn(); } catch (e) { last = e; }
  }
}

export async function patient(fn) {
  const MAX_TRIES = 8;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    try { return await fn(); } catch (e) { last = e; }
  }
}
`
	ls := scanJS("src/tries.ts", []byte(src), nil)
	if got, want := layerList(ls), "4 2,11 8"; got != want {
		t.Fatalf("layers %q, want %q (quick: the module's 2, not patient's 8)", got, want)
	}
	if !strings.Contains(ls[0].Setting, "module constant at src/tries.ts:1") || !strings.Contains(ls[1].Setting, "constant in the loop's function at src/tries.ts:10") {
		t.Fatalf("settings %q, %q", ls[0].Setting, ls[1].Setting)
	}
}

// A retry decorator written by hand: the loop is in the wrapper, its bound
// the outer function's parameter, given by the decorator's use.
func TestPythonRetryDecoratorByHand(t *testing.T) {
	src := `import functools
import time


def retry(times=3, delay=1.0):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except Exception:
                    time.sleep(delay)
        return wrapper
    return deco


@retry(times=5)
def ask(client, prompt):
    return client.messages.create(model="m", max_tokens=10, messages=[prompt])


@retry()
def tag(client, text):
    return client.messages.create(model="m", max_tokens=5, messages=[text])
`
	ls := scanPython("lib/retrying.py", []byte(src))
	if got, want := layerList(ls), "9 5"; got != want {
		t.Fatalf("layers %q, want %q (the decorator's use passes times=5; the bare use its default 3)", got, want)
	}
}
