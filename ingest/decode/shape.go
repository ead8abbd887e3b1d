package decode

import (
	"bytes"
	"strings"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Each record is judged by its own shape (issue 39). A file's format,
// detected from its head (or a followed file's first line), is only the
// fast path: the decoder of that format reads each record first, and a
// record it cannot read as an event is looked at again — by the keys of
// the Formats rows (the format contract: a row's keys are its shape) and
// as a canonical JSON line. So one start-up line {"type":"app_start",
// "sessionId":…} ahead of an app's calls, a second logger in the same
// stream or a chat log beside an app's log blinds nothing: each record is
// read by the format whose shape it has, whatever came before it.
//
// The common case pays nothing: a record the file's own decoder reads as
// an event is never looked at twice.

// keyBits is a set of the rows' key names, one bit each (128 names).
type keyBits [2]uint64

func (b *keyBits) add(o keyBits)        { b[0] |= o[0]; b[1] |= o[1] }
func (b keyBits) covers(o keyBits) bool { return b[0]&o[0] == o[0] && b[1]&o[1] == o[1] }
func (b keyBits) empty() bool           { return b[0]|b[1] == 0 }

// shapeKey is one key name of the rows' Keys, with its bit.
type shapeKey struct {
	bit keyBits
	// valued: a key of some set is written "k=a|b", so its string value
	// is kept while scanning.
	valued bool
}

// shapeSet is one key set of a row, as bits.
type shapeSet struct {
	row  *FormatInfo
	mask keyBits
	// values: per valued key of the set, its bit and allowed values.
	values []shapeValue
}

type shapeValue struct {
	bit     keyBits
	allowed []string
}

// shapes are every row's key sets in detection order; shapeKeys the key
// names they use. Built once from Formats: a row added there is a shape
// here, with nothing else to write.
var shapes, shapeKeys = func() ([]shapeSet, map[string]shapeKey) {
	keys := map[string]shapeKey{}
	var sets []shapeSet
	for _, f := range keyed {
		for _, ks := range f.Keys {
			set := shapeSet{row: f}
			for _, k := range ks {
				name, values, valued := strings.Cut(k, "=")
				sk, ok := keys[name]
				if !ok {
					if len(keys) >= 128 {
						panic("decode: more than 128 distinct keys in Formats' Keys: widen keyBits")
					}
					sk.bit[len(keys)/64] = 1 << (len(keys) % 64)
				}
				sk.valued = sk.valued || valued
				keys[name] = sk
				set.mask.add(sk.bit)
				if valued {
					set.values = append(set.values, shapeValue{bit: sk.bit, allowed: strings.Split(values, "|")})
				}
			}
			sets = append(sets, set)
		}
	}
	return sets, keys
}()

// shapeOf is the first row (in detection order) whose keys a JSON record
// has, or nil: one pass over its top-level keys.
func shapeOf(line []byte) *FormatInfo {
	var sc scanner
	sc.reset(bytes.TrimSpace(line))
	if sc.peek() != '{' {
		return nil
	}
	var mask keyBits
	var vals [4]struct {
		bit keyBits
		v   string
	}
	nv := 0
	sc.object(func(k []byte) {
		sk, ok := shapeKeys[string(k)]
		if !ok {
			sc.skip()
			return
		}
		mask.add(sk.bit)
		if sk.valued && sc.peek() == '"' {
			v := sc.str()
			if nv < len(vals) && len(v) <= 64 {
				vals[nv].bit, vals[nv].v = sk.bit, string(v)
				nv++
			}
			return
		}
		sc.skip()
	})
	if sc.err || mask.empty() {
		return nil
	}
next:
	for i := range shapes {
		s := &shapes[i]
		if !mask.covers(s.mask) {
			continue
		}
		for _, want := range s.values {
			found := false
			for _, got := range vals[:nv] {
				if got.bit == want.bit {
					for _, a := range want.allowed {
						found = found || a == got.v
					}
				}
			}
			if !found {
				continue next
			}
		}
		if s.row.Reads != nil && !s.row.Reads(line) {
			// An app's record of an agent's keys is not the agent's
			// (issue 35): in a file of that agent it goes to the JSON
			// lines, never passed over as the agent's own.
			continue
		}
		return s.row
	}
	return nil
}

// rowSet holds, per stream, the decoders of the rows its records turned
// out to have, made when the first such record comes: each keeps its own
// state (a Claude Code response's records, a Codex session's model).
type rowSet struct {
	opts  Options
	decs  map[Format]Decoder
	canon Decoder // canonical JSON lines, for a keyed file's other records
	probe *Parser
	ev    ingest.Event
}

func newRowSet(o Options) *rowSet { return &rowSet{opts: o} }

// row is the decoder of f in this stream.
func (s *rowSet) row(f Format) Decoder {
	if d, ok := s.decs[f]; ok {
		return d
	}
	if s.decs == nil {
		s.decs = map[Format]Decoder{}
	}
	if len(s.decs) >= len(Formats) { // cannot be: one per row
		return nil
	}
	d := newDecoder(f, s.opts.Maps, s.opts, s)
	s.decs[f] = d
	return d
}

// canonical is the canonical JSON-lines decoder of a file whose own
// format is another.
func (s *rowSet) canonical() Decoder {
	if s.canon == nil {
		s.canon = newDecoder(FormatJSONL, s.opts.Maps, s.opts, s)
	}
	return s.canon
}

// isCanonicalCall reports a record the canonical parser reads as an event
// that names itself — an event name, a model or a job: a record of a
// keyed format that its decoder passed over as not a call (a Claude Code
// user turn, a claude -p result already billed) names none of them at its
// top level, so it is never billed a second time this way.
func (s *rowSet) isCanonicalCall(line []byte) bool {
	if s.probe == nil {
		s.probe = NewParserFor(s.opts)
	}
	if s.probe.ParseAlone(line, &s.ev) != ingest.Accepted {
		return false
	}
	return s.probe.hasEv || s.ev.Model != "" || s.ev.JobID != ""
}

// flush flushes every row decoder the stream made.
func (s *rowSet) flush(emit func(*ingest.Event)) int {
	n := 0
	for _, f := range Formats { // in the table's order: deterministic
		if d, ok := s.decs[f.Name].(Flusher); ok {
			n += d.Flush(emit)
		}
	}
	if d, ok := s.canon.(Flusher); ok {
		n += d.Flush(emit)
	}
	return n
}

// otherRow is what a canonical JSON-lines decoder does with a JSON record
// it read as no event: the record's own row, if it has one, reads it. It
// returns the row decoder's outcome and whether it gave events.
func (s *rowSet) otherRow(line []byte, emit func(*ingest.Event)) (ingest.SkipReason, bool) {
	row := shapeOf(line)
	if row == nil || row.New == nil {
		return ingest.Accepted, false
	}
	d := s.row(row.Name)
	if d == nil {
		return ingest.Accepted, false
	}
	n := 0
	r := d.Decode(line, func(ev *ingest.Event) { n++; emit(ev) })
	return r, n > 0
}

// keyedDecoder is the decoder of a file whose format has keys of its own
// (LiteLLM, the batch results, the agents): its own decoder first, then,
// for a record it read as no event, the record's own row and the
// canonical JSON lines.
type keyedDecoder struct {
	// ownInfo: the base decoder's SkipInfo always means a record of its
	// own that bills nothing (infoOwner): no second look, the fast path
	// of a transcript's many user turns and progress records.
	ownInfo bool
	base    Decoder
	format  Format
	rows    *rowSet
	n       int
	outer   func(*ingest.Event)
	count   func(*ingest.Event)
}

func newKeyedDecoder(base Decoder, f Format, rows *rowSet) *keyedDecoder {
	d := &keyedDecoder{base: base, format: f, rows: rows}
	if c, ok := base.(*checked); ok {
		_, d.ownInfo = c.inner.(infoOwner)
	}
	d.count = func(ev *ingest.Event) { d.n++; d.outer(ev) }
	return d
}

func (d *keyedDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	d.n, d.outer = 0, emit
	if len(line) > MaxLineBytes && d.format != FormatOTLPJSON && IsRequestLine(line) {
		// An export request over the line cap (a follower passes one up
		// to MaxRequestLineBytes): only the OTLP mapping reads it.
		if od := d.rows.row(FormatOTLPJSON); od != nil {
			r := od.Decode(line, d.count)
			d.outer = nil
			return r
		}
	}
	if !d.ownInfo && looksLikeJSONStart(line) && shapeOf(line) == nil && d.rows.isCanonicalCall(line) {
		// A decoder that reads more than its own shape (LiteLLM's takes
		// any record with a model) does not get a record without its
		// keys that is a canonical call: an app's line in a LiteLLM
		// file keeps its input_tokens.
		if r := d.rows.canonical().Decode(line, d.count); d.n > 0 {
			return r
		}
	}
	r := d.base.Decode(line, d.count)
	if d.n > 0 || !recordNotRead(r) || (r == ingest.SkipInfo && d.ownInfo) || !looksLikeJSONStart(line) {
		return r // the fast path: the format's own record
	}
	r = d.again(line, r)
	d.outer = nil
	return r
}

// again is the second look at a record the file's own decoder read as
// no event: the row whose keys it has, then the canonical JSON lines.
func (d *keyedDecoder) again(line []byte, r ingest.SkipReason) ingest.SkipReason {
	row := shapeOf(line)
	if row != nil && row.Name != d.format && row.New != nil {
		if od := d.rows.row(row.Name); od != nil {
			if r2 := od.Decode(line, d.count); d.n > 0 || r2 == ingest.SkipInfo {
				return r2
			}
		}
	}
	if r == ingest.SkipInfo && row != nil && row.Name == d.format {
		// The format's own record, read as describing no call (a
		// Gemini message written again, a Claude Code user turn).
		return r
	}
	if d.rows.isCanonicalCall(line) {
		if r2 := d.rows.canonical().Decode(line, d.count); d.n > 0 {
			return r2
		}
	}
	return r
}

// infoOwner is a decoder whose SkipInfo is only ever its own format's
// record (a Claude Code user turn or progress record, a Codex message: a
// record type it does not know is SkipUnknownEvent), never a record it did not
// recognise. (Gemini's is not: any record with an "id" is a message to
// it.)
type infoOwner interface{ infoIsOwn() }

func (*claudeDecoder) infoIsOwn() {}
func (*codexDecoder) infoIsOwn()  {}

// recordNotRead: a decoder's outcome that leaves the record to another
// reader. A line too long, binary or blank is no record of anyone's.
func recordNotRead(r ingest.SkipReason) bool {
	switch r {
	case ingest.SkipInfo, ingest.SkipNoEvent, ingest.SkipUnknownEvent, ingest.SkipWrongType:
		return true
	}
	return false
}

func (d *keyedDecoder) Flush(emit func(*ingest.Event)) int {
	n := 0
	if f, ok := d.base.(Flusher); ok {
		n += f.Flush(emit)
	}
	return n + d.rows.flush(emit)
}

func (d *keyedDecoder) Hint(events int64) string {
	if h, ok := d.base.(Hinter); ok {
		return h.Hint(events)
	}
	return ""
}
