// Package follow reads logs that are still being written: files (through
// rotation, by glob) and stdin.
package follow

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	ingestfile "github.com/burnrate-dev/burnrate/ingest/file"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// DefaultPoll is how often a followed file is checked for new lines and
// rotation. Polling, not inotify: a write that lands after a read to EOF
// but before an inotify watch exists raises no event, and the last lines
// of a log would wait for a next write that may never come.
const DefaultPoll = 250 * time.Millisecond

// flushEvery bounds how long a parsed event waits in a partial batch when
// input trickles in (a pipe).
const flushEvery = 50 * time.Millisecond

// globEvery is how often glob patterns are expanded again to pick up
// files created after start.
const globEvery = 2 * time.Second

// Tail follows files: from their start by default (to rebuild state),
// through rename-and-create and copytruncate rotation without losing a
// line, waiting for files that do not exist yet. Patterns may be globs.
type Tail struct {
	patterns []string
	fromEnd  bool
	opts     decode.Options
	poll     time.Duration

	mu    sync.Mutex
	files map[string]*followed
	order []string
	dups  map[string]ingestfile.Duplicate // a path left out → the path read instead
	// held are the calls in flight at the last stop, not yet given to
	// their input's decoder (Hold).
	held []ingest.Event
	// maxFollow bounds the files followed at once (each holds a descriptor
	// and a read buffer); notFollowed is how many files found at the last
	// look were left out for it.
	maxFollow   int
	notFollowed int
	// running are the followers at work, with what stops one; resume is
	// where a follower let go (the set is a rotation: the most recently
	// written files are followed at every look, R7-13) stopped reading
	// its file, to go on from there when the file is written again.
	running map[string]*runner
	resume  map[string]resumePoint
	// readers, retired and heads know files by identity (identity.go):
	// who reads each now, where a follower that let one go stopped, and
	// the first bytes of each read.
	readers map[fileKey]string
	retired map[fileKey]resumePoint
	heads   map[fileKey][]byte
	// Rotated counts the followers let go for a more recently written file.
	Rotated int64
}

// errLetGo is why a follower stops when a more recently written file
// takes its place.
var errLetGo = errors.New("let go for a more recently written file")

// runner is one follower at work.
type runner struct {
	stop context.CancelFunc
	done chan struct{}
}

// resumePoint is where a follower let go stopped: in which file (its
// identity and the bytes it started with) and at which byte (the start of
// the line it had not finished).
type resumePoint struct {
	fi   os.FileInfo
	head []byte
	pos  int64
}

// MaxFollowed is the most files a Tail follows at once: half the
// open-files limit (the rest is for the journal, sockets, the spool), at
// least 16, and at most 4,096: each follower holds its decoder and
// buffers, 270–330 KB measured (R7b-9: 10,000 followed logs took 3.3 GB).
// Past it the files with bytes unread, then the most recently written,
// are followed at every look, the others let go and counted (R6-15: every
// file of a directory was followed, each with a descriptor, until the
// limit failed the next open; R7-13: a set that froze at its first look
// never followed the new job's log).
func MaxFollowed() int {
	n := 4096
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 && rl.Cur/2 < uint64(n) {
		n = max(int(rl.Cur/2), 16)
	}
	return n
}

type followed struct {
	status    ingest.Status
	rotations int
	// holes and holeBytes count the holes skipped unread (file.skipHole).
	holes, holeBytes int64
	// specials counts the times the path was found to be a FIFO, a
	// device or a socket (refused, never read).
	specials int64
}

// NewTail follows the given paths and glob patterns; opts may force a
// format or add --map rules.
func NewTail(patterns []string, fromEnd bool, opts decode.Options) *Tail {
	return &Tail{patterns: patterns, fromEnd: fromEnd, files: map[string]*followed{}, poll: DefaultPoll, opts: opts, dups: map[string]ingestfile.Duplicate{}, maxFollow: MaxFollowed(),
		running: map[string]*runner{}, resume: map[string]resumePoint{}}
}

// SetPoll sets how often files are checked; call it before Run.
func (t *Tail) SetPoll(d time.Duration) {
	if d > 0 {
		t.poll = d
	}
}

