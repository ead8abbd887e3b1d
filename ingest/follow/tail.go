// Package follow reads logs that are still being written: files (through
// rotation, by glob) and stdin.
package follow

import (
	"context"
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nxadm/tail"

	"github.com/burnrate-dev/burnrate/ingest"
)

// flushEvery bounds how long a parsed event waits in a partial batch.
const flushEvery = 50 * time.Millisecond

// globEvery is how often glob patterns are expanded again to pick up
// files created after start.
const globEvery = 2 * time.Second

// Tail follows files with github.com/nxadm/tail: from their start by
// default (to rebuild state), through rename-and-create and copytruncate
// rotation, waiting for files that do not exist yet. Patterns may be globs.
type Tail struct {
	patterns []string
	fromEnd  bool
	opts     ingest.Options

	mu    sync.Mutex
	files map[string]*followed
	order []string
}

type followed struct {
	status    ingest.Status
	rotations int
}

// NewTail follows the given paths and glob patterns; opts may force a
// format or add --map rules.
func NewTail(patterns []string, fromEnd bool, opts ...ingest.Options) *Tail {
	t := &Tail{patterns: patterns, fromEnd: fromEnd, files: map[string]*followed{}}
	if len(opts) > 0 {
		t.opts = opts[0]
	}
	return t
}

// ingest.Status reports every file followed so far.
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
	return out
}

