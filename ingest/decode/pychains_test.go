package decode

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// pyOps decodes lines as SDK text and groups the attempts by operation,
// in order of first appearance: "status@attempt", with a "?" for an
// attempt marked ambiguous.
func pyOps(t *testing.T, lines ...string) []string {
	t.Helper()
	d := NewDecoder(FormatSDKText, nil, Options{})
	var keys []string
	by := map[string][]string{}
	for _, l := range lines {
		d.Decode([]byte(l), func(e *ingest.Event) {
			if e.Kind != ingest.KindLLMCall {
				return
			}
			if _, ok := by[e.IdempotencyKey]; !ok {
				keys = append(keys, e.IdempotencyKey)
			}
			s := fmt.Sprintf("%d@%d", e.Status, e.Attempt)
			if e.AttemptBy == ingest.AttemptByLineAmbiguous {
				s += "?"
			}
			by[e.IdempotencyKey] = append(by[e.IdempotencyKey], s)
		})
	}
	var out []string
	for _, k := range keys {
		out = append(out, strings.Join(by[k], " "))
	}
	return out
}

func wantPyOps(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("operations:\n got %q\nwant %q", got, want)
	}
}

// httpLine and retryLine are anthropic-python's lines under
// logging.basicConfig(format="%(asctime)s - %(name)s - %(levelname)s - %(message)s").
func httpLine(at, status string) string {
	return "2026-03-10 02:00:" + at + " - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 " + status + "\""
}

func retryLine(at, wait string) string {
	return "2026-03-10 02:00:" + at + " - anthropic._base_client - INFO - Retrying request to /v1/messages in " + wait + " seconds"
}

// A retry that comes at its announced time is the retry, also when it is
// answered long after (a slow response): a sequential log reads as before.
func TestPyRetryAnsweredLate(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "0.400000"),
		httpLine("09,950", "200 OK"),
	), "529@1 200@2")
}

// A response logged before half the announced wait is another request.
func TestPyResponseBeforeHalfTheWaitIsANewRequest(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "2.000000"),
		httpLine("01,900", "200 OK"), // 0.8 s of 2 s: another request
		httpLine("03,200", "200 OK"), // the retry
	), "529@1 200@2", "200@1")
}

// Whole-second times cannot tell 0.4 s apart: the retry in the same second
// as its announcement is still the retry.
func TestPyWholeSecondTimesTolerateTheirGranularity(t *testing.T) {
	wantPyOps(t, pyOps(t,
		`2026-03-10 02:00:01 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 429 Too Many Requests"`,
		`2026-03-10 02:00:01 - anthropic._base_client - INFO - Retrying request to /v1/messages in 0.412345 seconds`,
		`2026-03-10 02:00:01 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"`,
	), "429@1 200@2")
}

// Lines without a time cannot say no: the response after a retry line is
// its answer, as it always was.
func TestPyUntimedLinesLinkAsBefore(t *testing.T) {
	wantPyOps(t, pyOps(t,
		`INFO:httpx:HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 529 Overloaded"`,
		`INFO:anthropic._base_client:Retrying request to /v1/messages in 5.000000 seconds`,
		`INFO:httpx:HTTP Request: POST https://api.anthropic.com/v1/messages "HTTP/1.1 200 OK"`,
	), "529@1 200@2")
}

// A clock stepped back between the announcement and the response is no
// evidence of another request.
func TestPyClockStepBackIsNoEvidence(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("30,100", "529 Overloaded"), retryLine("30,101", "0.800000"),
		httpLine("05,000", "200 OK"),
	), "529@1 200@2")
}

// A retry whose response never came (the app gave up) does not take a
// request of the next hour for its own.
func TestPyStaleRetryIsForgotten(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "0.500000"),
		"2026-03-10 03:10:00,000 - httpx - INFO - HTTP Request: POST https://api.anthropic.com/v1/messages \"HTTP/1.1 200 OK\"",
	), "529@1", "200@1")
}

// A failure the SDK gave up on (no "Retrying" line) and, a moment later,
// another request's failure: the retry line that follows is the second's.
func TestPyRetryLineIsTheNewestFailures(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "0.400000"),
		httpLine("01,700", "529 Overloaded"), // the retry, failed again: the SDK gives up
		httpLine("02,300", "429 Too Many Requests"), retryLine("02,301", "0.400000"),
		httpLine("02,900", "200 OK"),
	), "529@1 529@2", "429@1 200@2")
}