// Status reports every file followed so far.
func (t *Tail) Status() []ingest.Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ingest.Status, 0, len(t.order))
	for _, name := range t.order {
		f := t.files[name]
		st := f.status
		if _, err := os.Stat(name); err != nil && name != "-" {
			st.Missing = true
		}
		out = append(out, st)
	}
	for _, name := range slices.Sorted(maps.Keys(t.dups)) {
		if _, followed := t.files[name]; !followed {
			d := t.dups[name]
			out = append(out, ingest.Status{Name: name, Warn: d.Note(), SameFileAs: d.Kept})
		}
	}
	if t.notFollowed > 0 {
		out = append(out, ingest.Status{Name: fmt.Sprintf("%d files not followed", t.notFollowed),
			Warn: fmt.Sprintf("at most %d files are followed at once (half the open-files limit, ulimit -n): the most recently written are, looked for again every few seconds (a file let go goes on where it stopped when written again); give fewer files or a narrower glob, or raise the limit", t.maxFollow)})
	}
	return out
}

// Rotations is how many times path was rotated while followed.
func (t *Tail) Rotations(path string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files[path]; f != nil {
		return f.rotations
	}
	return 0
}

func (t *Tail) expand() []string {
	var paths []string
	for _, p := range t.patterns {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			// A directory (Claude Code's projects): every *.jsonl beneath
			// it, looked for again on every expansion so new sessions and
			// subagents are followed as they appear.
			filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
					paths = append(paths, path)
				}
				return nil
			})
			continue
		}
		if strings.ContainsAny(p, "*?[") {
			m, _ := filepath.Glob(p)
			for _, g := range m {
				if r := decode.DocumentOf(g); r == nil || r.Rewritten == "" { // rewritten whole: read, never followed
					paths = append(paths, g)
				}
			}
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	t.mu.Lock()
	reading := make(map[string]bool, len(t.files))
	for p := range t.files {
		reading[p] = true
	}
	t.mu.Unlock()
	kept, dups := ingestfile.OnePathPerFileKeeping(slices.Compact(paths), func(p string) bool { return reading[p] })
	t.mu.Lock()
	for _, d := range dups {
		if _, said := t.dups[d.Path]; !said {
			t.dups[d.Path] = d
		}
	}
	t.mu.Unlock()
	return kept
}

