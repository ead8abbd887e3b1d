package file

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// FileIter yields the events of one log in file order, skipping and
// counting bad lines. Its format is detected from the first lines unless
// forced.
type FileIter struct {
	Path  string
	Stats ingest.Stats
	// Err is the read error that ended the file early, if any (a truncated
	// gzip stream, an I/O error). Lines before it are kept.
	Err error
	// Detected is the format the file was read as.
	Detected decode.Detection

	idx      uint16
	rc       io.ReadCloser
	lines    *LineReader
	doc      *documentReader  // set for a JSON document (see document.go)
	db       *dbRows          // set for OpenCode's SQLite database (opencodedb.go)
	set      *FileSet         // the set it belongs to, for its read-ahead
	counter  *countingReader  // bytes read from disk, for progress
	size     int64            // the file's size on disk
	detector *decode.Detector // while the head is read
	opts     decode.Options
	dec      decode.Decoder
	head     []bufLine      // the first lines, read for detection, not yet decoded
	pending  []ingest.Event // events of a line that gave more than one
	// emitFn is it.emit bound once: a closure per line would allocate.
	emitFn func(*ingest.Event)
	cur    *ingest.Event
	n      int
	// par parses ahead on every core once the head is read (parallel.go).
	par      *parallelReader
	parTried bool
	// lineNoTS: the line being decoded gave an event without a time of
	// its own; flushed: the decoder's held event was taken at the end.
	lineNoTS bool
	flushed  bool
	// lineDrops: the fields the line's events lost (Event.Dropped).
	lineDrops ingest.FieldDrop
	// looksLike is the format detection saw when another was forced.
	looksLike decode.Format
	// released: read to its end and closed, its reader and decoder let go
	// (bounded.go); hint is what Hint said then. notOpened: it could not
	// be opened (Err says why).
	released, notOpened bool
	hint                string
}

func (it *FileIter) emit(e *ingest.Event) {
	e.Source = it.idx
	it.lineNoTS = it.lineNoTS || e.TSCarried
	it.lineDrops |= e.Dropped
	if it.n == 0 {
		*it.cur = *e
	} else {
		it.pending = append(it.pending, *e)
	}
	it.n++
}

type bufLine struct {
	b              []byte
	tooLong, final bool
}

// OpenFile opens path ("-" for stdin) as source number idx.
func OpenFile(path string, idx uint16, opts decode.Options) (*FileIter, error) {
	var counter *countingReader
	var size int64
	rc, err := openCounted(path, func(r io.Reader, sz int64) io.Reader {
		counter, size = &countingReader{r: r}, sz
		return counter
	})
	if err != nil {
		return nil, err
	}
	it := NewIter(rc, path, idx, opts)
	it.rc, it.counter, it.size = rc, counter, size
	return it, nil
}

