package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/burnrate-dev/burnrate/display"
)

// outputQueue is how many headless JSON lines may wait for a slow stdout
// reader before new ones are dropped (and counted).
const outputQueue = 4096

// lineWriter writes headless JSON lines on a goroutine of its own, so that
// a stdout reader that stalls (a pipe nobody drains) or goes away (a
// filter that exited) can never hold the engine or a kill: line never
// blocks. Past outputQueue waiting lines, new ones are dropped and
// counted; once a write fails (EPIPE: the reader is gone) output stops
// for good and the kill path goes on.
type lineWriter struct {
	w       io.Writer
	ch      chan []byte
	dropped atomic.Int64
	broken  atomic.Bool
	done    chan struct{}
	once    sync.Once
}

func newLineWriter(w io.Writer) *lineWriter {
	l := &lineWriter{w: w, ch: make(chan []byte, outputQueue), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *lineWriter) run() {
	defer close(l.done)
	for b := range l.ch {
		if l.broken.Load() {
			l.dropped.Add(1)
			continue
		}
		if _, err := l.w.Write(b); err != nil {
			l.broken.Store(true)
			l.dropped.Add(1)
			why := err.Error()
			if errors.Is(err, syscall.EPIPE) {
				why = "the reader of stdout went away (broken pipe)"
			}
			fmt.Fprintf(os.Stderr, "burnrate: headless output stopped: %s; rules, kills and the journal go on\n", why)
		}
	}
}

// line queues one JSON line; it never blocks.
func (l *lineWriter) line(b []byte) {
	if l.broken.Load() {
		l.dropped.Add(1)
		return
	}
	select {
	case l.ch <- append(display.JSON(b), '\n'):
	default:
		if l.dropped.Add(1) == 1 {
			fmt.Fprintf(os.Stderr, "burnrate: stdout is not being read: headless lines are being dropped (%d waiting); rules, kills and the journal go on\n", outputQueue)
		}
	}
}

// Close flushes what is queued, for up to the caller's patience (the
// writer may be stuck on a reader that stalls), and says what was dropped.
func (l *lineWriter) Close(wait <-chan struct{}) {
	l.once.Do(func() { close(l.ch) })
	waiting := 0
	select {
	case <-l.done:
	case <-wait:
		waiting = len(l.ch) // the reader stalled: these never left
	}
	if n := l.dropped.Load() + int64(waiting); n > 0 {
		fmt.Fprintf(os.Stderr, "burnrate: %d headless output line(s) were not written (stdout not read, or closed); the journal has every action\n", n)
	}
}

// outWriter is the commands' stdout (the root command's OutOrStdout, so
// cobra's help, --version and completion scripts go through it too). It
// passes every write to os.Stdout — looked up at each write, so a test
// that swaps os.Stdout still sees the output — and remembers the first
// write that failed, so that Main can exit 2 when the output was lost (a
// full disk, a quota) instead of claiming success. A reader that went away
// (EPIPE: `| head`) is not remembered: as before, the process ends on
// SIGPIPE, or, where SIGPIPE is ignored, the command's own error says it.
type outWriter struct {
	mu  sync.Mutex
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	n, err := os.Stdout.Write(p)
	if err != nil && !errors.Is(err, syscall.EPIPE) {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// failed is the first write that failed, or nil.
func (o *outWriter) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// writeFailure is the line Main prints for a lost output: the system's
// reason ("no space left on device"), without the /dev/stdout path.
func writeFailure(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return "writing the output: " + errno.Error()
	}
	return "writing the output: " + err.Error()
}
