package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeFormats are the [[format]] examples of the README's "Your own
// format" section, in order: the tests run what the README shows.
func readmeFormats(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### Your own format")
	if !ok {
		t.Fatal("docs/formats.md has no Your own format section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []string
	for {
		_, rest, ok := strings.Cut(sec, "```toml\n")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "```")
		out, sec = append(out, block), after
	}
}

func textReportJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, _ := run(t, append([]string{"report", "--format", "json"}, args...)...)
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r
}

// TestReadmeSecondExample: the README's second example reads its lines.
func TestReadmeSecondExample(t *testing.T) {
	dir := t.TempDir()
	cfg, log := filepath.Join(dir, "burnrate.toml"), filepath.Join(dir, "app.log")
	os.WriteFile(cfg, []byte(readmeFormats(t)[1]), 0o644)
	os.WriteFile(log, []byte(`{"ts":"2026-03-10T01:00:00Z","event":"job_started","job_id":"step-7","job_type":"step","model":"claude-sonnet-4-6"}
    ⏳ API overloaded, retrying in 5s (attempt 1/3)...
    ⏳ API overloaded, retrying in 10s (attempt 2/3)...
{"ts":"2026-03-10T01:00:20Z","event":"job_failed","job_id":"step-7","job_type":"step"}
`), 0o644)
	r := textReportJSON(t, "--config", cfg, log)
	tot := r["totals"].(map[string]any)
	src := r["source"].(map[string]any)
	if tot["attempts"] != 2.0 || tot["failed_jobs"] != 1.0 || src["no_timestamp"] != 2.0 {
		t.Errorf("totals %v source %v", tot, src)
	}
}

// TestBadPatternRefusedAtStart: before any file is read, naming the group.
func TestBadPatternRefusedAtStart(t *testing.T) {
	_, err := run(t, "report", "--pattern", `attempt (?P<try>\d+)`, "../sample-logs/formats/node-sdk.log")
	if err == nil || !strings.Contains(err.Error(), "(?P<try>…)") {
		t.Errorf("err %v: the bad group must be named", err)
	}
	cfg := filepath.Join(t.TempDir(), "burnrate.toml")
	os.WriteFile(cfg, []byte("[[format]]\nname = \"mine\"\npattern = 'retrying in (\\d+)s'\n"), 0o644)
	_, err = run(t, "report", "--config", cfg, "../sample-logs/formats/node-sdk.log")
	if err == nil || !strings.Contains(err.Error(), `"mine"`) || !strings.Contains(err.Error(), "(?P<status>…)") {
		t.Errorf("err %v: a pattern without a call's group must say which to add", err)
	}
	os.WriteFile(cfg, []byte("[[format]]\npatern = 'x (?P<attempt>\\d)'\n"), 0o644)
	if _, err = run(t, "report", "--config", cfg, "../sample-logs/formats/node-sdk.log"); err == nil || !strings.Contains(err.Error(), `"patern"`) {
		t.Errorf("err %v: a misspelt key must be named", err)
	}
	os.WriteFile(cfg, []byte("format = \"sdk-text\"\n"), 0o644)
	if _, err = run(t, "report", "--config", cfg, "../sample-logs/formats/node-sdk.log"); err != nil {
		t.Errorf("format as a string still forces the input format: %v", err)
	}
}

// TestUnmatchedLinesAreCounted: report says how many lines no pattern read.
func TestUnmatchedLinesAreCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	os.WriteFile(path, []byte("2026-07-16 20:52:33 | WARNING | - | LLM transient error (attempt 1/3), retrying in 25s: error: x\n"+
		"2026-07-16 20:52:40 | INFO | - | cache warmed\n2026-07-16 20:52:41 | INFO | - | 12 documents queued\n"), 0o644)
	out, _ := run(t, "report", "--pattern", `LLM transient error \(attempt (?P<attempt>\d+)/\d+\)`, path)
	if !strings.Contains(out, "2 text lines matched none of the line formats") || !strings.Contains(out, "unmatched 2") {
		t.Errorf("report does not say how many lines no pattern matched:\n%s", out)
	}
}
