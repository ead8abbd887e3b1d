package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	ingestfile "github.com/burnrate-dev/burnrate/ingest/file"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// fingerprintBytes is how much of a file's start identifies it (Vector's
// file source does the same): a copy made by copytruncate starts with the
// same bytes, a new file does not.
const fingerprintBytes = 1024

// readChunk is one read from a followed file.
const readChunk = 1 << 20

// file follows one path: by identity (device and inode) while the name
// stays, draining the old file to its end when the name moves to a new
// one, and finishing from the rotated copy when the file is truncated.
type file struct {
	t    *Tail
	path string
	sink *sink

	f    *os.File
	fi   os.FileInfo // identity of f
	pos  int64       // bytes of f read so far
	head []byte      // the file's first bytes, up to fingerprintBytes
	// tail is the last bytes read before pos (up to tailBytes: the last
	// lines, job IDs and all): a file cut in place and written again past
	// pos within one poll has the same inode and a size past pos, and may
	// start as it did (an app's start-up dump), but what lies just before
	// pos is other lines. marks are sampleBytes taken at each power of two
	// the reading passed (from 8 KiB): a regrown file must match there too.
	tail  []byte
	marks []mark
	chk   []byte // scratch for the checks (cutInPlace)
	sp    splitter
	buf   []byte
	// from is where an earlier follower of the path stopped (let go for
	// a more recently written file): the same file goes on from there.
	from *resumePoint
	// aliasSince: since when the file under the path has looked like a
	// copytruncate copy of a file another follower reads (identity.go).
	aliasSince time.Time
}

// follow runs until ctx is done.
func (t *Tail) follow(ctx context.Context, path string, out chan<- ingest.Batch, skipHistory bool) {
	fl := &file{t: t, path: path, buf: make([]byte, readChunk)}
	fl.sink = t.newSink(path, out)
	defer fl.close()
	defer fl.sink.stop() // before the file closes: what it holds is handed over
	defer func() {
		// Let go for a more recently written file (the whole watch goes
		// on): where it stopped is kept — the start of the line it had
		// not finished — for the follower that takes the file again.
		if fl.f != nil && context.Cause(ctx) == errLetGo && !fl.sp.long {
			t.letGo(path, resumePoint{fi: fl.fi, head: slices.Clone(fl.head), pos: fl.pos - int64(len(fl.sp.partial))})
		}
	}()
	if at, ok := t.resumeAt(path); ok {
		fl.from = &at
	}
	// --from-end skips what a file held when watching began; a file that
	// appears later is new, and read from its start.
	first := true
	refused := false // the path is a FIFO, a device, …: refused at the last poll
	for {
		if fl.f == nil {
			err := fl.open(first && skipHistory)
			if errors.Is(err, errAlias) {
				// Its file is read under another name: not yet.
				goto wait
			}
			first = false
			if err != nil {
				if errors.Is(err, errGzip) || errors.Is(err, errZstd) {
					t.giveUp(path, err.Error())
					return
				}
				if !errors.Is(err, os.ErrNotExist) {
					t.setErr(path, err.Error())
				}
				// A directory here was a file when watching began (Check
				// refuses one at the start) or a path not there yet: it is
				// refused as a FIFO is, and the path followed on until a
				// file returns — a watch that gave up lost its kill hooks
				// for the rest of the night (F7).
				notFile := errors.Is(err, errNotRegular) || errors.Is(err, errDir)
				if notFile && !refused {
					t.special(path) // counted once per replacement, not per poll
				}
				refused = notFile
			} else {
				t.setErr(path, "")
				refused = false
			}
		}
		if fl.f != nil {
			// A cut in place is looked for before reading on: read from
			// the stale offset, the regrown file's lines there were billed,
			// then again from its start once its first bytes differed (R7b-5).
			// Only a file grown past pos can be read from a stale offset
			// (one no longer than pos is checked after, as ever): an idle
			// file costs one stat here.
			if st, err := fl.f.Stat(); err == nil && fl.pos > 0 && st.Size() > fl.pos && fl.cutInPlace() {
				fl.restartCut(ctx)
			}
			if !fl.drain(ctx) {
				return
			}
			fl.checkRotation(ctx)
		}
		if !fl.sink.send(ctx) {
			return
		}
	wait:
		select {
		case <-ctx.Done():
			return
		case <-time.After(t.poll):
		}
	}
}

