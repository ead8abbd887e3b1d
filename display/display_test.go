package display

import (
	"fmt"
	"strings"
	"testing"
)

func TestTextMakesHiddenCharactersVisible(t *testing.T) {
	for in, want := range map[string]string{
		"job-1":                 "job-1",
		"job\u202eexe.txt":      `job\u202eexe.txt`,
		"a\u2066b\u2069c":       `a\u2066b\u2069c`,
		"zero\u200bwidth\ufeff": `zero\u200bwidth\ufeff`,
		"\x1b]0;pwned\x07":      `\u001b]0;pwned\u0007`,
		"\x1b[2J":               `\u001b[2J`,
		"c1\u009b31m":           `c1\u009b31m`,
		"bad\xff\xfe":           `bad\xff\xfe`,
		"ünïcødé ok":            "ünïcødé ok",
		"line\nbreak":           `line\u000abreak`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	// Distinct invalid bytes stay distinct.
	if Text("id-\xff") == Text("id-\xfe") {
		t.Error("two IDs differing in invalid bytes merged")
	}
}

func TestMarkdownCellIsInert(t *testing.T) {
	for _, in := range []string{`<img src=x onerror=alert(1)>`, `[x](javascript:alert(1))`, "a|b", "**bold** `code`", "![i](http://x/y.png)"} {
		got := MarkdownCell(in)
		for _, bad := range []string{"<img", "[x]", "[i]", "a|b", "**", "`code`"} {
			if strings.Contains(got, bad) {
				t.Errorf("MarkdownCell(%q) = %q still holds %q", in, got, bad)
			}
		}
	}
}

// TestJSONFindsTheFirstHiddenByteInEveryPosition: JSON skips eight plain
// bytes at a time; a DEL or a C1 control at any position, beside plain
// bytes of every value below 0x7f, is still escaped, and a string without
// one comes back as it went in.
func TestJSONFindsTheFirstHiddenByteInEveryPosition(t *testing.T) {
	for n := range 40 {
		plain := make([]byte, n)
		for k := range plain {
			plain[k] = byte(0x7e - (k*37)%0x5f) // 0x20–0x7e
		}
		if got := JSON(plain); string(got) != string(plain) {
			t.Fatalf("plain %q came back %q", plain, got)
		}
		for at := range n + 1 {
			for _, bad := range []string{"\x7f", "\u0085", "\u202e"} {
				in := string(plain[:at]) + bad + string(plain[at:])
				want := string(plain[:at]) + `\u` + fmt.Sprintf("%04x", []rune(bad)[0]) + string(plain[at:])
				if got := string(JSON([]byte(in))); got != want {
					t.Fatalf("%q: got %q, want %q", in, got, want)
				}
			}
		}
	}
}
