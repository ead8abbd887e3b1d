package decode

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads one JSON value in a single pass, validating as strictly as
// encoding/json does, so the parser can pick the fields it knows without
// first building a tree. It replaced github.com/valyala/fastjson on the hot
// path because building fastjson's tree and then visiting it capped the
// report path at ~0.87M lines/s, under the 1M target; encoding/json's
// decoders are slower still. FuzzScannerMatchesEncodingJSON holds it to
// encoding/json's verdict on every input.
type scanner struct {
	b       []byte
	i       int
	err     bool
	tooDeep bool // err came from nesting past maxDepth, not bad syntax
	depth   int
	scratch []byte // unescaped string values; valid until the next string
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

func (s *scanner) reset(b []byte) { s.b, s.i, s.err, s.tooDeep, s.depth = b, 0, false, false, 0 }

// strOrSkip reads a string value as a new string, or skips a value of
// another type and gives "": for the fields a decoder picks by name.
func (s *scanner) strOrSkip() string {
	if s.peek() != '"' {
		s.skip()
		return ""
	}
	return string(s.str())
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		// Most calls meet a token at once: one comparison decides.
		if c := s.b[s.i]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		s.i++
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// colon reads the ':' after an object's key (and the space before it), or
// fails.
func (s *scanner) colon() bool {
	s.ws()
	if s.peek() != ':' {
		s.fail()
		return false
	}
	s.i++
	return true
}

func (s *scanner) fail() { s.err = true; s.i = len(s.b) }

// str reads a string at s.i; the result aliases the input when it has no
// escapes, else the scratch buffer. It works on locals (the line and the
// position), stored back once: through s, every step of the loop loaded
// and stored them again.
func (s *scanner) str() []byte {
	b, i := s.b, s.i
	if i >= len(b) || b[i] != '"' {
		s.fail()
		return nil
	}
	i++
	start := i
	// Eight bytes at a time while none is a quote, a backslash or a
	// control character: long strings (a transcript's message text) are
	// most of what a line holds. The word that holds one lands i on it at
	// once: the lowest flagged byte is always a true one (see special8),
	// so the short strings most fields are cost no byte-by-byte loop; the
	// last bytes of a line, fewer than eight, are read one by one.
	for i+8 <= len(b) {
		if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		i += 8
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:i]
		case c == '\\':
			s.i = i
			return s.strEscaped(start)
		case c < 0x20:
			s.fail()
			return nil
		}
	}
	s.fail()
	return nil
}

// plain8 reports whether none of the eight bytes in w is '"', '\\' or
// below 0x20.
func plain8(w uint64) bool { return special8(w) == 0 }

// special8 flags (its high bit) each byte of w that is '"', '\\' or below
// 0x20 (the SWAR "has zero byte" and "has byte less than" tests). A
// borrow may also flag a byte above a true one, never one below it: the
// lowest flag is exact. The quote and the control bytes are one test:
// flipping bit 1 maps '"' (0x22) to 0x20 and keeps every byte below 0x20
// below it (and 0x20 itself goes to 0x22), so they are the bytes that,
// flipped, are below 0x21.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * 0x02)
	quoteOrControl := (q - ones*0x21) & ^q & highs
	b := w ^ (ones * '\\')
	return quoteOrControl | (b-ones)&^b&highs
}

func (s *scanner) strEscaped(start int) []byte {
	s.scratch = append(s.scratch[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.scratch
		case c < 0x20:
			s.fail()
			return nil
		case c != '\\':
			s.scratch = append(s.scratch, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			s.fail()
			return nil
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			s.scratch = append(s.scratch, e)
		case 'b':
			s.scratch = append(s.scratch, '\b')
		case 'f':
			s.scratch = append(s.scratch, '\f')
		case 'n':
			s.scratch = append(s.scratch, '\n')
		case 'r':
			s.scratch = append(s.scratch, '\r')
		case 't':
			s.scratch = append(s.scratch, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				s.fail()
				return nil
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate may pair with a following \u low one.
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if r2, ok := s.hex4(); ok {
						if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
							s.scratch = utf8.AppendRune(s.scratch, p)
							continue
						}
					} else {
						s.fail()
						return nil
					}
					s.i = save
				}
				r = utf8.RuneError
			}
			s.scratch = utf8.AppendRune(s.scratch, r)
		default:
			s.fail()
			return nil
		}
	}
	s.fail()
	return nil
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	s.i += 4
	return r, true
}