// Refusals: a gzip file stops the follower, and it says so; the others
// are said and the path followed on (Check refuses them all at the start).
var (
	errGzip = errors.New("gzip-compressed: a finished log cannot be followed; use burnrate replay or burnrate report")
	errZstd = errors.New("zstd-compressed (the Collector's file exporter with compression: zstd?): a compressed file cannot be followed; use burnrate replay or burnrate report, or set the exporter's compression off to follow it")
	errDir  = errors.New("is a directory: give the log files in it, e.g. 'DIR/*.jsonl'")
	// errNotRegular: only regular files are followed.
	errNotRegular = errors.New("is not a regular file, and only regular files are followed: for a pipe, use burnrate watch - (stdin)")
	// errAlias: the path's file is read under another name (identity.go).
	errAlias = errors.New("read under another name")
)

// Check says whether path can be followed at all: nil for a file that
// does not exist yet (it is waited for), an error for a gzip file or a
// directory. watch calls it before it starts, so that it can refuse at
// once instead of waiting forever.
func Check(path string) error {
	fl := &file{path: path}
	err := fl.open(false)
	fl.close()
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("%s: %w", path, err)
}

func (fl *file) open(fromEnd bool) error {
	// A path that is not a regular file is refused by its type before it
	// is opened: opening a FIFO every poll would let a writer waiting on
	// it through, only to see its reader gone.
	if st, err := os.Stat(fl.path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return fmt.Errorf("%w (%s)", errNotRegular, ingestfile.Kind(st.Mode()))
	}
	// O_NONBLOCK: a path swapped for a FIFO would block the open until a
	// writer came (and SIGTERM waited on it); it is refused by its type
	// instead. On a regular file it changes nothing.
	f, err := os.OpenFile(fl.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if fi.IsDir() {
		f.Close()
		return errDir
	}
	if !fi.Mode().IsRegular() {
		// A FIFO, a device (/dev/zero spun a core), a socket: only
		// regular files are followed.
		f.Close()
		return fmt.Errorf("%w (%s)", errNotRegular, ingestfile.Kind(fi.Mode()))
	}
	magic := make([]byte, 8)
	n, _ := f.ReadAt(magic, 0)
	zstd := []byte{0x28, 0xb5, 0x2f, 0xfd} // RFC 8878; the Collector's frames start 4 bytes in
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		f.Close()
		return errGzip
	case n >= 4 && bytes.Equal(magic[:4], zstd) || n == 8 && bytes.Equal(magic[4:], zstd) ||
		n >= 4 && magic[0]&0xf0 == 0x50 && bytes.Equal(magic[1:4], []byte{0x2a, 0x4d, 0x18}): // a skippable frame first (pzstd)
		// Followed as text it read as binary lines, 0 events, said nothing.
		f.Close()
		return errZstd
	}
	fl.f, fl.fi, fl.pos, fl.head, fl.tail, fl.marks = f, fi, 0, fl.head[:0], fl.tail[:0], fl.marks[:0]
	fl.sp.reset()
	fl.readHead()
	// The same file under another name (identity.go): read by another
	// follower now, or a copytruncate copy of one about to see its cut —
	// waited for; let go by one — gone on from where it stopped.
	if other := fl.t.reading(fl.path, fi); other != "" {
		fl.f = nil
		f.Close()
		return errAlias
	}
	if fl.from == nil {
		if at, ok := fl.t.retiredAt(fi); ok {
			fl.from = &at
		}
	}
	if fl.from == nil && fl.t.copyOfLive(fl.path, fi, fl.head) {
		if fl.aliasSince.IsZero() {
			fl.aliasSince = time.Now()
		}
		if time.Since(fl.aliasSince) < aliasWait {
			fl.t.unread(fl.path, fi)
			fl.f = nil
			f.Close()
			return errAlias
		}
	}
	fl.aliasSince = time.Time{}
	fl.t.noteHead(fi, fl.head)
	if at := fl.from; at != nil {
		fl.from = nil
		// The same file, not cut since: it starts with the same bytes (a
		// copytruncate keeps the inode; R7b-5 resumed one past its new
		// start, lines lost and one read from its middle).
		same := os.SameFile(at.fi, fi) && at.pos <= fi.Size() && len(fl.head) >= len(at.head) && bytes.Equal(fl.head[:len(at.head)], at.head)
		if same {
			fl.pos = at.pos
			fl.tail, fl.marks = fl.tail[:0], fl.marks[:0] // not known: the head's check is the resume's
			_, err := f.Seek(fl.pos, io.SeekStart)
			return err
		}
		// Another file under the name since (rotated or cut while let
		// go): it is read from its start, as a new file is.
	}
	if fromEnd {
		fl.pos = fi.Size()
		if _, err := f.Seek(fl.pos, io.SeekStart); err != nil {
			return err
		}
	}
	return nil
}

