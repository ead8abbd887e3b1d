package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/ingest"
)

func parse(t *testing.T, line string) (ingest.Event, ingest.SkipReason) {
	t.Helper()
	var ev ingest.Event
	r := NewParser().ParseLine([]byte(line), &ev)
	return ev, r
}

func TestParseCanonical(t *testing.T) {
	ev, r := parse(t, `{"ts":"2026-03-10T01:00:00.250Z","event":"llm_call","job_id":"j1","job_type":"report","correlation_id":"c1","idempotency_key":"k1","attempt":2,"provider":"anthropic","model":"claude-sonnet-4-6","status":529,"error_type":"overloaded_error","retry_after_s":1.5,"ratelimit_remaining_tokens":900,"ratelimit_remaining_requests":3,"input_tokens":10,"output_tokens":20,"cache_read_tokens":30,"cache_creation_tokens":40,"cost_usd":0.5,"latency_ms":250,"stream_dropped":true,"unknown_field":{"x":[1,2]}}`)
	if r != ingest.Accepted {
		t.Fatalf("skipped: %v", r)
	}
	want := ingest.Event{TS: 1773104400250000000, Kind: ingest.KindLLMCall, JobID: "j1", JobType: "report", CorrelationID: "c1", IdempotencyKey: "k1",
		Attempt: 2, Provider: "anthropic", Model: "claude-sonnet-4-6", Status: 529, ErrorType: "overloaded_error", RetryAfterMs: 1500,
		RateLimitTokens: 900, RateLimitRequests: 3, InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheCreateTokens: 40,
		CostUSD: 0.5, HasCost: true, LatencyMs: 250, StreamDropped: true}
	if ev != want {
		t.Errorf("got  %+v\nwant %+v", ev, want)
	}
}

func TestEpochUnitsByMagnitude(t *testing.T) {
	const want = int64(1773104400250000000) // 2026-03-10T01:00:00.25Z
	for _, ts := range []string{`1773104400.25`, `1773104400250`, `1773104400250000`, `1773104400250000000`, `"1773104400.25"`, `"2026-03-10T02:00:00.25+01:00"`, `"2026-03-10 01:00:00.25"`} {
		ev, r := parse(t, `{"ts":`+ts+`,"event":"job_started","job_id":"j"}`)
		if r != ingest.Accepted || ev.TS != want {
			t.Errorf("ts %s: got %d (%v), want %d", ts, ev.TS, r, want)
		}
	}
}

