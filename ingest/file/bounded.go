package file

import (
	"container/heap"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"syscall"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// MaxOpenFiles is the most input files a FileSet holds open at once (R6-15:
// 20,000 Roo task directories, or 1,100 transcripts under `ulimit -n 1024`,
// failed the whole report with "too many open files", and each open file
// held ~50 KB). A set of more files is read lazily (openLazy): a file is
// opened when the merge reaches its first event and closed when it ends.
// It bounds the open-files budget from above; the budget itself follows
// the real limit (openBudget).
const MaxOpenFiles = 16384

// openBudget is how many files a set may hold open: a quarter of the
// open-files limit (the rest is for the journal, sockets, sidecars and the
// Go runtime, which raises the soft limit to the hard one at start), at
// least 4 and at most MaxOpenFiles. A fixed 256 read every file past it
// that overlapped the others whole into memory even where the limit was
// 20,000 (R7-9: 600 worker logs of one night, 703 MB against 470). A
// variable for tests.
var openBudget = func() int {
	n := 256 // where the limit cannot be read
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 {
		n = int(min(max(rl.Cur/4, 4), MaxOpenFiles))
	}
	return n
}

// firstKey is a file's first event's place in the merge order.
type firstKey struct {
	ts  int64
	job string
}

// openLazy is OpenFiles for more files than the budget. Each regular file
// is read once to its first event (line by line, then closed) to learn
// where it joins the merge; a file with no event is read to its end there,
// and is done. A file that is not regular ("-", a pipe) cannot be read
// twice, so it is held open from the start, within the budget; anything
// else that is not a file (a directory, a device) fails its open, and costs
// that input only.
//
// The merge then opens a file when its first event is the next to go out,
// so it yields exactly the order Merge over every file at once would: Merge
// takes nothing from a file before its first event either.
func (fs *FileSet) openLazy(paths []string, opts decode.Options) (*FileSet, error) {
	fs.lazy = true
	fs.first = make([]firstKey, len(paths))
	fs.mem = make([][]ingest.Event, len(paths))
	fs.Files = make([]*FileIter, len(paths))
	for i, p := range paths {
		fs.Files[i] = &FileIter{Path: p, idx: uint16(i), opts: opts, set: fs}
	}
	held := 0
	var probes []int
	for i, p := range paths {
		it := fs.Files[i]
		if st, err := os.Stat(p); p == "-" || err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			if held++; held > fs.budget {
				fs.Close()
				return nil, fmt.Errorf("%d inputs are pipes or stdin: at most %d can be read at once (%d files in all)", held, fs.budget, len(paths))
			}
			o, err := OpenFile(p, uint16(i), opts)
			if err != nil {
				it.unopened(err)
				continue
			}
			o.set = fs
			*it = *o
			fs.held = append(fs.held, i)
			continue
		}
		probes = append(probes, i)
	}
	// The probes run on every core, each worker with one file open at a
	// time (within the budget: the held files and the workers).
	workers := max(1, min(runtime.GOMAXPROCS(0), fs.budget-held, len(probes)))
	todo := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				fs.probe(i)
			}
		}()
	}
	for _, i := range probes {
		todo <- i
	}
	close(todo)
	wg.Wait()
	for _, i := range probes {
		if !fs.Files[i].released || fs.mem[i] != nil {
			fs.order = append(fs.order, i)
		}
	}
	if len(fs.order) == 0 && len(fs.held) == 0 && fs.Unopened() == len(paths) {
		err := fs.Files[0].Err
		fs.Close()
		return nil, err
	}
	sort.SliceStable(fs.order, func(a, b int) bool {
		x, y := fs.first[fs.order[a]], fs.first[fs.order[b]]
		if x.ts != y.ts {
			return x.ts < y.ts
		}
		if x.job != y.job {
			return x.job < y.job
		}
		return fs.order[a] < fs.order[b]
	})
	return fs, nil
}

// probe reads file i to its first event, and closes it; a file with no
// event is read to its end and is done. Files[i] is this goroutine's own.
func (fs *FileSet) probe(i int) {
	it := fs.Files[i]
	probe, err := OpenFile(it.Path, uint16(i), it.opts)
	if err != nil {
		it.unopened(err)
		return
	}
	probe.set = fs
	probe.parTried = true // its head only: no parallel read-ahead
	evs := make([]ingest.Event, 1, 4)
	got := probe.Next(&evs[0])
	it.size = probe.size
	if !got {
		// Read to its end: its counters, error and hint are final.
		*it = *probe
		it.release()
		return
	}
	fs.first[i] = firstKey{evs[0].TS, evs[0].JobID}
	// A small file (a Roo task, a short session) is kept as read, up to
	// keptEvents in all, rather than opened and parsed a second time.
	for len(evs) <= keptPerFile {
		var e ingest.Event
		if !probe.Next(&e) {
			if fs.kept.Add(int64(len(evs))) <= keptEvents {
				*it = *probe
				it.release()
				fs.mem[i] = evs
				return
			}
			break
		}
		evs = append(evs, e)
	}
	probe.Close()
}

// A lazy set keeps the events of a file of at most keptPerFile events read
// by its probe, up to keptEvents for the whole set (about 70 MB).
const (
	keptPerFile = 64
	keptEvents  = 1 << 18
)

// unopened marks a file that could not be opened: it costs that file only,
// counted (FileSet.Unopened) and named in its Err.
func (it *FileIter) unopened(err error) {
	it.Err = fmt.Errorf("%w: this file was not read, the others were", err)
	it.notOpened = true
	it.released = true
}

