package audit

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStallWatchdogsAreLayers: six watchdogs written six ways — an idle
// timer on an AbortController in a loop bounded by a constant, a
// Promise.race whose stall re-calls once, asyncio.wait_for in a range
// loop bounded by a parameter's default, an except that returns the call
// made again, a Go loop with a context deadline per try, and a Go if on
// context.DeadlineExceeded that asks again — are each a watchdog layer;
// the near misses beside them are not: a timeout that only aborts and
// throws (abort_only.ts), a progress timer and a per-item deadline that
// moves on (progress.ts), a deadline whose expiry returns None, a queue
// poll (near.py), a deadline that returns an error (Score in generate.go).
func TestStallWatchdogsAreLayers(t *testing.T) {
	r := scan(t, "testdata/watchdogs")
	sameLayers(t, r, []want{
		{"gosvc/generate.go:15", "anthropic-go", 1, true},
		{"gosvc/generate.go:29", "stall-watchdog", 2, true},
		{"gosvc/generate.go:49", "stall-watchdog", 2, true},
		{"web/abort_only.ts:3", "openai-node", 1, true},
		{"web/idle.ts:3", "anthropic-ts", 1, true},
		{"web/idle.ts:11", "stall-watchdog", 2, true},
		{"web/progress.ts:3", "openai-node", 1, true},
		{"web/race.ts:3", "openai-node", 1, true},
		{"web/race.ts:21", "stall-watchdog", 2, true},
		{"worker/regen.py:7", "anthropic-python", 1, true},
		{"worker/regen.py:22", "stall-watchdog", 3, true},
		{"worker/regen.py:33", "stall-watchdog", 2, true},
	})
	for _, l := range r.Layers {
		if l.DefaultID == "stall-watchdog" && (l.Kind != KindWatchdog || l.Retries4xx || l.Confidence != ConfidenceLow) {
			t.Errorf("%s:%d: %+v", l.File, l.Line, l)
		}
	}
}

// TestSeed003StackIs36: seed 003's stack before its fix, written as its
// code would be — a CronJob rerun once (backoffLimit: 1), a streaming idle
// watchdog that regenerates once (WATCHDOG_ATTEMPTS = 2), the job's own
// wrapper (MAX_ATTEMPTS = 3, backoff 10 s × 2^i) and the SDK at its
// default (3) — is the seed's worstCaseAttempts: 2 × 2 × 3 × 3 = 36. The
// watchdog's loop re-arms a setTimeout, the shape of a loop that sleeps:
// read as a second hand-rolled wrapper it was lost to the worse wrapper
// (one per kind), and the path read 18.
func TestSeed003StackIs36(t *testing.T) {
	r := scan(t, "testdata/seed003")
	sameLayers(t, r, []want{
		{"deploy/cronjob.yaml:12", "kubernetes-job", 2, true},
		{"src/client.ts:5", "anthropic-ts", 3, false},
		{"src/watchdog.ts:10", "stall-watchdog", 2, true},
		{"src/wrapper.ts:10", "hand-rolled", 3, true},
	})
	if len(r.Stacks) != 1 || r.Stacks[0].Attempts != 36 || r.Stacks[0].Product != "2 × 2 × 3 × 3 = 36" {
		t.Fatalf("stacks %+v, want 2 × 2 × 3 × 3 = 36", r.Stacks)
	}
	var kinds []string
	for _, i := range r.Stacks[0].Layers {
		kinds = append(kinds, string(r.Layers[i].Kind))
	}
	if got := strings.Join(kinds, " → "); got != "queue → watchdog → wrapper → sdk" {
		t.Errorf("path %s, want the seed's order scheduler → watchdog → wrapper → sdk", got)
	}
}

// TestAWatchdogIsNotNamedIntoBeing: the watchdog is its shape, not its
// names — the seed 003 watchdog with every name changed (no "watchdog",
// "stall" or "idle") is still one, and the same loop whose catch leaves
// on every error is not.
func TestAWatchdogIsNotNamedIntoBeing(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), []byte(`{"dependencies": {"@anthropic-ai/sdk": "^0.39.0"}}`))
	src := `import Anthropic from "@anthropic-ai/sdk";
const c = new Anthropic({ maxRetries: 0 });
const TRIES = 3;
export async function answer(q: string) {
  for (let n = 0; n < TRIES; n++) {
    const ctl = new AbortController();
    const t = setTimeout(() => ctl.abort(), 60_000);
    try {
      return await c.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: q }] }, { signal: ctl.signal });
    } catch (e) {
      if (!ctl.signal.aborted) throw e;
    } finally {
      clearTimeout(t);
    }
  }
}
`
	write(t, filepath.Join(dir, "a.ts"), []byte(src))
	write(t, filepath.Join(dir, "b.ts"), []byte(strings.Replace(src, "if (!ctl.signal.aborted) throw e;", "if (ctl.signal.aborted) console.warn(e);\n      throw e;", 1)))
	r := scan(t, dir)
	sameLayers(t, r, []want{
		{"a.ts:2", "anthropic-ts", 1, true},
		{"a.ts:5", "stall-watchdog", 3, true},
		{"b.ts:2", "anthropic-ts", 1, true},
	})
}

// TestWatchdogDetectorsOnHostileFiles: files of 1 MiB built for the new
// detectors — thousands of loops each holding a stall handler with a
// regeneration counter, a Python file of thousands of while-counter loops
// with timeout handlers, a Go file of nested loops each with a deadline
// and its test, thousands of `except Exception:` re-calls — are each read
// in bounded time: the catch and except blocks are found once per file,
// not once per loop (the four files: 1.6 s when every loop re-read every
// catch, 0.4 s now, on a loaded 2-core machine; the bound here is only
// against a hang).
func TestWatchdogDetectorsOnHostileFiles(t *testing.T) {
	// Catch bodies near the 4 KiB an argument list is followed, each with
	// a stall test and a counter: 256 loops × 256 catches × 4 KiB when
	// each loop's question re-found and re-read every catch.
	fat := strings.Repeat("if (e.aborted && e.idle) { log(e) }\n", 100)
	js := strings.Repeat("for (let i = 0; i < 3; i++) { try { await a() } catch (e) { "+fat+"if (++retries > 3) throw e; setTimeout(a, 1) } }\nwhile (attempt < 3) { try { await a() } catch (e) { attempt++ } }\n", 400)
	py := strings.Repeat("while attempts < 3:\n    try:\n        r = await asyncio.wait_for(call(), 1)\n    except asyncio.TimeoutError:\n        attempts += 1\n        if attempts > 3:\n            raise\ntry:\n    x = go()\nexcept Exception:\n    x = go()\n", 4000)
	var g strings.Builder
	g.WriteString("package p\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"time\"\n)\n\nfunc f(ctx context.Context) {\n")
	for range 300 {
		g.WriteString("for i := 0; i < 3; i++ {\nc, cancel := context.WithTimeout(ctx, time.Second)\nerr := call(c)\ncancel()\nif errors.Is(err, context.DeadlineExceeded) {\ncontinue\n}\n")
	}
	g.WriteString(strings.Repeat("}\n", 301))
	g.WriteString("func call(context.Context) error { return nil }\n")
	for name, body := range map[string]string{"a.ts": js, "a.py": py, "a.go": g.String()} {
		if len(body) > 1<<20 {
			body = body[:1<<20]
		}
		dir := t.TempDir()
		write(t, filepath.Join(dir, name), []byte(body))
		var err error
		noHang(t, name, func() { _, err = Scan([]string{dir}, DefaultOptions()) })
		if err != nil {
			t.Fatal(err)
		}
	}
}
