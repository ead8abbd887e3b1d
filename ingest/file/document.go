package file

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/burnrate-dev/burnrate/ingest"
)

// A JSON document is a file that is not one record per line: a JSON array
// of records, one pretty-printed object (or several, one after another),
// or OTLP export requests — one per line, as the Collector's file exporter
// writes them, or pretty-printed. It is read record by record with a
// streaming decoder, so a 1 GB array is never held whole; each record is
// then decoded like a line of its format.

// MaxRecordBytes bounds one record of a JSON document (an OTLP export
// request can be large); a bigger one is skipped as too_long and reading
// goes on after it when the stream allows, else stops with an error.
const MaxRecordBytes = 64 << 20

// MaxArrayRecordBytes bounds one record of a JSON array that is not of
// OTLP requests: an array of log records or of trace-tool exports (a
// Langfuse trace of 2 MB is normal), read on past a bigger one. The cap
// is what a record costs at most: the decoder doubles its buffer to hold
// it, so a 100 MB first record under the 64 MiB cap peaked at 251 MiB.
const MaxArrayRecordBytes = 8 << 20

// recordCap is the record cap of a document of kind (otlp: of OTLP
// export requests).
func recordCap(kind documentKind, otlp bool) int64 {
	if kind == jsonArray && !otlp {
		return MaxArrayRecordBytes
	}
	return MaxRecordBytes
}

// documentKind is what the start of a file says it is.
type documentKind uint8

const (
	lineRecords documentKind = iota // JSON lines, SDK text: line by line
	jsonArray                       // [ {...}, {...} ]
	jsonValues                      // pretty-printed objects, or OTLP requests
)

// sniffDocument decides, from the first bytes, whether a file is a JSON
// document rather than lines: only once its first record parses as one
// (or reads as valid JSON to the end of the head, a record too big for
// it). A text log whose first line starts with "[" — a Node SDK's
// "[log_c0cd86, …]", Python's "[2023-11-20 21:33:59.751] …", a colour
// code's remnant "[37m" — is lines. otlp reports OTLP export requests.
// whole says head is the entire file.
func sniffDocument(head []byte, whole bool) (kind documentKind, otlp bool) {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, ingest.BOM), " \t\r\n")
	if len(head) == 0 {
		return lineRecords, false
	}
	first := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		first = head[:i]
	}
	otlp = bytes.Contains(first, []byte(`"resourceSpans"`)) || bytes.Contains(first, []byte(`"resourceLogs"`)) ||
		bytes.Contains(first, []byte(`"resource_spans"`)) || bytes.Contains(first, []byte(`"resource_logs"`))
	switch head[0] {
	case '[':
		if firstArrayRecord(head, whole) {
			return jsonArray, otlp
		}
	case '{':
		end, ok := firstValueEnd(head, whole)
		switch {
		case !ok:
			// Not JSON: lines (a text line, a truncated last record).
		case !otlp && end < 0 && bytes.IndexByte(head, '\n') < 0 && !compactExport(head):
			// One line longer than the head, still valid JSON where the
			// head ends: a long JSON line (or a compact document, which
			// is one line too). Lines read it whole up to the line cap
			// and skip it past that at a constant cost; the document
			// reader would buffer up to MaxRecordBytes of it, and
			// doubling its buffer to get there (a 100 MB first line
			// peaked at 455 MiB), then drop every line after it.
		case otlp || end < 0 || bytes.IndexByte(head[:end], '\n') >= 0:
			// OTLP requests (lines can be far over 1 MiB), a value
			// spread over many lines, or one too big for the head.
			if !otlp {
				otlp = bytes.Contains(head, []byte(`"resourceSpans"`)) || bytes.Contains(head, []byte(`"resourceLogs"`))
			}
			return jsonValues, otlp
		}
	}
	return lineRecords, false
}

// compactExport: a one-line document a trace tool exports compact —
// Jaeger's /api/traces and UI download ({"data":[{"traceID":…), a
// Langfuse trace ({…"observations":[…) — which is one document however
// long its line (a 2 MB trace is normal), not a JSON log line to cap at
// 1 MiB. Read by the document reader, under its record cap.
func compactExport(head []byte) bool {
	return bytes.HasPrefix(head, []byte(`{"data":[`)) && bytes.Contains(head, []byte(`"traceID"`)) ||
		bytes.Contains(head, []byte(`"observations":[`))
}