// countingReader counts the bytes read from a file, for progress.
type countingReader struct {
	r io.Reader
	n atomic.Int64 // read by Fraction while a parallel reader reads
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// NewIter reads events from an already open stream, named name in errors.
func NewIter(r io.Reader, name string, idx uint16, opts decode.Options) *FileIter {
	return &FileIter{Path: name, idx: idx, lines: NewLineReader(r), opts: opts}
}

// Hint explains, once the file is read, why it gave no events, if the
// decoder can tell (JSON that maps to nothing: try --map).
func (it *FileIter) Hint() string {
	if it.released {
		return it.hint
	}
	// A forced format that read nothing, where the file is recognisably
	// another: that first — the forced format's own decoder can only say
	// what it did not find (a Codex rollout forced as jsonl got the
	// generic --map hint).
	f := it.Detected.Format
	if it.Stats.Events == 0 && it.looksLike != "" && it.looksLike != f && it.Detected.Counts[it.looksLike] > 0 {
		return fmt.Sprintf("no line read as %s, the format forced (--input-format or the config's format), but %d of the first %d lines are %s: drop the forced format, or pass --input-format %s",
			f, it.Detected.Counts[it.looksLike], it.Detected.Lines, it.looksLike, it.looksLike)
	}
	if h, ok := it.dec.(decode.Hinter); ok {
		return h.Hint(it.Stats.Events)
	}
	return ""
}

// start reads the first lines (or records) and chooses the decoder.
func (it *FileIter) start() {
	peek, err := it.lines.r.Peek(64 << 10)
	kind, otlp := sniffDocument(peek, err != nil) // an error: the peek holds the whole file
	forced := it.opts.Format
	if bytes.HasPrefix(peek, []byte(sqliteMagic)) && it.Path != "-" {
		it.startDB(forced)
		return
	}
	if (forced == decode.FormatJSONDocument || forced == decode.FormatOTLPJSON) && kind == lineRecords {
		kind = jsonValues
	}
	if forced == decode.FormatJSONDocument {
		forced = decode.FormatAuto // the records' own format is still detected
	}
	// A document is read record by record when its format is detected or
	// forced as one of JSON records (a Gemini session .json forced as
	// gemini-cli was read line by line, its fragments as nothing); a
	// text format forced reads lines.
	if kind != lineRecords && (forced == decode.FormatAuto || forced == decode.FormatOTLPJSON || decode.RecordFormat(forced)) {
		if bytes.HasPrefix(peek, ingest.BOM) {
			it.lines.r.Discard(len(ingest.BOM))
		}
		it.doc = newDocumentReader(it.lines.r, kind, otlp || forced == decode.FormatOTLPJSON)
		if otlp || forced == decode.FormatOTLPJSON {
			it.Detected = decode.Detection{Format: decode.FormatOTLPJSON, Document: true}
			// Each record read by its own shape: a request through the
			// mapping, and any other record (an application's line after
			// a first line that held an export payload) by its keys or as
			// a canonical call — the first line's keys read 2,000 calls
			// of an application's log as nothing.
			it.dec = decode.NewDecoder(decode.FormatOTLPJSON, it.opts.Maps, it.opts)
			it.emitFn = it.emit
			return
		}
		for len(it.head) < decode.DetectLines {
			rec, tooLong, ok := it.doc.next()
			if !ok {
				break
			}
			it.head = append(it.head, bufLine{rec, tooLong, false})
		}
	} else {
		if kind != lineRecords {
			// A document forced through a line format: its start, for the
			// hint (reading the head reuses the peeked buffer).
			peek = bytes.Clone(peek)
		}
		it.readHead()
	}
	f := forced
	if f == decode.FormatAuto {
		if it.detector == nil { // a document's records: detect them now
			it.detector = decode.NewDetector()
			it.detector.Patterns = it.opts.Patterns
			for _, l := range it.head {
				if !l.tooLong {
					it.detector.Add(l.b)
				}
			}
		}
		it.Detected = it.detector.Result()
		it.detector = nil
		f = it.Detected.Format
	} else {
		it.Detected = decode.Detection{Format: f}
		switch {
		case it.doc != nil:
			// A document's records, read as the forced format: what they
			// look like, for the hint.
			it.detector = decode.NewDetector()
			it.detector.Patterns = it.opts.Patterns
			for _, l := range it.head {
				if !l.tooLong {
					it.detector.Add(l.b)
				}
			}
		case it.detector != nil && kind != lineRecords:
			// A JSON document read line by line, as a forced text format
			// asks: its lines are fragments, so what it is comes from its
			// first records.
			it.detector = decode.NewDetector()
			it.detector.Patterns = it.opts.Patterns
			doc := newDocumentReader(bufio.NewReader(bytes.NewReader(peek)), kind, otlp)
			for range decode.DetectLines {
				rec, tooLong, ok := doc.next()
				if !ok {
					break
				}
				if !tooLong {
					it.detector.Add(rec)
				}
			}
		}
		if it.detector != nil {
			// What the lines look like, for the hint when the forced
			// format reads none of them.
			seen := it.detector.Result()
			it.Detected.Counts, it.Detected.Lines, it.looksLike = seen.Counts, seen.Lines, seen.Format
			it.detector = nil
		}
	}
	it.Detected.Document = it.doc != nil
	o := it.opts
	o.SourceName = it.Path // a Codex rollout's file name names its session
	o.Sidecar = sidecarOf(it.Path)
	it.dec = decode.NewDecoder(f, o.Maps, o)
	it.emitFn = it.emit
}

// readHead reads the first lines, detecting the format as it goes (also
// when one is forced: the hint names what the lines look like) and
// stopping as soon as the verdict is certain.
func (it *FileIter) readHead() {
	it.detector = decode.NewDetector()
	it.detector.Patterns = it.opts.Patterns
	for len(it.head) < decode.DetectLines && (it.detector == nil || !it.detector.Decided()) {
		line, tooLong, final, err := it.lines.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, err)
			}
			break
		}
		it.head = append(it.head, bufLine{bytes.Clone(line), tooLong, final})
		if it.detector != nil && !tooLong {
			it.detector.Add(line)
		}
	}
}

