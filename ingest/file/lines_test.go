package file

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", decode.MaxLineBytes+10)
	input := "a\n" + long + "\nb\n" + strings.Repeat("y", 300_000) + "\ntail"
	lr := NewLineReader(strings.NewReader(input))
	type got struct {
		line          string
		tooLong, last bool
	}
	var out []got
	for {
		line, tooLong, final, err := lr.Next()
		if err != nil {
			break
		}
		out = append(out, got{string(line), tooLong, final})
	}
	want := []got{{"a", false, false}, {"", true, false}, {"b", false, false}, {strings.Repeat("y", 300_000), false, false}, {"tail", false, true}}
	if len(out) != len(want) {
		t.Fatalf("got %d lines, want %d", len(out), len(want))
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("line %d: got len %d tooLong %v final %v", i, len(out[i].line), out[i].tooLong, out[i].last)
		}
	}
}

func TestFileIterCountsAndKeepsGoodLines(t *testing.T) {
	good := `{"ts":1773104400,"event":"llm_call","job_id":"j","model":"m","status":200}`
	content := good + "\n" + "garbage\n" + strings.Repeat("z", decode.MaxLineBytes+1) + "\n\n" + good + "\n" + `[1]` + "\n" + good + "\n" + `{"ts":1773104400,"event":"llm_c`
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.log")
	os.WriteFile(plain, []byte(content), 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(content))
	zw.Close()
	zipped := filepath.Join(dir, "b.log") // no .gz suffix: detected by magic
	os.WriteFile(zipped, zb.Bytes(), 0o644)
	for _, p := range []string{plain, zipped} {
		it, err := OpenFile(p, 0, decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ev ingest.Event
		n := 0
		for it.Next(&ev) {
			n++
		}
		it.Close()
		if n != 3 || it.Stats.Events != 3 {
			t.Errorf("%s: %d events, want 3", p, n)
		}
		want := map[string]int64{"invalid_json": 1, "too_long": 1, "not_object": 1, "truncated": 1}
		got := it.Stats.SkippedByReason()
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: skipped %v, want %v", p, got, want)
				break
			}
		}
		if it.Stats.SkippedTotal() != 4 || it.Err != nil {
			t.Errorf("%s: skipped %d err %v", p, it.Stats.SkippedTotal(), it.Err)
		}
	}
}

func TestTruncatedGzipKeepsLinesBeforeTheCut(t *testing.T) {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	for range 2000 {
		io.WriteString(zw, `{"ts":1773104400,"event":"llm_call","job_id":"j","model":"m","status":200}`+"\n")
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "cut.gz")
	os.WriteFile(path, zb.Bytes()[:zb.Len()/2], 0o644)
	it, err := OpenFile(path, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ev ingest.Event
	n := 0
	for it.Next(&ev) {
		n++
	}
	if n == 0 || it.Err == nil {
		t.Errorf("got %d events and err %v: want the lines before the cut and a read error", n, it.Err)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		lr := NewLineReader(bytes.NewReader(data))
		total := 0
		for {
			line, tooLong, _, err := lr.Next()
			if err != nil {
				break
			}
			if tooLong || len(line) > decode.MaxLineBytes {
				t.Fatal("short input cannot be too long")
			}
			total += len(line) + 1
		}
		if total < len(data) {
			t.Fatalf("lost bytes: read %d of %d", total, len(data))
		}
	})
}