// Run follows every file until ctx is done. A pipe alone ("-") ends when
// it closes.
func (t *Tail) Run(ctx context.Context, out chan<- ingest.Batch) error {
	if len(t.patterns) == 1 && t.patterns[0] == "-" {
		t.track("-", "stdin")
		t.followStdin(ctx, out)
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ticker := time.NewTicker(globEvery)
	defer ticker.Stop()
	for atStart := true; ; atStart = false {
		for _, path := range t.bounded(t.expand()) {
			// --from-end skips the history of what is there at start;
			// a file found later (a new session, a new worker's log)
			// is new, and read from its start.
			skipHistory := t.fromEnd && atStart
			t.track(path, path)
			fctx, cancel := context.WithCancelCause(ctx)
			stop := func() { cancel(errLetGo) }
			r := &runner{stop: stop, done: make(chan struct{})}
			t.mu.Lock()
			t.running[path] = r
			t.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(r.done)
				defer stop()
				t.follow(fctx, path, out, skipHistory)
			}()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// bounded is the paths to start following now. Up to maxFollow, every
// path is followed. Past it the set is a rotation: the maxFollow most
// recently written paths are followed, and a follower of a path no
// longer among them is let go (its descriptor closed, where it stopped
// kept) before the newer ones start; the number left out is counted in
// Status.
func (t *Tail) bounded(paths []string) []string {
	t.mu.Lock()
	var fresh []string
	for _, p := range paths {
		if _, on := t.running[p]; !on {
			fresh = append(fresh, p)
		}
	}
	fits := len(t.running)+len(fresh) <= t.maxFollow
	if fits {
		t.notFollowed = 0
	}
	t.mu.Unlock()
	if fits {
		return fresh
	}
	// Ranked: files with bytes no follower has read first (a file let go
	// and written since, or never followed), then the followers at work,
	// then files read to their end — each by the time last written, the
	// newest first. A file let go with a tail unread is taken again ahead
	// of followers idle at their ends (R7b-5: ranked by time alone, such
	// a tail was never read unless written again).
	type rank struct {
		mtime int64
		tier  int // 0 unread bytes, 1 at work, 2 read to its end
	}
	ranks := make(map[string]rank, len(paths))
	t.mu.Lock()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			ranks[p] = rank{0, 2}
			continue
		}
		r := rank{st.ModTime().UnixNano(), 2}
		if _, on := t.running[p]; on {
			r.tier = 1
		} else if at, let := t.resume[p]; !let || !os.SameFile(at.fi, st) || st.Size() != at.pos {
			r.tier = 0
		}
		ranks[p] = r
	}
	t.mu.Unlock()
	want := slices.Clone(paths)
	slices.SortStableFunc(want, func(a, b string) int {
		return cmp.Or(cmp.Compare(ranks[a].tier, ranks[b].tier), cmp.Compare(ranks[b].mtime, ranks[a].mtime))
	})
	want = want[:min(len(want), t.maxFollow)]
	keep := make(map[string]bool, len(want))
	for _, p := range want {
		keep[p] = true
	}
	t.mu.Lock()
	var letGo []*runner
	for p, r := range t.running {
		if !keep[p] {
			letGo = append(letGo, r)
			delete(t.running, p)
			t.Rotated++
		}
	}
	t.notFollowed = max(len(paths)-len(want), 0)
	t.mu.Unlock()
	// A follower let go closes its file before a new one opens: the
	// descriptors stay within the bound.
	for _, r := range letGo {
		r.stop()
	}
	for _, r := range letGo {
		<-r.done
	}
	fresh = fresh[:0]
	t.mu.Lock()
	for _, p := range want {
		if _, on := t.running[p]; !on {
			fresh = append(fresh, p)
		}
	}
	t.mu.Unlock()
	slices.Sort(fresh) // followed in name order, as every path is
	return fresh
}

// letGo keeps where the follower of path stopped, for the next one.
func (t *Tail) letGo(path string, at resumePoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resume[path] = at
}

// resumeAt is where an earlier follower of path stopped, if one was let go.
func (t *Tail) resumeAt(path string) (resumePoint, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.resume[path]
	delete(t.resume, path)
	return r, ok
}

// track registers path; false when it was known.
func (t *Tail) track(path, name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, known := t.files[path]; known {
		return false
	}
	t.files[path] = &followed{status: ingest.Status{Name: name, Active: true}}
	t.order = append(t.order, path)
	return true
}

func (t *Tail) setErr(path, msg string) {
	t.mu.Lock()
	t.files[path].status.Err = msg
	t.mu.Unlock()
}

// giveUp records a permanent error: the file is not followed.
func (t *Tail) giveUp(path, msg string) {
	t.mu.Lock()
	t.files[path].status.Err = msg
	t.files[path].status.Active = false
	t.mu.Unlock()
}

// warn records a possible loss; it stays on the source's status line.
func (t *Tail) warn(path, msg string) {
	t.mu.Lock()
	t.files[path].status.Warn = msg
	t.files[path].status.Truncations++
	t.mu.Unlock()
}

// Holes is how many holes (and their bytes) were skipped unread in path.
func (t *Tail) Holes(path string) (n, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files[path]; f != nil {
		return f.holes, f.holeBytes
	}
	return 0, 0
}

// hole records a hole skipped: said once (the warning does not change, so
// a headless run prints it once), counted in the source's detail.
func (t *Tail) hole(path string, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.files[path]
	f.holes++
	f.holeBytes += n
	f.status.Warn = "sparse: holes (never-written bytes, read as NULs) skipped unread; the line each one is in counts as too long"
	f.status.Detail = fmt.Sprintf("%d holes skipped, %d bytes; not a regular file %d times", f.holes, f.holeBytes, f.specials)
}

// Specials is how many times path was found replaced by something that
// is not a regular file.
func (t *Tail) Specials(path string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files[path]; f != nil {
		return f.specials
	}
	return 0
}

func (t *Tail) special(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.files[path]
	f.specials++
	f.status.Detail = fmt.Sprintf("%d holes skipped, %d bytes; not a regular file %d times", f.holes, f.holeBytes, f.specials)
}

func (t *Tail) rotated(path string) {
	t.mu.Lock()
	t.files[path].rotations++
	t.mu.Unlock()
}

// sink decodes lines into batches for one followed input, counts them in
// its status, and hands full batches to the engine, which then owns them.
type sink struct {
	t     *Tail
	path  string
	dec   decode.Decoder
	stats ingest.Stats
	out   chan<- ingest.Batch
	batch ingest.Batch
	// emitFn is s.emit bound once: a closure per line would allocate.
	emitFn func(*ingest.Event)
	noTS   bool             // the line being decoded gave an event without a time
	ended  bool             // the input ended (a closed pipe): the last flush lets everything go
	drops  ingest.FieldDrop // the fields its events lost (Event.Dropped)
	// heldCopies counts the Held copies of announcements emitted (no
	// event of their line: the call is counted when it is let go).
	heldCopies int
	// src is the input's number (Event.Source): each followed file has a
	// clock of its own in correlate, so one whose times are skewed ages
	// no other's jobs.
	src uint16
}

func (t *Tail) newSink(path string, out chan<- ingest.Batch) *sink {
	opts := t.opts
	// The file's name: a Codex rollout's names its session, a Gemini
	// chat's its session's prefix — all a follower that starts at the end
	// (past the line naming the session) has of it.
	opts.SourceName = path
	s := &sink{t: t, path: path, out: out, batch: ingest.NewBatch()[:0], src: t.sourceNumber(path)}
	// A batch goes every flushEvery: an app's "calling model" line waits
	// for its answer past it (decode.AnnounceHeldFor), all of them at the
	// input's end (a closed pipe).
	// Monotonic, from the sink's start: a host clock stepped 15 minutes
	// on must not let every call in flight go as a call of unknown
	// status, its answer then counted a second time.
	born := time.Now()
	opts.Now = func() int64 {
		if s.ended {
			return math.MaxInt64
		}
		return int64(time.Since(born)) + 1
	}
	s.dec = decode.NewStreamDecoder(opts)
	s.emitFn = s.emit
	if held := t.takeHeld(s.src); len(held) > 0 {
		if f, ok := s.dec.(decode.InFlight); ok {
			f.Hold(held)
		}
	}
	return s
}

// Hold gives the follower the calls that were in flight at the last stop
// (ingest.Event.Held, kept by the spool): each is held again by the
// decoder of the input of its number, waiting for its answer as if just
// read. Call it before Run.
func (t *Tail) Hold(held []ingest.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held = append(t.held, held...)
}

// takeHeld takes the held calls of input src.
func (t *Tail) takeHeld(src uint16) []ingest.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	var mine []ingest.Event
	rest := t.held[:0]
	for _, ev := range t.held {
		if ev.Source == src {
			mine = append(mine, ev)
		} else {
			rest = append(rest, ev)
		}
	}
	t.held = rest
	return mine
}

