package decode

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestSpecial8LowestFlagIsExact: str jumps to the lowest byte special8
// flags, so that byte must be the first quote, backslash or control
// character of the word, in every word (random ones, and ones built of
// the bytes around the borders a borrow crosses).
func TestSpecial8LowestFlagIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	edge := []byte{0, 1, 2, 3, 0x1d, 0x1f, 0x20, 0x21, '"', '#', 0x7e, '\\', ']', 0x7f, 0x80, 0x81, 0x9f, 0xa0, 0xa1, 0xff}
	for n := range 2_000_000 {
		var b [8]byte
		for k := range b {
			if n%2 == 0 {
				b[k] = byte(rng.Uint32())
			} else {
				b[k] = edge[rng.IntN(len(edge))]
			}
		}
		want := 8
		for k, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				want = k
				break
			}
		}
		w := uint64(0)
		for k := 7; k >= 0; k-- {
			w = w<<8 | uint64(b[k])
		}
		got := 8
		if m := special8(w); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("% x: first special byte at %d, special8 says %d", b, want, got)
		}
	}
}

// TestPlainIntWordMatchesBytes: a number read from the word at s.i
// (plainInt) is read as byte by byte (plainIntBytes) — the same value,
// the same verdict, the scanner left at the same place — for numbers of
// every length around eight digits, leading zeros, signs, fractions,
// exponents, and random bytes after them, whole lines or cut short.
func TestPlainIntWordMatchesBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tails := []string{"", ",", "}", ".5", "e3", "E-1", " ", "\x00", "/", ":", "0", "9", "a", "\xff", "-", "+"}
	for n := range 500_000 {
		var b []byte
		digits := rng.IntN(20)
		if n%7 == 0 {
			b = append(b, '0')
		}
		if n%11 == 0 {
			b = append(b, '-')
		}
		for range digits {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		b = append(b, tails[rng.IntN(len(tails))]...)
		for range rng.IntN(10) {
			b = append(b, byte(rng.Uint32()))
		}
		if n%3 == 0 && len(b) > 0 {
			b = b[:rng.IntN(len(b))]
		}
		var w, bs scanner
		w.reset(b)
		bs.reset(b)
		gotN, gotOK := w.plainInt()
		wantN, wantOK := bs.plainIntBytes()
		if gotN != wantN || gotOK != wantOK || w.i != bs.i {
			t.Fatalf("%q: word %d %v at %d, bytes %d %v at %d", b, gotN, gotOK, w.i, wantN, wantOK, bs.i)
		}
	}
}