func TestStatusInferredFromErrorType(t *testing.T) {
	for errType, status := range map[string]int16{"overloaded_error": 529, "rate_limit_error": 429, "invalid_request_error": 400, "timeout": 0} {
		ev, _ := parse(t, `{"event":"llm_call","model":"m","error_type":"`+errType+`"}`)
		if ev.Status != status {
			t.Errorf("%s: status %d, want %d", errType, ev.Status, status)
		}
	}
	ev, _ := parse(t, `{"event":"llm_call","model":"m"}`)
	if ev.Status != ingest.StatusUnknown {
		t.Errorf("no status, no tokens: %d, want unknown — never a success", ev.Status)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	ev, r := parse(t, `{"ts":"2015-10-21T07:28:00Z","model":"m","status":429,"headers":{"Retry-After":"Wed, 21 Oct 2015 07:28:30 GMT"}}`)
	if r != ingest.Accepted || ev.RetryAfterMs != 30000 {
		t.Errorf("retry-after %d (%v), want 30000", ev.RetryAfterMs, r)
	}
}

// TestBadLines: every kind of bad line is skipped with its own reason.
func TestBadLines(t *testing.T) {
	cases := map[string]ingest.SkipReason{
		``:                                 ingest.SkipBlank,
		`   `:                              ingest.SkipBlank,
		`{"ts":1,"event":"llm_ca`:          ingest.SkipInvalidJSON,
		`not json at all`:                  ingest.SkipInvalidJSON,
		"{\"model\":\"m\x00\"}":            ingest.SkipBinary,
		`[1,2,3]`:                          ingest.SkipNotObject,
		`"a string"`:                       ingest.SkipNotObject,
		`{"model":"m","input_tokens":-5}`:  ingest.SkipWrongType,
		`{"event":"teleport","model":"m"}`: ingest.SkipUnknownEvent,
		`{"msg":"hello","level":"info"}`:   ingest.SkipNoEvent,
		`{"type":"message","msg":"hi"}`:    ingest.SkipNoEvent,
	}
	for line, want := range cases {
		if _, got := parse(t, line); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}

// TestFieldDrops: a field that cannot be read costs that field, never
// the record (issue 39): the line is kept, the field dropped (or read by
// an assumption) and the reason set on the event for the source to count.
func TestFieldDrops(t *testing.T) {
	cases := []struct {
		line   string
		drop   ingest.FieldDrop
		status int16
	}{
		{`{"model":"m","status":"abc"}`, ingest.DropStatusUnread, ingest.StatusUnknown},
		{`{"model":"m","status":{}}`, ingest.DropStatusUnread, ingest.StatusUnknown},
		{`{"model":"m","status":{"code":2,"message":"boom"}}`, ingest.DropStatusUnread, ingest.StatusUnknown},
		{`{"model":"m","status":"OK"}`, 0, 200},
		{`{"model":"m","status":{"status_code":"OK"}}`, 0, 200},
		{`{"model":"m","status":{"status_code":"ERROR","description":"boom"}}`, 0, ingest.StatusUnknown},
		{`{"model":"m","status":{"status_code":"UNSET"}}`, 0, ingest.StatusUnknown},
		{`{"model":"m","status":"maybe"}`, ingest.DropStatusUnread, ingest.StatusUnknown},
		{`{"model":"m","status":"success"}`, 0, 200},
		{`{"model":"m","status":"529"}`, 0, 529},
		{`{"model":"m","status":"ERROR"}`, 0, ingest.StatusUnknown},
		{`{"model":"m","ts":true}`, ingest.DropTimeUnread, ingest.StatusUnknown},
		{`{"model":"m","ts":"yesterday"}`, ingest.DropTimeUnread, ingest.StatusUnknown},
		{`{"model":"m","ts":"2026-05-30T11:30:35"}`, ingest.DropTimeNoZone, ingest.StatusUnknown},
		{`{"model":"m","usage":"lots"}`, ingest.DropWrongType, ingest.StatusUnknown},
		{`{"model":"m","stream_dropped":"yes"}`, ingest.DropWrongType, ingest.StatusUnknown},
		{`{"model":"m","job_id":{"id":1}}`, ingest.DropWrongType, ingest.StatusUnknown},
	}
	for _, c := range cases {
		ev, r := parse(t, c.line)
		if r != ingest.Accepted || ev.Dropped != c.drop || ev.Status != c.status || ev.Model != "m" {
			t.Errorf("%s: %v dropped %b status %d model %q, want accepted, dropped %b, status %d", c.line, r, ev.Dropped, ev.Status, ev.Model, c.drop, c.status)
		}
	}
	if ev, _ := parse(t, `{"model":"m","status":"failed"}`); ev.ErrorType == "" {
		t.Errorf("status failed: no error type, so the call would not read as failed")
	}
	// A zone-less time is read in the configured zone.
	tokyo := time.FixedZone("JST", 9*3600)
	p := NewParserFor(Options{Zone: tokyo})
	var ev ingest.Event
	if r := p.ParseLine([]byte(`{"model":"m","ts":"2026-05-30T11:30:35.5"}`), &ev); r != ingest.Accepted || ev.TS != time.Date(2026, 5, 30, 11, 30, 35, 5e8, tokyo).UnixNano() {
		t.Errorf("zone-less time in JST: %v %d", r, ev.TS)
	}
}

// TestSanitize: escape sequences in log content never survive parsing,
// but in identifiers: a job ID keeps its exact bytes (issue 22: identity is
// the bytes, display is the escape) and every output for people escapes it.
func TestSanitize(t *testing.T) {
	ev, r := parse(t, `{"model":"m\u001b[2J\u001b]0;pwned\u0007","job_id":"a\u009bb\nc","tool":"`+"\xff\xfe\u00c2\u009b"+`"}`)
	if r != ingest.Accepted {
		t.Fatal(r)
	}
	if ev.JobID != "a\u009bb\nc" {
		t.Errorf("the job ID was changed at ingest: %q", ev.JobID)
	}
	for _, s := range []string{ev.Model, ev.Tool} {
		for _, c := range s {
			if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
				t.Errorf("control character %U survived in %q", c, s)
			}
		}
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 survived: %q", s)
		}
	}
}

