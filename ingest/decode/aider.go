package decode

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Aider's chat history, .aider.chat.history.md in the project (committed
// by thousands of repositories): a Markdown transcript appended to as the
// session goes. What it says of the calls, each line prefixed "> ":
//
//	# aider chat started at 2025-05-04 17:02:36     (a session; local time, no zone)
//	> Main model: openai/qwen3:32b with whole edit format   (older: "> Model: …")
//	> Tokens: 7.8k sent, 971 received. Cost: $0.0014 message, $0.0014 session.
//	> litellm.RateLimitError: litellm.RateLimitError: VertexAIException - …
//	> Retrying in 0.2 seconds...
//
// Each Tokens line is one answered call of the main model; Cost is there
// when Aider knows a price and is taken as the call's cost (Aider's,
// from LiteLLM's table or the user's settings; rounded to two figures).
// Token counts are Aider's display, rounded (9.1k, 10k, 1.2M): up to ±50
// tokens per line below 10k and ±500 above, so the input side is
// approximate by design. Each litellm exception line is a failed attempt
// of the call that follows (its status from the exception's class), so a
// call retried n times is n failed attempts and the answer. All the calls
// of a history file are one job, the project (the file's name before
// .aider.chat.history.md, else its directory); they take the session's
// start as their time (Aider writes no other).

var (
	aiderStarted = []byte("# aider chat started at ")
	aiderTokens  = regexp.MustCompile(`^> Tokens: ([0-9.]+[kM]?) sent(?:, ([0-9.]+[kM]?) cache write)?(?:, ([0-9.]+[kM]?) cache hit)?, ([0-9.]+[kM]?) received\.(?: Cost: \$([0-9.]+) message, \$[0-9.]+ session\.)?`)
	aiderModel   = regexp.MustCompile(`^> (?:Main model|Model): (\S+)`)
	aiderError   = regexp.MustCompile(`^> litellm\.([A-Za-z]+):`)
)

// aiderLine reports a line only Aider writes, for detection.
func aiderLine(l []byte) bool {
	return bytes.HasPrefix(l, aiderStarted) || bytes.HasPrefix(l, []byte("> Aider v")) || aiderTokens.Match(l[:min(len(l), 256)])
}

type aiderDecoder struct {
	p       *Parser
	ev      ingest.Event
	job     string
	model   string
	failed  int16 // failed attempts of the call under way
	startTS int64
}

func newAiderDecoder(p *Parser, source string) *aiderDecoder {
	d := &aiderDecoder{p: p, job: "aider"}
	if source != "" && source != "-" {
		name := filepath.Base(source)
		if j := strings.TrimSuffix(name, ".aider.chat.history.md"); j != "" && j != name {
			d.job = j
		} else if name == ".aider.chat.history.md" {
			d.job = filepath.Base(filepath.Dir(source))
		} else {
			d.job = name
		}
	}
	return d
}

func (d *aiderDecoder) Decode(line []byte, emit func(*ingest.Event)) ingest.SkipReason {
	line, skip := prelude(line, 0)
	if skip != ingest.Accepted {
		return skip
	}
	if bytes.HasPrefix(line, aiderStarted) {
		s := strings.TrimSpace(string(line[len(aiderStarted):]))
		zone := d.p.zone
		if zone == nil {
			zone = time.UTC
		}
		if t, err := time.ParseInLocation("2006-01-02 15:04:05", s, zone); err == nil {
			d.startTS = unixNanoInRange(t)
		}
		d.failed = 0
		return ingest.SkipInfo
	}
	if len(line) < 3 || line[0] != '>' {
		return ingest.SkipText // the conversation itself
	}
	head := line[:min(len(line), 512)]
	if m := aiderModel.FindSubmatch(head); m != nil {
		d.model = CleanField(string(m[1]))
		return ingest.SkipInfo
	}
	if m := aiderError.FindSubmatch(head); m != nil {
		d.failed++
		ev := d.start(d.failed)
		ev.ErrorType = CleanField(string(m[1]))
		ev.Status = aiderStatus(strings.TrimSuffix(string(m[1]), "Error"))
		emit(ev)
		return ingest.Accepted
	}
	m := aiderTokens.FindSubmatch(head)
	if m == nil {
		return ingest.SkipText // "> Retrying in …", "> Add file …", Aider's other notices
	}
	ev := d.start(d.failed + 1)
	d.failed = 0
	ev.Status = 200
	ev.InputTokens = aiderCount(ev, m[1])
	ev.CacheCreateTokens = aiderCount(ev, m[2])
	ev.CacheReadTokens = aiderCount(ev, m[3])
	ev.OutputTokens = aiderCount(ev, m[4])
	// "sent" includes the cache hits and writes (Aider adds them to the
	// prompt count it shows).
	ev.InputTokens = max(0, ev.InputTokens-ev.CacheReadTokens-ev.CacheCreateTokens)
	if len(m[5]) > 0 {
		if c, err := strconv.ParseFloat(string(m[5]), 64); err == nil && c >= 0 && c <= ingest.MaxCostPerCallUSD {
			ev.CostUSD, ev.HasCost = c, true
		}
	}
	emit(ev)
	return ingest.Accepted
}

func (d *aiderDecoder) start(attempt int16) *ingest.Event {
	ev := &d.ev
	ev.Reset()
	ev.Kind, ev.AgentSession = ingest.KindLLMCall, true
	ev.JobID, ev.Model, ev.Attempt = CleanID(d.job), d.model, attempt
	// The job is the file's name, an identity nobody logged: what its
	// lines show is counted, never a kill of whatever shares that name.
	ev.AttemptBy = ingest.AttemptByLineAmbiguous
	if d.startTS > 0 {
		ev.TS = d.startTS
		ev.Dropped |= ingest.DropTimeNoZone
	} else {
		ev.TS, ev.TSCarried = d.p.lastTS, true
	}
	return ev
}

// aiderCount reads Aider's rounded display of a count: 971, 9.1k, 10k, 1.2M.
func aiderCount(ev *ingest.Event, b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	s, mul := string(b), 1.0
	switch s[len(s)-1] {
	case 'k':
		s, mul = s[:len(s)-1], 1e3
	case 'M':
		s, mul = s[:len(s)-1], 1e6
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mul > ingest.MaxTokensPerCall {
		ev.Dropped |= ingest.DropWrongType
		return 0
	}
	return int64(f*mul + 0.5)
}

// aiderStatus is the HTTP status of a LiteLLM exception class.
func aiderStatus(class string) int16 {
	switch class {
	case "RateLimit":
		return 429
	case "ServiceUnavailable":
		return 503
	case "InternalServer":
		return 500
	case "BadRequest", "ContextWindowExceeded", "ContentPolicyViolation":
		return 400
	case "Authentication":
		return 401
	case "PermissionDenied":
		return 403
	case "NotFound":
		return 404
	case "APIConnection", "Timeout":
		return 0
	}
	return ingest.StatusUnknown
}