// FuzzDecoders: no format's decoder panics or emits unsafe text on any line.
func FuzzDecoders(f *testing.F) {
	for _, s := range []string{
		`{"custom_id":"a","result":{"type":"errored","error":{"type":"error","error":{"type":"x"}}}}`,
		`{"custom_id":"a","response":{"status_code":200,"body":{"usage":{"prompt_tokens":-1}}}}`,
		`{"request_id":"r","spend":0.1,"metadata":"{\"attempted_retries\":99999999}","startTime":"2025-01-24 09:20:46.847371"}`,
		`[log_1, retryOf: log_0] post https://x/v1 succeeded with status 200 in 99999999999ms`,
		`2026-13-45 99:99:99 HTTP Request: POST https://api.openai.com/v1/x "HTTP/1.1 999 X"`,
		`Retrying request in 1e309 seconds`,
		"HTTP Request: POST https://api.anthropic.com/v1/\x1b[2Jx \"HTTP/1.1 429 Too Many Requests\"",
		`{"type":"assistant","sessionId":"s","requestId":"r","message":{"id":"m","model":"claude-opus-4-6","usage":{"input_tokens":1e30,"output_tokens":-5,"cache_creation":{"ephemeral_1h_input_tokens":99}}},"timestamp":"9999-01-01T00:00:00Z"}`,
		`{"type":"system","subtype":"api_error","sessionId":"s","error":"x","retryAttempt":"x"}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"-9"}}]}]}]}]}`,
	} {
		f.Add([]byte(s))
	}
	decs := []decode.Decoder{decode.NewDecoder(decode.FormatJSONL, nil, decode.Options{}), decode.NewDecoder(decode.FormatLiteLLM, nil, decode.Options{}), decode.NewDecoder(decode.FormatOpenAIBatch, nil, decode.Options{}),
		decode.NewDecoder(decode.FormatAnthropicBatch, nil, decode.Options{}), decode.NewDecoder(decode.FormatJSONL, []decode.FieldMap{{Field: "model", Path: []string{"a", "b"}}}, decode.Options{}),
		decode.NewDecoder(decode.FormatClaudeCode, nil, decode.Options{}), decode.NewOTLPRequestDecoder(decode.Options{})}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, d := range decs {
			n := 0
			d.Decode(line, func(ev *ingest.Event) {
				n++
				for _, s := range []string{ev.JobID, ev.Model, ev.IdempotencyKey, ev.ErrorType, ev.Provider, ev.JobType} {
					if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
						t.Fatalf("unsafe text %q", s)
					}
				}
				if ev.InputTokens < 0 || ev.OutputTokens < 0 || ev.LatencyMs < 0 {
					t.Fatalf("negative counter %+v", ev)
				}
				if r := ev.Check(); r != ingest.Accepted {
					t.Fatalf("an event no real call has came through (%s): %+v", r, ev)
				}
				for _, s := range []string{ev.JobID, ev.Model, ev.JobType, ev.RunID} {
					if !display.Safe([]byte(s)) {
						t.Fatalf("text that changes how it looks came through: %q", s)
					}
				}
			})
			if n > 1001 {
				t.Fatalf("one line gave %d events", n)
			}
		}
	})
}

// TestReplayCompressesLongGaps: issue 22 — a replay whose log had one 1973
// line before the 2026 ones waited 324 days at 60×. A gap longer than
// maxReplayGap of wall time is played as maxReplayGap, and counted.
func TestReplayCompressesLongGaps(t *testing.T) {
	log := `{"ts":"1973-01-01T00:00:00Z","event":"llm_call","job_id":"old","model":"m","status":200}` + "\n" +
		`{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"j1","model":"m","status":200}` + "\n" +
		`{"ts":"2026-03-10T01:00:01Z","event":"llm_call","job_id":"j2","model":"m","status":200}` + "\n"
	r := NewReplay(NewIter(strings.NewReader(log), "gap", 0, decode.Options{}), nil, 60)
	out := make(chan ingest.Batch, 16)
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), out) }()
	select {
	case <-done:
	case <-time.After(3 * maxReplayGap):
		t.Fatal("the replay waited out a 53-year gap")
	}
	n := 0
	for len(out) > 0 {
		n += len(<-out)
	}
	if st := r.Progress(); n != 3 || st.Compressed != 1 {
		t.Errorf("%d events played, %d gaps compressed; want 3 and 1", n, st.Compressed)
	}
}
