package file

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// textRead is what a file gave: its events and counters.
type textRead struct {
	events []ingest.Event
	it     *FileIter
}

func readText(t *testing.T, path string, opts decode.Options) textRead {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v (a file in shared/realdata is read only by tests tagged realdata, with shared/ beside the repository)", err)
	}
	it, err := OpenFile(path, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []ingest.Event
	var ev ingest.Event
	for it.Next(&ev) {
		out = append(out, ev)
	}
	if it.Err != nil {
		t.Errorf("read error: %v", it.Err)
	}
	return textRead{out, it}
}

// ops groups the llm_call attempts by operation (idempotency key), in
// order of first appearance: per operation, "status@attempt" each.
func (r textRead) ops() [][]string {
	var keys []string
	by := map[string][]string{}
	for _, e := range r.events {
		if e.Kind != ingest.KindLLMCall {
			continue
		}
		if _, ok := by[e.IdempotencyKey]; !ok {
			keys = append(keys, e.IdempotencyKey)
		}
		by[e.IdempotencyKey] = append(by[e.IdempotencyKey], fmt.Sprintf("%d@%d", e.Status, e.Attempt))
	}
	out := make([][]string, len(keys))
	for i, k := range keys {
		out[i] = by[k]
	}
	return out
}

func (r textRead) models() []string {
	var out []string
	for _, e := range r.events {
		out = append(out, e.Model)
	}
	return out
}

func wantOps(t *testing.T, r textRead, want ...string) {
	t.Helper()
	var got []string
	for _, op := range r.ops() {
		got = append(got, strings.Join(op, " "))
	}
	if !slices.Equal(got, want) {
		t.Errorf("operations (status@attempt):\n got %q\nwant %q", got, want)
	}
}

// The regression: the Node SDKs' default logger prints no time; such a
// line is not a line from 1970 and is never skipped as out_of_range.
func TestNodeLinesWithoutTime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "node.log")
	// Follows the Node SDK's logger line for line (anthropic-sdk-typescript's
	// client: "[${requestLogID}${retryOf}${requestID}] ${method} ${url} ${succeeded|failed} with status …").
	os.WriteFile(path, []byte(`[log_c0cd86, request-id: "req_01A"] post https://api.anthropic.com/v1/messages failed with status 529 in 30ms - retrying, 2 attempts remaining
[log_44c751, retryOf: log_c0cd86, request-id: "req_01B"] post https://api.anthropic.com/v1/messages failed with status 529 in 28ms - retrying, 1 attempts remaining
[log_9a01be, retryOf: log_c0cd86, request-id: "req_01C"] post https://api.anthropic.com/v1/messages succeeded with status 200 in 1204ms
`), 0o644)
	r := readText(t, path, decode.Options{})
	wantOps(t, r, "529@1 529@2 200@3")
	if r.it.Stats.NoTimestamp != 3 || r.it.Stats.SkippedTotal() != 0 {
		t.Errorf("no_timestamp %d, skipped %v", r.it.Stats.NoTimestamp, r.it.Stats.SkippedByReason())
	}
	for _, e := range r.events {
		if e.TS < 0 {
			t.Errorf("TS %d", e.TS)
		}
	}
	// Forced, as the reporter had to: the same.
	r = readText(t, path, decode.Options{Format: decode.FormatSDKText})
	wantOps(t, r, "529@1 529@2 200@3")
}

// Coloured output: the escape's remnant starts the file.
func TestColourRemnantFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "colour.log")
	os.WriteFile(path, []byte("[37m[2023-11-20 21:34:00.847] _client.py (1013) - [INFO] : HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 200 OK\"[0m\n"+
		"\x1b[32m[2023-11-20 21:34:02.015] _client.py (1013) - [INFO] : HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 200 OK\"\x1b[0m\n"), 0o644)
	r := readText(t, path, decode.Options{})
	wantOps(t, r, "200@1", "200@1")
	if r.events[1].TS == 0 {
		t.Error("time lost behind an escape")
	}
}

// Fixtures that follow the SDKs' lines field for field (testdata/text):
// the anthropic-python client for Vertex and Bedrock, openai-python's for
// Azure, and a LiteLLM Router retry-then-fallback run as its tutorial
// output shows one.
const textFixtures = "testdata/text/"

