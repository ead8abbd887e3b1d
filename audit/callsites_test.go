package audit

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37: a retry helper's bound passed by callers in other files — a Go
// package's files, a module importing the helper. Fixtures written for
// this test, with near misses: a same-named function of another package or
// module, and a caller passing nothing.
func TestLoopBoundFromCallersInOtherFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"search/retry.go": `package search

func extract(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if out, err := ask(q); err == nil {
			return out, nil
		}
	}
	return "", nil
}
`,
		"search/run.go": `package search

const deepTries = 4

func Run(q string) { extract(q, 2); extract(q, deepTries) }
`,
		"other/run.go": `package other

func Run(q string) { extract(q, 50) }

func extract(q string, n int) {}
`,
		"web/src/lib/retry.ts": `export async function withRetry(fn: () => Promise<string>, retries = 2) {
  for (let attempt = 0; attempt <= retries; attempt++) {
    try {
      return await fn();
    } catch (e) {
      last = e;
    }
  }
}
`,
		"web/src/app/page.ts": `import { withRetry } from "../lib/retry";

export const load = () => withRetry(() => api.get("/x"), 5);
export const quick = () => withRetry(() => api.get("/y"));
`,
		"web/src/app/other.ts": `import { withRetry } from "some-retry-package";

export const big = () => withRetry(() => api.get("/z"), 40);
`,
		"web/src/__tests__/retry.test.ts": `import { withRetry } from "../lib/retry";

test("retries", () => withRetry(() => api.get("/t"), 30));
`,
		"svc/helpers/llm.py": `import time


def with_retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except Exception:
            time.sleep(1)
`,
		"svc/jobs.py": `from helpers.llm import with_retry
from vendor.tools import with_retry as vendor_retry


def nightly(client):
    with_retry(lambda: client.complete("x"), attempts=6)
    vendor_retry(lambda: client.complete("y"), attempts=90)
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
	for _, w := range []struct {
		file     string
		attempts int
		from     string
	}{
		{"search/retry.go", 4, "deepTries = 4"},            // the larger of 2 and deepTries; not other's 50
		{"web/src/lib/retry.ts", 6, "web/src/app/page.ts"}, // 5 + 1 (<=); not the package's 40 nor a test's 30
		{"svc/helpers/llm.py", 6, "svc/jobs.py"},           // attempts=6; not vendor's 90
	} {
		l, ok := got[w.file]
		if !ok {
			t.Errorf("%s: no layer (layers %+v)", w.file, r.Layers)
			continue
		}
		if l.Attempts != w.attempts || !strings.Contains(l.Setting, w.from) {
			t.Errorf("%s: %d attempts, setting %q; want %d from %s", w.file, l.Attempts, l.Setting, w.attempts, w.from)
		}
	}
}
