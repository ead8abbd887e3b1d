package ingest

import (
	"unicode"
	"unicode/utf8"
)

// Sanitize returns b as valid UTF-8 text with every control character —
// C0, DEL, C1, and so the start of any terminal escape sequence — replaced
// by U+FFFD. Log content passes through it before anything can print it.
func Sanitize(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r == utf8.RuneError || unicode.IsControl(r) || r == 0x7f {
			out = utf8.AppendRune(out, utf8.RuneError)
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// SanitizeString is Sanitize for strings; it returns s unchanged (no copy)
// when there is nothing to replace.
func SanitizeString(s string) string {
	if isPlainText([]byte(s)) {
		return s
	}
	return string(Sanitize([]byte(s)))
}

// interner deduplicates the strings of repeated fields (models, job IDs
// repeated on every retry) so a line costs no allocation once its values
// have been seen. It is bounded: when full it starts over.
type interner struct {
	m   map[string]string
	cap int
}

func newInterner(capacity int) interner {
	return interner{m: make(map[string]string, 1024), cap: capacity}
}

func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	if len(in.m) >= in.cap {
		clear(in.m)
	}
	s := string(b)
	in.m[s] = s
	return s
}