func (t *Tail) expand() []string {
	var paths []string
	for _, p := range t.patterns {
		if strings.ContainsAny(p, "*?[") {
			m, _ := filepath.Glob(p)
			paths = append(paths, m...)
			continue
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// Run follows every file until ctx is done. A pipe alone ("-") ends when
// it closes.
func (t *Tail) Run(ctx context.Context, out chan<- ingest.Batch) error {
	if len(t.patterns) == 1 && t.patterns[0] == "-" {
		t.mu.Lock()
		t.files["-"] = &followed{status: ingest.Status{Name: "stdin", Active: true}}
		t.order = append(t.order, "-")
		t.mu.Unlock()
		t.followStdin(ctx, out)
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ticker := time.NewTicker(globEvery)
	defer ticker.Stop()
	for {
		for _, path := range t.expand() {
			t.mu.Lock()
			_, known := t.files[path]
			if !known {
				t.files[path] = &followed{status: ingest.Status{Name: path, Active: true}}
				t.order = append(t.order, path)
			}
			t.mu.Unlock()
			if !known {
				wg.Add(1)
				go func() {
					defer wg.Done()
					t.follow(ctx, path, out)
				}()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// rotationLog turns the tail library's log lines into status, so that
// nothing is written to the terminal and nothing is silently lost.
type rotationLog struct {
	t    *Tail
	path string
}

func (r rotationLog) Write(p []byte) (int, error) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	f := r.t.files[r.path]
	msg := strings.TrimSpace(string(p))
	if strings.Contains(msg, "Re-opening") || strings.Contains(msg, "truncated") {
		f.rotations++
		return len(p), nil
	}
	f.status.Err = msg
	return len(p), nil
}

func (t *Tail) follow(ctx context.Context, path string, out chan<- ingest.Batch) {
	if path == "-" {
		t.followStdin(ctx, out)
		return
	}
	if f, err := os.Open(path); err == nil {
		magic := make([]byte, 2)
		n, _ := f.Read(magic)
		f.Close()
		if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			t.setErr(path, "gzip-compressed: a finished log cannot be followed; use burnrate replay or burnrate report")
			return
		}
	}
	// Poll, not inotify: a write that lands after the follower's first read
	// to EOF but before its inotify watch exists raises no event, and the
	// last lines of a log would wait for a next write that may never come.
	// Polling (every 250 ms) has no such window.
	cfg := tail.Config{Follow: true, ReOpen: true, MustExist: false, CompleteLines: true, Poll: true,
		MaxLineSize: ingest.MaxLineBytes + 1, Logger: log.New(rotationLog{t, path}, "", 0)}
	dec := ingest.NewStreamDecoder(t.opts)
	var stats ingest.Stats
	if t.fromEnd {
		cfg.Location = &tail.SeekInfo{Offset: 0, Whence: io.SeekEnd}
	} else if offset, ok := t.catchUp(ctx, path, dec, &stats, out); ok {
		// History was read at report speed; follow from where it ended.
		cfg.Location = &tail.SeekInfo{Offset: offset, Whence: io.SeekStart}
	} else if ctx.Err() != nil {
		return
	}
	tf, err := tail.TailFile(path, cfg)
	if err != nil {
		t.setErr(path, err.Error())
		return
	}
	defer tf.Cleanup()
	defer tf.Stop()
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	sink := t.newSink(path, dec, &stats, out)
	for {
		select {
		case <-ctx.Done():
			return
		case <-flush.C:
			if !sink.send(ctx) {
				return
			}
		case line, ok := <-tf.Lines:
			if !ok {
				sink.send(ctx)
				return
			}
			if line.Err != nil {
				t.setErr(path, line.Err.Error())
				continue
			}
			sink.add([]byte(line.Text), len(line.Text) > ingest.MaxLineBytes)
			if sink.full() && !sink.send(ctx) {
				return
			}
		}
	}
}

// sink decodes lines into batches for one followed input, counts them in
// its status, and hands full batches to the engine.
type sink struct {
	t      *Tail
	path   string
	dec    ingest.Decoder
	stats  *ingest.Stats
	out    chan<- ingest.Batch
	batch  ingest.Batch
	emitFn func(*ingest.Event) // s.emit bound once: a closure per line would allocate
}

func (t *Tail) newSink(path string, dec ingest.Decoder, stats *ingest.Stats, out chan<- ingest.Batch) *sink {
	s := &sink{t: t, path: path, dec: dec, stats: stats, out: out, batch: make(ingest.Batch, 0, ingest.BatchSize)}
	s.emitFn = s.emit
	return s
}

func (s *sink) emit(e *ingest.Event) { s.batch = append(s.batch, *e) }

func (s *sink) full() bool { return len(s.batch) >= ingest.BatchSize }

// add decodes one line; tooLong lines are counted, not decoded.
func (s *sink) add(line []byte, tooLong bool) {
	r := ingest.SkipTooLong
	n := len(s.batch)
	if !tooLong {
		r = s.dec.Decode(line, s.emitFn)
	}
	if r != ingest.SkipBlank && r != ingest.SkipInfo {
		s.stats.Count(r)
		if r == ingest.Accepted && len(s.batch)-n > 1 {
			s.stats.Events += int64(len(s.batch) - n - 1)
		}
	}
}

// send publishes the counters and hands the batch over (the engine owns it
// then); false when ctx ended first.
func (s *sink) send(ctx context.Context) bool {
	s.t.mu.Lock()
	s.t.files[s.path].status.Stats = *s.stats
	s.t.mu.Unlock()
	if len(s.batch) == 0 {
		return true
	}
	select {
	case s.out <- s.batch:
		s.batch = make(ingest.Batch, 0, ingest.BatchSize)
		return true
	case <-ctx.Done():
		return false
	}
}

func (t *Tail) setErr(path, msg string) {
	t.mu.Lock()
	t.files[path].status.Err = msg
	t.mu.Unlock()
}

// followStdin reads a pipe (`kubectl logs -f … | burnrate watch -`) until
// it closes.
func (t *Tail) followStdin(ctx context.Context, out chan<- ingest.Batch) {
	var stats ingest.Stats
	t.drainLines(ctx, "-", ingest.NewLineReader(os.Stdin), ingest.NewStreamDecoder(t.opts), &stats, out, true)
}

// catchUp reads what the file already holds with the report's reader,
// which is an order of magnitude faster than a follower's line channel,
// and returns the offset just past the last complete line. ok is false
// when the file does not exist yet or ctx ended.
func (t *Tail) catchUp(ctx context.Context, path string, dec ingest.Decoder, stats *ingest.Stats, out chan<- ingest.Batch) (offset int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return t.drainLines(ctx, path, ingest.NewLineReader(f), dec, stats, out, false)
}

// drainLines decodes lines into batches until the input ends. A file's
// last line without its newline is still being written, so catch-up stops
// before it (the follower reads it once complete); a pipe's is taken as
// is, and a pipe hands over what it has every flushEvery, since it blocks
// between lines. It returns the offset past the last line it read.
func (t *Tail) drainLines(ctx context.Context, path string, lines *ingest.LineReader, dec ingest.Decoder, stats *ingest.Stats, out chan<- ingest.Batch, pipe bool) (offset int64, ok bool) {
	sk := t.newSink(path, dec, stats, out)
	last := time.Now()
	for {
		before := lines.Consumed
		line, tooLong, final, err := lines.Next()
		if err != nil || (final && !pipe) {
			if err != nil && !errors.Is(err, io.EOF) {
				t.setErr(path, err.Error())
			}
			return before, sk.send(ctx)
		}
		sk.add(line, tooLong)
		if sk.full() || (pipe && time.Since(last) > flushEvery) {
			if !sk.send(ctx) {
				return 0, false
			}
			last = time.Now()
		}
	}
}