func TestVertexRetriesAreOneRequest(t *testing.T) {
	r := readText(t, textFixtures+"vertex-anthropic-python-529.log", decode.Options{})
	wantOps(t, r, "529@1 529@2 200@3", "200@1")
	want := []string{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5@20250929", "claude-sonnet-4-5@20250929", "claude-haiku-4-5@20251001"}
	if got := r.models(); !slices.Equal(got, want) {
		t.Errorf("models %q, want the ones in the paths", got)
	}
	if r.events[0].Provider != "vertex_ai" || r.events[0].TS == 0 {
		t.Errorf("provider %q TS %d", r.events[0].Provider, r.events[0].TS)
	}
}

func TestBedrockStreamAndProfileARN(t *testing.T) {
	r := readText(t, textFixtures+"bedrock-stream-anthropic-python.log", decode.Options{})
	wantOps(t, r, "503@1 200@2", "200@1")
	want := []string{"eu.anthropic.claude-sonnet-4-5-20250929-v1:0", "eu.anthropic.claude-sonnet-4-5-20250929-v1:0", "eu.anthropic.claude-haiku-4-5-20251001-v1:0"}
	if got := r.models(); !slices.Equal(got, want) {
		t.Errorf("models %q", got)
	}
}

func TestAzureDeploymentKept(t *testing.T) {
	// The retry line names the deployment's path, or the plain one (a
	// client made with azure_deployment): one endpoint either way.
	r := readText(t, textFixtures+"azure-openai-python.log", decode.Options{})
	wantOps(t, r, "429@1 200@2", "500@1 200@2")
	for _, e := range r.events {
		if e.Model != "gpt-4o-prod" || e.Provider != "azure" {
			t.Errorf("model %q provider %q: the deployment name is the model", e.Model, e.Provider)
		}
	}
}

func TestLiteLLMRouterRetryThenFallback(t *testing.T) {
	// One operation: a 429, two retries the router announced (each a 429,
	// on another deployment of the group, then the first again), a
	// fallback to another model group that succeeds; then a new call.
	r := readText(t, textFixtures+"litellm-router-retry-fallback.log", decode.Options{})
	wantOps(t, r, "429@1 429@2 429@3 200@4", "200@1")
	want := []string{"openai/gpt-4o-mini", "azure/gpt-4o-mini-eu", "openai/gpt-4o-mini", "anthropic/claude-haiku-4-5", "openai/gpt-4o-mini"}
	if got := r.models(); !slices.Equal(got, want) {
		t.Errorf("models %q", got)
	}
	if r.events[1].Provider != "azure" || r.events[0].ErrorType != "RateLimitError" {
		t.Errorf("provider %q error %q", r.events[1].Provider, r.events[0].ErrorType)
	}
}

// repeatReader yields n bytes of unit, then tail.
type repeatReader struct {
	unit []byte
	n    int64
	tail []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		if len(r.tail) == 0 {
			return 0, io.EOF
		}
		k := copy(p, r.tail)
		r.tail = r.tail[k:]
		return k, nil
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:min(len(p), k+int(min(r.n, int64(len(p)))))], r.unit[r.off:])
		r.off = (r.off + c) % len(r.unit)
		k += c
		r.n -= int64(c)
	}
	return k, nil
}

// TestHundredMegabyteTextLine: a 100 MB first line that starts like each
// text shape (and like a JSON array) is skipped whole as too_long in
// bounded memory, and the SDK line after it is read.
func TestHundredMegabyteTextLine(t *testing.T) {
	after := "\n" + `INFO:httpx:HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 "` + "\n"
	for _, unit := range []string{"[log_c0cd86, ", "[2023-11-20 21:33:59.751] ", "[37m", "HTTP Request: POST https://", "\x1b[31m"} {
		it := NewIter(&repeatReader{unit: []byte(unit), n: 100 << 20, tail: []byte(after)}, "big.log", 0, decode.Options{})
		var evs []ingest.Event
		var ev ingest.Event
		for it.Next(&ev) {
			evs = append(evs, ev)
		}
		if it.Err != nil || len(evs) != 1 || evs[0].Status != 529 || it.Stats.Skipped[ingest.SkipTooLong] != 1 || it.Detected.Document {
			t.Errorf("%q: err %v, %d events, stats %+v, detected %+v", unit, it.Err, len(evs), it.Stats, it.Detected)
		}
	}
}

// TestBinaryAndEscapeJunk: NUL bytes and terminal junk among SDK lines are
// counted, never read as calls, and do not stop the lines after them.
func TestBinaryAndEscapeJunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.log")
	os.WriteFile(path, []byte("\x1b[2J\x1b[H\x1b]0;title\x07\n"+
		"HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 429 \"\x00\x00\n"+
		"\x7fELF\x02\x01\x01\x00\x00\x00\n"+
		"\x1b[32m[2023-11-20 21:34:02.015] HTTP Request: POST https://api.openai.com/v1/chat/completions \"HTTP/1.1 200 OK\"\x1b[0m\n"), 0o644)
	r := readText(t, path, decode.Options{})
	wantOps(t, r, "200@1")
	if r.it.Stats.Skipped[ingest.SkipBinary] != 2 {
		t.Errorf("stats %+v", r.it.Stats)
	}
}
