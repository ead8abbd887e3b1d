package decode

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
)

// Sanitize returns b with every character that could change how it looks
// escaped visibly (display.Text): control characters and so every
// terminal escape, bidirectional and zero-width characters, and invalid
// UTF-8 bytes (as \xNN, so distinct bad IDs stay distinct). Log content
// passes through it before anything can print it.
func Sanitize(b []byte) []byte { return []byte(display.Text(string(b))) }

// SanitizeString is Sanitize for strings; it returns s unchanged (no copy)
// when there is nothing to escape.
func SanitizeString(s string) string { return display.Text(s) }

// interner deduplicates the strings of repeated fields (job IDs repeated
// on every retry, models) so a line costs no allocation once its values
// have been seen. It is a direct-mapped cache: a table indexed by a hash
// of the bytes, where a collision simply replaces the slot. That bounds
// its memory and never pays for map growth or clearing. It starts small —
// a report over 700 small transcripts has 700 parsers — and grows fourfold
// when misses outnumber its slots, up to maxInternSlots.
type interner struct {
	slots  []string
	mask   uint64
	misses int
}

const (
	minInternSlots = 1 << 10
	maxInternSlots = 1 << 18
)

var internSeed = maphash.MakeSeed()

func newInterner(size int) interner {
	n := 1
	for n < size {
		n <<= 1
	}
	return interner{slots: make([]string, n), mask: uint64(n - 1)}
}

func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	// The runtime's hash (AES where the CPU has it): several times faster
	// than a byte loop on IDs, and seeded per process, so no log can aim
	// its IDs at one slot.
	slot := &in.slots[maphash.Bytes(internSeed, b)&in.mask]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	if in.misses++; in.misses > 2*len(in.slots) && len(in.slots) < maxInternSlots {
		// Many distinct values: a bigger table (the old entries are
		// dropped; they come back on their next use).
		*in = newInterner(4 * len(in.slots))
	}
	return s
}

// idArena hands out identifier strings (job IDs, keys: one or two per
// line, nearly all seen before) carved from shared 4 KiB blocks: one
// allocation per few hundred IDs instead of one each. A block is only ever
// appended to, so a string handed out never changes, and it stays valid
// for as long as anything holds it — which also keeps its block alive, so
// a consumer that keeps an ID for long copies it (correlate does, once per
// new job or key).
type idArena struct{ block []byte }

const idArenaBlock = 4 << 10

func (a *idArena) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > idArenaBlock/16 {
		return string(b) // a long one would waste most of a block
	}
	if cap(a.block)-len(a.block) < len(b) {
		a.block = make([]byte, 0, idArenaBlock)
	}
	start := len(a.block)
	a.block = append(a.block, b...)
	return unsafe.String(&a.block[start], len(b))
}

// CleanID applies the ingest rule for an identifier (a job ID, an
// idempotency key, a correlation ID): exact up to MaxIDBytes, past it
// capped (see capAt). An ID is identity — a literal "job\u202ex" and the
// real control character are two jobs, and a kill names the job as it was
// logged — so it is escaped where a person sees it (display.Text, in the
// dashboard, the Markdown report, stderr; display.JSON in JSON output),
// never here.
func CleanID(s string) string {
	if len(s) > MaxIDBytes {
		return string(capAt([]byte(s), MaxIDBytes))
	}
	return s
}

// MaxIDBytes bounds an identifier: up to it, an ID is kept exact, so a
// kill names the job as it was logged (a 540-byte job ID capped at 512
// was killed under a digest form that exists nowhere). Past it, the
// prefix-and-digest form keeps jobs apart, and no kill is sent for it.
const MaxIDBytes = ingest.MaxIDBytes

// CleanField applies the ingest rules for untrusted text from any source
// that is not an identifier (a model, a job type, an error): capped at 512
// bytes (see capID) and its control characters escaped.
func CleanField(s string) string {
	if len(s) > maxFieldBytes {
		s = string(capID([]byte(s)))
	}
	return SanitizeString(s)
}

// capID bounds a field at maxFieldBytes (see capAt).
func capID(b []byte) []byte { return capAt(b, maxFieldBytes) }

// capAt bounds a value of more than limit bytes without merging two that
// differ only past the bound: it becomes its first bytes (cut on a
// character boundary), "…#" and 128 bits of the SHA-256 of all of it —
// two long IDs with a common prefix stay two, and the same one always caps
// the same way. A capped value is always longer than limit (limit+3 to
// limit+6 bytes), so no value logged within the bound — one written in a
// capped value's shape included — is ever taken for one: a job named so
// keeps its name and its kill (digesting look-alikes let a job escape its
// kill by its name). The result is a copy: it never pins a large original
// (a 2 MB attribute) in memory.
func capAt(b []byte, limit int) []byte {
	if len(b) <= limit {
		return b
	}
	sum := sha256.Sum256(b)
	cut := limit - 30
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	out := make([]byte, 0, cut+len("…#")+32)
	out = append(out, b[:cut]...)
	out = append(out, "…#"...)
	return hex.AppendEncode(out, sum[:16])
}

// IsCappedID reports an ID kept as a prefix and a digest (CleanID).
func IsCappedID(s string) bool { return ingest.IsCappedID(s) }

// LowerProvider lower-cases a provider name ("OpenAI" from gen_ai.system is
// "openai"), without allocating when it is lower-case already.
func LowerProvider(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
