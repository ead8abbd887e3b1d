package file

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// The OpenTelemetry Collector's file exporter writes zstd two ways with
// `compression: zstd` (open-telemetry/opentelemetry-collector-contrib,
// exporter/fileexporter):
//
//   - by default each export — one OTLP/JSON request — is compressed
//     alone (codec.go at 2de7cd2: EncodeAll) and written as a 4-byte
//     big-endian length and that frame (file_writer.go at f434b56:
//     exportMessageAsBuffer, chosen for JSON whenever compression is on);
//   - with the native compression feature gate the file is one zstd
//     stream (compression_writer.go at 432a0e7), whose content is what
//     the exporter writes uncompressed: OTLP/JSON a line.
//
// Both are read as lines of OTLP/JSON. Every line is bounded as any
// file's (decode.MaxLineBytes): a record that decompresses past it is
// counted as a too-long line, its decompression stopped there, so a
// decompression bomb costs at most the line cap. A file, stream or frames,
// is refused once it has given zstdMaxRatio times its compressed size
// (past zstdFloor):
// an OTLP/JSON file compresses 5–20×; a bomb does thousands. A frame
// asking for a window over zstdMaxWindow is not read. The exporter's
// protobuf format is not read, compressed or not.

// zstdMagic opens every zstd frame (RFC 8878).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

const (
	zstdMaxWindow = 16 << 20
	zstdMaxRatio  = 1000
	zstdFloor     = 64 << 20
)

// errZstdBomb ends a stream that decompresses past its ratio.
var errZstdBomb = fmt.Errorf("zstd content grew past %d× its compressed size: refused as a decompression bomb", zstdMaxRatio)

// zstdFraming is how br's content is zstd: 0 not, 1 a stream, 2 the
// exporter's length-prefixed frames.
func zstdFraming(br *bufio.Reader) int {
	head, _ := br.Peek(8)
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return 1
	case len(head) >= 4 && head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18:
		// A skippable frame first (RFC 8878 §3.1.2): pzstd's index, any
		// writer's metadata; the decoder steps over it. Read as text, a
		// pzstd file gave 0 of 61,934 events.
		return 1
	case len(head) == 8 && bytes.Equal(head[4:], zstdMagic):
		return 2
	}
	return 0
}

func newZstdDecoder(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(zstdMaxWindow), zstd.WithDecoderLowmem(true))
}

// countReader counts what it reads.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zstdStream reads a zstd stream, refusing a bomb (errZstdBomb). Its
// error is sticky, as gzip's is: a bufio.Reader's Peek hands an error on
// once, and the next read must meet it again, not a clean end.
type zstdStream struct {
	in  *countReader
	d   *zstd.Decoder
	out int64
	err error
}

func openZstdStream(br *bufio.Reader) (*zstdStream, error) {
	in := &countReader{r: br}
	d, err := newZstdDecoder(in)
	if err != nil {
		return nil, err
	}
	return &zstdStream{in: in, d: d}, nil
}

func (z *zstdStream) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.d.Read(p)
	z.out += int64(n)
	switch {
	case z.out > max(zstdFloor, zstdMaxRatio*z.in.n):
		err = errZstdBomb
	case errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded):
		err = fmt.Errorf("zstd content needs a window over %d MiB (compressed with zstd --long?): not read; decompress it first (zstd -d --long=31) and give burnrate the plain file", zstdMaxWindow>>20)
	case err != nil && !errors.Is(err, io.EOF):
		err = fmt.Errorf("zstd content not readable: %w", err)
	}
	z.err = err
	return n, err
}

func (z *zstdStream) Close() error { z.d.Close(); return nil }

// zstdFramed reads the exporter's length-prefixed frames as lines: each
// record's content, at most the line cap and one byte (a longer one is
// counted too long by the line reader; the rest of it is never
// decompressed), then a newline.
type zstdFramed struct {
	r    *bufio.Reader
	d    *zstd.Decoder
	line bytes.Buffer // the current record's line
	rest []byte       // what of it is still to give
	err  error        // sticky (zstdStream)
	// in and out are the file's compressed bytes read and what they gave:
	// the stream's ratio bound over the whole file, because the line cap
	// alone bounds one record, not a file of thousands of 80-byte frames
	// each giving a capped megabyte (1.7 MB took 68 s of CPU).
	in, out int64
}

func openZstdFramed(br *bufio.Reader) (*zstdFramed, error) {
	d, err := newZstdDecoder(nil)
	if err != nil {
		return nil, err
	}
	return &zstdFramed{r: br, d: d}, nil
}

// unreadableRecord stands, as a line, for a record that does not
// decompress: not JSON, so it is counted as a line not read, and says why.
const unreadableRecord = "(a zstd record of the Collector's file exporter that does not decompress)"

func (z *zstdFramed) Read(p []byte) (int, error) {
	if len(z.rest) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		if z.err = z.next(); z.err != nil {
			return 0, z.err
		}
	}
	n := copy(p, z.rest)
	z.rest = z.rest[n:]
	return n, nil
}

// next reads the next record into line.
func (z *zstdFramed) next() error {
	var hdr [4]byte
	if _, err := io.ReadFull(z.r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return errors.New("a zstd record's length is cut short: the file ends mid-record")
	}
	size := int64(binary.BigEndian.Uint32(hdr[:]))
	frame := &io.LimitedReader{R: z.r, N: size}
	z.in += 4 + size
	z.line.Reset()
	err := z.d.Reset(frame)
	if err == nil {
		_, err = io.CopyN(&z.line, z.d, decode.MaxLineBytes+1)
	}
	if _, cerr := io.Copy(io.Discard, frame); cerr != nil {
		return fmt.Errorf("read: %w", cerr)
	}
	if frame.N > 0 {
		return errors.New("a zstd record is cut short: the file ends mid-record")
	}
	if err != nil && !errors.Is(err, io.EOF) && z.line.Len() == 0 {
		z.line.WriteString(unreadableRecord)
	}
	if z.out += int64(z.line.Len()); z.out > max(zstdFloor, zstdMaxRatio*z.in) {
		return errZstdBomb
	}
	z.line.WriteByte('\n')
	z.rest = z.line.Bytes()
	return nil
}

func (z *zstdFramed) Close() error { z.d.Close(); return nil }