// TestFileIterCountsAndKeepsGoodLines: bad lines are counted by reason and
// the good lines around them are all kept, including a gzip'd file whose
// last line was cut mid-write.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-03-10T01:00:00Z","event":"llm_call","job_id":"j","model":"m","status":529,"headers":{"retry-after":"2"}}`,
		`{"time":1773104400123,"type":"tool_call","tool":"/x","status_code":"400","usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":4}}}`,
		`{"job":{"id":1,"type":"t"},"error":{"type":"error","error":{"type":"x"}},"headers":{"Retry-After":"Wed, 21 Oct 2015 07:28:00 GMT"}}`,
		`{"ts":1e300,"model":"m"}`, `[`, `{"a":`, "\x00", `{"model":"\u001b[31m"}`,
	} {
		f.Add([]byte(s))
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, line []byte) {
		var ev ingest.Event
		r := p.ParseLine(line, &ev)
		if r >= ingest.NumSkipReasons {
			t.Fatalf("reason %d out of range", r)
		}
		if r != ingest.Accepted {
			return
		}
		for _, s := range []string{ev.JobID, ev.JobType, ev.CorrelationID, ev.IdempotencyKey, ev.Provider, ev.Model, ev.ErrorType, ev.Tool} {
			if !utf8.ValidString(s) || len(s) > maxFieldBytes+3*maxFieldBytes {
				t.Fatalf("unsafe field %q", s)
			}
			for _, c := range s {
				if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
					t.Fatalf("control character in %q", s)
				}
			}
		}
		if ev.InputTokens < 0 || ev.OutputTokens < 0 || ev.CostUSD < 0 || ev.LatencyMs < 0 {
			t.Fatalf("negative counter in %+v", ev)
		}
	})
}

// FuzzScannerMatchesEncodingJSON holds the single-pass scanner to
// encoding/json's idea of valid JSON: a line is invalid_json exactly when
// json.Valid rejects it.
func FuzzScannerMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":-0.5e+3,"b":[1,{"c":null}],"d":"\u00e9\ud83d\ude00"}`, `{"a":01}`, `{"a":"\x"}`,
		`{"a" 1}`, `{"a":1,}`, `[1,2]`, `{"ts":"2026-03-10T01:00:00Z","model":"m","status":"429"}`, `{"a":tru}`, `{"a":1}x`, `"\ud800"`, `{"a":"\ud800\u0041"}`} {
		f.Add([]byte(s))
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, line []byte) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || bytes.IndexByte(trimmed, 0) >= 0 || len(trimmed) > MaxLineBytes || bytes.Count(trimmed, []byte("[")) > 400 || bytes.Count(trimmed, []byte("{")) > 400 {
			return
		}
		var ev ingest.Event
		r := p.ParseLine(line, &ev)
		if got, want := r == ingest.SkipInvalidJSON, !json.Valid(trimmed); got != want {
			t.Fatalf("%q: scanner says invalid=%v, encoding/json says invalid=%v (reason %v)", line, got, want, r)
		}
	})
}

// TestEscapesDecoded: escaped keys and values read as encoding/json reads them.
func TestEscapesDecoded(t *testing.T) {
	ev, r := parse(t, `{"mod\u0065l":"claude\u002dsonnet\/4","job_id":"caf\u00e9 \ud83d\ude00","status":2.0e2}`)
	if r != ingest.Accepted || ev.Model != "claude-sonnet/4" || ev.JobID != "café 😀" || ev.Status != 200 {
		t.Errorf("%v %+v", r, ev)
	}
}

// TestRateLimitResetHints: a 429 without Retry-After takes OpenAI's
// Go-style reset durations or Anthropic's RFC 3339 reset times as its hint;
// on a 2xx they mean nothing.
func TestRateLimitResetHints(t *testing.T) {
	ev, _ := parse(t, `{"ts":"2026-03-10T01:00:00Z","model":"gpt-4o","status":429,"headers":{"x-ratelimit-reset-requests":"120ms","x-ratelimit-reset-tokens":"8.64s"}}`)
	if ev.RetryAfterMs != 8640 {
		t.Errorf("openai reset: %d, want 8640", ev.RetryAfterMs)
	}
	ev, _ = parse(t, `{"ts":"2026-03-10T01:00:00Z","model":"claude-haiku-4-5","status":429,"headers":{"anthropic-ratelimit-tokens-reset":"2026-03-10T01:00:03Z"}}`)
	if ev.RetryAfterMs != 3000 {
		t.Errorf("anthropic reset: %d, want 3000", ev.RetryAfterMs)
	}
	ev, _ = parse(t, `{"ts":"2026-03-10T01:00:00Z","model":"gpt-4o","status":200,"headers":{"x-ratelimit-reset-tokens":"8.64s"}}`)
	if ev.RetryAfterMs != ingest.NoRetryAfter {
		t.Errorf("a reset on a 2xx is not a hint: %d", ev.RetryAfterMs)
	}
	ev, _ = parse(t, `{"ts":"2026-03-10T01:00:00Z","model":"gpt-4o","status":429,"headers":{"retry-after":"2","x-ratelimit-reset-tokens":"8.64s"}}`)
	if ev.RetryAfterMs != 2000 {
		t.Errorf("Retry-After wins over a reset: %d", ev.RetryAfterMs)
	}
}