// Next fills ev with the next good event and reports whether there was one.
func (it *FileIter) Next(ev *ingest.Event) bool {
	if it.dec == nil {
		if it.lines == nil {
			return false
		}
		it.start()
	}
	for {
		if len(it.pending) > 0 {
			*ev = it.pending[0]
			it.pending = it.pending[1:]
			return true
		}
		if len(it.head) == 0 && !it.parTried {
			it.parTried = true
			if it.parallelOK() {
				it.startParallel()
			}
		}
		if it.par != nil {
			if got, handled := it.nextParallel(ev); handled {
				return got || it.flush(ev)
			}
			continue // on line by line
		}
		var line []byte
		var tooLong, final bool
		switch {
		case len(it.head) > 0:
			l := it.head[0]
			it.head = it.head[1:]
			line, tooLong, final = l.b, l.tooLong, l.final
		case it.lines == nil || it.Err != nil:
			return it.flush(ev)
		case it.db != nil:
			var ok bool
			if line, tooLong, ok = it.db.next(); !ok {
				if it.db.Err != nil {
					it.Err = fmt.Errorf("read %s: %w (rows before this point were kept)", it.Path, it.db.Err)
				}
				it.lines = nil
				return it.flush(ev)
			}
		case it.doc != nil:
			var ok bool
			if line, tooLong, ok = it.doc.next(); !ok {
				if it.doc.Err != nil {
					it.Err = fmt.Errorf("read %s: %w", it.Path, it.doc.Err)
				}
				if it.doc.Err == nil && it.doc.textAfter {
					// Lines after the document: read on, line by line.
					it.lines = NewLineReader(it.doc.Rest())
					it.doc = nil
					continue
				}
				it.lines = nil
				return it.flush(ev)
			}
		default:
			var err error
			line, tooLong, final, err = it.lines.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, err)
				}
				it.lines = nil
				return it.flush(ev)
			}
		}
		if tooLong {
			it.Stats.Count(ingest.SkipTooLong)
			continue
		}
		it.cur, it.n = ev, 0
		if it.account(it.dec.Decode(line, it.emitFn), final) {
			return true
		}
	}
}

// flush takes, at the end of the input, an event the decoder held back
// for the line after it (decode.Flusher), once.
func (it *FileIter) flush(ev *ingest.Event) bool {
	if it.flushed || it.dec == nil {
		return false
	}
	it.flushed = true
	f, ok := it.dec.(decode.Flusher)
	if !ok {
		return false
	}
	it.cur, it.n = ev, 0
	f.Flush(it.emitFn)
	it.lineNoTS = false
	if it.lineDrops != 0 {
		it.Stats.Fields(it.lineDrops)
		it.lineDrops = 0
	}
	if it.n == 0 {
		return false
	}
	it.Stats.Events += int64(it.n)
	return true
}

