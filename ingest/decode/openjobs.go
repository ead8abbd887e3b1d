package decode

import (
	"encoding/binary"
	"hash/maphash"
)

// openJobs maps a job ID to the time of its last JSON line (noteOpen). It
// is read on every JSON line that names a job, so it is built to cost one
// cache line where a map cost three or four (its control word, the slot's
// key header, the key's bytes, then the time in a second slice): an
// open-addressing table whose slot holds the key's full 64-bit hash, the
// time, and — for an ID of up to 15 bytes, as most are — the ID's bytes
// inline, so a match is confirmed without following a pointer. A longer
// ID is kept in longs, its position in the slot, and compared only once
// the full hash matches. A slot is 32 bytes, two to a cache line, and
// holds no pointer: the collector never scans the table.
type openJobs struct {
	slots []openSlot // a power of two long; h == 0 is an empty slot
	longs []string   // the IDs longer than openInline
	n     int
	seed  maphash.Seed
}

// openInline is the longest ID kept in the slot itself.
const openInline = 15

type openSlot struct {
	h    uint64
	ts   int64
	klen uint8            // the ID's length when inline; openInline+1 when in longs
	pre  [openInline]byte // the ID, or (its first 4 bytes) its position in longs
}

// openMax is how many jobs the table holds before it starts over (as the
// map before it did): a log of ever new jobs costs a bounded table.
const openMax = 100_000

func (o *openJobs) hash(id string) uint64 { return OpenHash(o.seed, id) }

// OpenHash is id's hash in a table of open jobs whose seed is seed
// (JSONLines.OpenSeed): the parse workers compute it beside the line's
// parse, so the ordered pass that keeps the table does not.
func OpenHash(seed maphash.Seed, id string) uint64 {
	h := maphash.String(seed, id)
	if h == 0 {
		h = 1 // 0 marks an empty slot
	}
	return h
}

// warm loads the slot where a job hashed h is looked for first, so that a
// find of it soon after hits the cache: the caller touches the slots of
// the lines ahead of the one it decodes, whose loads, independent of each
// other, miss the cache together instead of one after another. The table
// is not changed; a hint made stale by a grow or a reset costs a load.
func (o *openJobs) warm(h uint64) uint64 {
	if len(o.slots) == 0 {
		return 0
	}
	return o.slots[h&uint64(len(o.slots)-1)].h
}

// find is id's slot and whether id is in it; when it is not, the slot is
// where id goes.
func (o *openJobs) find(id string, h uint64) (*openSlot, bool) {
	mask := uint64(len(o.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &o.slots[i]
		if s.h == 0 {
			return s, false
		}
		if s.h == h && o.holds(s, id) {
			return s, true
		}
	}
}

func (o *openJobs) holds(s *openSlot, id string) bool {
	klen := s.klen &^ slotCalled
	if len(id) > openInline {
		return klen == openInline+1 && o.longs[binary.LittleEndian.Uint32(s.pre[:])] == id
	}
	return int(klen) == len(id) && string(s.pre[:len(id)]) == id
}

// slotCalled, in a slot's klen, marks a job a call record of which was
// read: a later "job finished" line of it that carries a model and token
// totals is its summary, not one more call (R8-37).
const slotCalled = 0x40

// put writes id at s, a slot find gave for it.
func (o *openJobs) put(s *openSlot, id string, h uint64, ts int64) {
	s.h, s.ts = h, ts
	if len(id) > openInline {
		s.klen = openInline + 1
		binary.LittleEndian.PutUint32(s.pre[:], uint32(len(o.longs)))
		o.longs = append(o.longs, id)
	} else {
		s.klen = uint8(copy(s.pre[:], id))
	}
	o.n++
}

// grow doubles the table, moving slots by their stored hash (no key is
// hashed again).
func (o *openJobs) grow() {
	old := o.slots
	o.slots = make([]openSlot, 2*len(old))
	mask := uint64(len(o.slots) - 1)
	for k := range old {
		if old[k].h == 0 {
			continue
		}
		i := old[k].h & mask
		for o.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		o.slots[i] = old[k]
	}
}

// reset empties the table, keeping its memory.
func (o *openJobs) reset() {
	if o.slots == nil {
		o.slots, o.seed = make([]openSlot, 1024), maphash.MakeSeed()
	} else {
		clear(o.slots)
	}
	clear(o.longs)
	o.longs, o.n = o.longs[:0], 0
}

// full: the next ID would pass the load the probes stay short at (13/16,
// so openMax fits in 2^17 slots).
func (o *openJobs) full() bool { return (o.n+1)*16 > len(o.slots)*13 }
