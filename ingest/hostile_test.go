package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostileTextEdges: issue 12's edges — a BOM lost the first line,
// distinct invalid-UTF-8 IDs merged into one job, valid JSON nested past
// 512 levels was called invalid, and the "no events" hint printed JSON
// keys (terminal escapes) raw.
func TestHostileTextEdges(t *testing.T) {
	it := NewIter(strings.NewReader("\xEF\xBB\xBF"+`{"ts":"2026-03-10T01:00:00Z","job_id":"j","model":"m","status":200}`+"\n"), "bom", 0)
	var ev Event
	if !it.Next(&ev) || ev.JobID != "j" {
		t.Errorf("a BOM lost the first line: %+v %+v", ev, it.Stats)
	}

	ids := map[string]bool{}
	for _, raw := range []string{"job-\xff", "job-\xfe", "job-\xfd\xfc"} {
		ev, r := parse(t, `{"job_id":"`+raw+`","model":"m","status":200}`)
		if r != Accepted {
			t.Fatalf("%q: %v", raw, r)
		}
		ids[ev.JobID] = true
	}
	if len(ids) != 3 {
		t.Errorf("distinct invalid-UTF-8 IDs merged: %v", ids)
	}

	ev, _ = parse(t, `{"job_id":"job\u202eexe.txt","model":"m\u200b","status":200}`)
	if ev.JobID != `job\u202eexe.txt` || ev.Model != `m\u200b` {
		t.Errorf("bidi and zero-width characters must be shown escaped: %q %q", ev.JobID, ev.Model)
	}

	deep := `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`
	if _, r := parse(t, deep); r != SkipTooDeep {
		t.Errorf("valid JSON 600 levels deep: %v, want too_deep", r)
	}

	it = NewIter(strings.NewReader(`{"\u001b]0;pwned\u0007":1,"\u001b[2J":2}`+"\n"), "keys", 0)
	for it.Next(&ev) {
	}
	if h := it.Hint(); h == "" || strings.ContainsAny(h, "\x1b\x07") {
		t.Errorf("the hint must show keys escaped: %q", h)
	}
}

// TestEndpointLinksRelativeRetryPaths: issue 13 — openai-python logs
// "Retrying request to /chat/completions" (relative to its base URL …/v1)
// while httpx logs the full URL, so exact matching split one request
// retried 3 times into 3 one-attempt jobs.
func TestEndpointLinksRelativeRetryPaths(t *testing.T) {
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
	log := strings.Join([]string{
		`{"job_id":"j1","msg":"start"}`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
		`INFO:openai._base_client:Retrying request to /chat/completions in 1.000000 seconds`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 429 Too Many Requests"`,
		`INFO:openai._base_client:Retrying request to /chat/completions in 2.000000 seconds`,
		`INFO:httpx:HTTP Request: POST https://api.together.xyz/v1/chat/completions "HTTP/1.1 200 OK"`,
	}, "\n") + "\n"
	it := NewIter(strings.NewReader(log), "py", 0)
	keys := map[string]int{}
	var ev Event
	var attempts []int16
	for it.Next(&ev) {
		keys[ev.IdempotencyKey]++
		attempts = append(attempts, ev.Attempt)
	}
	if len(keys) != 1 || len(attempts) != 3 || attempts[2] != 3 {
		t.Errorf("one request retried twice: keys %v, attempts %v", keys, attempts)
	}
	if it.Stats.Lines != 6 || it.Stats.Skipped[SkipInfo] != 2 {
		t.Errorf("retry lines must count as lines: %+v", it.Stats)
	}
}

// TestMapTargetsAreValidated: issue 13 — --map nonsense_field=x.y and
// [map] usage = … were accepted and did nothing.
func TestMapTargetsAreValidated(t *testing.T) {
	for _, bad := range []string{"nonsense_field=x.y", "usage=a.b", "Job_ID=a"} {
		if _, err := ParseFieldMap(bad); err == nil || !strings.Contains(err.Error(), "job_id") {
			t.Errorf("%s: %v (the error must list the valid names)", bad, err)
		}
	}
	for _, f := range CanonicalFields {
		if _, err := ParseFieldMap(f + "=a.b"); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		line := `{"a":{"b":` + map[bool]string{true: `"x"`, false: `1`}[f == "ts" || f == "event" || strings.HasSuffix(f, "_id") || f == "job_type" || f == "idempotency_key" || f == "provider" || f == "model" || f == "error_type" || f == "tool"] + `}}`
		fm, _ := ParseFieldMap(f + "=a.b")
		if out, ok := applyMaps([]byte(line), []FieldMap{fm}); !ok || !strings.Contains(string(out), `"`+f+`"`) {
			t.Errorf("%s: mapping did not place the field: %s", f, out)
		}
	}
}

// TestEveryJSONSpellingIsRead holds the parser to the one alias table
// (fields.go): every spelling of a field fills that field.
func TestEveryJSONSpellingIsRead(t *testing.T) {
	get := map[Field]func(*Event) any{
		FieldJobID: func(e *Event) any { return e.JobID }, FieldJobType: func(e *Event) any { return e.JobType },
		FieldRunID: func(e *Event) any { return e.RunID }, FieldCorrelationID: func(e *Event) any { return e.CorrelationID },
		FieldIdempotencyKey: func(e *Event) any { return e.IdempotencyKey }, FieldProvider: func(e *Event) any { return e.Provider },
		FieldSystem: func(e *Event) any { return e.Provider }, FieldErrorType: func(e *Event) any { return e.ErrorType },
		FieldTool:        func(e *Event) any { return e.Tool },
		FieldInputTokens: func(e *Event) any { return e.InputTokens }, FieldInclusiveInputTokens: func(e *Event) any { return e.InputTokens },
		FieldOutputTokens: func(e *Event) any { return e.OutputTokens }, FieldCacheReadTokens: func(e *Event) any { return e.CacheReadTokens },
		FieldCacheWriteTokens: func(e *Event) any { return e.CacheCreateTokens }, FieldStatus: func(e *Event) any { return e.Status },
		FieldLatency: func(e *Event) any { return e.LatencyMs }, FieldAttempt: func(e *Event) any { return e.Attempt },
	}
	numeric := map[Field]bool{FieldInputTokens: true, FieldInclusiveInputTokens: true, FieldOutputTokens: true, FieldCacheReadTokens: true,
		FieldCacheWriteTokens: true, FieldStatus: true, FieldLatency: true, FieldAttempt: true}
	for f, read := range get {
		for _, key := range fieldSpellings[f].json {
			val := `"x1"`
			if numeric[f] {
				val = "7"
			}
			line := `{"model":"m","` + key + `":` + val + `}`
			if f == FieldStatus || f == FieldAttempt || f == FieldLatency {
				line = `{"tool":"t","` + key + `":` + val + `}`
			}
			ev, r := parse(t, line)
			got := fmt.Sprint(read(&ev))
			if r != Accepted || (got != "x1" && got != "7") {
				t.Errorf("%s: %v, field reads %q", key, r, got)
			}
		}
	}
	if len(CanonicalFields) < 20 || CanonicalFields[0] != "ts" {
		t.Errorf("CanonicalFields from the table: %v", CanonicalFields)
	}
}