func (fl *file) close() {
	if fl.f != nil {
		fl.t.released(fl.path, resumePoint{fi: fl.fi, head: slices.Clone(fl.head), pos: fl.pos - int64(len(fl.sp.partial))})
		fl.f.Close()
		fl.f = nil
	}
}

// readHead fills the fingerprint while the file is shorter than it.
func (fl *file) readHead() {
	if len(fl.head) >= fingerprintBytes {
		return
	}
	b := make([]byte, fingerprintBytes)
	n, _ := fl.f.ReadAt(b, 0)
	if n > len(fl.head) {
		fl.head = append(fl.head[:0], b[:n]...)
	}
}

// drain reads what f holds beyond pos; false when ctx ended.
func (fl *file) drain(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			// A file that never ends before a stop (a huge one being
			// caught up on) must not hold the stop up.
			return false
		}
		fl.skipHole()
		atStart := fl.pos == 0
		n, err := fl.f.Read(fl.buf)
		if n > 0 {
			fl.noteMarks(fl.pos, fl.buf[:n])
			fl.pos += int64(n)
			chunk := fl.buf[:n]
			fl.noteTail(chunk)
			if atStart {
				chunk = bytes.TrimPrefix(chunk, ingest.BOM)
			}
			if !fl.sink.feed(ctx, &fl.sp, chunk) {
				return false
			}
		}
		if err != nil || n == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				fl.t.setErr(fl.path, fmt.Sprintf("read %s: %v", fl.path, err))
			}
			fl.readHead()
			return ctx.Err() == nil
		}
	}
}

// skipHole moves past a hole at pos longer than the line cap. A hole —
// bytes never written, which read as NULs: a file made sparse by
// truncate -s, or a writer without O_APPEND going on at its old offset
// after a copytruncate — can be terabytes long and cost nothing on disk;
// reading it would keep a core busy for hours to learn that it holds no
// line. Its NULs would only make the line they are in too long to read,
// so the line is marked so and the hole is skipped: what follows it is
// read as it would have been. A shorter hole is read as before. On a
// file system without SEEK_DATA this does nothing.
func (fl *file) skipHole() {
	fd := int(fl.f.Fd())
	// The size before the look for data: a line appended after it is not
	// in the hole the look may report up to the end.
	st, err := fl.f.Stat()
	if err != nil {
		return
	}
	end, err := unix.Seek(fd, fl.pos, unix.SEEK_DATA)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENXIO): // no data at or after pos: a hole to the end, or the end
		end = st.Size()
	default:
		return
	}
	if end-fl.pos <= decode.MaxLineBytes {
		if end != fl.pos {
			unix.Seek(fd, fl.pos, io.SeekStart) // SEEK_DATA moved the offset
		}
		return
	}
	if _, err := unix.Seek(fd, end, io.SeekStart); err != nil {
		unix.Seek(fd, fl.pos, io.SeekStart)
		return
	}
	fl.t.hole(fl.path, end-fl.pos)
	fl.pos = end
	fl.tail, fl.marks = fl.tail[:0], fl.marks[:0] // NULs before pos: nothing to hold the file to
	fl.sp.tooLong()
}

// checkRotation notices the two ways logs rotate. Rename and create: the
// name now points at another file; the old one was read to its end by
// drain, so its last line is complete and the new file is read from its
// start. Copytruncate: the same file is shorter than what was read, or its
// first bytes changed; the lines written since the last read are in the
// copy beside it, found by its first bytes and read from where we were.
func (fl *file) checkRotation(ctx context.Context) {
	st, err := os.Stat(fl.path)
	if err != nil {
		return // moved away and not yet replaced: keep reading the open file
	}
	if !os.SameFile(st, fl.fi) {
		fl.drain(ctx) // lines written between the last read and the rename
		fl.sp.flush(fl.sink.addFinal)
		fl.close()
		fl.t.rotated(fl.path)
		if err := fl.open(false); err == nil {
			fl.drain(ctx)
		}
		return
	}
	if st.Size() < fl.pos || fl.cutInPlace() {
		fl.restartCut(ctx)
	}
}

// tailBytes is how much of what lies just before pos is remembered;
// sampleBytes a mark's length, firstMark the first mark's offset.
const (
	tailBytes   = 4096
	sampleBytes = 64
	firstMark   = 8 << 10
)

