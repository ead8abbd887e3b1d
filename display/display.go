// Package display makes untrusted text safe to show a person: on a
// terminal, in Markdown, on stderr, in JSON a person may read. It is the
// one sanitizer every output meant for people uses; ingest applies it to
// every field it keeps but identifiers, which stay exact (identity is the
// bytes, display is the escape).
package display

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text returns s with everything that could change how it looks escaped
// into visible text, so that what is shown is what was logged:
//
//   - control characters (C0, DEL, C1 — so every terminal escape) as \u001b;
//   - bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E/F,
//     U+061C) as \u202e: "job\u202eexe.txt" never displays as another ID;
//   - zero-width and invisible characters the same way: every format
//     character (Unicode category Cf: U+200B, U+FEFF, U+00AD, U+FFF9–FFFB,
//     U+1BCA0–1BCA3, U+1D173–1D17A, tags…), every other default-ignorable
//     code point and variation selector (U+034F, U+FE00–FE0F,
//     U+E0100–E01EF…), the characters that render blank (U+2800, the
//     Hangul fillers) and every space but the ASCII one (U+00A0, U+3000):
//     "job-3" and "job-3" followed by any of them are two IDs, shown as two;
//   - a rune above U+FFFF as \U000e0041 (eight digits), never \ue0041,
//     which would read as U+E004 followed by "1";
//   - each byte of invalid UTF-8 as \xff, so two IDs that differ only in
//     bad bytes stay distinct instead of both becoming U+FFFD.
//
// A backslash is kept as is: escaping it too would make "\u202e" typed by
// the logger and an escaped U+202E look alike only in the rare case a log
// contains both, which costs less than doubling every Windows path.
func Text(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Safe reports whether b needs no escaping (Text would return it as is);
// it does not allocate.
func Safe(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size <= 1) || hidden(r) {
			return false
		}
		i += size
	}
	return true
}

// plain is the fast path: printable ASCII only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// hidden reports a rune that changes or hides how text around it looks.
func hidden(r rune) bool {
	if r < 0x7f {
		return r < 0x20 // C0; printable ASCII is the fast case
	}
	switch {
	case unicode.IsControl(r): // DEL, C1
		return true
	case unicode.Is(unicode.Cf, r):
		// Format characters: bidi controls (U+202A–U+202E, U+2066–U+2069,
		// U+200E/F, U+061C), zero-width U+200B–U+200D, U+2060–U+2064,
		// U+FEFF, U+00AD, U+180E, interlinear annotation U+FFF9–FFFB,
		// shorthand format U+1BCA0–1BCA3, musical format U+1D173–1D17A,
		// tags U+E0001–E007F: each shows as nothing or moves what is
		// around it.
		return true
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		// The rest of Unicode's default-ignorable set (U+034F, the
		// Hangul fillers U+115F/U+1160/U+3164/U+FFA0, U+E0000–E0FFF
		// unassigned) and every variation selector (U+180B–U+180D,
		// U+FE00–FE0F, U+E0100–E01EF): a renderer draws nothing.
		return true
	case unicode.Is(unicode.Zs, r), r == 0x2028, r == 0x2029, r == 0x2800:
		// Spaces other than U+0020 (U+00A0, U+2000–U+200A, U+3000: a
		// trailing one is invisible), line and paragraph separators, and
		// the braille blank that renders as a space.
		return true
	}
	return false
}

