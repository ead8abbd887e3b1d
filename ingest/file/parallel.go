package file

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"sync"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// Parallel parsing of one big JSON-lines file.
//
// Parsing is most of what reading a log costs, and correlation on the
// other core takes less, so one parsing goroutine left a core idle. Here a
// reader cuts the file into chunks of whole lines, workers parse the chunks
// on every core, and FileIter.Next takes the results in file order. Only
// the JSON parse is done ahead; everything that depends on the lines before
// — a line without a timestamp takes the previous one's, SDK text lines
// take the job of the JSON line before them, skip reasons and the --map
// hint — is still done in order, by the file's own decoder: a line the
// workers did not accept, or that had no timestamp of its own, is decoded
// again there, exactly as without the workers. TestParallelParseIsSequential
// holds the two to the same events and counts.

// parallelMinBytes is the smallest file parsed in parallel: below it the
// workers' buffers (a few MB) are not worth it, and a report over 700
// small transcripts opens them all at once.
const parallelMinBytes = 8 << 20

// parallelChunk is the most bytes, and parallelChunkLines the most lines,
// of a chunk the reader hands out: a chunk's parsed events take ~250 bytes
// a line, so a file of empty lines must not make a chunk of 256K events.
const (
	parallelChunk      = 256 << 10
	parallelChunkLines = 2048
)

// parallelMaxFiles is the most files of one set parsed in parallel at once:
// each holds a few MB of chunks, and a directory of 500 big logs merged by
// time has them all open.
const parallelMaxFiles = 4

type lineChunk struct {
	data  []byte // whole lines; the last one lacks its newline when final
	final bool   // data ends the file
	lines []parsedLine
	done  chan struct{}
}

type parsedLine struct {
	line []byte // within data, without its newline
	ev   ingest.Event
	r    ingest.SkipReason
	// For a line the ordered pass takes as parsed (fast): ev.Check(), and
	// ev.JobID's hash in the decoder's table of open jobs
	// (decode.OpenHash), 0 when it names none — both computed here, on
	// every core, instead of in the ordered pass on one.
	fast    bool
	check   ingest.SkipReason
	jobHash uint64
	// announce: an app's "calling model" line, which the file's decoder
	// must hold for its answer: it is decoded again, in order.
	announce bool
}

// parallelReader is the pipeline behind one file.
type parallelReader struct {
	chunks chan *lineChunk // in file order, parsed or being parsed
	free   chan *lineChunk
	stop   chan struct{}
	wg     sync.WaitGroup
	// Set by the reader before it closes chunks: a read error, or the
	// bytes of a line too long for a chunk, left for sequential reading.
	err      error
	leftover []byte

	cur *lineChunk
	i   int
	// warmed: the lines of cur before it have had their open-jobs slot
	// loaded (nextParallel); sink keeps those loads.
	warmed int
	sink   uint64
}

// warmAhead is how many lines ahead of the one it decodes the ordered
// pass loads the open-jobs slots of: far enough that a batch of loads
// lands before the first of them is needed, near enough that what they
// load is still in the cache then.
const warmAhead = 24

// parallelOK reports whether the file can be parsed in parallel: canonical
// JSON lines, no --map rules, big enough.
func (it *FileIter) parallelOK() bool {
	if it.doc != nil || it.Detected.Format != decode.FormatJSONL || it.size < parallelMinBytes || it.lines == nil || it.Err != nil {
		return false
	}
	if it.set != nil && len(it.set.Files) > parallelMaxFiles {
		return false
	}
	_, ok := decode.ParallelJSONL(it.dec)
	return ok
}