// mark is sampleBytes of the file ending at off.
type mark struct {
	off int64
	b   [sampleBytes]byte
}

// noteMarks takes the marks a chunk read at from passes over: the bytes
// before each power of two it holds whole (the last maxMarks of them).
func (fl *file) noteMarks(from int64, chunk []byte) {
	next := int64(firstMark)
	if n := len(fl.marks); n > 0 {
		next = fl.marks[n-1].off * 2
	}
	for end := from + int64(len(chunk)); next <= end; next *= 2 {
		if next-sampleBytes < from {
			continue // straddles the chunk before: not taken
		}
		var m mark
		m.off = next
		copy(m.b[:], chunk[next-sampleBytes-from:next-from])
		fl.marks = append(fl.marks, m)
		if len(fl.marks) > maxMarks {
			// The nearest ones are kept: a growing file pays at most
			// maxMarks reads at a poll.
			fl.marks = append(fl.marks[:0], fl.marks[1:]...)
		}
	}
}

// maxMarks bounds the marks a follower holds to its file.
const maxMarks = 8

// noteTail keeps the last tailBytes of what was read.
func (fl *file) noteTail(chunk []byte) {
	if len(chunk) >= tailBytes {
		fl.tail = append(fl.tail[:0], chunk[len(chunk)-tailBytes:]...)
		return
	}
	fl.tail = append(fl.tail, chunk...)
	if over := len(fl.tail) - tailBytes; over > 0 {
		fl.tail = append(fl.tail[:0], fl.tail[over:]...)
	}
}

// cutInPlace reports whether the open file was cut since it was read to
// pos — copytruncate, or a writer that opens it with O_TRUNC — however
// far it has grown again: it is shorter than pos, its first bytes
// changed, or the bytes just before pos did.
func (fl *file) cutInPlace() bool {
	st, err := fl.f.Stat()
	if err != nil {
		return false
	}
	if st.Size() < fl.pos {
		return true
	}
	same := func(want []byte, at int64) bool {
		if cap(fl.chk) < len(want) {
			fl.chk = make([]byte, max(fingerprintBytes, tailBytes))
		}
		now := fl.chk[:len(want)]
		n, _ := fl.f.ReadAt(now, at)
		return bytes.Equal(now[:n], want)
	}
	if len(fl.head) > 0 && !same(fl.head, 0) {
		return true
	}
	for i := range fl.marks {
		if m := &fl.marks[i]; m.off <= fl.pos && bytes.Count(m.b[:], []byte{0}) < sampleBytes && !same(m.b[:], m.off-sampleBytes) {
			return true
		}
	}
	// A tail of NULs (a preallocated file being filled) says nothing.
	k := int64(len(fl.tail))
	return k > 0 && fl.pos >= k && bytes.Count(fl.tail, []byte{0}) < len(fl.tail) && !same(fl.tail, fl.pos-k)
}

// restartCut finishes what the cut file held past pos from its rotated
// copy, when one beside it starts as the file did, and reads the file
// again from its start.
func (fl *file) restartCut(ctx context.Context) {
	offset := fl.pos
	if copyPath, ok := fl.findCopy(); ok {
		fl.readCopy(ctx, copyPath)
	} else {
		fl.t.warn(fl.path, fmt.Sprintf("truncated at offset %d with no rotated copy beside it that starts like it: lines written after that offset and before the truncation may be lost", offset))
	}
	fl.sp.flush(fl.sink.addFinal)
	fl.t.rotated(fl.path)
	fl.pos, fl.head, fl.tail, fl.marks = 0, fl.head[:0], fl.tail[:0], fl.marks[:0]
	fl.sp.reset()
	if _, err := fl.f.Seek(0, io.SeekStart); err == nil {
		fl.readHead()
		fl.t.noteHead(fl.fi, fl.head)
		fl.drain(ctx)
	}
}