// plainInt reads a number at s.i when it is a plain non-negative integer
// of at most 15 digits — a token count, a status, a latency — in one pass,
// and leaves anything else (a sign, a fraction, an exponent, a leading
// zero, more digits) untouched for num, which knows the whole grammar.
//
// Most such numbers are short: the eight bytes at s.i are read as one
// word, which says how many digits lead it and what they are worth
// (plainInt8); a number of eight digits or more is read byte by byte
// (plainIntBytes).
func (s *scanner) plainInt() (int64, bool) {
	b, i := s.b, s.i
	var w uint64
	if i+8 <= len(b) {
		w = binary.LittleEndian.Uint64(b[i:])
	} else {
		// The line's last bytes (a number before the closing brace): the
		// word's bytes past the end are zero, which is no digit.
		for k := len(b) - 1; k >= i; k-- {
			w = w<<8 | uint64(b[k])
		}
	}
	n, digits := plainInt8(w)
	if digits == 8 {
		return s.plainIntBytes()
	}
	if digits == 0 || (digits > 1 && b[i] == '0') {
		return 0, false
	}
	if i+digits < len(b) {
		if c := b[i+digits]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	s.i = i + digits
	return n, true
}

// plainInt8 is how many of w's bytes, from its lowest (the first in the
// line), are ASCII digits, and (when fewer than eight) the number they
// spell. A byte's value less '0' is below 10 only for a digit: the lowest
// byte that is not one is flagged exactly (a borrow or a carry only
// reaches the bytes above it), and the digits below it, shifted to the
// word's top with zeros before them, are summed in pairs, fours, eights.
func plainInt8(w uint64) (n int64, digits int) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	t := w - ones*'0'
	m := (t | (t + ones*0x76)) & highs
	if m == 0 {
		return 0, 8
	}
	digits = bits.TrailingZeros64(m) >> 3
	if digits == 0 {
		return 0, 0
	}
	v := t << (64 - 8*digits)
	v = (v & 0x0F0F0F0F0F0F0F0F) * (10<<8 + 1) >> 8
	v = (v & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	v = (v & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
	return int64(v), digits
}

// plainIntBytes is plainInt a byte at a time.
func (s *scanner) plainIntBytes() (int64, bool) {
	i, n := s.i, int64(0)
	for i < len(s.b) && i-s.i < 16 {
		c := s.b[i]
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		i++
	}
	digits := i - s.i
	if digits == 0 || digits > 15 || (digits > 1 && s.b[s.i] == '0') {
		return 0, false
	}
	if i < len(s.b) {
		if c := s.b[i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	s.i = i
	return n, true
}

// num reads a number with JSON's exact grammar and returns its text.
func (s *scanner) num() []byte {
	start := s.i
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		s.fail()
		return nil
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			s.fail()
			return nil
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			s.fail()
			return nil
		}
	}
	return s.b[start:s.i]
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) lit(word string) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		s.fail()
		return
	}
	s.i += len(word)
}

// skip reads and discards any value.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '"':
		s.str()
	case c == '{':
		s.object(func([]byte) { s.skip() })
	case c == '[':
		s.array()
	case c == 't':
		s.lit("true")
	case c == 'f':
		s.lit("false")
	case c == 'n':
		s.lit("null")
	case c == '-' || ('0' <= c && c <= '9'):
		if c == '-' && s.nonFinite() {
			return
		}
		s.num()
	case c == 'N' || c == 'I':
		if !s.nonFinite() {
			s.fail()
		}
	default:
		s.fail()
	}
}

// nonFinite consumes NaN, Infinity or -Infinity and reports whether it
// did. They are not JSON, but Python's json.dumps writes them for a float
// that is not finite (allow_nan is on by default): an app that computes a
// cost from an unknown price logs "cost_usd": NaN, and the line is
// otherwise whole. The value is unreadable, so its field is dropped — the
// line, and the call on it, are kept.
func (s *scanner) nonFinite() bool {
	r := s.b[s.i:]
	if len(r) < 3 || (r[0] != 'N' && r[0] != 'I' && (r[0] != '-' || r[1] != 'I')) {
		return false // a number: the common case, one byte read
	}
	for _, w := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(r) >= len(w) && string(r[:len(w)]) == w {
			s.i += len(w)
			return true
		}
	}
	return false
}

func (s *scanner) array() { s.each(s.skip) }

// each reads an array, calling elem at each element; elem must consume
// it (s.i is at its first byte).
func (s *scanner) each(elem func()) {
	s.i++ // '['
	if s.depth++; s.depth > maxDepth {
		s.tooDeep = true
		s.fail()
		return
	}
	s.ws()
	if s.peek() == ']' {
		s.i++
		s.depth--
		return
	}
	for !s.err {
		s.ws()
		elem()
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return
		default:
			s.fail()
		}
	}
}

// object reads an object, calling field with each key; field must consume
// the value (s.i is at its first byte). The key slice is valid only until
// the field reads a string.
func (s *scanner) object(field func(key []byte)) {
	if s.peek() != '{' {
		s.fail()
		return
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		s.tooDeep = true
		s.fail()
		return
	}
	s.ws()
	if s.peek() == '}' {
		s.i++
		s.depth--
		return
	}
	for !s.err {
		s.ws()
		key := s.str()
		if s.err {
			return
		}
		s.ws()
		if s.peek() != ':' {
			s.fail()
			return
		}
		s.i++
		s.ws()
		field(key)
		if s.err {
			return
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return
		default:
			s.fail()
		}
	}
}