// release closes a file read to its end and lets go of its reader and
// decoder, keeping what is reported of it (counters, error, format, hint),
// so a set of 20,000 files costs a few hundred bytes for each file done.
func (it *FileIter) release() {
	if it.released {
		return
	}
	it.hint = it.Hint()
	it.Close()
	it.released = true
	it.dec, it.lines, it.doc, it.db, it.head, it.pending, it.emitFn, it.cur = nil, nil, nil, nil, nil, nil, nil, nil
}

// Unopened says the file could not be opened (Err says why).
func (it *FileIter) Unopened() bool { return it.notOpened }

// Unopened is how many of the set's files could not be opened.
func (fs *FileSet) Unopened() int {
	n := 0
	for _, f := range fs.Files {
		if f.notOpened {
			n++
		}
	}
	return n
}

// InMemory is how many files a lazy set read whole into memory because
// more than its budget of files were in flight at one time (their events
// overlap): the price of a bounded number of open files.
func (fs *FileSet) InMemory() int { return fs.inMemory }

// Budget is the most files the set holds open at once.
func (fs *FileSet) Budget() int { return fs.budget }

// lazyMerge is Merge over a lazily opened set.
type lazyMerge struct {
	h    mergeHeap
	fs   *FileSet
	next int // into fs.order: the next file to open
	open int // files open now
	wrap func(*FileIter) EventIter
	// ahead: files are opened before the merge needs them, up to half
	// the budget, so their read-ahead parses beside the consumer (Events);
	// queued are those opened and not yet joined, in the order's order.
	// Opening early never changes the order: Merge opens all at once.
	ahead  bool
	queued []queuedFile
}

type queuedFile struct {
	i  int
	it EventIter
}

func (fs *FileSet) lazyMerged(wrap func(*FileIter) EventIter, ahead bool) EventIter {
	m := &lazyMerge{fs: fs, wrap: wrap, ahead: ahead}
	for _, i := range fs.held {
		m.open++
		m.add(i, wrap(fs.Files[i]))
	}
	return m
}

// add puts it's first event in the heap, or closes file i if it has none.
func (m *lazyMerge) add(i int, it EventIter) {
	var e ingest.Event
	if !it.Next(&e) {
		m.done(i, it)
		return
	}
	m.h.items = append(m.h.items, mergeItem{ev: e, order: i, it: it})
	heap.Fix(&m.h, len(m.h.items)-1)
}

// done closes file i, which it (ended) read.
func (m *lazyMerge) done(i int, it EventIter) {
	if _, mem := it.(*memIter); !mem {
		m.open--
	}
	m.fs.Files[i].release()
}

// openFile opens file i again, in its place in the set; one gone or
// unreadable since it was first read costs that file only.
func (m *lazyMerge) openFile(i int) (*FileIter, bool) {
	it := m.fs.Files[i]
	o, err := OpenFile(it.Path, uint16(i), it.opts)
	if err != nil {
		it.unopened(err)
		return nil, false
	}
	o.set = m.fs
	*it = *o
	return it, true
}

// join adds the next file of the order to the merge: the first opened
// ahead, else the next of the order opened now — or, with the budget
// spent (more files than it in flight at one time), read whole into
// memory and closed at once.
func (m *lazyMerge) join() {
	if len(m.queued) > 0 {
		q := m.queued[0]
		m.queued = m.queued[1:]
		m.add(q.i, q.it)
		return
	}
	i := m.fs.order[m.next]
	m.next++
	if evs := m.fs.mem[i]; evs != nil {
		m.fs.mem[i] = nil
		m.add(i, &memIter{evs: evs})
		return
	}
	it, ok := m.openFile(i)
	if !ok {
		return
	}
	if m.open < m.fs.budget {
		m.open++
		m.add(i, m.wrap(it))
		return
	}
	m.fs.inMemory++
	var evs []ingest.Event
	for {
		var e ingest.Event
		if !it.Next(&e) {
			break
		}
		evs = append(evs, e)
	}
	it.release()
	m.add(i, &memIter{evs: evs})
}

// candidate is the file that joins next, if any is left.
func (m *lazyMerge) candidate() (int, bool) {
	if len(m.queued) > 0 {
		return m.queued[0].i, true
	}
	if m.next < len(m.fs.order) {
		return m.fs.order[m.next], true
	}
	return 0, false
}

func (m *lazyMerge) Next(ev *ingest.Event) bool {
	// A file joins before the top when its first event sorts first: the
	// same comparison Merge's heap makes between the files' heads.
	for {
		i, ok := m.candidate()
		if !ok {
			break
		}
		if len(m.h.items) > 0 {
			k, top := m.fs.first[i], &m.h.items[0]
			if k.ts > top.ev.TS || k.ts == top.ev.TS && (k.job > top.ev.JobID || k.job == top.ev.JobID && i > top.order) {
				break
			}
		}
		m.join()
	}
	for m.ahead && m.next < len(m.fs.order) && m.open < max(m.fs.budget/2, 1) {
		i := m.fs.order[m.next]
		m.next++
		if evs := m.fs.mem[i]; evs != nil {
			m.fs.mem[i] = nil
			m.queued = append(m.queued, queuedFile{i, &memIter{evs: evs}})
		} else if it, ok := m.openFile(i); ok {
			m.open++
			m.queued = append(m.queued, queuedFile{i, m.wrap(it)})
		}
	}
	if len(m.h.items) == 0 {
		return false
	}
	top := &m.h.items[0]
	*ev = top.ev
	if top.it.Next(&top.ev) {
		heap.Fix(&m.h, 0)
	} else {
		i, it := top.order, top.it
		heap.Pop(&m.h)
		m.done(i, it)
	}
	return true
}

// memIter yields events held in memory.
type memIter struct{ evs []ingest.Event }

func (s *memIter) Next(ev *ingest.Event) bool {
	if len(s.evs) == 0 {
		return false
	}
	*ev = s.evs[0]
	s.evs = s.evs[1:]
	return true
}
