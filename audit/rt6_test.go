package audit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The red team's round 6 findings on the audit (issue 37), each a general
// rule with a fixture of our own shape (trimmed from /work/rt6-cases/37).

// --max-layers applies to the layers that survive resolution: loops whose
// bound is a parameter (pending, dropped when no caller passes one) once
// took every place, then vanished with the critical that came after them —
// "no retry layers" and exit 0 (R6-1).
func TestMaxLayersKeepsCriticalPastPendingLoops(t *testing.T) {
	dir := t.TempDir()
	var js strings.Builder
	js.WriteString("async function big(q, n) {\n")
	for i := range 20 {
		u := "u" + strconv.Itoa(i)
		js.WriteString("  while (!" + u + " && i < n) { i++; " + u + " = await client.chat.completions.create(q); }\n")
	}
	js.WriteString("}\n")
	files := map[string]string{
		"a.js": js.String(),
		"z.go": `package wf
import ("time"; "go.temporal.io/sdk/temporal"; "go.temporal.io/sdk/workflow")
func W(ctx workflow.Context) error {
	ao := workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 0}}
	ctx = workflow.WithActivityOptions(ctx, ao)
	return workflow.ExecuteActivity(ctx, CallLLM).Get(ctx, nil)
}
`,
	}
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full := scan(t, dir)
	opt := DefaultOptions()
	opt.MaxLayers = 5
	cut, err := Scan([]string{dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Layers) == 0 || len(cut.Layers) != len(full.Layers) {
		t.Fatalf("--max-layers 5 kept %v, want what the full scan keeps, %v", layersOf(cut), layersOf(full))
	}
	crit := 0
	for _, f := range cut.Findings {
		if f.Severity == SeverityCritical {
			crit++
		}
	}
	if crit == 0 {
		t.Errorf("--max-layers 5: no critical; layers %v", layersOf(cut))
	}
}
