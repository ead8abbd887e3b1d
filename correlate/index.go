package correlate

import "hash/maphash"

// hashIndex finds a record's position by its string key through the key's
// 64-bit hash, in an open-addressing table of 8-byte slots: 32 bits of the
// hash (the tag, which also places the slot) and the position. It holds no
// strings and no pointers — nothing for the garbage collector to scan —
// and a probe usually reads one cache line, where a map[string] read the
// key's bytes as well and Go's map[uint64] two lines (at 100,000 jobs
// those misses were a quarter of correlation). Growing moves slots, not
// keys. The caller keeps the keys in its records and every tag match is
// confirmed against the key itself, so keys of one tag are told apart.
type hashIndex struct {
	seed  maphash.Seed
	slots []uint64 // tag<<32 | position+1; 0 is empty
	count int
	// testCollide, set only by tests, hashes every key alike.
	testCollide bool
}

const minIndexSlots = 1 << 10

func newHashIndex() hashIndex {
	return hashIndex{seed: maphash.MakeSeed(), slots: make([]uint64, minIndexSlots)}
}

func (x *hashIndex) hash(key string) uint64 {
	if x.testCollide {
		return 7 << 32
	}
	return maphash.String(x.seed, key)
}

// find returns the position of key (of hash h); keyAt gives the key of the
// record at a position.
func (x *hashIndex) find(key string, h uint64, keyAt func(int32) string) (int32, bool) {
	tag := h >> 32
	mask := uint64(len(x.slots) - 1)
	for i := tag & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == tag {
			if pos := int32(uint32(s) - 1); keyAt(pos) == key {
				return pos, true
			}
		}
	}
}

// first returns the position+1 of the first slot of h's tag along h's
// probe, 0 when an empty slot comes first: find's first candidate, for a
// caller that confirms the key itself (resolve: one load per step).
func (x *hashIndex) first(h uint64) int32 {
	tag := h >> 32
	mask := uint64(len(x.slots) - 1)
	for i := tag & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0
		}
		if s>>32 == tag {
			return int32(uint32(s))
		}
	}
}

// add records key (of hash h, not yet present) at position pos.
func (x *hashIndex) add(h uint64, pos int32) {
	if 4*(x.count+1) > 3*len(x.slots) {
		x.grow()
	}
	x.put(h>>32<<32 | uint64(uint32(pos)+1))
	x.count++
}

func (x *hashIndex) put(slot uint64) {
	mask := uint64(len(x.slots) - 1)
	i := slot >> 32 & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = slot
}

func (x *hashIndex) grow() {
	old := x.slots
	x.slots = make([]uint64, 2*len(old))
	for _, s := range old {
		if s != 0 {
			x.put(s)
		}
	}
}

// remove deletes key (of hash h) from the index, shifting the slots after
// it back so no probe chain is broken (linear probing has no tombstones).
// It reports whether the key was there.
func (x *hashIndex) remove(key string, h uint64, keyAt func(int32) string) bool {
	tag := h >> 32
	mask := uint64(len(x.slots) - 1)
	i := tag & mask
	for ; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return false
		}
		if s>>32 == tag && keyAt(int32(uint32(s)-1)) == key {
			break
		}
	}
	// Backward-shift: move each later slot of the run into the hole when
	// its home is not between the hole and itself.
	hole := i
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		home := x.slots[j] >> 32 & mask
		if (j > hole && (home <= hole || home > j)) || (j < hole && home <= hole && home > j) {
			x.slots[hole] = x.slots[j]
			hole = j
		}
	}
	x.slots[hole] = 0
	x.count--
	return true
}
