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
