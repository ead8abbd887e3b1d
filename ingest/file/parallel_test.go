package file

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// mixedLog writes a JSON-lines log past parallelMinBytes whose lines, after
// a plain head, test everything the parallel path hands back to the
// sequential decoder: lines without a timestamp (one with an HTTP-date
// Retry-After that needs the inherited time), broken and blank lines, SDK
// text lines that take the job of the JSON line before them, CRLF, lines
// whose bytes are not text, and — when long — a line longer than a chunk.
func mixedLog(t *testing.T, long bool, truncated bool) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < parallelMinBytes+parallelChunk*3; i++ {
		ts := fmt.Sprintf("2026-03-10T%02d:%02d:%02d.%03dZ", 1+i/3600000%20, i/60000%60, i/1000%60, i%1000)
		switch {
		case i < 300 || i%10 < 5:
			fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":"job-%d","idempotency_key":"k-%d","attempt":%d,"model":"claude-sonnet-4-6","status":%d,"input_tokens":%d,"output_tokens":7}`+"\n", ts, i%977, i%3001, i%3+1, []int{200, 429, 529, 400}[i%4], i%5000)
		case i%10 == 5:
			fmt.Fprintf(&b, `{"event":"llm_call","job_id":"job-%d","model":"claude-haiku-4-5","status":429,"headers":{"retry-after":"Tue, 10 Mar 2026 02:00:00 GMT"}}`+"\n", i%977)
		case i%10 == 6:
			b.WriteString("{\"ts\":\"2026-03-10T01:00:00Z\",\"event\":\"llm_call\",\"job_id\":\n\n")
		case i%10 == 7:
			fmt.Fprintf(&b, "[2026-03-10 01:00:%02d,100 - httpx:1025 - INFO] HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 529\"\n", i%60)
			fmt.Fprintf(&b, "[2026-03-10 01:00:%02d,100 - anthropic._base_client:1046 - INFO] Retrying request to /v1/messages in 0.500000 seconds\n", i%60)
		case i%10 == 8:
			fmt.Fprintf(&b, `{"ts":%q,"event":"job_started","job_id":"job-%d","job_type":"t\u001b[31m"}`+"\r\n", ts, i%977)
		default:
			fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":"j\xff%d","model":"m","status":200,"output_tokens":1e300}`+"\n", ts, i)
		}
		if long && i == 20000 {
			b.WriteString(`{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"long","model":"m","pad":"` + strings.Repeat("x", parallelChunk+100) + "\"}\n")
		}
	}
	if truncated {
		b.WriteString(`{"ts":"2026-03-10T01:00:00Z","event":"llm_ca`)
	}
	return b.Bytes()
}

// readAll reads it to the end; parallel tells whether the workers read
// any of it.
func readAll(t *testing.T, it *FileIter) (evs []ingest.Event, st ingest.Stats, err, hint string, parallel bool) {
	t.Helper()
	var ev ingest.Event
	for it.Next(&ev) {
		evs = append(evs, ev)
		parallel = parallel || it.par != nil
	}
	return evs, it.Stats, it.ErrText(), it.Hint(), parallel
}