// sourceNumber is path's number among the inputs followed, in the order
// they were found (the last number for all past 65,535).
func (t *Tail) sourceNumber(path string) uint16 {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.order, path)
	return uint16(min(max(i, 0), 1<<16-1))
}

func (s *sink) emit(e *ingest.Event) {
	e.Source = s.src
	if e.TSCarried {
		// A line without a time of its own takes the time of the line
		// before it, as in a file read whole (history being caught up on
		// keeps its times); with none before it — a log that prints no
		// times, the Node SDKs' — it happened when it was read.
		if e.TS == 0 {
			e.TS = time.Now().UnixNano()
		}
		s.noTS = true
	}
	s.drops |= e.Dropped
	if e.Held && !s.ended {
		s.heldCopies++ // the announcement's copy: no event of the line's
	}
	s.batch = append(s.batch, *e)
}

func (s *sink) full() bool { return len(s.batch) >= ingest.BatchSize }

// feed decodes chunk's lines, handing each batch over as soon as it is
// full — not once the whole chunk is read: a chunk (1 MiB read from a
// file, 256 KiB from a pipe) holds thousands of lines, and while the
// engine's queue of DefaultQueue batches was full of such batches a
// catch-up held 256 × 5,000 events, 434 MB live where 256 × 512 are 35 MB
// (issue 38). False when ctx ended.
func (s *sink) feed(ctx context.Context, sp *splitter, chunk []byte) bool {
	for len(chunk) > 0 {
		chunk = sp.feedUntil(chunk, s.add, s.full)
		if s.full() && !s.send(ctx) {
			return false
		}
	}
	return true
}

// add decodes one complete line; a too-long line is counted, not decoded.
func (s *sink) add(line []byte, tooLong bool) { s.decode(line, tooLong, false) }

// addFinal decodes a last line that never got its newline: cut short, it
// counts as truncated rather than as invalid JSON.
func (s *sink) addFinal(line []byte, tooLong bool) { s.decode(line, tooLong, true) }

func (s *sink) decode(line []byte, tooLong, final bool) {
	if tooLong {
		s.stats.Count(ingest.SkipTooLong)
		return
	}
	n, h0 := len(s.batch), s.heldCopies
	r := s.dec.Decode(line, s.emitFn)
	if s.noTS {
		s.noTS = false
		s.stats.NoTimestamp++
	}
	if s.drops != 0 {
		s.stats.Fields(s.drops)
		s.drops = 0
	}
	s.stats.Line(r, len(s.batch)-n-(s.heldCopies-h0), final)
}

