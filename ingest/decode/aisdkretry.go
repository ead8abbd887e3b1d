package decode

import (
	"bytes"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/burnrate-dev/burnrate/ingest"
)

// The Vercel AI SDK's RetryError as Node prints it (console.error of the
// error: util.inspect, not JSON) when generateText/streamText gives up:
//
//	[Error [AI_RetryError]: Failed after 3 attempts. Last error: Rate limit exceeded. …] {
//	  reason: 'maxRetriesExceeded',
//	  errors: [Array],
//	  lastError: [Error [AI_APICallError]: …] {
//	    url: 'https://opencode.ai/zen/v1/chat/completions',
//	    requestBodyValues: { model: 'big-pickle', … },
//	    statusCode: 429,
//	    responseHeaders: { date: 'Sun, 17 May 2026 15:13:10 GMT', 'retry-after': '31610', … },
//	    …
//	  }
//	}
//
// (newer Node prints "RetryError [AI_RetryError]: Failed after …" and a
// stack first). It is one call that failed n times: n attempts, the last
// with lastError's status and Retry-After; the earlier ones' errors are
// folded ("errors: [Array]"), so their status is unknown — failed, as the
// SDK retries only after a failure. The model is requestBodyValues'. The
// dump ends at its closing brace in the first column; lines of at most
// maxRetryDumpLines are read as one dump. Other lines are the app's own
// (Next.js's " POST /api/ai 200 in 9988ms" is its route, no model call).

var (
	aiRetryHead   = regexp.MustCompile(`^\[?(?:Error|RetryError|AI_RetryError) \[AI_RetryError\]: Failed after (\d+) attempts`)
	aiRetryModel  = regexp.MustCompile(`^\s*model: '([^']{1,200})'`)
	aiRetryStatus = regexp.MustCompile(`^\s*statusCode: ([1-5][0-9][0-9]),?$`)
	aiRetryAfter  = regexp.MustCompile(`^\s*'retry-after': '([0-9.]{1,12})'`)
	aiRetryDate   = regexp.MustCompile(`^\s*date: '([^']{1,64})'`)
	aiRetryReason = regexp.MustCompile(`^\s*reason: '([A-Za-z]{1,40})'`)
)

const maxRetryDumpLines = 2000

// aiRetryLine reports the first line of a RetryError dump, for detection.
func aiRetryLine(l []byte) bool { return aiRetryHead.Match(l[:min(len(l), 200)]) }

type aiRetryDecoder struct {
	p          *Parser
	ev         ingest.Event
	job        string
	in         bool
	lines      int
	attempts   int
	model      string
	status     int16
	retryAfter int64
	ts         int64
	reason     string
}

func newAIRetryDecoder(p *Parser, source string) *aiRetryDecoder {
	d := &aiRetryDecoder{p: p, job: "ai-sdk"}
	if source != "" && source != "-" {
		d.job = filepath.Base(source)
	}
	return d
}

func (d *aiRetryDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	if bytes.IndexByte(line, 0) >= 0 {
		return ingest.SkipBinary
	}
	head := line[:min(len(line), 512)]
	if m := aiRetryHead.FindSubmatch(head); m != nil {
		sent := d.end(emit)
		n, _ := strconv.Atoi(string(m[1]))
		d.in, d.lines, d.attempts = true, 0, min(max(n, 1), 1000)
		d.model, d.status, d.retryAfter, d.ts, d.reason = "", ingest.StatusUnknown, ingest.NoRetryAfter, 0, ""
		if sent > 0 {
			return ingest.Accepted
		}
		return ingest.SkipInfo
	}
	if !d.in {
		if len(bytes.TrimSpace(line)) == 0 {
			return ingest.SkipBlank
		}
		return ingest.SkipText
	}
	d.lines++
	switch {
	case len(line) > 0 && line[0] == '}' || d.lines > maxRetryDumpLines:
		if d.end(emit) > 0 {
			return ingest.Accepted
		}
		return ingest.SkipInfo
	case d.model == "" && aiRetryModel.Match(head):
		d.model = CleanField(string(aiRetryModel.FindSubmatch(head)[1]))
	case aiRetryStatus.Match(head):
		n, _ := strconv.Atoi(string(aiRetryStatus.FindSubmatch(head)[1]))
		d.status = int16(n)
	case aiRetryAfter.Match(head):
		if f, err := strconv.ParseFloat(string(aiRetryAfter.FindSubmatch(head)[1]), 64); err == nil && f >= 0 {
			d.retryAfter = int64(min(f*1000, 1e12))
		}
	case aiRetryDate.Match(head):
		if t, err := http.ParseTime(string(aiRetryDate.FindSubmatch(head)[1])); err == nil {
			d.ts = unixNanoInRange(t)
		}
	case aiRetryReason.Match(head):
		d.reason = CleanField(string(aiRetryReason.FindSubmatch(head)[1]))
	}
	return ingest.SkipInfo
}

// end emits the attempts of the dump read so far; how many.
func (d *aiRetryDecoder) end(emit func(*ingest.Event)) int {
	if !d.in {
		return 0
	}
	d.in = false
	ts, carried := d.ts, false
	if ts == 0 {
		ts, carried = d.p.lastTS, true
	} else {
		d.p.lastTS = ts
	}
	for a := 1; a <= d.attempts; a++ {
		ev := &d.ev
		ev.Reset()
		ev.Kind, ev.JobID, ev.Model = ingest.KindLLMCall, CleanID(d.job), d.model
		ev.Attempt, ev.TS, ev.TSCarried = int16(a), ts, carried
		// The job is the file's name, an identity nobody logged: the
		// dump's attempts are counted, never a kill of that name.
		ev.AttemptBy = ingest.AttemptByLineAmbiguous
		ev.ErrorType = "retried"
		if a == d.attempts {
			ev.Status, ev.RetryAfterMs, ev.ErrorType = d.status, d.retryAfter, d.reason
			if ev.ErrorType == "" {
				ev.ErrorType = "AI_RetryError"
			}
		}
		emit(ev)
	}
	return d.attempts
}

// Flush emits a dump the input ended inside.
func (d *aiRetryDecoder) Flush(emit func(*ingest.Event)) int { return d.end(emit) }