// TestParallelParseIsSequential: a file parsed on every core gives the
// events, in order, the counts, the error and the hint of the same bytes
// read line by line.
func TestParallelParseIsSequential(t *testing.T) {
	for _, c := range []struct {
		name            string
		long, truncated bool
		gz              bool
	}{{"plain", false, false, false}, {"a line longer than a chunk", true, false, false}, {"truncated last line", false, true, false}, {"gzip", false, true, true}} {
		t.Run(c.name, func(t *testing.T) {
			data := mixedLog(t, c.long, c.truncated)
			disk := data
			if c.gz {
				// Stored, not compressed: a gzip file is parallel by its
				// size on disk.
				var z bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&z, gzip.NoCompression)
				zw.Write(data)
				zw.Close()
				disk = z.Bytes()
			}
			path := filepath.Join(t.TempDir(), "mixed.jsonl")
			if err := os.WriteFile(path, disk, 0o600); err != nil {
				t.Fatal(err)
			}
			par, err := OpenFile(path, 3, decode.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer par.Close()
			seq := NewIter(bytes.NewReader(data), path, 3, decode.Options{}) // no size: never parallel
			gotEv, gotSt, gotErr, gotHint, wasParallel := readAll(t, par)
			if par.Detected.Format != decode.FormatJSONL {
				t.Fatalf("detected %s", par.Detected.Format)
			}
			wantEv, wantSt, wantErr, wantHint, seqParallel := readAll(t, seq)
			if !wasParallel || seqParallel || par.par != nil {
				t.Fatalf("parallel path taken %v (line by line: %v), left open %v", wasParallel, seqParallel, par.par != nil)
			}
			if len(gotEv) != len(wantEv) {
				t.Fatalf("%d events in parallel, %d line by line", len(gotEv), len(wantEv))
			}
			for i := range wantEv {
				if !reflect.DeepEqual(gotEv[i], wantEv[i]) {
					t.Fatalf("event %d:\nparallel   %+v\nsequential %+v", i, gotEv[i], wantEv[i])
				}
			}
			if !reflect.DeepEqual(gotSt, wantSt) || gotErr != wantErr || gotHint != wantHint {
				t.Fatalf("stats %+v err %q hint %q; line by line %+v %q %q", gotSt, gotErr, gotHint, wantSt, wantErr, wantHint)
			}
			if c.long && !slices.ContainsFunc(gotEv, func(e ingest.Event) bool { return e.JobID == "long" }) {
				t.Fatal("the line longer than a chunk was lost")
			}
			if wantSt.Events < 40_000 || wantSt.Skipped[ingest.SkipInvalidJSON] == 0 || wantSt.Skipped[ingest.SkipInfo] == 0 || (c.long && wantSt.Skipped[ingest.SkipTooLong]+wantSt.Events == 0) {
				t.Fatalf("the log tests too little: %+v", wantSt)
			}
		})
	}
}

// TestParallelCloseEarly: closing a file mid-read stops its reader and
// workers (the race detector and the test's end would catch a leak's
// writes).
func TestParallelCloseEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, mixedLog(t, false, false), 0o600); err != nil {
		t.Fatal(err)
	}
	it, err := OpenFile(path, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ev ingest.Event
	for range 5000 {
		if !it.Next(&ev) {
			t.Fatal("ended early")
		}
	}
	if it.par == nil {
		t.Fatal("not reading in parallel")
	}
	it.Close()
	if it.par != nil {
		t.Fatal("pipeline left running")
	}
}

// TestParallelTinyLines: a big file of empty and two-byte lines — many
// thousands of lines per chunk's bytes — is cut into chunks of at most
// parallelChunkLines lines and read as line by line.
func TestParallelTinyLines(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < parallelMinBytes+1000; i++ {
		switch i % 4 {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("{}\n")
		case 2:
			fmt.Fprintf(&b, `{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"j%d","model":"m","status":200}`+"\n", i%50)
		default:
			b.WriteString(" \r\n")
		}
	}
	path := filepath.Join(t.TempDir(), "tiny.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	par, err := OpenFile(path, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer par.Close()
	gotEv, gotSt, _, _, wasParallel := readAll(t, par)
	wantEv, wantSt, _, _, _ := readAll(t, NewIter(bytes.NewReader(b.Bytes()), path, 0, decode.Options{}))
	if !wasParallel || len(gotEv) != len(wantEv) || !reflect.DeepEqual(gotSt, wantSt) || len(wantEv) < 50_000 {
		t.Fatalf("parallel %d events %+v; line by line %d %+v", len(gotEv), gotSt, len(wantEv), wantSt)
	}
}

func TestCutLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want int
	}{{"a\nb\nc\n", 2, 4}, {"a\nb\nc\n", 3, 6}, {"a\nb\nc\n", 9, 6}, {"abc", 1, 3}, {"\n\n\n", 2, 2}} {
		if got := cutLines([]byte(c.in), c.max); got != c.want {
			t.Errorf("cutLines(%q, %d) = %d, want %d", c.in, c.max, got, c.want)
		}
	}
}

