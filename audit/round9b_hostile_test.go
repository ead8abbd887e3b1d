package audit

import (
	"strings"
	"testing"
	"time"
)

// Round 9's rules on hostile shapes (issue 37): thousands of fallback
// walks, handlers, 401 tests, self-calls and repair functions in one
// file, truncated halfway; each file scans in bounded time and the
// shapes cut off mid-way report nothing they cannot read.
func TestRound9RulesOnHostileFiles(t *testing.T) {
	var py, js strings.Builder
	py.WriteString("import httpx\nfrom elasticsearch_dsl import Search\n")
	js.WriteString("import Redis from \"ioredis\";\n")
	for i := 0; i < 4000; i++ {
		py.WriteString("def f(models, chat_mdl):\n    for model in models:\n        try:\n            return chat_mdl.async_chat(model)\n        except Exception as e:\n            err += str(e)\n")
		py.WriteString("    try:\n        tbl, sql = await get_table()\n    except Exception as e:\n        tbl, sql = await get_table(timeout=t * 2)\n")
		py.WriteString("    c = httpx.HTTPTransport(retries=self.max_retries)\n")
		js.WriteString("async function robustFetch({ url, tryCount = 3 }) { try { const res = await fetch(url); if (res.status === 401) { await refreshToken(); return await fetch(url); } } catch (e) { return await robustFetch({ url, tryCount: tryCount - 1 }); } }\n")
		js.WriteString("const o = { experimental_repairText: async ({ text }) => { return await generateText({ prompt: text }) } };\n")
		js.WriteString("while (s === undefined) { if (errors.length >= limit) { throw e } try { s = await check(); } catch (e) { errors.push(e) } }\n")
		js.WriteString("for (const temp of [0, 0.1, 0.3]) { try { return await generateCompletions({ temp }) } catch (e) { last = e } }\n")
	}
	whole := map[string]string{"py": py.String(), "js": js.String()}
	for kind, src := range whole {
		for _, cut := range []int{len(src), len(src) / 2, len(src)/2 + 7} {
			body := []byte(src[:cut])
			noHang(t, kind, func() {
				start := time.Now()
				if kind == "py" {
					scanPython("hostile.py", body)
				} else {
					scanJS("hostile.ts", body, nil)
				}
				t.Logf("%s, %d bytes: %v", kind, len(body), time.Since(start))
			})
		}
	}
}

// FuzzRound9Shapes drives every detector over round 9's shapes cut short
// and mutated: a fallback walk, a model switch, a repair function, a
// parse-error re-ask, a grown timeout, an error budget, a self-call with
// one try fewer, a 401 refresh, a store file, a backoff with max_time.
func FuzzRound9FalseReportShapes(f *testing.F) {
	for _, s := range []string{
		"for idx, gen in enumerate(self.generators):\n    try:\n        return gen.run(messages=m)\n    except Exception:\n        fail",
		"try:\n    r = await c.create(model=\"a\")\nexcept Exception:\n    r = await c.create(model=\"b\"",
		"const o = { experimental_repairText: async ({ text }) => { return await generateText({ model, prompt: te",
		"for _ in range(n):\n    ans = await mdl.async_chat(f\"{err}\")\n    try:\n        return loads(ans)\n    except Exception as e:\n        err += str(",
		"try { return await attempt(o.timeout) } catch (e) { return await attempt(o.timeout * ",
		"while (s === undefined) { if (errors.length >= lim) { throw e } try { s = await check() } catch (e) { errors.pu",
		"async function rf({ url, tryCount = 1 }) { try { return await fetch(url) } catch { return await rf({ url, tryCount: tryCount -",
		"const r = await fetch(u); if (r.status === 401) { await refreshToken(); return await fetch(",
		"import ioredis from \"ioredis\";\nfor (let a = 1; a <= n; a++) { try { return await op() } catch (e) { await sleep(",
		"from elasticsearch_dsl import Search\nfor i in range(ATTEMPT):\n    try:\n        return self.es.search(",
		"import backoff\nfrom dsp import ERRORS\n@backoff.on_exception(backoff.expo, ERRORS, max_time=\ndef f(self):\n    requests.post(",
		"import httpx\nt = httpx.HTTPTransport(retries=self.",
		"for _, ref := range f.Models {\n\tresp, err := m.Generate(ctx, r)\n\tif err == nil {\n\t\treturn resp, n",
		"import boto3\nc = boto3.client(\"st",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		scanJS("f.ts", b, nil)
		scanPython("f.py", b)
		scanGo("f.go", b)
	})
}

// A model's name read with its string (a model switch's setting) carries
// what the file wrote — an escape sequence, a bidi override — to no
// output raw: every format sanitizes the setting.
func TestModelSwitchSettingIsSanitized(t *testing.T) {
	r := scanOne(t, "src/x.ts", "import { generateText } from \"ai\";\n\nexport async function f(p: string) {\n  try {\n    return await generateText({ model: getModel(\"a\"), prompt: p });\n  } catch (e) {\n    return await generateText({ model: getModel(\"\x1b[31mb\u202e\"), prompt: p });\n  }\n}\n")
	found := false
	for _, l := range r.Layers {
		found = found || l.DefaultID == "fallback"
	}
	if !found {
		t.Fatalf("no model switch found: %v", layersOf(r))
	}
	var js, txt strings.Builder
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": js.String(), "text": txt.String()} {
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s output carries a raw escape or bidi override", name)
		}
	}
}