// findCopy looks beside the file for logrotate's copies (FILE.1,
// FILE-20261201, FILE.1.gz, …) and returns the one that starts with the
// bytes the file started with and is at least as long as what was read.
func (fl *file) findCopy() (string, bool) {
	if len(fl.head) == 0 {
		return "", false
	}
	var cands []string
	for _, pat := range []string{fl.path + ".*", fl.path + "-*", strings.TrimSuffix(fl.path, filepath.Ext(fl.path)) + "-*" + filepath.Ext(fl.path)} {
		m, _ := filepath.Glob(pat)
		cands = append(cands, m...)
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	// Newest first: the copy of this truncation is the latest one.
	slices.SortStableFunc(cands, func(a, b string) int {
		ai, _ := os.Stat(a)
		bi, _ := os.Stat(b)
		if ai == nil || bi == nil {
			return 0
		}
		return bi.ModTime().Compare(ai.ModTime())
	})
	for _, c := range cands {
		if c == fl.path {
			continue
		}
		rc, err := ingestfile.Open(c) // gzip by magic bytes: compress without delaycompress
		if err != nil {
			continue
		}
		head := make([]byte, len(fl.head))
		n, _ := io.ReadFull(rc, head)
		rc.Close()
		if n == len(fl.head) && bytes.Equal(head, fl.head) {
			return c, true
		}
	}
	return "", false
}

// readCopy reads the rotated copy from pos to its end.
func (fl *file) readCopy(ctx context.Context, path string) {
	rc, err := ingestfile.Open(path)
	if err != nil {
		return
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, fl.pos); err != nil {
		fl.t.warn(fl.path, fmt.Sprintf("truncated at offset %d; its copy %s is shorter: lines after %d may be lost", fl.pos, path, fl.pos))
		return
	}
	for {
		n, err := rc.Read(fl.buf)
		if n > 0 {
			if !fl.sink.feed(ctx, &fl.sp, fl.buf[:n]) {
				return
			}
		}
		if err != nil || n == 0 {
			// The copy is read: a glob that matches its name goes on
			// from its end, never from its start (R8-19).
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				fl.t.readToEnd(st, fl.head)
			}
			return
		}
	}
}

// splitter cuts a byte stream into lines without holding more than
// MaxLineBytes of one: a longer line is read past and reported once, as
// too long, and nothing of its middle or tail is ever parsed.
type splitter struct {
	partial []byte
	long    bool
}

func (s *splitter) reset() { s.partial, s.long = s.partial[:0], false }

// feed hands every complete line in chunk to line and keeps the rest.
func (s *splitter) feed(chunk []byte, line func(b []byte, tooLong bool)) {
	s.feedUntil(chunk, line, nil)
}

// feedUntil is feed that stops after a line once stop says so, and
// returns the rest of chunk, not yet read (nil when all of it was).
func (s *splitter) feedUntil(chunk []byte, line func(b []byte, tooLong bool), stop func() bool) []byte {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			s.keep(chunk)
			return nil
		}
		part := chunk[:i]
		chunk = chunk[i+1:]
		switch {
		case s.long:
			line(nil, true)
		case len(s.partial) > 0:
			s.keep(part)
			if s.long {
				line(nil, true)
			} else {
				line(s.partial, false)
			}
		case len(part) > lineCap(part):
			line(nil, true)
		default:
			line(part, false)
		}
		s.partial, s.long = s.partial[:0], false
		if stop != nil && stop() {
			return chunk
		}
	}
	return nil
}

func (s *splitter) keep(b []byte) {
	if s.long {
		return
	}
	head := s.partial
	if len(head) == 0 {
		head = b
	}
	limit := lineCap(head)
	if len(s.partial)+len(b) > limit {
		s.partial, s.long = s.partial[:0], true
		return
	}
	if n := len(s.partial) + len(b); n > cap(s.partial) && n > decode.MaxLineBytes {
		// A request line past the common cap: its buffer at the request
		// cap at once, kept for the next — doubling up to it left 31 MiB
		// of garbage a hostile line (a 100 MB one peaked at 79 MiB).
		s.partial = append(make([]byte, 0, limit), s.partial...)
	}
	s.partial = append(s.partial, b...)
}

// lineCap is the most of a line that starts with head that is read: an
// OTLP export request (the Collector's file exporter, a batch of spans a
// line) up to decode.MaxRequestLineBytes — at 1 MiB a followed exporter's
// file lost every large batch, said nowhere — any other line MaxLineBytes.
func lineCap(head []byte) int {
	if decode.IsRequestLine(head[:min(len(head), 32)]) {
		return decode.MaxRequestLineBytes
	}
	return decode.MaxLineBytes
}

// tooLong marks the line being read as over the cap (a hole in it).
func (s *splitter) tooLong() { s.partial, s.long = s.partial[:0], true }

// flush hands over a last line that never got its newline.
func (s *splitter) flush(line func(b []byte, tooLong bool)) {
	if s.long || len(s.partial) > 0 {
		line(s.partial, s.long)
	}
	s.reset()
}