// firstArrayRecord reports an array whose first element is an object that
// parses (or is still valid where the head ends), or an empty array.
func firstArrayRecord(head []byte, whole bool) bool {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return false
	}
	rest := bytes.TrimLeft(head[dec.InputOffset():], " \t\r\n")
	switch {
	case len(rest) == 0:
		return !whole // the head ends after "[": too little to tell; a whole file "[" is not one
	case rest[0] == ']':
		return true
	case rest[0] != '{':
		return false // records are objects: "[1] …" and "[log_…" are text
	}
	var raw json.RawMessage
	err := dec.Decode(&raw)
	return err == nil || !whole && errors.Is(err, io.ErrUnexpectedEOF)
}

// firstValueEnd is the end of the first JSON value in head, -1 when head
// ends inside a value that is valid so far (and is not the whole file);
// ok false when it is not JSON.
func firstValueEnd(head []byte, whole bool) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if !whole && errors.Is(err, io.ErrUnexpectedEOF) {
			return -1, true
		}
		return 0, false
	}
	return int(dec.InputOffset()), true
}

// documentReader yields the records of a JSON document.
type documentReader struct {
	lim     *recordLimiter
	dec     *json.Decoder
	inArray bool
	started bool
	done    bool
	Err     error
	// textAfter: the document ended and lines follow it (a JSON array on
	// the first line, then JSON lines or SDK text): read them as lines,
	// never drop them.
	textAfter bool
	rest      io.Reader
}

func newDocumentReader(r *bufio.Reader, kind documentKind, otlp bool) *documentReader {
	lim := &recordLimiter{r: r, cap: recordCap(kind, otlp)}
	return &documentReader{lim: lim, dec: json.NewDecoder(lim), inArray: kind == jsonArray}
}

// recordLimiter fails a read once one record has taken cap bytes, so a
// hostile document cannot grow the decoder's buffer without bound.
type recordLimiter struct {
	r        io.Reader
	sinceRec int64
	cap      int64
}

var errRecordTooLong = errors.New("record over the size limit")

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.sinceRec > l.cap {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	l.sinceRec += int64(n)
	return n, err
}

// next returns the next record (compact JSON), or ok false at the end.
// tooLong reports a record skipped for its size.
func (d *documentReader) next() (rec []byte, tooLong, ok bool) {
	if d.done {
		return nil, false, false
	}
	if d.inArray && !d.started {
		d.started = true
		if t, err := d.dec.Token(); err != nil || t != json.Delim('[') {
			d.fail(err, "not a JSON array")
			return nil, false, false
		}
	}
	if !d.dec.More() {
		if d.inArray {
			d.dec.Token() // the closing ]
		}
		d.done = true
		d.textAfter = d.moreText()
		return nil, false, false
	}
	if !d.inArray && d.textNext() {
		// Pretty-printed objects, then a line that is not one (an SDK's
		// "2026-01-01 00:00:01 - httpx - …", which the decoder would read
		// as the number 2026): the rest is lines.
		d.done, d.textAfter = true, true
		return nil, false, false
	}
	var raw json.RawMessage
	d.lim.sinceRec = 0
	if err := d.dec.Decode(&raw); err != nil {
		if errors.Is(err, errRecordTooLong) {
			if d.inArray && d.skipRecord() {
				return nil, true, true // counted too long; the records after it are read
			}
			d.done = true // the decoder cannot resynchronize inside a value
			d.Err = fmt.Errorf("a record over %d MiB: skipped, and the rest of the document with it", d.lim.cap>>20)
			return nil, true, true
		}
		if !d.inArray && d.textNext() {
			// Not broken JSON: the document ended and text lines follow
			// (a pretty object, then an SDK's retry lines).
			d.done, d.textAfter = true, true
			return nil, false, false
		}
		if d.inArray && isMissingComma(err) {
			// "[" (or "[{…},") and then JSON lines with no comma between
			// them: whole records, each on its own line, not a broken
			// array — the rest is read as lines from the record the
			// decoder stopped at (it had read 1 of 2,000 calls and said
			// the document broke off).
			d.done, d.textAfter = true, true
			return nil, false, false
		}
		d.fail(err, "")
		return nil, false, false
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw, false, true
	}
	return b.Bytes(), false, true
}