func (it *FileIter) startParallel() {
	workers := max(1, runtime.GOMAXPROCS(0))
	pr := &parallelReader{
		chunks: make(chan *lineChunk, 2*workers),
		free:   make(chan *lineChunk, 2*workers+2),
		stop:   make(chan struct{}),
	}
	todo := make(chan *lineChunk, 2*workers)
	jd, _ := decode.JSONLinesOf(it.dec) // parallelOK said it is one
	seed := jd.OpenSeed()               // read here, before the workers use it
	for range workers {
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			p := decode.NewParserFor(it.opts)
			for c := range todo {
				parseChunk(p, c, seed)
				close(c.done)
			}
		}()
	}
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		defer close(todo)
		defer close(pr.chunks)
		pr.read(it.lines.r, todo)
	}()
	it.par = pr
}

// read cuts r into chunks of whole lines — at most parallelChunkLines, at
// most parallelChunk bytes — and hands each to a worker and, in order, to
// Next. The file is read straight into the chunk being filled; only what
// follows its last whole line (part of a line, or the lines past
// parallelChunkLines) is copied, into the next chunk.
func (pr *parallelReader) read(r io.Reader, todo chan<- *lineChunk) {
	c := pr.chunk()
	eof := false
	var readErr error
	for {
		select {
		case <-pr.stop:
			return
		default:
		}
		cut := 0
		if i := bytes.LastIndexByte(c.data, '\n'); i >= 0 {
			cut = i + 1
			// Lines past parallelChunkLines are cut off for the next
			// chunk; counting them first (a vector loop) spares a walk
			// line by line when there are not that many, as in most logs.
			if whole := c.data[:cut]; len(whole) > parallelChunkLines && bytes.Count(whole, newline) > parallelChunkLines {
				cut = cutLines(whole, parallelChunkLines)
			}
		}
		if cut == 0 && !eof {
			if len(c.data) == cap(c.data) {
				// A line longer than a chunk: the rest is read line by
				// line, which knows how to skip one.
				pr.leftover = bytes.Clone(c.data)
				return
			}
			n, err := io.ReadFull(r, c.data[len(c.data):cap(c.data)])
			c.data = c.data[:len(c.data)+n]
			if err != nil {
				eof = true
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					readErr = err // reported after the lines read before it
				}
			}
			continue
		}
		if cut == 0 {
			cut = len(c.data) // the end: a last line without its newline
		}
		if cut == 0 {
			pr.err = readErr
			return
		}
		next := pr.chunk()
		next.data = append(next.data, c.data[cut:]...)
		c.data = c.data[:cut]
		c.done = make(chan struct{})
		c.final = eof && len(next.data) == 0
		if c.final {
			pr.err = readErr // before chunks closes, after which Next reads it
		}
		select {
		case pr.chunks <- c:
		case <-pr.stop:
			return
		}
		todo <- c
		if c.final {
			return
		}
		c = next
	}
}

var newline = []byte{'\n'}

// chunk is an empty chunk to read into: one Next has given back, or a new
// one.
func (pr *parallelReader) chunk() *lineChunk {
	var c *lineChunk
	select {
	case c = <-pr.free:
	default:
		c = &lineChunk{}
	}
	if cap(c.data) < parallelChunk {
		c.data = make([]byte, 0, parallelChunk)
	}
	c.data = c.data[:0]
	return c
}

// cutLines returns the length of b's first max lines (all of b when it has
// no more).
func cutLines(b []byte, max int) int {
	off := 0
	for range max {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return len(b)
		}
		off += i + 1
	}
	return off
}

// parseChunk parses every line of c on its own, with no timestamp carried
// from one line to the next (Next decodes a line without one again), and
// hashes the job ID of each line the ordered pass will take as parsed
// under seed (decode.JSONLines.OpenSeed).
func parseChunk(p *decode.Parser, c *lineChunk, seed maphash.Seed) {
	c.lines = c.lines[:0]
	for rest := c.data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		// A line reused from the chunk's last round is not cleared (a
		// parsedLine is 320 bytes): ParseAlone resets ev for a line it
		// parses, and ev is read only for a line it accepted.
		if n := len(c.lines); n < cap(c.lines) {
			c.lines = c.lines[:n+1]
		} else {
			c.lines = append(c.lines, parsedLine{})
		}
		pl := &c.lines[len(c.lines)-1]
		pl.line = line
		pl.r = p.ParseAlone(line, &pl.ev)
		pl.announce = p.Announces()
		pl.fast = pl.r == ingest.Accepted && pl.ev.TS != 0 && pl.ev.Kind != ingest.KindAssumption && !pl.announce && !p.Ends()
		pl.jobHash = 0
		if pl.fast {
			pl.check = pl.ev.Check()
			if pl.ev.JobID != "" {
				pl.jobHash = decode.OpenHash(seed, pl.ev.JobID)
			}
		}
	}
}