// FuzzKeyPredictionIsInvisible: a parser that has seen line a (its keys
// predicted for the next line) reads line b exactly as a fresh parser
// does. Seeds cover a key that is a prefix of the next, escaped keys, and
// reordered fields.
func FuzzKeyPredictionIsInvisible(f *testing.F) {
	for _, s := range [][2]string{
		{`{"job":"a","model":"m"}`, `{"job_id":"b","model":"m"}`},
		{`{"job_id":"a","model":"m"}`, `{"job":"b","model":"m"}`},
		{`{"job\u005fid":"a","model":"m"}`, `{"job_id":"b","model":"m"}`},
		{`{"model":"m","job_id":"a","status":200}`, `{"job_id":"b","status":429,"model":"m"}`},
		{`{"ts":1,"model":"m"}`, `{"ts" : 2 , "model":"n"}`},
		{`{"model":"m"}`, `{"model"`},
		// The colon predicted with its key, or not.
		{`{"ts" :1,"model":"m"}`, `{"ts":2,"model":"n"}`},
		{`{"ts":1,"model":"m"}`, `{"ts" :2,"model" : "n"}`},
		{`{"ts":1,"model":"m"}`, `{"ts":`},
		{`{"ts":1,"model":"m"}`, `{"ts"`},
		{`{"ts":1,"model":"m"}`, `{"ts";2,"model":"n"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		warm := NewParser()
		var ev ingest.Event
		warm.ParseLine(a, &ev)
		fresh := NewParser()
		fresh.lastTS = warm.lastTS // the one thing a line may inherit
		var got, want ingest.Event
		r1, r2 := warm.ParseLine(b, &got), fresh.ParseLine(b, &want)
		if r1 != r2 || (r1 == ingest.Accepted && !reflect.DeepEqual(got, want)) {
			t.Fatalf("after %q, %q parsed as %v %+v; fresh: %v %+v", a, b, r1, got, r2, want)
		}
	})
}

// FuzzHourCacheMatchesFullParse: a timestamp read through the hour cache,
// after any other, is the one the full parser reads, and fails alike.
func FuzzHourCacheMatchesFullParse(f *testing.F) {
	f.Add([]byte("2026-03-10T01:00:00.250Z"), []byte("2026-03-10T01:59:59Z"))
	f.Add([]byte("2026-03-10T01:00:00Z"), []byte("2026-03-10T01:60:00Z"))
	f.Add([]byte("2026-02-28T23:00:00Z"), []byte("2026-02-31T23:10:00.1Z"))
	f.Add([]byte("2026-03-10T01:00:00Z"), []byte("2026-03-10T01:0a:00.123456789Z"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var c hourCache
		c.rfc3339(a)
		got, ok := c.rfc3339(b)
		want, wantOK := fastRFC3339(b)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("after %q, %q: cache %d %v, full %d %v", a, b, got, ok, want, wantOK)
		}
	})
}

// TestIDArenaStringsNeverChange: IDs carved from shared blocks keep their
// bytes while later ones fill the block and the next ones.
func TestIDArenaStringsNeverChange(t *testing.T) {
	var a idArena
	var got, want []string
	buf := []byte{}
	for i := range 5000 {
		buf = fmt.Appendf(buf[:0], "job-%d-%s", i, strings.Repeat("x", i%300))
		got = append(got, a.get(buf))
		want = append(want, string(buf))
		buf[0] = '!' // the caller's bytes change: the ID must not
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("ID %d became %q, want %q", i, got[i], want[i])
		}
	}
	if a.get(nil) != "" {
		t.Fatal("empty ID")
	}
}

// TestEndpointsOfOneRequest: the paths an SDK's request and retry lines
// name for one call are one endpoint.
func TestEndpointsOfOneRequest(t *testing.T) {
	for _, pair := range [][2]string{
		{"/v1/chat/completions", "/chat/completions"},
		{"/api/v1/chat/completions", "/chat/completions"}, // OpenRouter
		{"/v1/messages", "/v1/messages"},                  // Anthropic names the version in both
		{"/openai/deployments/gpt4/chat/completions?api-version=2024-10-21", "/deployments/gpt4/chat/completions"}, // Azure
		{"/v1beta/openai/chat/completions", "/chat/completions"},
	} {
		if a, b := endpoint(pair[0]), endpoint(pair[1]); a != b {
			t.Errorf("%s → %q, %s → %q: one endpoint", pair[0], a, pair[1], b)
		}
	}
}

// TestKeyPredictionAt: a predicted raw key is found where a line holds it
// — at every length around the two words it is compared as, near the
// line's end or not — and not where any one of its bytes differs.
func TestKeyPredictionAt(t *testing.T) {
	for n := 1; n <= 24; n++ {
		raw := []byte(strings.Repeat("k", n))
		raw[0], raw[n-1] = '"', ':'
		var k keyPrediction
		k.set(raw, FieldModel)
		for _, tail := range []string{"", "1", "12345678901234567890"} {
			line := append([]byte("{"), raw...)
			line = append(line, tail...)
			if !k.at(line, 1) {
				t.Fatalf("%q not found in %q", raw, line)
			}
			for j := range n {
				bad := bytes.Clone(line)
				bad[1+j] ^= 0x20
				if k.at(bad, 1) {
					t.Fatalf("%q found in %q", raw, bad)
				}
			}
			if k.at(line[:len(line)-len(tail)-1], 1) {
				t.Fatalf("%q found in a line cut inside it", raw)
			}
		}
	}
}

// TestTimeIntoHourAndFraction: the minutes, seconds and fraction read
// with one comparison a digit (and milliseconds at once) are what
// time.Parse reads, and what it refuses is refused, for every shape of
// fraction and a byte of every value at every digit's place.
func TestTimeIntoHourAndFraction(t *testing.T) {
	check := func(ts string) {
		t.Helper()
		got, ok := minutesIntoHour([]byte(ts))
		want, err := time.Parse(time.RFC3339Nano, ts)
		wantOK := err == nil && strings.HasSuffix(ts, "Z")
		if ok != wantOK || (ok && got != want.Sub(want.Truncate(time.Hour)).Nanoseconds()) {
			t.Fatalf("%q: %d %v; time.Parse %v %v", ts, got, ok, want, err)
		}
	}
	base := []byte("2026-03-10T01:23:45.678Z")
	for _, frac := range []string{"", ".1", ".12", ".123", ".1234", ".123456789", ".999", ".000"} {
		ts := append(append([]byte(nil), base[:19]...), frac+"Z"...)
		check(string(ts))
		for _, at := range []int{14, 15, 17, 18, 20, 21, 22} {
			if at >= len(ts)-1 {
				continue
			}
			for c := range 256 {
				bad := bytes.Clone(ts)
				bad[at] = byte(c)
				check(string(bad))
			}
		}
	}
}

// TestPreludeTrimsAsTrimSpace: the line prelude skips trimming only where
// bytes.TrimSpace would trim nothing — ASCII and Unicode spaces at either
// end of a line, and every byte value there.
func TestPreludeTrimsAsTrimSpace(t *testing.T) {
	ends := []string{"", " ", "\t", "\r", "\v", "\f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u3000", "\ufeff", "x", "}", "{", "\x7f", "\x00"}
	for c := range 256 {
		ends = append(ends, string([]byte{byte(c)}))
	}
	for _, a := range ends {
		for _, z := range ends {
			line := []byte(a + `{"a":1}` + z)
			got, _ := prelude(line, 0)
			if want := bytes.TrimSpace(line); !bytes.Equal(got, want) {
				t.Fatalf("%q: prelude kept %q, TrimSpace %q", line, got, want)
			}
		}
	}
}

// TestUnreadableNumberCostsTheField: R7-5 — a cost, count or status that
// says no number (Python's NaN and Infinity, which json.dumps writes by
// default; "n/a"; 1e999; a status past 999) cost the whole call. The
// field is dropped and counted; the call, its model and tokens stay. A
// negative count or cost is a value no real record holds, and still
// marks the line.
func TestUnreadableNumberCostsTheField(t *testing.T) {
	const head = `{"ts":"2026-06-02T00:00:01Z","event":"llm_call","job_id":"j1","model":"gpt-4o","input_tokens":1000,`
	for tail, drop := range map[string]ingest.FieldDrop{
		`"status":200,"cost_usd":NaN}`:          ingest.DropWrongType,
		`"status":200,"cost_usd":Infinity}`:     ingest.DropWrongType,
		`"status":200,"cost_usd":-Infinity}`:    ingest.DropWrongType,
		`"status":200,"cost_usd":"n/a"}`:        ingest.DropWrongType,
		`"status":200,"cost_usd":1e999}`:        ingest.DropWrongType,
		`"status":200,"latency_ms":NaN}`:        ingest.DropWrongType,
		`"status":200,"extra":[NaN,-Infinity]}`: 0,
		`"status":99999999999999999999}`:        ingest.DropStatusUnread,
		`"status":70000}`:                       ingest.DropStatusUnread,
	} {
		ev, r := parse(t, head+tail)
		if r != ingest.Accepted || ev.Kind != ingest.KindLLMCall || ev.InputTokens != 1000 || ev.HasCost || ev.Dropped&drop != drop {
			t.Errorf("%s: %v kind %v tokens %d cost %v dropped %b", tail, r, ev.Kind, ev.InputTokens, ev.HasCost, ev.Dropped)
		}
	}
	for _, bad := range []string{`"status":200,"cost_usd":-5}`, `"status":200,"output_tokens":-1}`, `"status":200,"cost_usd":NaNa}`, `"status":200,"cost_usd":Inf}`} {
		if _, r := parse(t, head+bad); r == ingest.Accepted {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestStatusAsWrittenByHTTPClients: R7-22 — "429 Too Many Requests",
// "HTTP/1.1 503" and {"code":429} were unreadable, and with output tokens
// on the line the call then read as a 200 success. A status with its
// reason phrase or protocol reads as that status; one written and unread
// stays unknown whatever the tokens; with no status at all, output still
// says the call was answered.
func TestStatusAsWrittenByHTTPClients(t *testing.T) {
	const head = `{"ts":"2026-06-02T00:00:01Z","event":"llm_call","job_id":"j1","model":"gpt-4o","input_tokens":100,"output_tokens":10`
	for tail, want := range map[string]int16{
		`,"status":"429 Too Many Requests"}`:                   429,
		`,"status":"HTTP/1.1 503"}`:                            503,
		`,"status":"HTTP/2 500 Internal Server Error"}`:        500,
		`,"status":{"code":429}}`:                              429,
		`,"status":{"status_code":"503 Service Unavailable"}}`: 503,
		`,"status":{"code":2,"message":"boom"}}`:               ingest.StatusUnknown,
		`,"status":"4xx"}`:                                     ingest.StatusUnknown,
		`,"status":[429]}`:                                     ingest.StatusUnknown,
		`,"status":"4291 x"}`:                                  ingest.StatusUnknown,
		`}`:                                                    200,
	} {
		ev, r := parse(t, head+tail)
		if r != ingest.Accepted || ev.Status != want {
			t.Errorf("%s: %v status %d, want %d", tail, r, ev.Status, want)
		}
	}
}

// TestUnreadableTokenCountIsAFloor: R7b-3 — a token count that does not
// read (NaN, "n/a", 1e999) was dropped and the call priced exactly on the
// rest: a $0.35 call read $0.10. Its usage is marked unseen, so what the
// rest prices is a floor; a cost that does not read leaves the tokens to
// price the call exactly.
func TestUnreadableTokenCountIsAFloor(t *testing.T) {
	const head = `{"ts":"2026-06-02T00:00:01Z","event":"llm_call","job_id":"j1","model":"gpt-4o","status":200,`
	for tail, floor := range map[string]bool{
		`"input_tokens":NaN,"output_tokens":10}`:                true,
		`"input_tokens":"n/a","output_tokens":10}`:              true,
		`"input_tokens":1e999,"output_tokens":10}`:              true,
		`"input_tokens":100,"output_tokens":Infinity}`:          true,
		`"input_tokens":{"n":1},"output_tokens":10}`:            true,
		`"input_tokens":100,"output_tokens":10,"cost_usd":NaN}`: false,
		`"input_tokens":100,"output_tokens":10}`:                false,
	} {
		ev, r := parse(t, head+tail)
		if r != ingest.Accepted || ev.UsageUnseen != floor {
			t.Errorf("%s: %v, usage unseen %v, want %v", tail, r, ev.UsageUnseen, floor)
		}
	}
}