// Close releases the file.
func (it *FileIter) Close() error {
	if it.db != nil {
		it.db.close()
	}
	if it.par != nil {
		it.par.close()
		it.par = nil
	}
	if it.rc == nil {
		return nil
	}
	err := it.rc.Close()
	it.rc = nil
	return err
}

// EventIter is anything that yields events in order.
type EventIter interface {
	Next(*ingest.Event) bool
}

// Merge interleaves several iterators by event time; ties go by job ID,
// then keep source order, so the result is deterministic and, for events
// of distinct jobs, the same whichever order the files were named or
// found in (a resumed session's copies of its parent's records carry the
// parent's times: issue 35; before, the file named first won every tie).
func Merge(iters ...EventIter) EventIter {
	if len(iters) == 1 {
		return iters[0]
	}
	h := &mergeHeap{}
	for i, it := range iters {
		var e ingest.Event
		if it.Next(&e) {
			h.items = append(h.items, mergeItem{ev: e, order: i, it: it})
		}
	}
	heap.Init(h)
	return h
}

type mergeItem struct {
	ev    ingest.Event
	order int
	it    EventIter
}

type mergeHeap struct{ items []mergeItem }

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.ev.TS != b.ev.TS {
		return a.ev.TS < b.ev.TS
	}
	if a.ev.JobID != b.ev.JobID {
		return a.ev.JobID < b.ev.JobID
	}
	return a.order < b.order
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	n := len(h.items) - 1
	x := h.items[n]
	h.items = h.items[:n]
	return x
}

func (h *mergeHeap) Next(ev *ingest.Event) bool {
	if len(h.items) == 0 {
		return false
	}
	top := &h.items[0]
	*ev = top.ev
	if top.it.Next(&top.ev) {
		heap.Fix(h, 0)
	} else {
		heap.Pop(h)
	}
	return true
}

// Drain reads it to the end, handing events to c in batches; c owns each
// batch it is given.
func Drain(it EventIter, c ingest.Consumer) {
	if p, ok := it.(*prefetcher); ok {
		// One file read ahead: its batches go to the consumer as they
		// are, instead of being copied event by event into new ones.
		for {
			b, ok := <-p.ch
			if !ok {
				return
			}
			c.Consume(b)
		}
	}
	batch := ingest.NewBatch()
	n := 0
	for it.Next(&batch[n]) {
		n++
		if n == len(batch) {
			c.Consume(batch)
			batch, n = ingest.NewBatch(), 0
		}
	}
	if n > 0 {
		c.Consume(batch[:n])
	}
}

// FileSet is several logs read together, merged by event time.
type FileSet struct {
	Files []*FileIter
	stop  chan struct{}
	wg    sync.WaitGroup
	// budget is the most files held open at once; a set of more is lazy:
	// first is each file's first event, order the files that have one by
	// it, held the files open from the start (bounded.go).
	budget   int
	lazy     bool
	first    []firstKey
	order    []int
	held     []int
	inMemory int
	// mem are the events of small files kept from their probe, kept their
	// count (bounded.go).
	mem  [][]ingest.Event
	kept atomic.Int64
}

// OpenFiles opens every path (see OpenFile). More paths than the open-files
// budget (MaxOpenFiles) are opened one at a time as the merge reaches them
// (openLazy). A file that cannot be opened costs that file only: its Err
// says why and Unopened counts it; when none can be, the first error is
// returned.
func OpenFiles(paths []string, opts decode.Options) (*FileSet, error) {
	if len(paths) > 1<<16-1 {
		return nil, fmt.Errorf("%d files: at most 65535 at once", len(paths))
	}
	fs := &FileSet{budget: openBudget()}
	if len(paths) > fs.budget {
		return fs.openLazy(paths, opts)
	}
	var first error
	for i, p := range paths {
		it, err := OpenFile(p, uint16(i), opts)
		if err != nil {
			first = cmp.Or(first, err)
			it = &FileIter{Path: p, idx: uint16(i), opts: opts}
			it.unopened(err)
		}
		it.set = fs
		fs.Files = append(fs.Files, it)
	}
	if len(paths) > 0 && fs.Unopened() == len(paths) {
		fs.Close()
		return nil, first
	}
	return fs, nil
}

