package ingest

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
)

// FileIter yields the events of one log in file order, skipping and
// counting bad lines. Its format is detected from the first lines unless
// forced.
type FileIter struct {
	Path  string
	Stats Stats
	// Err is the read error that ended the file early, if any (a truncated
	// gzip stream, an I/O error). Lines before it are kept.
	Err error
	// Detected is the format the file was read as.
	Detected Detection

	idx     uint16
	rc      io.ReadCloser
	lines   *LineReader
	doc     *documentReader // set for a JSON document (see document.go)
	opts    Options
	dec     Decoder
	head    []bufLine // the first lines, read for detection, not yet decoded
	pending []Event   // events of a line that gave more than one
	// emitFn is it.emit bound once: a closure per line would allocate.
	emitFn func(*Event)
	cur    *Event
	n      int
}

func (it *FileIter) emit(e *Event) {
	e.Source = it.idx
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
func OpenFile(path string, idx uint16, opts ...Options) (*FileIter, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	it := NewIter(rc, path, idx, opts...)
	it.rc = rc
	return it, nil
}

// NewIter reads events from an already open stream, named name in errors.
func NewIter(r io.Reader, name string, idx uint16, opts ...Options) *FileIter {
	it := &FileIter{Path: name, idx: idx, lines: NewLineReader(r)}
	if len(opts) > 0 {
		it.opts = opts[0]
	}
	return it
}

// Hint explains, once the file is read, why it gave no events, if the
// decoder can tell (JSON that maps to nothing: try --map).
func (it *FileIter) Hint() string {
	if h, ok := it.dec.(Hinter); ok {
		return h.Hint(it.Stats.Events)
	}
	return ""
}

// start reads the first lines (or records) and chooses the decoder.
func (it *FileIter) start() {
	peek, _ := it.lines.r.Peek(64 << 10)
	kind, otlp := sniffDocument(peek)
	forced := it.opts.Format
	if (forced == FormatJSONDocument || forced == FormatOTLPJSON) && kind == lineRecords {
		kind = jsonValues
	}
	if forced == FormatJSONDocument {
		forced = FormatAuto // the records' own format is still detected
	}
	if kind != lineRecords && (forced == FormatAuto || forced == FormatOTLPJSON) {
		if bytes.HasPrefix(peek, BOM) {
			it.lines.r.Discard(len(BOM))
		}
		it.doc = newDocumentReader(it.lines.r, kind)
		if otlp || forced == FormatOTLPJSON {
			it.Detected = Detection{Format: FormatOTLPJSON, Document: true}
			it.dec = newOTLPDocDecoder()
			it.emitFn = it.emit
			return
		}
		for len(it.head) < detectLines {
			rec, tooLong, ok := it.doc.next()
			if !ok {
				break
			}
			it.head = append(it.head, bufLine{rec, tooLong, false})
		}
	} else {
		it.readHead()
	}
	f := forced
	if f == FormatAuto {
		sample := make([][]byte, 0, len(it.head))
		for _, l := range it.head {
			if !l.tooLong {
				sample = append(sample, l.b)
			}
		}
		it.Detected = Detect(sample)
		f = it.Detected.Format
	} else {
		it.Detected = Detection{Format: f}
	}
	it.Detected.Document = it.doc != nil
	it.dec = NewDecoder(f, it.opts.Maps)
	it.emitFn = it.emit
}

// readHead reads the first lines for detection.
func (it *FileIter) readHead() {
	for len(it.head) < detectLines {
		line, tooLong, final, err := it.lines.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, err)
			}
			break
		}
		it.head = append(it.head, bufLine{bytes.Clone(line), tooLong, final})
	}
}

// Next fills ev with the next good event and reports whether there was one.
func (it *FileIter) Next(ev *Event) bool {
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
		var line []byte
		var tooLong, final bool
		switch {
		case len(it.head) > 0:
			l := it.head[0]
			it.head = it.head[1:]
			line, tooLong, final = l.b, l.tooLong, l.final
		case it.lines == nil || it.Err != nil:
			return false
		case it.doc != nil:
			var ok bool
			if line, tooLong, ok = it.doc.next(); !ok {
				if it.doc.Err != nil {
					it.Err = fmt.Errorf("read %s: %w", it.Path, it.doc.Err)
				}
				it.lines = nil
				return false
			}
		default:
			var err error
			line, tooLong, final, err = it.lines.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, err)
				}
				it.lines = nil
				return false
			}
		}
		if tooLong {
			it.Stats.Count(SkipTooLong)
			continue
		}
		it.cur, it.n = ev, 0
		r := it.dec.Decode(line, it.emitFn)
		n := it.n
		if final && r == SkipInvalidJSON {
			r = SkipTruncated
		}
		if r == SkipBlank {
			continue
		}
		it.Stats.Count(r)
		if r == Accepted && n > 0 {
			it.Stats.Events += int64(n - 1)
			return true
		}
	}
}

// Close releases the file.
func (it *FileIter) Close() error {
	if it.rc == nil {
		return nil
	}
	err := it.rc.Close()
	it.rc = nil
	return err
}

// EventIter is anything that yields events in order.
type EventIter interface {
	Next(*Event) bool
}

// Merge interleaves several iterators by event time; ties keep source
// order, so the result is deterministic.
func Merge(iters ...EventIter) EventIter {
	if len(iters) == 1 {
		return iters[0]
	}
	h := &mergeHeap{}
	for i, it := range iters {
		var e Event
		if it.Next(&e) {
			h.items = append(h.items, mergeItem{ev: e, order: i, it: it})
		}
	}
	heap.Init(h)
	return h
}

type mergeItem struct {
	ev    Event
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

func (h *mergeHeap) Next(ev *Event) bool {
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

// BatchSize is how many events a source hands over at once.
const BatchSize = 512

// Drain reads it to the end, handing events to c in batches; c owns each
// batch it is given.
func Drain(it EventIter, c Consumer) {
	batch := make(Batch, BatchSize)
	n := 0
	for it.Next(&batch[n]) {
		n++
		if n == len(batch) {
			c.Consume(batch)
			batch, n = make(Batch, BatchSize), 0
		}
	}
	if n > 0 {
		c.Consume(batch[:n])
	}
}

// FileSet is several logs read together, merged by event time.
type FileSet struct {
	Files []*FileIter
}

// OpenFiles opens every path (see OpenFile); on an error it closes what it
// opened.
func OpenFiles(paths []string, opts Options) (*FileSet, error) {
	if len(paths) > 1<<16-1 {
		return nil, fmt.Errorf("%d files: at most 65535 at once", len(paths))
	}
	fs := &FileSet{}
	for i, p := range paths {
		it, err := OpenFile(p, uint16(i), opts)
		if err != nil {
			fs.Close()
			return nil, err
		}
		fs.Files = append(fs.Files, it)
	}
	return fs, nil
}

// Events merges the files by event time.
func (fs *FileSet) Events() EventIter {
	iters := make([]EventIter, len(fs.Files))
	for i, f := range fs.Files {
		iters[i] = f
	}
	return Merge(iters...)
}

// Close closes every file.
func (fs *FileSet) Close() {
	for _, f := range fs.Files {
		f.Close()
	}
}

// ErrText is the read error that ended the file early, or "".
func (it *FileIter) ErrText() string {
	if it.Err == nil {
		return ""
	}
	return it.Err.Error()
}
