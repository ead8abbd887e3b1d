package display

import (
	"encoding/json"
	"testing"
)

// TestInvisibleCharactersAreShown: red team of issue 27 — U+2063 and the
// tag characters passed display.Text, so two keys "x" and "x⁣" looked one.
func TestInvisibleCharactersAreShown(t *testing.T) {
	for _, r := range []rune{0x2063, 0xE0041, 0x034F, 0xFE0F, 0x3164} {
		if got := Text("x" + string(r)); got == "x"+string(r) {
			t.Errorf("U+%04X reached the screen raw", r)
		}
		if got := string(JSON([]byte(`"x` + string(r) + `"`))); got == `"x`+string(r)+`"` {
			t.Errorf("U+%04X reached JSON output raw", r)
		}
	}
}

// TestJSONEscapesStayJSON: a character past U+FFFF is written as a
// surrogate pair, so the output still decodes to the same text.
func TestJSONEscapesStayJSON(t *testing.T) {
	in := []byte("\"k\U000E0041\u202e\"")
	var back string
	if err := json.Unmarshal(JSON(in), &back); err != nil || back != "k\U000E0041\u202e" {
		t.Errorf("%s decodes to %q (%v)", JSON(in), back, err)
	}
}
