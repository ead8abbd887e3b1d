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
