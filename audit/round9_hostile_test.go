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
