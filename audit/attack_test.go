package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"
)

// How a hostile or unlucky repository breaks a scanner, each turned into a
// test: a huge file, a symlink loop and a link out of the tree, binary
// files, a tree deeper than any real one, minified one-line JavaScript,
// names that carry terminal escapes, a file of a million matches, a FIFO.

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

const layerTS = "import Anthropic from \"@anthropic-ai/sdk\";\nexport const c = new Anthropic();\n"

func skipped(r *Result, reason string) int {
	for _, s := range r.Skipped {
		if s.Reason == reason {
			return s.Count
		}
	}
	return 0
}

func TestHugeFileIsSkippedNotRead(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("export const x = 1;\n"), (8<<20)/20)
	write(t, filepath.Join(dir, "big.ts"), append([]byte(layerTS), big...))
	write(t, filepath.Join(dir, "ok.ts"), []byte(layerTS))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || r.Layers[0].File != "ok.ts" || skipped(r, skipTooLarge) != 1 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func TestSymlinksAreNeverFollowed(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret", "llm.ts"), []byte(layerTS))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "app.ts"), []byte(layerTS))
	for _, l := range []struct{ target, name string }{
		{dir, "src/loop"},   // a loop back to the root
		{"..", "src/up"},    // a loop up one level
		{outside, "escape"}, // out of the tree
		{filepath.Join(outside, "secret", "llm.ts"), "x.ts"}, // a file out of the tree
		{"/", "root"},
	} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || r.Layers[0].File != "src/app.ts" {
		t.Fatalf("layers %v: only the tree's own file", layersOf(r))
	}
	if skipped(r, skipSymlink) != 5 {
		t.Errorf("symlinks skipped %d, want 5: %+v", skipped(r, skipSymlink), r.Skipped)
	}
}

func TestARootGivenAsASymlinkIsScanned(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "repo", "app.ts"), []byte(layerTS))
	link := filepath.Join(dir, "current")
	if err := os.Symlink(filepath.Join(dir, "repo"), link); err != nil {
		t.Fatal(err)
	}
	r, err := Scan([]string{link}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 {
		t.Fatalf("the root the user names is theirs to follow: layers %v", layersOf(r))
	}
}

// TestAFileGivenAsASymlinkIsScanned: `audit link.py`, a link the user
// named, is read through (it said "unreadable", 0 layers, exit 0).
func TestAFileGivenAsASymlinkIsScanned(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "app.ts"), []byte(layerTS))
	for name, target := range map[string]string{"link.ts": "src/app.ts", "current": "src/app.ts"} {
		link := filepath.Join(dir, name)
		if err := os.Symlink(filepath.Join(dir, target), link); err != nil {
			t.Fatal(err)
		}
		r, err := Scan([]string{link}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Layers) != 1 || r.Files != 1 || len(r.Skipped) != 0 {
			t.Errorf("%s: layers %v, %d files, skipped %+v", name, layersOf(r), r.Files, r.Skipped)
		}
	}
}

func TestBinaryFilesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "model.py"), append([]byte("from anthropic import Anthropic\nc = Anthropic()\n\x00\x01\x02"), make([]byte, 100)...))
	write(t, filepath.Join(dir, "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 0 || skipped(r, skipBinary) != 1 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func TestDeepTreeStopsAtTheDepthLimit(t *testing.T) {
	dir := t.TempDir()
	p := dir
	for range 200 {
		p = filepath.Join(p, "d")
	}
	write(t, filepath.Join(p, "deep.ts"), []byte(layerTS))
	write(t, filepath.Join(dir, "d", "shallow.ts"), []byte(layerTS))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || r.Layers[0].File != "d/shallow.ts" || skipped(r, skipDepth) != 1 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func TestMinifiedOneLineJavaScriptIsSkipped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`import pRetry from "p-retry";`)
	for b.Len() < 900_000 {
		b.WriteString(`var a=pRetry(function(){return fetch("/x")},{retries:5});`)
	}
	write(t, filepath.Join(dir, "assets", "index-3f9a.js"), []byte(b.String()))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 0 || skipped(r, skipGenerated) != 1 {
		t.Fatalf("layers %d skipped %+v", len(r.Layers), r.Skipped)
	}
}