// Events merges the files by event time. Each file is read and parsed on
// a goroutine of its own, a bounded window of events ahead, so parsing
// runs beside the consumer (correlate) on another core — and beside the
// other files. A file's Stats, Err and Hint are complete once its events
// have all been taken.
func (fs *FileSet) Events() EventIter {
	iters := make([]EventIter, len(fs.Files))
	// The window per file shrinks with the number of files, so 700
	// transcripts read ahead about as much memory as one big log.
	batch := min(max(65536/max(len(fs.Files), 1), 16), 512)
	fs.stop = make(chan struct{})
	if fs.lazy {
		batch = min(max(65536/max(fs.budget, 1), 16), 512)
		return fs.lazyMerged(func(f *FileIter) EventIter { return prefetch(f, batch, fs.stop) }, true)
	}
	for i, f := range fs.Files {
		iters[i] = prefetch(f, batch, fs.stop)
	}
	return Merge(iters...)
}

// Merged merges the files by event time without reading ahead: for a
// consumer (a replay) that reads the set's Status while it plays.
func (fs *FileSet) Merged() EventIter {
	if fs.lazy {
		return fs.lazyMerged(func(f *FileIter) EventIter { return f }, false)
	}
	iters := make([]EventIter, len(fs.Files))
	for i, f := range fs.Files {
		iters[i] = f
	}
	return Merge(iters...)
}

// Status is each file's counters so far; call it from the goroutine that
// reads the set (Merged), or after Events is exhausted.
func (fs *FileSet) Status() []ingest.Status {
	st := make([]ingest.Status, len(fs.Files))
	for i, f := range fs.Files {
		st[i] = ingest.Status{Name: f.Path, Stats: f.Stats, Err: f.ErrText()}
	}
	return st
}

// Fraction is how much of the files' bytes has been read, 0..1 (of the
// bytes on disk: a gzip file counts its compressed bytes).
func (fs *FileSet) Fraction() float64 {
	var read, size int64
	for _, f := range fs.Files {
		switch {
		case f.released && !f.notOpened:
			read += f.size // read to its end, and closed
			size += f.size
		case f.counter != nil:
			read += f.counter.n.Load()
			size += f.size
		case fs.lazy:
			size += f.size // not opened yet
		}
	}
	if size == 0 {
		return 0
	}
	return min(1, float64(read)/float64(size))
}

// Close stops any read-ahead and closes every file.
func (fs *FileSet) Close() {
	if fs.stop != nil {
		select {
		case <-fs.stop:
		default:
			close(fs.stop)
		}
		fs.wg.Wait()
	}
	for _, f := range fs.Files {
		f.Close()
	}
}

// prefetcher reads an iterator ahead on its own goroutine.
type prefetcher struct {
	ch   chan []ingest.Event
	free chan []ingest.Event
	cur  []ingest.Event
	i    int
}

func prefetch(it *FileIter, batch int, stop <-chan struct{}) EventIter {
	p := &prefetcher{ch: make(chan []ingest.Event, 2), free: make(chan []ingest.Event, 3)}
	it.set.wg.Add(1)
	go func() {
		defer it.set.wg.Done()
		defer close(p.ch)
		for {
			var buf []ingest.Event
			select {
			case buf = <-p.free:
			default:
				if batch == ingest.BatchSize {
					buf = ingest.NewBatch() // one Drain handed on and got back
				} else {
					buf = make([]ingest.Event, batch)
				}
			}
			n := 0
			for n < len(buf) && it.Next(&buf[n]) {
				n++
			}
			if n > 0 {
				select {
				case p.ch <- buf[:n]:
				case <-stop:
					return
				}
			}
			if n < len(buf) {
				return // the file ended
			}
		}
	}()
	return p
}

