package ingest

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
)

// FileIter yields the events of one log in file order, skipping and
// counting bad lines.
type FileIter struct {
	Path  string
	Stats Stats
	// Err is the read error that ended the file early, if any (a truncated
	// gzip stream, an I/O error). Lines before it are kept.
	Err error

	idx    uint16
	rc     io.ReadCloser
	lines  *LineReader
	parser *Parser
}

// OpenFile opens path ("-" for stdin) as source number idx.
func OpenFile(path string, idx uint16) (*FileIter, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	return &FileIter{Path: path, idx: idx, rc: rc, lines: NewLineReader(rc), parser: NewParser()}, nil
}

// NewIter reads events from an already open stream, named name in errors.
func NewIter(r io.Reader, name string, idx uint16) *FileIter {
	return &FileIter{Path: name, idx: idx, lines: NewLineReader(r), parser: NewParser()}
}

// Next fills ev with the next good event and reports whether there was one.
func (it *FileIter) Next(ev *Event) bool {
	if it.lines == nil {
		return false
	}
	for {
		line, tooLong, final, err := it.lines.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, err)
			}
			it.lines = nil
			return false
		}
		var r SkipReason
		switch {
		case tooLong:
			r = SkipTooLong
		default:
			r = it.parser.ParseLine(line, ev)
			if final && r == SkipInvalidJSON {
				r = SkipTruncated
			}
		}
		if r == SkipBlank {
			continue
		}
		it.Stats.Count(r)
		if r == Accepted {
			ev.Source = it.idx
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

// Drain reads it to the end, handing events to c in batches.
func Drain(it EventIter, c Consumer) {
	batch := make(Batch, BatchSize)
	n := 0
	for it.Next(&batch[n]) {
		n++
		if n == len(batch) {
			c.Consume(batch)
			n = 0
		}
	}
	if n > 0 {
		c.Consume(batch[:n])
	}
}