// TestParallelSeesJobsAtWorkAtOnce: the ordered pass keeps the decoder's
// note of jobs at work at once from the job IDs' hashes the workers made
// (decode.OpenHash). Made under another seed, no job would ever be found
// again: a log that interleaves two jobs only after the workers took over
// (or a line decoded again in order) would not be seen to, and the Python
// lines after it would be linked to a job as though only one were at work.
func TestParallelSeesJobsAtWorkAtOnce(t *testing.T) {
	var b bytes.Buffer
	ts := func(i int) string {
		return fmt.Sprintf("2026-03-10T01:%02d:%02d.%03dZ", i/60000%60, i/1000%60, i%1000)
	}
	i := 0
	for ; b.Len() < parallelMinBytes+parallelChunk*2; i++ {
		// One job after another: never two at work at once.
		fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":"job-%d","idempotency_key":"k-%d","attempt":1,"model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":7}`+"\n", ts(i), i/3, i/3)
	}
	// Two jobs at work at once, A's second line without a time of its
	// own: the workers hash the first two, the ordered pass decodes the
	// third again and hashes it itself — the two hashes of A must agree.
	for _, job := range []string{"late-a", "late-b"} {
		fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","job_id":%q,"model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":7}`+"\n", ts(i), job)
		i++
	}
	b.WriteString(`{"event":"llm_call","job_id":"late-a","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":7}` + "\n")
	// A line of no job: the Python lines after it name none, so only the
	// jobs seen at work at once mark their attempts ambiguous.
	fmt.Fprintf(&b, `{"ts":%q,"event":"llm_call","correlation_id":"c-1","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":7}`+"\n", ts(i))
	sec := i / 1000 % 60
	fmt.Fprintf(&b, "[2026-03-10 01:00:%02d,100 - httpx:1025 - INFO] HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 529\"\n", sec)
	fmt.Fprintf(&b, "[2026-03-10 01:00:%02d,200 - anthropic._base_client:1046 - INFO] Retrying request to /v1/messages in 0.500000 seconds\n", sec)
	fmt.Fprintf(&b, "[2026-03-10 01:00:%02d,800 - httpx:1025 - INFO] HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 200 OK\"\n", sec)
	if i/60000 != 0 {
		t.Fatalf("the log spans %d minutes: its Python lines must fall within one of the interleaving", i/60000)
	}
	path := filepath.Join(t.TempDir(), "interleaved.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	par, err := OpenFile(path, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer par.Close()
	gotEv, _, _, _, wasParallel := readAll(t, par)
	wantEv, _, _, _, _ := readAll(t, NewIter(bytes.NewReader(b.Bytes()), path, 0, decode.Options{}))
	if !wasParallel || len(gotEv) != len(wantEv) {
		t.Fatalf("parallel %v, %d events; line by line %d", wasParallel, len(gotEv), len(wantEv))
	}
	ambiguous := 0
	for k := range wantEv {
		if !reflect.DeepEqual(gotEv[k], wantEv[k]) {
			t.Fatalf("event %d:\nparallel   %+v\nsequential %+v", k, gotEv[k], wantEv[k])
		}
		if wantEv[k].AttemptBy == ingest.AttemptByLineAmbiguous {
			ambiguous++
		}
	}
	if ambiguous == 0 {
		t.Fatal("no Python attempt was linked as ambiguous: the log does not test the note of jobs at work at once")
	}
}

// TestChunksHoldAtMostChunkLines: the reader cuts a file of short lines
// into chunks of at most parallelChunkLines lines (a chunk's parsed lines
// take ~320 bytes each), and of long ones at most parallelChunk bytes,
// every byte in one chunk, in order.
func TestChunksHoldAtMostChunkLines(t *testing.T) {
	for _, lineLen := range []int{1, 2, 3, 127, 128, 129, 300, 5000} {
		var b bytes.Buffer
		for i := 0; b.Len() < 3*parallelChunk+17; i++ {
			b.WriteString(strings.Repeat(string(rune('a'+i%26)), lineLen-1) + "\n")
		}
		b.WriteString("last")
		pr := &parallelReader{chunks: make(chan *lineChunk, 1<<12), free: make(chan *lineChunk, 1), stop: make(chan struct{})}
		todo := make(chan *lineChunk, 1<<12)
		pr.read(bytes.NewReader(b.Bytes()), todo)
		close(pr.chunks)
		var got []byte
		for c := range pr.chunks {
			if n := bytes.Count(c.data, []byte{'\n'}); n > parallelChunkLines || len(c.data) > parallelChunk {
				t.Fatalf("lines of %d bytes: a chunk of %d lines, %d bytes", lineLen, n, len(c.data))
			}
			got = append(got, c.data...)
		}
		if !bytes.Equal(got, b.Bytes()) || pr.err != nil || pr.leftover != nil {
			t.Fatalf("lines of %d bytes: chunks hold %d bytes of %d (err %v)", lineLen, len(got), b.Len(), pr.err)
		}
	}
}

// TestChunkSizedLines: a line that fills a chunk to its last byte, its
// newline included, is a chunk of its own; one byte longer, and it is
// left, with everything after it, for reading line by line (leftover).
func TestChunkSizedLines(t *testing.T) {
	for _, c := range []struct {
		lineLen  int
		leftover bool
	}{{parallelChunk - 1, false}, {parallelChunk, false}, {parallelChunk + 1, true}} {
		var b bytes.Buffer
		b.WriteString("{}\n")
		b.WriteString(strings.Repeat("x", c.lineLen-1) + "\n")
		b.WriteString("{}\n{}")
		pr := &parallelReader{chunks: make(chan *lineChunk, 64), free: make(chan *lineChunk, 1), stop: make(chan struct{})}
		pr.read(bytes.NewReader(b.Bytes()), make(chan *lineChunk, 64))
		close(pr.chunks)
		var got []byte
		for ch := range pr.chunks {
			got = append(got, ch.data...)
		}
		got = append(got, pr.leftover...)
		if (pr.leftover != nil) != c.leftover {
			t.Errorf("a line of %d bytes: leftover %d bytes, want some: %v", c.lineLen, len(pr.leftover), c.leftover)
		}
		if !c.leftover && !bytes.Equal(got, b.Bytes()) {
			t.Errorf("a line of %d bytes: chunks hold %d bytes of %d", c.lineLen, len(got), b.Len())
		}
		if c.leftover && !bytes.HasPrefix(b.Bytes(), got) {
			t.Errorf("a line of %d bytes: chunks and leftover are not the file's start", c.lineLen)
		}
	}
}

// TestTwoLogsParsedInParallelAtOnce: two big logs read together (a set,
// each file read ahead on its own goroutine and parsed by its own
// workers, each decoder with its own table of open jobs and its seed)
// give each file's events in the order, and with the counts, of that
// file read alone line by line.
func TestTwoLogsParsedInParallelAtOnce(t *testing.T) {
	dir := t.TempDir()
	logs := [][]byte{mixedLog(t, false, false), mixedLog(t, true, true)}
	var paths []string
	for i, data := range logs {
		p := filepath.Join(dir, fmt.Sprintf("log%d.jsonl", i))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	fs, err := OpenFiles(paths, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	got := make([][]ingest.Event, len(paths))
	events := fs.Events()
	var ev ingest.Event
	for events.Next(&ev) {
		got[ev.Source] = append(got[ev.Source], ev)
	}
	for i, data := range logs {
		wantEv, wantSt, _, _, _ := readAll(t, NewIter(bytes.NewReader(data), paths[i], uint16(i), decode.Options{}))
		if len(got[i]) != len(wantEv) || !reflect.DeepEqual(fs.Files[i].Stats, wantSt) {
			t.Fatalf("file %d: %d events %+v; alone, line by line, %d %+v", i, len(got[i]), fs.Files[i].Stats, len(wantEv), wantSt)
		}
		for k := range wantEv {
			if !reflect.DeepEqual(got[i][k], wantEv[k]) {
				t.Fatalf("file %d, event %d:\ntogether %+v\nalone    %+v", i, k, got[i][k], wantEv[k])
			}
		}
	}
}