// send publishes the counters and hands the batch over; false when ctx
// ended first.
func (s *sink) send(ctx context.Context) bool {
	// Nothing stays held past a batch: the line after it may be a long
	// time coming.
	if !s.flushHeld() {
		return true
	}
	select {
	case s.out <- s.batch:
		// One the engine gave back (ingest.Recycle), when there is one:
		// a fresh one per batch left every applied batch in Recycle's
		// pool until the second collection after it — 117 MB of a
		// catch-up's heap (840 batches of 139 KB) that nothing used.
		s.batch = ingest.NewBatch()[:0]
		return true
	case <-ctx.Done():
		return false
	}
}

// flushHeld lets the decoder release what it holds into the batch and
// publishes the counters; false when the batch is empty.
func (s *sink) flushHeld() bool {
	if f, ok := s.dec.(decode.Flusher); ok {
		h0 := s.heldCopies
		s.stats.Events += int64(f.Flush(s.emitFn) - (s.heldCopies - h0))
		if s.noTS {
			s.noTS = false
			s.stats.NoTimestamp++
		}
	}
	var bound string
	if h, ok := s.dec.(decode.HeldBound); ok {
		bound = h.HeldBound()
	}
	s.t.mu.Lock()
	st := &s.t.files[s.path].status
	st.Stats = s.stats
	if bound != "" {
		// The counts, in the report written at the stop; the warning,
		// said once (headless) and shown in the header, does not change.
		st.Hint = bound
		if st.Warn == "" {
			st.Warn = heldBoundWarn
		}
	}
	s.t.mu.Unlock()
	return len(s.batch) > 0
}

// heldBoundWarn is said when an input passes the bound of announced calls
// waiting for their answer (decode.HeldBound).
const heldBoundWarn = "more calls announced (\"calling model\") and unanswered at once than are held in full: the oldest are kept packed until their answer, and past 262,144 of those counted as calls of unknown outcome (the report's source.hints counts them)"

// stopSendWait bounds the last hand-over at a stop: the engine takes
// batches until its sources return, so it is there at once; a consumer
// that stopped reading costs this wait, never a hang.
const stopSendWait = 2 * time.Second

// stop hands over, when the follower stops (watch's SIGTERM, the
// operator's q), what it still holds: lines decoded but not yet sent, and
// an app's "calling model" line still waiting for its answer — the call
// was made, so it is counted, an attempt of unknown outcome, not left out
// of the report written at the stop.
func (s *sink) stop() {
	s.ended = true
	if f, ok := s.dec.(decode.InFlight); ok {
		// What is still announced now is marked Held: the spool keeps
		// it to be held again at the next start (Tail.Hold).
		f.Stopping()
	}
	if !s.flushHeld() {
		return
	}
	t := time.NewTimer(stopSendWait)
	defer t.Stop()
	select {
	case s.out <- s.batch:
		s.batch = ingest.NewBatch()[:0]
	case <-t.C:
	}
}

// followStdin reads a pipe (`kubectl logs -f … | burnrate watch -`) until
// it closes. Reads block, so they run on their own goroutine and partial
// batches still go out every flushEvery.
func (t *Tail) followStdin(ctx context.Context, out chan<- ingest.Batch) {
	t.readPipe(ctx, "-", os.Stdin, out)
}

func (t *Tail) readPipe(ctx context.Context, path string, r io.Reader, out chan<- ingest.Batch) {
	sk := t.newSink(path, out)
	defer sk.stop()
	chunks := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		for {
			buf := make([]byte, 256<<10)
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case chunks <- buf[:n]:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	var sp splitter
	first := true
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-chunks:
			if first {
				c, first = bytes.TrimPrefix(c, ingest.BOM), false
			}
			if !sk.feed(ctx, &sp, c) {
				return
			}
		case <-flush.C:
			if !sk.send(ctx) {
				return
			}
		case err := <-readErr:
			// Take what is still in flight from the reader, then the last line.
			if !errors.Is(err, io.EOF) {
				t.setErr(path, "read stdin: "+err.Error())
			}
			sp.flush(sk.addFinal)
			sk.ended = true
			sk.send(ctx)
			return
		}
	}
}
