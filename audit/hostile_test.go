package audit

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestAuditWritersHostileCorpus (issue 36): a tree whose file names are
// the hostile corpus. The Markdown has none of it live, the JSON and
// SARIF carry no raw control, bidi or zero-width character, and every
// SARIF artifact URI is a valid relative URI that decodes to the path.
func TestAuditWritersHostileCorpus(t *testing.T) {
	dir := t.TempDir()
	names := map[string]bool{}
	for _, s := range testutil.HostileCorpus {
		name := strings.NewReplacer("/", "_", "\x00", "_").Replace(s) + ".ts"
		names[name] = true
		write(t, filepath.Join(dir, name), []byte(layerTS))
	}
	r, err := Scan([]string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Layers) != len(names) || len(r.Findings) == 0 {
		t.Fatalf("%d layers, %d findings: the corpus was not read", len(r.Layers), len(r.Findings))
	}
	var md, text, js, sarif bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if u := testutil.MarkdownDocUnsafe(md.String()); u != "" {
		t.Errorf("Markdown: %q is live:\n%s", u, md.String())
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSARIF(&sarif, "t"); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"json": js.String(), "sarif": sarif.String(), "text": text.String()} {
		if u := testutil.TerminalUnsafe(out); u != "" {
			t.Errorf("%s carries %q raw", what, u)
		}
	}
	var log sarifLog
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for _, res := range log.Runs[0].Results {
		uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
		u, err := url.Parse(uri)
		if err != nil || u.IsAbs() || u.Host != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasPrefix(uri, "/") || strings.ContainsAny(uri, " \\") {
			t.Errorf("SARIF URI %q is not a plain relative URI (%v)", uri, err)
			continue
		}
		if back, _ := url.PathUnescape(uri); !names[back] {
			t.Errorf("SARIF URI %q decodes to %q, not a file of the tree", uri, back)
		}
		if u := testutil.TerminalUnsafe(res.Message.Text); u != "" {
			t.Errorf("SARIF message %q keeps %q", res.Message.Text, u)
		}
	}
}
