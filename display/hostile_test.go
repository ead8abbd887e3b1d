package display_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// TestHostileCorpusText: no terminal escape, C1, bidi or zero-width
// character of the corpus reaches a terminal.
func TestHostileCorpusText(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		if u := testutil.TerminalUnsafe(display.Text(s)); u != "" {
			t.Errorf("Text(%q) keeps %q raw", s, u)
		}
	}
}

// TestHostileCorpusMarkdown: every corpus string is inert text in
// running Markdown and in a table cell.
func TestHostileCorpusMarkdown(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		for name, f := range map[string]func(string) string{"Markdown": display.Markdown, "MarkdownCell": display.MarkdownCell} {
			got := f(s)
			if u := testutil.MarkdownUnsafe(got); u != "" {
				t.Errorf("%s(%q) = %q: %q is live", name, s, got, u)
			}
			if u := testutil.MarkdownDocUnsafe("- x: " + got + "\n"); u != "" {
				t.Errorf("%s(%q) = %q: %q is live", name, s, got, u)
			}
		}
		if got := display.MarkdownCell(s); strings.Contains(strings.ReplaceAll(got, `\|`, ""), "|") {
			t.Errorf("MarkdownCell(%q) = %q breaks the cell", s, got)
		}
	}
}

// TestMarkdownKeepsPlainText: what needs no escape is written as is (the
// report's goldens hold words, IDs and advice).
func TestMarkdownKeepsPlainText(t *testing.T) {
	for _, s := range []string{"retry_storm", "job-17", "user@example.com", "a: b", "maxRetries|max_retries", "×1.2 (0, 0.3)"} {
		if got := display.Markdown(s); got != s {
			t.Errorf("Markdown(%q) = %q", s, got)
		}
	}
}

// TestHostileCorpusSlack: no Slack control sequence stays live.
func TestHostileCorpusSlack(t *testing.T) {
	for _, s := range testutil.HostileCorpus {
		got := display.Slack(s)
		if u := testutil.TerminalUnsafe(got); u != "" {
			t.Errorf("Slack(%q) keeps %q raw", s, u)
		}
		if strings.ContainsAny(got, "<>") {
			t.Errorf("Slack(%q) = %q: a < or > is live", s, got)
		}
	}
}

// TestHostileCorpusSARIF: a hostile file name is a valid relative URI,
// and message text has no embedded link.
func TestHostileCorpusSARIF(t *testing.T) {
	for _, s := range append(testutil.HostileCorpus, "/etc/passwd", `C:\x\y.go`, "a b/%41?#.go", "../up.go") {
		uri := display.SARIFURI(s)
		u, err := url.Parse(uri)
		if err != nil || u.IsAbs() || u.Host != "" || strings.HasPrefix(uri, "/") || u.RawQuery != "" || u.Fragment != "" {
			t.Errorf("SARIFURI(%q) = %q: not a plain relative URI (%v)", s, uri, err)
			continue
		}
		if strings.ContainsAny(uri, " \\") || testutil.TerminalUnsafe(uri) != "" {
			t.Errorf("SARIFURI(%q) = %q keeps a raw byte", s, uri)
		}
		if back, _ := url.PathUnescape(uri); back != strings.TrimLeft(s, "/") {
			t.Errorf("SARIFURI(%q) = %q decodes to %q", s, uri, back)
		}
		msg := display.SARIFText(s)
		if u := testutil.TerminalUnsafe(msg); u != "" {
			t.Errorf("SARIFText(%q) keeps %q raw", s, u)
		}
		if strings.Contains(strings.ReplaceAll(msg, `\[`, ""), "[") {
			t.Errorf("SARIFText(%q) = %q: an embedded link", s, msg)
		}
	}
}