func (p *prefetcher) Next(ev *ingest.Event) bool {
	for p.i >= len(p.cur) {
		if p.cur != nil {
			select {
			case p.free <- p.cur[:cap(p.cur)]: // a batch is reused once taken
			default:
			}
		}
		var ok bool
		if p.cur, ok = <-p.ch; !ok {
			p.cur = nil
			return false
		}
		p.i = 0
	}
	*ev = p.cur[p.i]
	p.i++
	return true
}

// ErrText is the read error that ended the file early, or "".
func (it *FileIter) ErrText() string {
	if it.Err == nil {
		return ""
	}
	return it.Err.Error()
}

// ExpandInputs turns the command line's paths into files: a directory
// stands for every *.jsonl beneath it (and *.jsonl.gz when gz, and the
// documents a format's row names: decode.DocumentOf), in name order — a Claude Code projects directory, a folder of worker logs.
// Other paths are kept as they are ("-", files, globs for the follower).
func ExpandInputs(paths []string, gz bool) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil || !st.IsDir() {
			out = append(out, p)
			continue
		}
		n := len(out)
		root := p
		if real, err := filepath.EvalSymlinks(p); err == nil {
			// The directory named (or ~/.claude/projects, ~/.codex/sessions)
			// may be a link to where the data lives: WalkDir does not
			// follow a linked root, and would find nothing.
			root = real
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable subdirectory: skip it, keep the rest
			}
			name := d.Name()
			if !d.IsDir() && (strings.HasSuffix(name, ".jsonl") || gz && strings.HasSuffix(name, ".jsonl.gz") || decode.DocumentOf(path) != nil) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read directory %s: %w", p, err)
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s is a directory with no *.jsonl files in it: give the log files, or a directory that holds some", p)
		}
		slices.Sort(out[n:])
	}
	return out, nil
}

// HomeDirs are the directories where f's producer keeps its files (its
// row's Home), those that exist: $Env, a comma-separated list, or each
// default root under the user's home; each root's Sub directory.
func HomeDirs(f decode.Format) []string {
	row := decode.Row(f)
	if row == nil || row.Home == nil {
		return nil
	}
	var dirs []string
	for _, r := range homeRoots(row.Home) {
		d := filepath.Join(r, row.Home.Sub)
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// homeRoots are h's roots: $Env, a comma-separated list, or each default
// under the user's home directory.
func homeRoots(h *decode.Home) []string {
	var roots []string
	if env := os.Getenv(h.Env); env != "" {
		for _, r := range strings.Split(env, ",") {
			if r = strings.TrimSpace(r); r != "" {
				roots = append(roots, r)
			}
		}
	} else if home, err := os.UserHomeDir(); err == nil {
		for _, d := range h.Defaults {
			roots = append(roots, filepath.Join(home, filepath.FromSlash(d)))
		}
	}
	return roots
}

// sidecarOf reads, for a decoder, a file beside path (decode.Options.
// Sidecar): a regular file of at most limit bytes.
func sidecarOf(path string) func(name string, limit int64) ([]byte, error) {
	if path == "" || path == "-" {
		return nil
	}
	return func(name string, limit int64) ([]byte, error) {
		p := filepath.Join(filepath.Dir(path), filepath.Base(name))
		// Looked at before it is opened: opening a FIFO waits for a writer.
		if st, err := os.Stat(p); err != nil {
			return nil, err
		} else if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", p)
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("%s is over %d bytes", p, limit)
		}
		return b, nil
	}
}
