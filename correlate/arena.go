package correlate

import (
	"strings"
	"unsafe"
)

// A State that keeps every job (Config.JobRetention 0: report, budget, a
// watch told to keep them) frees nothing until it is dropped whole, so its
// per-job and per-operation storage is carved out of blocks instead of
// allocated one object at a time: a job's ID and an operation's scoped key
// go into a byte arena, jobs into slabs. Applying a night's million events
// made two or three allocations per new job and one per new operation
// (the Job, its ID's copy, the operation's key) — most of the allocator's
// share of correlation. A State that retires jobs allocates them one by
// one as before: a block would stay alive while any string or job in it
// does, and a long watch would keep retired jobs' memory.

// arenaBlock is the size of one block of the string arena. A string longer
// than an eighth of it gets an allocation of its own, so at most an eighth
// of a block is left unused at its end.
const arenaBlock = 32 << 10

// jobSlabSize is how many jobs one slab holds (256 bytes each: 32 KiB).
const jobSlabSize = 128

// strArena hands out immutable strings carved from shared blocks.
type strArena struct {
	block []byte // the free rest of the newest block
	// blocks counts the blocks made, alone the strings past an eighth of
	// one: what the arena holds, for its tests.
	blocks, alone int
}

// bytes returns n bytes of storage of their own, zeroed.
func (a *strArena) bytes(n int) []byte {
	if n > arenaBlock/8 {
		a.alone += n
		return make([]byte, n)
	}
	if n > len(a.block) {
		a.block = make([]byte, arenaBlock)
		a.blocks++
	}
	b := a.block[:n:n]
	a.block = a.block[n:]
	return b
}

// clone is strings.Clone into the arena.
func (a *strArena) clone(s string) string {
	if s == "" {
		return ""
	}
	b := a.bytes(len(s))
	copy(b, s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// keepsAll says whether the State keeps every job it sees (nothing is ever
// retired), the condition for carving its jobs and strings out of blocks.
func (s *State) keepsAll() bool { return s.cfg.JobRetention <= 0 }

// cloneID is a copy of a job ID (or type, or any string a job keeps) of
// the State's own: the event's may share a block with many others
// (ingest's idArena), which the job would keep alive to the end.
func (s *State) cloneID(id string) string {
	if s.keepsAll() {
		return s.strs.clone(id)
	}
	return strings.Clone(id)
}

// newJob is a zeroed Job: from a slab when the State keeps every job.
func (s *State) newJob() *Job {
	if !s.keepsAll() {
		return new(Job)
	}
	if len(s.jobSlab) == 0 {
		s.jobSlab = make([]Job, jobSlabSize)
	}
	j := &s.jobSlab[0]
	s.jobSlab = s.jobSlab[1:]
	return j
}
