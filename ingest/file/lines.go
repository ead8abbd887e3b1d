package file

import (
	"golang.org/x/sys/unix"

	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// LineReader splits a stream into lines without ever holding more than
// MaxLineBytes of one line: longer lines are drained and reported.
type LineReader struct {
	r       *bufio.Reader
	long    []byte
	started bool
	// Consumed counts the bytes of complete (newline-terminated) lines
	// returned so far: where a follower can resume.
	Consumed int64
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	// 64 KiB: big enough that reads are few, small enough that a report
	// over a projects directory of 700 transcripts, all open at once for
	// the merge, does not hold 180 MB of buffers.
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line without its newline. The slice is valid until
// the next call. tooLong reports a line over MaxLineBytes (its bytes are
// not returned); final reports a last line that had no newline, which is
// how a truncated write looks. err is io.EOF at the end.
func (lr *LineReader) Next() (line []byte, tooLong, final bool, err error) {
	if !lr.started {
		lr.started = true
		if b, _ := lr.r.Peek(len(ingest.BOM)); bytes.Equal(b, ingest.BOM) {
			lr.r.Discard(len(ingest.BOM))
			lr.Consumed += int64(len(ingest.BOM))
		}
	}
	lr.long = lr.long[:0]
	var pending int64 // bytes of this line read so far; counted once it ends
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil:
			lr.Consumed += pending + int64(len(chunk))
			if len(lr.long) == 0 && !tooLong {
				return chunk[:len(chunk)-1], false, false, nil
			}
			if tooLong {
				return nil, true, false, nil
			}
			lr.long = append(lr.long, chunk[:len(chunk)-1]...)
			if len(lr.long) > decode.MaxLineBytes {
				return nil, true, false, nil
			}
			return lr.long, false, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			pending += int64(len(chunk))
			if !tooLong {
				lr.long = append(lr.long, chunk...)
				if len(lr.long) > decode.MaxLineBytes {
					tooLong = true
					lr.long = lr.long[:0]
				}
			}
		default: // EOF or a read error: whatever is buffered is the last line
			if tooLong {
				return nil, true, true, nil
			}
			if len(lr.long) == 0 && len(chunk) == 0 {
				return nil, false, false, err
			}
			lr.long = append(lr.long, chunk...)
			if len(lr.long) > decode.MaxLineBytes {
				return nil, true, true, nil
			}
			return lr.long, false, true, nil
		}
	}
}

// Open opens a log for reading: "-" is stdin, and gzip and zstd content
// (zstd.go) is detected by its magic bytes, whatever the file is called.
func Open(path string) (io.ReadCloser, error) { return openCounted(path, nil) }

// openCounted is Open with the raw file wrapped by wrap (given its size)
// before any buffering or decompression.
func openCounted(path string, wrap func(io.Reader, int64) io.Reader) (io.ReadCloser, error) {
	var f io.ReadCloser
	if path == "-" {
		if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && !isTerminal(os.Stdin) && st.Size() == 0 {
			// - < /dev/zero never ends and holds no log: a device on stdin
			// is refused as it is by name (a terminal, typed into, is read).
			if !isDevNull(st) {
				return nil, errors.New("open -: stdin is a device, not a log: pipe a log in (… | burnrate report -) or give the file")
			}
		}
		f = io.NopCloser(os.Stdin)
	} else {
		file, err := os.Open(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // "open PATH:" is said once, here
			}
			return nil, fmt.Errorf("open %s: %w (check the path and that you can read it)", path, err)
		}
		st, err := file.Stat()
		if err == nil && st.Mode()&(os.ModeCharDevice|os.ModeDevice|os.ModeSocket) != 0 {
			// /dev/zero never ends; a named pipe is read (process
			// substitution gives one), a device or socket is not.
			file.Close()
			return nil, fmt.Errorf("open %s: a device or socket, not a log file: give a file, a pipe, or - for stdin", path)
		}
		if err == nil && st.IsDir() {
			file.Close()
			return nil, fmt.Errorf("open %s: is a directory (give the log files in it, e.g. %s/*.jsonl)", path, path)
		}
		f = file
		if wrap != nil && err == nil {
			f = readCloser{wrap(file, st.Size()), file}
		}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	magic, _ := br.Peek(2)
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("open %s: looks gzip-compressed but is not readable: %w", path, err)
		}
		return readCloser{zr, f}, nil
	}
	switch zstdFraming(br) {
	case 1:
		zr, err := openZstdStream(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("open %s: looks zstd-compressed but is not readable: %w", path, err)
		}
		return readCloser{zr, closers{zr, f}}, nil
	case 2:
		zr, err := openZstdFramed(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("open %s: looks like zstd records of the Collector's file exporter but is not readable: %w", path, err)
		}
		return readCloser{zr, closers{zr, f}}, nil
	}
	return readCloser{br, f}, nil
}

// closers closes each in turn.
type closers []io.Closer

func (c closers) Close() error {
	var errs []error
	for _, x := range c {
		errs = append(errs, x.Close())
	}
	return errors.Join(errs...)
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// isTerminal reports a terminal (a character device that answers the
// terminal ioctl): burnrate report - typed into is read until ^D.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// isDevNull reports /dev/null (character device 1,3 on Linux): empty, so
// harmless as stdin.
func isDevNull(st os.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}
