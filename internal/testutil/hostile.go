package testutil

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// HostileCorpus is the one list of strings every writer's test feeds
// through it (issue 36): terminal escapes, C1 controls, bidi and
// zero-width characters, HTML, Markdown structure, links, mentions and
// Slack's control sequences, each as a file handed to a user may hold it.
var HostileCorpus = []string{
	"\x1b]0;pwned\x07", // OSC, BEL-terminated: sets the window title
	"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", // OSC 8 hyperlink, ST-terminated
	"\x1b[2J\x1b[H",                 // CSI: clears the screen
	"\x1bP+q\x1b\\",                 // DCS
	"\u009b31mred\u009b0m",          // C1 CSI
	"\u009d0;title\u009c",           // C1 OSC and ST
	"job\u202eexe.txt",              // RIGHT-TO-LEFT OVERRIDE
	"a\u2066b\u2067c\u2068d\u2069e", // isolates
	"zero\u200bwidth\ufeff",         // zero-width space, BOM
	"<script>alert(1)</script>",     // HTML
	`<img src=x onerror=alert(1)>`,  // HTML with a handler
	"# All clear",                   // a heading at line start
	"ok\n# All clear",               // a heading after a line break
	"[x](javascript:alert(1))",      // a link
	"![x](http://evil)",             // an image
	"@mention",                      // a GitHub mention
	"hi @octocat and @org/team",     // mentions inside text
	"https://evil.example",          // a bare URL
	"see www.evil.example now",      // a bare www link
	"<!channel>",                    // Slack channel-wide ping
	"<!here>",                       // Slack here-ping
	"<@U123>",                       // Slack user mention
	"<https://x|y>",                 // Slack link with forged text
	"a|b",                           // a table cell break
	"**bold** `code` ~~gone~~",      // emphasis, code, strikethrough
	"bad\xff\xfeutf8",               // invalid UTF-8
	"job-003\U000E0100\U0001BCA0\uFFF9\U0001D173\u2800\u00a0", // invisible, not on the old list (R7-2)
	"job\U000E0041tag", // a tag character: \ue0041 would be ambiguous
}

// TerminalUnsafe returns the first byte sequence in s that must not reach
// a terminal or a Markdown document raw: ESC, a C0 or C1 control, DEL, a
// bidi control, a zero-width character, or invalid UTF-8. It returns ""
// when there is none.
func TerminalUnsafe(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return s[i : i+1]
		case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r <= 0x9f,
			r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F,
			r >= 0x200B && r <= 0x200D, r == 0xFEFF, r == 0x2060,
			// R7-2: every format character and default-ignorable code
			// point, the braille blank and the non-ASCII spaces.
			r >= 0x80 && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
				unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Zs, r) || r == 0x2800):
			return s[i : i+size]
		}
		i += size
	}
	return ""
}

// MarkdownUnsafe returns what in one written value of a Markdown document
// would be live on GitHub: a raw < (other than the empty comment that
// breaks a mention), a line break, a leading #, an unescaped [ or
// backtick, a bare URL or an @mention. "" when inert.
func MarkdownUnsafe(s string) string {
	if u := TerminalUnsafe(s); u != "" {
		return u
	}
	t := strings.ReplaceAll(s, "@<!-- -->", "@")
	mention := strings.Contains(s, "@") && !strings.Contains(s, "@<!-- -->")
	switch {
	case strings.Contains(t, "<"):
		return "<"
	case strings.ContainsAny(s, "\n\r"):
		return "line break"
	case strings.HasPrefix(s, "#"):
		return "#"
	case strings.Contains(s, "://") && !strings.Contains(s, `\://`):
		return "://"
	case strings.Contains(strings.ToLower(s), "www.") && !strings.Contains(strings.ToLower(s), `www\.`):
		return "www."
	case mention && hasMention(s):
		return "@mention"
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("[]`*", s[i]) >= 0 && (i == 0 || s[i-1] != '\\') {
			return s[i : i+1]
		}
	}
	return ""
}

func hasMention(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '@' && (i == 0 || !isWordByte(s[i-1])) && isWordByte(s[i+1]) && s[i+1] != '_' {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// MarkdownDocUnsafe returns the first trace of HostileCorpus left live in
// a whole Markdown document (a writer's output): a terminal-unsafe byte,
// a raw < other than a mention's break, the forged heading, a link or
// image, a bare URL, a live mention, emphasis or a code span from the
// corpus. "" when none is.
func MarkdownDocUnsafe(doc string) string {
	if u := TerminalUnsafe(doc); u != "" {
		return u
	}
	if strings.Contains(strings.ReplaceAll(doc, "<!-- -->", ""), "<") {
		return "<"
	}
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "# All clear") {
			return line
		}
	}
	live := strings.NewReplacer(`\]`, "", `\[`, "").Replace(doc)
	for _, bad := range []string{"](", "https://evil", "http://evil", "www.evil", "@mention", "@octocat", "@org", "**bold**", "`code`", "~~gone~~"} {
		if strings.Contains(live, bad) {
			return bad
		}
	}
	return ""
}