// TestALongPromptIsNotMinified: vercel/ai's examples put a 9 KB prompt on
// one line of a string; the call around it is still a layer.
func TestALongPromptIsNotMinified(t *testing.T) {
	dir := t.TempDir()
	src := "import { generateText } from 'ai';\n\nconst r = await generateText({\n  model,\n  system:\n    \"" + strings.Repeat("a story of a clocktower. ", 400) + "\",\n  prompt: 'go',\n});\n"
	write(t, filepath.Join(dir, "example.ts"), []byte(src))
	r, err := Scan([]string{filepath.Join(dir, "example.ts")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || r.Layers[0].DefaultID != "vercel-ai" || r.Layers[0].File != "example.ts" {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func TestHostileNamesNeverReachTheTerminalRaw(t *testing.T) {
	dir := t.TempDir()
	name := "evil\x1b]0;pwned\x07\n[[layer]]\nname = \"x\".ts"
	write(t, filepath.Join(dir, name), []byte(layerTS))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 {
		t.Fatalf("layers %v", layersOf(r))
	}
	var md, tm, sarif bytes.Buffer
	r.WriteMarkdown(&md)
	r.WriteTOML(&tm)
	r.WriteSARIF(&sarif, "t")
	for what, out := range map[string][]byte{"markdown": md.Bytes(), "toml": tm.Bytes(), "sarif": sarif.Bytes()} {
		if bytes.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s carries a raw escape:\n%q", what, out)
		}
	}
	var parsed struct {
		Layer []map[string]any `toml:"layer"`
	}
	if _, err := toml.Decode(tm.String(), &parsed); err != nil || len(parsed.Layer) != 1 {
		t.Errorf("a file name injected into the TOML (%v, %d layers):\n%s", err, len(parsed.Layer), tm.String())
	}
}

func TestAMillionMatchesAreBounded(t *testing.T) {
	dir := t.TempDir()
	src := "import Anthropic from \"@anthropic-ai/sdk\";\n" + strings.Repeat("new Anthropic({ maxRetries: 1 });\n", 30_000)
	for _, f := range []string{"a.ts", "b.ts", "c.ts"} {
		write(t, filepath.Join(dir, f), []byte(src))
	}
	// 60,000 unclosed calls on 3,000 lines: each would follow 4 KiB of
	// arguments (16 s before the per-file bound, 0.4 s after).
	write(t, filepath.Join(dir, "open.ts"), []byte("import Anthropic from \"@anthropic-ai/sdk\";\n"+strings.Repeat(strings.Repeat("new Anthropic(", 20)+"\n", 3000)))
	opt := DefaultOptions()
	opt.MaxLayers = 700
	r, err := Scan([]string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 700 || !r.Truncated {
		t.Fatalf("%d layers, truncated %v: the limit must hold and say so", len(r.Layers), r.Truncated)
	}
	if n := skipped(r, skipPartial); n < 3 {
		t.Errorf("files read in part: %d, want each file of over %d matches said: %+v", n, maxCandidates, r.Skipped)
	}
}

func TestAFIFOIsNotOpened(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.ts"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "ok.ts"), []byte(layerTS))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || skipped(r, skipNotFile) != 1 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func TestVendoredDirectoriesAreSkippedAndSaid(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "node_modules", "openai", "client.js"), []byte("import OpenAI from \"openai\";\nnew OpenAI();\n"))
	write(t, filepath.Join(dir, "vendor", "github.com", "x", "y.go"), []byte("package y\n"))
	write(t, filepath.Join(dir, "app.ts"), []byte(layerTS))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 1 || skipped(r, skipVendored) != 2 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

// FuzzDetectors: no input makes a detector panic or hang.
func FuzzDetectors(f *testing.F) {
	for _, s := range []string{layerTS, "from tenacity import retry\n@retry\ndef f(): pass\n", "`", "\"\"\"", "/*", "for (let i = 0; i < 3; i++) {", "kind: Job\nspec: {backoffLimit: x}", "upstream a {", "package p\nfunc f(){for i:=0;i<3;i++{}}",
		"backend b\n retries 2\n retry-on 503\n server a x\n", "[model_providers.a]\nrequest_max_retries = 3\n", "routes:\n- retry_policy: {retry_on: 5xx, num_retries: x}\n",
		"model_list: []\nrouter_settings: {num_retries: 2}\n", "from pydantic_ai import Agent\nAgent[a](retries={'output': 2})\n", "import { task } from '@trigger.dev/sdk';\ntask({ retry: { maxAttempts: 2 }",
		"from airflow import DAG\nx = {'retries': 3}\nf(retries=2)\n",
		"a:\n  nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"5\"\n", "kind: Ingress\nspec: {ingressClassName: nginx}",
		"export const O = { attempts: 5 };\nnew Queue('q', { defaultJobOptions: O });", "from langchain_anthropic import ChatAnthropic\nm = ChatAnthropic()\n(p | m).with_retry()\n",
		"import instructor\nc.chat.completions.create(response_model=X)",
		"using Polly;\nPolicy.Handle<E>().WaitAndRetryAsync(N);\nconst int N = 3;\nfor (var i = 0; i < N; i++) { try {} catch { await Task.Delay(1); } }",
		"services.AddHttpClient(\"a\").AddStandardResilienceHandler().Configure(o => o.Retry.MaxRetryAttempts = 2);",
		"from langchain.chat_models import init_chat_model\nm = init_chat_model(\"claude-x\", max_retries=R)\nR = 2\n",
		// Round 6's left-outs and round 7's rules (issue 37), each cut short.
		"while not r and tries < 3:\n    r = llm(p)\n    tries += 1\n", "do { t = await c.chat.completions.create(q) } while (!t && ++i < n",
		"def f(self, retries=0):\n    try:\n        x()\n    except E as e:\n        if e.status == 429:\n            return self.f(retries + 1",
		"@app.task\ndef s(d):\n    try:\n        r(d)\n    except Exception:\n        s.apply_async((d,)",
		"new Worker('q', async (job) => { try {} catch (e) { await q.add(job.name,",
		"from workflows.retry_policy import ConstantDelayRetryPolicy\nR = ConstantDelayRetryPolicy(maximum_attempts=\n@step(retry_policy=R)",
		"from prefect import task\n@task(retries=", "for attempt in range(3):\n    try:\n        p.read_text()\n    except OSError:\n        time.sleep(1)",
		"while len(v) < n and retries < m:\n    try:\n        x()\n    except (TypeError, KeyError):\n        retries += 1",
		// Round 8's rules (issue 37), each cut short.
		"async def f(page):\n    for a in range(3):\n        try:\n            await page.goto(u)\n        except Exception:\n            await asyncio.sleep(",
		"    try:\n        return await self.build(success=True)\n    except Exception as e:\n        return await self.build(success=False, error=str(e",
		"def f(self, **kwargs):\n    n = kwargs.pop(\"n\", 0)\n    kwargs[\"n\"] = n + 1\n    if n >= self.lim:\n        raise\n    return self.f(**kwa",
		"out = await self.get_model_output(m)\nif (\n    not out.action\n):\n    out = await self.get_model_output(",
		"def g(x, retries=3):\n    try:\n        return h(x)\n    except Exception:\n        if retries <= 0:\n            raise\n        return g(x, retries - ",
		"while retry > 0:\n    try:\n        return self.client.get(url)\n    except Exception:\n        retry -= ",
		"except E as e:\n    if not self._switch(e):\n        raise\n    return await self.ask(m)\ndef _switch(self):\n    if self._on:\n        return False\n    self._on = True"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vs := versionSet{"npm/bullmq": "1"}
		scanJS("f.ts", b, vs)
		jsConstants("f.ts", b)
		scanPython("f.py", b)
		scanGo("f.go", b)
		scanRuby("f.rb", b)
		layersOnly(detectFile(fkCSharp, "f.cs", b, nil))
		scanYAML("f.yaml", b)
		scanNginx("nginx.conf", b)
		scanClaudeSettings(".claude/settings.json", b)
		scanHAProxy("haproxy.cfg", b)
		scanCodexConfig(".codex/config.toml", b)
		for _, p := range []string{"go.mod", "package-lock.json", "package.json", "pnpm-lock.yaml", "yarn.lock", "uv.lock", "Gemfile.lock", "requirements.txt"} {
			lockfileParser(p)(b, func(string) versionSet { return versionSet{} })
		}
	})
}

// TestYAMLAliasBombs: a lockfile or manifest of nested aliases (10^11
// nodes expanded) is refused or read without expanding, never exhausts
// memory.
func TestYAMLAliasBombs(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a0: &a0 [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [" + strings.TrimSuffix(strings.Repeat("*a"+itoa(i-1)+",", 10), ",") + "]\n")
	}
	write(t, filepath.Join(dir, "pnpm-lock.yaml"), []byte("lockfileVersion: '9.0'\n"+b.String()+"importers:\n  .:\n    dependencies:\n      bomb: *a11\n"))
	write(t, filepath.Join(dir, "job.yaml"), []byte("apiVersion: batch/v1\nkind: Job\n"+b.String()+"spec:\n  backoffLimit: 1\n  x: *a11\n"))
	// The Envoy and LiteLLM proxy walks see an alias, never its expansion.
	write(t, filepath.Join(dir, "envoy.yaml"), []byte(b.String()+"routes:\n  - retry_policy: *a11\n  - retry_policy: {retry_on: 5xx, x: *a11}\n"))
	write(t, filepath.Join(dir, "config.yaml"), []byte(b.String()+"model_list: *a11\nrouter_settings: {num_retries: *a11}\n"))
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for _, l := range r.Layers {
		byID[l.DefaultID] = l.Attempts
	}
	// The lockfile is walked as a node tree, its alias never followed: read,
	// not refused (it was refused when it was decoded into maps).
	if len(r.Layers) != 2 || byID["kubernetes-job"] != 2 || byID["envoy"] != 2 || skipped(r, skipUnparsed) != 0 {
		t.Fatalf("layers %v skipped %+v", layersOf(r), r.Skipped)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Two files define the same constant name with different attempts: the
// worst is shown at low confidence, the same on every run (files are read
// concurrently); a pnpm importer whose key climbs out of the root names no
// file's directory.
func TestConstantsAndImportersAreResolvedDeterministically(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), []byte(`{"dependencies":{"bullmq":"^5.0.0"}}`))
	write(t, filepath.Join(dir, "a/opts.ts"), []byte("export const OPTS = { attempts: 2 };\n"))
	write(t, filepath.Join(dir, "b/opts.ts"), []byte("export const OPTS = { attempts: 9 };\n"))
	write(t, filepath.Join(dir, "q.ts"), []byte("import { Queue } from \"bullmq\";\nexport const q = new Queue(\"q\", { defaultJobOptions: OPTS });\n"))
	write(t, filepath.Join(dir, "pnpm-lock.yaml"), []byte("lockfileVersion: '9.0'\nimporters:\n  ../../..:\n    dependencies:\n      bullmq: {specifier: ^5.0.0, version: 5.1.0}\n"))
	for range 10 {
		r := scan(t, dir)
		if len(r.Layers) != 1 || r.Layers[0].Attempts != 9 || r.Layers[0].Confidence != ConfidenceLow || !strings.Contains(r.Layers[0].Note, "b/opts.ts:1") {
			t.Fatalf("layers %+v", r.Layers)
		}
		if r.Layers[0].Version != "range ^5.0.0" {
			t.Fatalf("version %q: the importer outside the root must not apply", r.Layers[0].Version)
		}
	}
}
