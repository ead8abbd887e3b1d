package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The audit as a user runs it: the binary, a small repository, its exit
// status (issue 37).

const auditLoopTS = `import Anthropic from "@anthropic-ai/sdk";

export const trim = (u: string) => u.replace(/\/*$/, '');
export const isFence = (l: string) => /^` + "```" + `/.test(l);

const client = new Anthropic();

export async function ask(prompt: string, attempts = 3) {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await client.messages.create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: prompt }] });
    } catch (err) {
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
}
`

func auditRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"package.json":  `{"dependencies": {"@anthropic-ai/sdk": "^0.39.0"}}`,
		"src/ask.ts":    auditLoopTS,
		"worker/job.py": "import anthropic\n\nclient = anthropic.Anthropic(max_retries=4)\n",
	})
	return dir
}

// TestAuditSeesPastARegexLiteral: a regex ending in /* and one of
// backticks used to blank the rest of the file — "No retry layers found",
// exit 0. The loop after them, bounded by a parameter's default, is found,
// multiplied with the SDK's default (3 × 3 = 9) and is critical.
func TestAuditSeesPastARegexLiteral(t *testing.T) {
	dir := auditRepo(t)
	out, err := run(t, "audit", "--format", "json", filepath.Join(dir, "src"))
	if !errors.Is(err, errCritical) {
		t.Fatalf("exit: %v, want critical\n%s", err, out)
	}
	var r struct {
		Layers []struct {
			DefaultID string `json:"default_id"`
			Attempts  int    `json:"attempts"`
			Setting   string `json:"setting"`
		} `json:"layers"`
		Stacks []struct {
			Attempts int `json:"attempts"`
		} `json:"stacks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != 2 || len(r.Stacks) != 1 || r.Stacks[0].Attempts != 9 {
		t.Fatalf("layers %+v stacks %+v, want the loop and the SDK, 9 attempts", r.Layers, r.Stacks)
	}
	if !strings.Contains(out, "attempts = 3, default of the parameter at ask.ts:8") {
		t.Errorf("the resolution is not shown:\n%s", out)
	}
}

// TestAuditTextIsNotHTMLEscaped: --format text (what a terminal gets by
// default) shows `<=` as written; --format md escapes it for a page.
func TestAuditTextIsNotHTMLEscaped(t *testing.T) {
	dir := auditRepo(t)
	text, _ := run(t, "audit", "--format", "text", dir)
	md, _ := run(t, "audit", "--format", "md", dir)
	if !strings.Contains(text, "attempt <= attempts") || strings.Contains(text, "&lt;") {
		t.Errorf("text:\n%s", text)
	}
	if !strings.Contains(md, "attempt &lt;= attempts") {
		t.Errorf("md:\n%s", md)
	}
}

// TestAuditFollowsALinkTheUserNamed: `audit link.py` on a symlink read it
// as "unreadable", 0 layers, exit 0.
func TestAuditFollowsALinkTheUserNamed(t *testing.T) {
	dir := auditRepo(t)
	link := filepath.Join(dir, "link.py")
	if err := os.Symlink(filepath.Join(dir, "worker", "job.py"), link); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "audit", "--format", "text", link)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "unreadable") || !strings.Contains(out, "link.py:3") || !strings.Contains(out, "max_retries=4") {
		t.Errorf("the link was not read:\n%s", out)
	}
}

// TestAuditHelperBoundByItsCallers: issue 37's known misses as a user meets
// them — a Go retry helper bounded by its parameter, given a constant by a
// caller in another file of its package, and a LangChain model built from a
// dict of settings (`model(**kwargs)` with "max_retries": 5). Before, the
// audit found neither: "No retry layers found", exit 0.
func TestAuditHelperBoundByItsCallers(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod": "module example.com/agent\n\ngo 1.22\n",
		"search/extract.go": `package search

func extract(q string, maxAttempts int) (string, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if out, err := ask(q, attempt); err == nil {
			return out, nil
		}
	}
	return "", nil
}
`,
		"search/run.go": "package search\n\nconst deepTries = 4\n\nfunc Run(q string) { extract(q, deepTries) }\n",
		"py/factory.py": `from langchain.chat_models import ChatOpenAI


class TracedChat(ChatOpenAI):
    pass


def build(settings):
    model = TracedChat
    kwargs = {"model": settings.model, "max_retries": 5}
    return model(**kwargs)
`,
	})
	out, _ := run(t, "audit", "--format", "json", dir)
	var r struct {
		Layers []struct {
			File     string `json:"file"`
			Attempts int    `json:"attempts"`
			Setting  string `json:"setting"`
		} `json:"layers"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, l := range r.Layers {
		got[l.File] = l.Setting
		if l.File == "search/extract.go" && l.Attempts != 4 || l.File == "py/factory.py" && l.Attempts != 5 {
			t.Errorf("%s: %d attempts (%s)", l.File, l.Attempts, l.Setting)
		}
	}
	if !strings.Contains(got["search/extract.go"], "deepTries = 4") || !strings.Contains(got["py/factory.py"], "in the dict kwargs at py/factory.py:10") {
		t.Fatalf("layers %+v: want the helper at its caller's deepTries = 4 and the model at the dict's max_retries 5\n%s", r.Layers, out)
	}
}

// writeTree writes each file of files (a path relative to dir: its
// directories made) with its body.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