// Two requests failing at once on different attempts, then their
// "Retrying" lines: which announces which is not certain.
func TestPyRetryLinesOfSimultaneousFailuresAreAmbiguous(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "0.400000"), // A1
		httpLine("01,600", "529 Overloaded"), // A2 (its retry line comes after B's failure)
		httpLine("01,620", "529 Overloaded"), // B1: a new request (A has no retry pending)
		retryLine("01,621", "0.800000"), retryLine("01,622", "0.450000"),
		httpLine("02,500", "200 OK"), httpLine("02,600", "200 OK"),
	), "529@1 529@2 200@3?", "529@1 200@2?") // a first attempt is certain, and was emitted before the doubt
}

// Two requests in flight whose retries both fit the next response, one on
// its first retry and one on its second: which it answers changes the
// count, so both chains are marked ambiguous.
func TestPyAmbiguousChainsAreMarked(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("00,000", "529 Overloaded"), retryLine("00,001", "0.400000"), // A1
		httpLine("00,450", "529 Overloaded"), retryLine("00,451", "0.800000"), // A2
		httpLine("00,500", "529 Overloaded"), retryLine("00,501", "0.780000"), // B1: 49 ms into A's 0.8 s
		httpLine("01,300", "529 Overloaded"), retryLine("01,301", "1.600000"), // fits A and B
		httpLine("01,350", "200 OK"),
		httpLine("03,000", "200 OK"),
	), "529@1 529@2 529@3? 200@4?", "529@1 200@2?")
}

// A connection error (a "Retrying" line with no response before it) of a
// retry is that retry's attempt, and fits by time like a response.
func TestPyConnectionErrorRetryFits(t *testing.T) {
	wantPyOps(t, pyOps(t,
		httpLine("01,100", "529 Overloaded"), retryLine("01,101", "0.500000"),
		retryLine("01,200", "0.500000"), // another request's connection error: 0.1 s of 0.5 s
		retryLine("01,700", "0.900000"), // the retry's connection error
		httpLine("01,800", "200 OK"),    // the other request's retry
		httpLine("02,700", "200 OK"),
	), "529@1 0@2 200@3", "0@1 200@2")
}

// Endless concurrent failures keep each endpoint's state bounded.
func TestPyInFlightIsBounded(t *testing.T) {
	d := NewDecoder(FormatSDKText, nil, Options{}).(*checked).inner.(*jsonlDecoder)
	for i := range 10_000 {
		at := fmt.Sprintf("%02d,%03d", (i/1000)%60, i%1000)
		d.Decode([]byte(httpLine(at, "529 Overloaded")), func(*ingest.Event) {})
		d.Decode([]byte(retryLine(at, "30.000000")), func(*ingest.Event) {})
	}
	for k, e := range d.text.py {
		if len(e.failed) > maxPyInFlight || len(e.pending) > maxPyInFlight {
			t.Errorf("%s: %d failed, %d pending kept", k, len(e.failed), len(e.pending))
		}
	}
}

func TestRetryWaitReads(t *testing.T) {
	for in, want := range map[string]int64{"0.785249": 785_249_000, "4": 4e9, "1.5": 1_500_000_000, "0.1234567891234": 123_456_789,
		"": -1, "1.2.3": -1, ".": 0, "99999999999": -1, "1e3": -1} {
		if got := retryWait([]byte(in)); got != want {
			t.Errorf("retryWait(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestPyRandomLinesKeepInvariants: any order of responses, retry lines,
// times stepping back and forth, waits and statuses: every attempt is
// numbered 1 or more, never more than the lines seen, and state stays
// bounded.
func TestPyRandomLinesKeepInvariants(t *testing.T) {
	d := NewDecoder(FormatSDKText, nil, Options{}).(*checked).inner.(*jsonlDecoder)
	seed := uint64(0x9e3779b97f4a7c15)
	next := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	statuses := []string{"200 OK", "429 Too Many Requests", "529 Overloaded", "400 Bad Request", "500 "}
	attempts := 0
	for i := range 50_000 {
		at := fmt.Sprintf("%02d,%03d", next(60), next(1000))
		var l string
		switch next(4) {
		case 0, 1:
			l = httpLine(at, statuses[next(len(statuses))])
		case 2:
			l = retryLine(at, fmt.Sprintf("%d.%06d", next(3), next(1_000_000)))
		default:
			l = "INFO:anthropic._base_client:Retrying request in 0.5 seconds"
		}
		d.Decode([]byte(l), func(e *ingest.Event) {
			attempts++
			if e.Attempt < 1 || int(e.Attempt) > i+1 {
				t.Fatalf("line %d: attempt %d", i, e.Attempt)
			}
		})
	}
	if attempts == 0 {
		t.Fatal("no attempt read")
	}
	for k, e := range d.text.py {
		if len(e.failed) > maxPyInFlight || len(e.pending) > maxPyInFlight {
			t.Errorf("%s: %d failed, %d pending", k, len(e.failed), len(e.pending))
		}
	}
}
