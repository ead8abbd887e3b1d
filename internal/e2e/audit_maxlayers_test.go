package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAuditTruncationIsDeterministic: a tree with more layers than
// --max-layers once kept whichever layers the workers reached first, so
// the same tree gave different reports run to run (issue 37, round 6's
// left-outs). The layers kept are the first by file and line: five runs at
// GOMAXPROCS 1 and 2 give byte-identical JSON, SARIF and Markdown.
func TestAuditTruncationIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"package.json": `{"dependencies": {"@anthropic-ai/sdk": "^0.39.0"}}`}
	for i := range 60 {
		// Files of different sizes, so the workers finish out of order.
		pad := strings.Repeat("// padding\n", (i*37)%400)
		files[fmt.Sprintf("svc%02d/client.ts", i)] = pad + fmt.Sprintf("import Anthropic from \"@anthropic-ai/sdk\";\nexport const a = new Anthropic({ maxRetries: %d });\nexport const b = new Anthropic({ maxRetries: %d });\n", i%5+1, i%3+1)
		files[fmt.Sprintf("py%02d/worker.py", i)] = pad2(i) + fmt.Sprintf("import anthropic\n\nclient = anthropic.Anthropic(max_retries=%d)\n", i%4+1)
	}
	writeTree(t, dir, files)
	bin := burnrate(t)
	for _, format := range []string{"json", "sarif", "md"} {
		var first string
		for _, procs := range []string{"1", "2"} {
			for n := range 5 {
				cmd := exec.Command(bin, "audit", "--max-layers", "37", "--format", format, dir)
				cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
				out, err := cmd.Output()
				var ee *exec.ExitError
				if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == exitCritical) {
					t.Fatalf("%s GOMAXPROCS=%s: %v", format, procs, err)
				}
				if first == "" {
					first = string(out)
					continue
				}
				if string(out) != first {
					t.Fatalf("%s, GOMAXPROCS=%s, run %d differs from the first run:\n%s\n--- first ---\n%s", format, procs, n+1, out, first)
				}
			}
		}
		if format == "json" {
			// The first 37 by file: py00…py36 sort before svc00.
			if !strings.Contains(first, `"py36/worker.py"`) || strings.Contains(first, `"py37/worker.py"`) || strings.Contains(first, "svc00/") || !strings.Contains(first, `"layers_truncated": true`) {
				t.Errorf("want py00–py36 kept, the rest cut, and the cut said:\n%s", first)
			}
		}
	}
	if _, err := run(t, "audit", "--max-layers", "0", dir); err == nil || !strings.Contains(err.Error(), "--max-layers") {
		t.Errorf("--max-layers 0: %v, want a usage error naming the flag", err)
	}
	// Red team: a limit at the int's edge must not overflow into cutting
	// every layer.
	out, err := run(t, "audit", "--max-layers", "9223372036854775807", "--format", "json", dir)
	if err != nil && !errors.Is(err, errCritical) || strings.Contains(out, `"layers_truncated": true`) || strings.Count(out, `"file": "`) < 180 {
		t.Errorf("--max-layers at the int's limit: %v, want all 180 layers kept, none cut", err)
	}
}

func pad2(i int) string { return strings.Repeat("# padding\n", (i*53)%300) }
