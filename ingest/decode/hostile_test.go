package decode

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/burnrate-dev/burnrate/ingest"
)

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
	get := map[Field]func(*ingest.Event) any{
		FieldJobID: func(e *ingest.Event) any { return e.JobID }, FieldJobType: func(e *ingest.Event) any { return e.JobType },
		FieldRunID: func(e *ingest.Event) any { return e.RunID }, FieldCorrelationID: func(e *ingest.Event) any { return e.CorrelationID },
		FieldIdempotencyKey: func(e *ingest.Event) any { return e.IdempotencyKey }, FieldProvider: func(e *ingest.Event) any { return e.Provider },
		FieldSystem: func(e *ingest.Event) any { return e.Provider }, FieldErrorType: func(e *ingest.Event) any { return e.ErrorType },
		FieldTool:        func(e *ingest.Event) any { return e.Tool },
		FieldInputTokens: func(e *ingest.Event) any { return e.InputTokens }, FieldInclusiveInputTokens: func(e *ingest.Event) any { return e.InputTokens },
		FieldOutputTokens: func(e *ingest.Event) any { return e.OutputTokens }, FieldCacheReadTokens: func(e *ingest.Event) any { return e.CacheReadTokens },
		FieldCacheWriteTokens: func(e *ingest.Event) any { return e.CacheCreateTokens }, FieldStatus: func(e *ingest.Event) any { return e.Status },
		FieldLatency: func(e *ingest.Event) any { return e.LatencyMs }, FieldAttempt: func(e *ingest.Event) any { return e.Attempt },
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
			if r != ingest.Accepted || (got != "x1" && got != "7") {
				t.Errorf("%s: %v, field reads %q", key, r, got)
			}
		}
	}
	if len(CanonicalFields) < 20 || CanonicalFields[0] != "ts" {
		t.Errorf("CanonicalFields from the table: %v", CanonicalFields)
	}
}

// TestLongIDsStayDistinct: issue 22 — IDs cut at 512 bytes merged two jobs
// whose 540-character IDs shared a prefix (one job with both jobs' spend,
// killed under an ID that exists nowhere). Up to MaxIDBytes an ID is
// exact, so a kill names it as logged; past it an ID keeps a digest of all
// of it, and the same ID always caps the same way.
func TestLongIDsStayDistinct(t *testing.T) {
	prefix := strings.Repeat("j", 530)
	exact, _ := parse(t, `{"ts":"2026-03-10T01:00:00Z","job_id":"`+prefix+`-aaaaaaaaa","model":"m","status":200}`)
	if exact.JobID != prefix+"-aaaaaaaaa" {
		t.Errorf("a 540-byte job ID was not kept exact: %d bytes", len(exact.JobID))
	}
	prefix = strings.Repeat("j", MaxIDBytes+10)
	a, _ := parse(t, `{"ts":"2026-03-10T01:00:00Z","job_id":"`+prefix+`-aaaaaaaaa","model":"m","status":200}`)
	b, _ := parse(t, `{"ts":"2026-03-10T01:00:00Z","job_id":"`+prefix+`-bbbbbbbbb","model":"m","status":200}`)
	a2, _ := parse(t, `{"ts":"2026-03-10T01:00:01Z","job_id":"`+prefix+`-aaaaaaaaa","model":"m","status":200}`)
	if a.JobID == b.JobID || a.JobID != a2.JobID || len(a.JobID) > MaxIDBytes+6 || !strings.HasPrefix(a.JobID, prefix[:4000]) || !IsCappedID(a.JobID) {
		t.Errorf("capped IDs: %d bytes %q… vs %q…; same ID again equal: %v", len(a.JobID), a.JobID[4050:], b.JobID[4050:], a.JobID == a2.JobID)
	}
	if c := CleanID(prefix + "-aaaaaaaaa"); c != a.JobID {
		t.Errorf("CleanID and the parser cap one ID two ways: %q vs %q", c[4050:], a.JobID[4050:])
	}
	// Multi-byte characters are not cut in half.
	long := strings.Repeat("é", 400)
	if c := CleanField(long); !utf8.ValidString(c) {
		t.Errorf("a capped ID is not valid UTF-8: %q", c[460:])
	}
}