// isMissingComma: the decoder stopped where an array's next element began
// without a comma, at the element's first byte (encoding/json peeks it
// and leaves it buffered).
func isMissingComma(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) && se.Error() == "expected comma after array element"
}

// skipRecord reads past the array record the decoder gave up on (it holds
// the record from its start), in constant memory, and goes on with a new
// decoder after it: an array of records loses the one too long, not
// every record after it. False when the array does not go on after it
// (or breaks off): then the document ends as before. The new decoder
// reads through io.MultiReaders, which flatten as they are used up, so
// a thousand records skipped add no layer per record.
func (d *documentReader) skipRecord() bool {
	sr := &byteReader{src: io.MultiReader(d.dec.Buffered(), d.lim.r), buf: make([]byte, 64<<10)}
	if !skipJSONValue(sr) {
		return false
	}
	c, err := sr.nonSpace()
	if err != nil || c != ',' && c != ']' {
		return false
	}
	// What follows is the array's rest: "," and records, or its "]". A new
	// decoder reads it as an array of its own ("[" put back before it).
	head := []byte{'['}
	if c == ']' {
		head = append(head, ']')
	}
	head = append(head, sr.buf[sr.r:sr.w]...)
	d.lim = &recordLimiter{r: io.MultiReader(bytes.NewReader(head), sr.src), cap: d.lim.cap}
	d.dec = json.NewDecoder(d.lim)
	d.started = false
	return true
}

// byteReader reads a stream a byte at a time through its own buffer.
type byteReader struct {
	src  io.Reader
	buf  []byte
	r, w int
}

func (b *byteReader) next() (byte, error) {
	for b.r == b.w {
		n, err := b.src.Read(b.buf)
		if n == 0 && err != nil {
			return 0, err
		}
		b.r, b.w = 0, n
	}
	c := b.buf[b.r]
	b.r++
	return c, nil
}

// nonSpace reads past JSON whitespace and returns the byte after it.
func (b *byteReader) nonSpace() (byte, error) {
	for {
		c, err := b.next()
		if err != nil || c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, err
		}
	}
}

// skipJSONValue reads past one JSON object or array (strings and escapes
// inside it counted, brackets not checked for kind): false when the
// stream ends first or the value is no object or array.
func skipJSONValue(b *byteReader) bool {
	c, err := b.nonSpace()
	if err != nil || c != '{' && c != '[' {
		return false
	}
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		c, err := b.next()
		if err != nil {
			return false
		}
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// moreText reports whether anything but whitespace follows the document.
func (d *documentReader) moreText() bool {
	br := bufio.NewReader(d.Rest())
	for {
		c, err := br.ReadByte()
		if err != nil {
			return false
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			d.rest = br
			br.UnreadByte()
			return true
		}
	}
}

// textNext reports whether what the decoder could not read starts as
// text, not as a JSON value.
func (d *documentReader) textNext() bool {
	b, _ := bufio.NewReader(bytes.NewReader(bufferedBytes(d.dec))).Peek(4096)
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] != '{' && b[0] != '['
}

func bufferedBytes(dec *json.Decoder) []byte {
	b, _ := io.ReadAll(dec.Buffered())
	return b
}

// Rest is what follows the document, to read as lines when textAfter:
// what the decoder had buffered, then the rest of the stream.
func (d *documentReader) Rest() io.Reader {
	if d.rest != nil {
		return d.rest
	}
	return io.MultiReader(d.dec.Buffered(), d.lim)
}

func (d *documentReader) fail(err error, what string) {
	d.done = true
	if err == nil || errors.Is(err, io.EOF) && what == "" {
		return
	}
	if what != "" {
		d.Err = fmt.Errorf("%s: %v", what, err)
		return
	}
	d.Err = fmt.Errorf("the JSON document breaks off: %w (records before this point were kept)", err)
}
