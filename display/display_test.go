package display

import (
	"encoding/json"
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

// TestTextEscapesEveryInvisibleCharacter (red team R7-2): each of these
// renders as nothing, or as a space, so "job-003" followed by one of
// them displayed as "job-003" — seven job IDs, one look. Every one is
// escaped, and every pair stays distinct once displayed.
func TestTextEscapesEveryInvisibleCharacter(t *testing.T) {
	invisible := []rune{
		0xE0100, 0xE01EF, // variation selectors supplement
		0x1BCA0, 0x1BCA3, // shorthand format controls
		0xFFF9, 0xFFFA, 0xFFFB, // interlinear annotation
		0x1D173, 0x1D17A, // musical symbol format
		0x2800,                 // braille blank
		0x00A0, 0x3000, 0x2007, // spaces other than U+0020
		0x0600, 0x06DD, 0x110BD, // other Cf
		0xE0000, 0xE0FFF, 0x180F, // default ignorable, unassigned or new
		// the list before R7-2, kept
		0x202E, 0x2066, 0x200E, 0x061C, 0x200B, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E,
		0x2028, 0x2063, 0x034F, 0x180B, 0xFE0F, 0xE0041, 0x115F, 0x3164, 0xFFA0, 0x7F, 0x85,
	}
	seen := map[string]rune{Text("job-003"): 0}
	for _, r := range invisible {
		in := "job-003" + string(r)
		got := Text(in)
		if got == in || Safe([]byte(in)) {
			t.Errorf("U+%04X passes raw: Text = %q", r, got)
		}
		if prev, ok := seen[got]; ok {
			t.Errorf("U+%04X displays as U+%04X does: %q", r, prev, got)
		}
		seen[got] = r
	}
	for _, keep := range []string{"ünïcødé", "日本語のジョブ", "emoji 🔥", "≥$0", "×1.2", "é"} {
		if got := Text(keep); got != keep {
			t.Errorf("Text(%q) = %q: visible text escaped", keep, got)
		}
	}
}

// TestAstralEscapesAreUnambiguous (R7-2): \ue0041 read as U+E004 then
// "1"; a rune above U+FFFF is written with eight digits in text and as a
// surrogate pair in JSON, which decodes to the same rune.
func TestAstralEscapesAreUnambiguous(t *testing.T) {
	if got, want := Text("job\U000E0041tag"), `job\U000e0041tag`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if Text("job\U000E0041") == Text("job\uE0041") {
		t.Error("U+E0041 and U+E004 followed by 1 display alike")
	}
	in, _ := json.Marshal("job\U000E0041tag\U000E0100")
	got := JSON(in)
	if want := `"job\udb40\udc41tag\udb40\udd00"`; string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != "job\U000E0041tag\U000E0100" {
		t.Errorf("JSON escape decodes to %q, %v", back, err)
	}
}