// markdownInline are the characters that can start live Markdown or HTML
// in running text: tags and entities, links and images (both need
// brackets), emphasis with * and strikethrough with ~, code spans. An
// underscore is left alone: intraword it does nothing in CommonMark, and
// job IDs are full of them.
var markdownInline = strings.NewReplacer(
	`\`, `\\`, "<", "&lt;", ">", "&gt;", "&", "&amp;",
	"[", `\[`, "]", `\]`, "*", `\*`, "`", "\\`", "~", `\~`,
)

// Markdown makes untrusted text inert in running Markdown text (a list
// item, a sentence, a heading's words) as GitHub renders it: shown
// literally, never as a tag, link, image, emphasis, code span or heading.
//
//   - what Text escapes is escaped first, so no control, bidi or
//     zero-width character and no line break reaches the document;
//   - < > & become entities, the other specials a backslash escape;
//   - a # at the start, which would open a heading where a writer puts
//     the text at a line's start, is escaped (a - or + is left: no writer
//     starts a line with a value, and "--stack x" reads as typed);
//   - a bare URL ("https://", "www.") is kept from GitHub's autolinker by
//     escaping its ":" or "." (shown as typed, not a link);
//   - an @mention ("@name" after a space or at the start) is split after
//     the @ by an empty HTML comment, which GitHub's renderer drops: the
//     page shows "@name" exactly, no one is notified. It is the one raw <
//     a writer emits, and it is inert: a comment holds no text.
//
// A pipe is left as is: use MarkdownCell inside a table.
func Markdown(s string) string { return markdownText(s, false) }

// MarkdownCell makes untrusted text inert in a Markdown table cell: what
// Markdown does, and the pipe that would end the cell escaped.
func MarkdownCell(s string) string { return markdownText(s, true) }

// MentionBreak is what Markdown puts after the @ of an @mention.
const MentionBreak = "<!-- -->"

func markdownText(s string, cell bool) string {
	t := markdownInline.Replace(Text(s))
	if cell {
		t = strings.ReplaceAll(t, "|", `\|`)
	}
	if strings.HasPrefix(t, "#") {
		t = `\` + t
	}
	if !strings.Contains(t, "://") && !strings.Contains(t, "@") && !strings.Contains(strings.ToLower(t), "www.") {
		return t
	}
	var b strings.Builder
	b.Grow(len(t) + 16)
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == ':' && strings.HasPrefix(t[i:], "://") && i > 0 && isAlnum(t[i-1]):
			b.WriteString(`\:`)
			continue
		case (c == 'w' || c == 'W') && len(t) >= i+4 && strings.EqualFold(t[i:i+4], "www.") && (i == 0 || !isWord(t[i-1])):
			b.WriteString(t[i : i+3])
			b.WriteString(`\.`)
			i += 3
			continue
		case c == '@' && (i == 0 || !isWord(t[i-1])) && i+1 < len(t) && isAlnum(t[i+1]):
			b.WriteString("@" + MentionBreak)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isWord is GitHub's mention filter's word character: an @ after one is
// an address, not a mention.
func isWord(c byte) bool { return isAlnum(c) || c == '_' || c >= 0x80 }

// slackSpecial are the three characters Slack's mrkdwn says to escape:
// with them as entities no <!channel>, <@U123> or <https://x|y> is live.
var slackSpecial = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Slack makes untrusted text inert in a Slack message's mrkdwn text: what
// Text escapes, then & < > as entities (Slack's "escaping text"), so no
// mention, channel-wide ping or link can be forged.
func Slack(s string) string { return slackSpecial.Replace(Text(s)) }

// SARIFText makes untrusted text plain in a SARIF message: what Text
// escapes, and the brackets SARIF reads as an embedded link escaped as
// the format says (\[ \]).
func SARIFText(s string) string {
	return strings.NewReplacer(`[`, `\[`, `]`, `\]`).Replace(Text(s))
}

// SARIFURI writes a slash-separated relative path (filepath.ToSlash: a
// backslash is a byte of a name, and encoded) as a SARIF artifact URI:
// each segment percent-encoded (RFC 3986 unreserved characters and
// sub-delimiters kept), never absolute, so every byte of a hostile file
// name — a space, %, #, ?, a control or bidi character — is an
// escape in a valid URI reference relative to %SRCROOT%.
func SARIFURI(p string) string {
	segs := strings.Split(strings.TrimLeft(p, "/"), "/")
	var b strings.Builder
	for i, seg := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		for j := 0; j < len(seg); j++ {
			c := seg[j]
			if isAlnum(c) || strings.IndexByte("-._~!$'()*+,;=@", c) >= 0 || (c == ':' && i > 0) {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	return b.String()
}

// JSON returns JSON text b with every character Text would escape, beyond
// the C0 controls encoding/json escapes already, written as a \u escape:
// bidirectional controls, zero-width characters, C1 controls, U+2028/9.
// The JSON means exactly the same — a program reading it gets the job ID
// as logged, byte for byte — while a person reading it on a terminal sees
// \u202e instead of text that reorders itself. b must be valid JSON as
// encoding/json writes it (valid UTF-8); it is returned as is when it has
// no byte from 0x7f up.
func JSON(b []byte) []byte {
	i := 0
	// Eight bytes at a time while all are below 0x7f (a report is almost
	// all ASCII): adding one to each byte sets its high bit exactly when
	// it is 0x7f or above, and a carry out of one byte comes only from
	// 0xff, whose own high bit already says so.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(b) {
		if w := binary.LittleEndian.Uint64(b[i:]); ((w+ones)|w)&highs != 0 {
			break
		}
		i += 8
	}
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x7f && hidden(r) { // DEL, which encoding/json leaves raw, and up
			if r > 0xFFFF { // JSON's \u takes four digits: a surrogate pair
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// JSONWriter applies JSON to a stream of JSON text written in pieces: a
// character split across two writes is held until it is whole.
type JSONWriter struct {
	W    interface{ Write([]byte) (int, error) }
	held []byte
}

func (j *JSONWriter) Write(p []byte) (int, error) {
	b := p
	if len(j.held) > 0 {
		b = append(j.held, p...)
		j.held = nil
	}
	// Hold an incomplete character at the end for the next write.
	cut := len(b)
	for k := len(b) - 1; k >= 0 && k >= len(b)-utf8.UTFMax; k-- {
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:]) {
				cut = k
			}
			break
		}
	}
	if cut < len(b) {
		j.held = append([]byte(nil), b[cut:]...)
	}
	if _, err := j.W.Write(JSON(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}
