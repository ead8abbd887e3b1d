package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// round9Hostile is a Python file built to make the round 9 rules
// (pydefaults.go, pyscope.go, pyspread.go, dbcount.go, grpcretry.go)
// work as hard as they can: one function of thousands of lines holding
// hundreds of imports, thousands of clients spread from a method's dict,
// assignments of every shape the value reader follows, counts written
// back and gRPC policies, and unclosed brackets.
func round9Hostile(lines int) string {
	var b strings.Builder
	b.WriteString("import os\nfrom ollama import Client\n\n\nclass Big:\n    def _kw(self):\n        max_retries = self.m if self.m is not None else int(os.environ.get(\"X\", \"5\"))\n        return {\"max_retries\": max_retries}\n\n    def run(self, job):\n")
	for i := range lines {
		switch i % 8 {
		case 0:
			b.WriteString("        from openai import OpenAI\n")
		case 1:
			b.WriteString("        c = OpenAI(**self._kw())\n")
		case 2:
			fmt.Fprintf(&b, "        a%d, retry_max%d = 1, %d\n", i, i, i%7)
		case 3:
			fmt.Fprintf(&b, "        self.r%d = kwargs.get(\"r\", int(os.environ.get(\"R\", ((((%d)))))))\n", i, i%9)
		case 4:
			b.WriteString("        Job.update(retry_count=job[\"retry_count\"] + 1)\n")
		case 5:
			b.WriteString("        cfg = {\"methodConfig\": [{\"retryPolicy\": {\"maxAttempts\": 3}}]}\n")
		case 6:
			b.WriteString("        x = (p if p is not None else int(os.getenv(\"Y\", \"4\")\n")
		default:
			b.WriteString("        y = Client(host=h)\n")
		}
	}
	return b.String()
}

func TestRound9HostileFileEnds(t *testing.T) {
	src := round9Hostile(20000)
	start := time.Now()
	noHang(t, "round 9 rules on a hostile file", func() {
		r := scanTree(t, map[string]string{"big.py": src})
		if len(r.Layers) == 0 {
			t.Errorf("no layers from a file of clients")
		}
	})
	t.Logf("%d bytes in %v", len(src), time.Since(start))
}

// FuzzRound9Shapes: the round 9 rules' shapes, each cut short or nested
// past its bounds, through every reader — no panic, no hang.
func FuzzRound9Shapes(f *testing.F) {
	for _, s := range []string{
		"self.m = kwargs.get(\"m\", int(os.environ.get(\"X\", 5)))\nfor a in range(self.m + 1):\n    try:\n        x()\n    except E:\n        e = h(",
		"m = (\n    p if p is not None else int(os.getenv(\"X\", \"5\"",
		"n: int = Field(default_factory=lambda: int(os.environ.get(\"N\", \"7\")))",
		"a, r = 1, 5\nfor retry in range(r):\n    s = c.call()\n    if s.status_code == 200:\n        break\n    time.sleep(1)\n    raise",
		"args.setdefault(\"num_retries\", self.m)\nlitellm.acompletion(**args",
		"while True:\n    try:\n        return f()\n    except Exception as e:\n        if retries >= self._m:\n            raise\n        retries += 1",
		"def f():\n    from cohere import Client\n    Client(",
		"{\"methodConfig\": [{\"retryPolicy\": {\"maxAttempts\": 99, \"retryableStatusCodes\": [\"UNAVAILABLE\"",
		"if t[\"retry_count\"] >= 3:\n    x\nT.update(retry_count=t[\"retry_count\"] + 1",
		"return {\"max_retries\": m}\nOpenAI(**self._kw())",
		"for (let i = 0; i < 3; i++) { try { await b.save(x); return k; } catch (e) { if (i === 2) throw e; } }",
		"func (r *R) m() int { return 3 }\nfunc (r *R) w() { n := r.m(); for a := 0; a <= n; a++ { if !isRetryable(err) { return } } }",
		"x = " + strings.Repeat("(", 300) + "int(os.getenv(\"X\", \"5\"))",
		"x = " + strings.Repeat("a if b else ", 100) + "3",
		"stop=stop_after_attempt(self.n + 999",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		scanPython("f.py", b)
		scanJS("f.ts", b, versionSet{})
		scanGo("f.go", b)
		pyDefaultOf(b, 0)
		pyTupleAssign(b)
		pyAssignHead(b)
	})
}