// next returns the next parsed line in file order, and whether it is the
// file's last; ok is false at the end of the chunks.
func (pr *parallelReader) next() (pl *parsedLine, final, ok bool) {
	for pr.cur == nil || pr.i >= len(pr.cur.lines) {
		if pr.cur != nil {
			select {
			case pr.free <- pr.cur:
			default:
			}
			pr.cur = nil
		}
		c, more := <-pr.chunks
		if !more {
			return nil, false, false
		}
		<-c.done
		pr.cur, pr.i, pr.warmed = c, 0, 0
	}
	pl = &pr.cur.lines[pr.i]
	pr.i++
	return pl, pr.cur.final && pr.i == len(pr.cur.lines) && (len(pr.cur.data) == 0 || pr.cur.data[len(pr.cur.data)-1] != '\n'), true
}

// close stops the pipeline and waits for its goroutines.
func (pr *parallelReader) close() {
	select {
	case <-pr.stop:
	default:
		close(pr.stop)
	}
	for range pr.chunks { // unblock the reader; the workers finish theirs
	}
	pr.wg.Wait()
}

// nextParallel is Next's loop over the parallel pipeline. It returns
// handled=false when the pipeline has ended and reading goes on line by
// line (a line too long for a chunk), or the file is done.
func (it *FileIter) nextParallel(ev *ingest.Event) (got, handled bool) {
	pr := it.par
	jd, _ := decode.JSONLinesOf(it.dec) // parallelOK said it is one
	for {
		pl, final, ok := pr.next()
		if !ok {
			pr.close()
			it.par = nil
			switch {
			case pr.leftover != nil:
				it.lines = NewLineReader(io.MultiReader(bytes.NewReader(pr.leftover), it.lines.r))
				it.lines.started = true // the BOM, if any, was dropped at the start
				return false, false
			case pr.err != nil:
				it.Err = fmt.Errorf("read %s: %w (lines before this point were kept)", it.Path, pr.err)
			}
			it.lines = nil
			return false, true
		}
		if pr.warmed < pr.i+warmAhead/2 {
			lines := pr.cur.lines
			end := min(pr.i+warmAhead, len(lines))
			for k := max(pr.warmed, pr.i); k < end; k++ {
				if h := lines[k].jobHash; h != 0 {
					pr.sink += jd.Warm(h)
				}
			}
			pr.warmed = end
		}
		it.cur, it.n = ev, 0
		var r ingest.SkipReason
		if pl.fast && !jd.Serial() {
			// What the decoder would have done with this line.
			jd.TookHashed(&pl.ev, pl.jobHash)
			jd.Release(pl.ev.TS, it.emitFn)
			if r = pl.check; r == ingest.Accepted {
				// Through the decoder's pairing: the answer of a call it
				// holds announced is that call (F8).
				jd.Emit(&pl.ev, it.emitFn)
			}
		} else {
			r = it.dec.Decode(pl.line, it.emitFn)
		}
		if it.account(r, final) {
			return true, true
		}
	}
}

// account counts a decoded line and reports whether it gave an event.
func (it *FileIter) account(r ingest.SkipReason, final bool) bool {
	if it.lineNoTS {
		it.lineNoTS = false
		it.Stats.NoTimestamp++
	}
	if it.lineDrops != 0 {
		it.Stats.Fields(it.lineDrops)
		it.lineDrops = 0
	}
	return it.Stats.Line(r, it.n, final)
}
