package correlate

// attemptsPerChunk is sized so a chunk stays near 400 bytes: small jobs
// waste little, long jobs follow few links.
const attemptsPerChunk = 6

// attemptChunk holds a run of one job's attempts and links to the next.
type attemptChunk struct {
	a    [attemptsPerChunk]Attempt
	next int32 // index of the next chunk, -1 at the end
	n    uint8
}

// attemptStore keeps every retained attempt in pages that never move, so
// retaining an attempt never copies earlier ones and costs no allocation of
// its own: growing a per-job slice proved to be a third of the report
// path's time, spent zeroing and faulting in fresh memory.
type attemptStore struct {
	pages [][]attemptChunk
	n     int32
}

const chunksPerPage = 1024

func (st *attemptStore) chunk(i int32) *attemptChunk {
	return &st.pages[i/chunksPerPage][i%chunksPerPage]
}

func (st *attemptStore) newChunk() int32 {
	if int(st.n) == len(st.pages)*chunksPerPage {
		st.pages = append(st.pages, make([]attemptChunk, chunksPerPage))
	}
	i := st.n
	st.n++
	st.chunk(i).next = -1
	return i
}

// add appends a to the job's chain.
func (st *attemptStore) add(j *Job, a Attempt) {
	if j.retained == 0 {
		j.firstChunk = st.newChunk()
		j.lastChunk = j.firstChunk
	}
	c := st.chunk(j.lastChunk)
	if int(c.n) == attemptsPerChunk {
		next := st.newChunk()
		c = st.chunk(j.lastChunk) // newChunk may have grown the page list
		c.next = next
		j.lastChunk = next
		c = st.chunk(next)
	}
	c.a[c.n] = a
	c.n++
	j.retained++
}

// Attempts returns a copy of the job's retained attempts in arrival order.
func (s *State) Attempts(j *Job) []Attempt {
	out := make([]Attempt, 0, j.retained)
	if j.retained == 0 {
		return out
	}
	for i := j.firstChunk; i >= 0; {
		c := s.store.chunk(i)
		out = append(out, c.a[:c.n]...)
		i = c.next
	}
	return out
}
