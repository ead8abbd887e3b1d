package correlate

import "hash/maphash"

// hashIndex finds a record's position by its string key through the key's
// 64-bit hash. Next to a map[string], its table holds no strings and no
// pointers: half the bytes per entry, nothing for the garbage collector to
// scan, and growing it rehashes integers instead of visiting every key's
// bytes again (at 300,000 keys that revisit was a tenth of correlation).
// The caller keeps the keys in its records and confirms every match, so
// two keys of one hash are told apart: the later one lives in collided.
type hashIndex struct {
	seed     maphash.Seed
	byHash   map[uint64]int32
	collided map[string]int32
	// testCollide, set only by tests, hashes every key alike.
	testCollide bool
}

func newHashIndex() hashIndex {
	return hashIndex{seed: maphash.MakeSeed(), byHash: map[uint64]int32{}}
}

func (x *hashIndex) hash(key string) uint64 {
	if x.testCollide {
		return 7
	}
	return maphash.String(x.seed, key)
}

// find returns the position of key (of hash h); keyAt gives the key of the
// record at a position.
func (x *hashIndex) find(key string, h uint64, keyAt func(int32) string) (int32, bool) {
	i, ok := x.byHash[h]
	if !ok {
		return 0, false
	}
	if keyAt(i) == key {
		return i, true
	}
	i, ok = x.collided[key] // a rare second key of the same hash
	return i, ok
}

// add records key (of hash h, not yet present) at position i.
func (x *hashIndex) add(key string, h uint64, i int32) {
	if _, taken := x.byHash[h]; !taken {
		x.byHash[h] = i
		return
	}
	if x.collided == nil {
		x.collided = map[string]int32{}
	}
	x.collided[key] = i
}
