package mockprovider

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
)

// Defaults of a Server.
const (
	// DefaultHoldMax bounds how long a Timeout fault holds a request whose
	// client never gives up; then it is answered (a slow 200).
	DefaultHoldMax = 60 * time.Second
	// maxBody is the most of a request body read; a provider refuses more.
	maxBody = 4 << 20
)

// Server is the mock provider: an http.Handler. Fill the exported fields
// before serving; they are not changed afterwards.
type Server struct {
	Schedule Schedule
	Ledger   *Ledger
	// Prices prices each answered call into the ledger; nil: burnrate's
	// embedded table.
	Prices *correlate.PriceTable
	// RetryAfterMs, when above 0, adds retry-after-ms to every 529, 503
	// and 500 answer. It is the lab's clock: the SDKs honour the header,
	// so a storm's backoff takes milliseconds instead of seconds. It
	// changes when calls happen, never how many (docs/lab.md).
	RetryAfterMs int
	HoldMax      time.Duration // 0: DefaultHoldMax
	// Now is the clock of the ledger's times; nil: time.Now.
	Now func() time.Time

	once   sync.Once
	mu     sync.Mutex
	counts map[string]int
}

// request is what the provider reads of a body; a field it cannot read is
// left empty, as a real provider would refuse it, not crash.
type request struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Metadata struct {
		UserID string `json:"user_id"`
		JobID  string `json:"job_id"`
	} `json:"metadata"`
}

func (s *Server) init() {
	s.once.Do(func() {
		s.counts = map[string]int{}
		if s.Prices == nil {
			s.Prices = correlate.EmbeddedPrices()
		}
		if s.HoldMax <= 0 {
			s.HoldMax = DefaultHoldMax
		}
		if s.Now == nil {
			s.Now = time.Now
		}
	})
}

// ordinal counts job's requests: 0 for its first.
func (s *Server) ordinal(job string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.counts[job]
	s.counts[job] = n + 1
	return n
}

type api int

const (
	apiNone api = iota
	apiAnthropic
	apiChat
	apiResponses
)

func apiOf(path string) api {
	switch path {
	case "/v1/messages":
		return apiAnthropic
	case "/v1/chat/completions", "/chat/completions":
		return apiChat
	case "/v1/responses", "/responses":
		return apiResponses
	}
	return apiNone
}

// ServeHTTP answers one request and writes its ledger entry.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.init()
	e := Entry{Seq: s.Ledger.next(), Time: s.Now().UTC(), Method: r.Method, Path: r.URL.Path,
		RetryCount: r.Header.Get("x-stainless-retry-count")}
	defer func() {
		e.DurationMs = s.Now().Sub(e.Time).Milliseconds()
		s.Ledger.write(e)
	}()
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	var req request
	_ = json.Unmarshal(body, &req)
	e.Model, e.Stream = req.Model, req.Stream
	e.Job = r.Header.Get("x-job-id")
	if e.Job == "" {
		e.Job = req.Metadata.JobID
	}
	if e.Job == "" {
		e.Job = req.Metadata.UserID
	}
	kind := apiOf(r.URL.Path)
	if kind == apiNone || r.Method != http.MethodPost {
		e.Status = http.StatusNotFound
		http.Error(w, "not found", e.Status)
		return
	}
	n := s.ordinal(e.Job)
	e.Fault = s.Schedule.Plan(e.Job, n)
	e.RequestID = requestID(s.Schedule.Seed, e.Job, n, kind)

	switch e.Fault {
	case Reset:
		e.RequestID = ""
		reset(w)
		return
	case Timeout:
		select {
		case <-r.Context().Done():
			e.RequestID = ""
			return // the client gave up: no status was sent
		case <-time.After(s.HoldMax):
		}
	}
	if e.Fault != OK && e.Fault != Timeout {
		e.Status = s.writeError(w, kind, e)
		return
	}
	s.answer(w, kind, req, &e, n)
}

// reset closes the connection with RST (SO_LINGER 0), before any byte of
// response: what a client sees as ECONNRESET.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// requestID is deterministic per seed, job and ordinal, in the provider's
// own shape: Anthropic's request-id is req_011C and 20 more characters,
// OpenAI's x-request-id req_ and 32 hex digits (what a log that names no
// model still says of whose SDK is below it).
func requestID(seed uint64, job string, n int, kind api) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", seed, job, n)
	if kind == apiChat || kind == apiResponses {
		return fmt.Sprintf("req_%016x%016x", h.Sum64(), h.Sum64()^0x9e3779b97f4a7c15)
	}
	return fmt.Sprintf("req_011CLab%016x", h.Sum64())
}

// usage is a call's tokens, deterministic per job and ordinal.
func usage(job string, n int, kind api) (input, output, cacheRead, cacheWrite int64) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", job, n)
	x := h.Sum64()
	input = 200 + int64(x%800)
	output = 40 + int64((x>>10)%300)
	switch (x >> 20) % 3 {
	case 1:
		cacheWrite = 1024
	case 2:
		cacheRead = 2048
	}
	if kind != apiAnthropic {
		// OpenAI caches automatically: it reports reads, never writes.
		cacheWrite = 0
	}
	return
}

func (s *Server) rateHeaders(w http.ResponseWriter, kind api, n int, limited bool) {
	h := w.Header()
	reset := s.Now().UTC().Add(time.Second).Format(time.RFC3339)
	remaining := strconv.Itoa(max(0, 3999-n))
	if limited {
		remaining = "0"
	}
	if kind == apiAnthropic {
		h.Set("anthropic-ratelimit-requests-limit", "4000")
		h.Set("anthropic-ratelimit-requests-remaining", remaining)
		h.Set("anthropic-ratelimit-requests-reset", reset)
		h.Set("anthropic-ratelimit-input-tokens-limit", "2000000")
		h.Set("anthropic-ratelimit-input-tokens-remaining", "1999000")
		h.Set("anthropic-ratelimit-input-tokens-reset", reset)
		h.Set("anthropic-ratelimit-output-tokens-limit", "400000")
		h.Set("anthropic-ratelimit-output-tokens-remaining", "399000")
		h.Set("anthropic-ratelimit-output-tokens-reset", reset)
		h.Set("anthropic-ratelimit-tokens-limit", "2400000")
		h.Set("anthropic-ratelimit-tokens-remaining", "2398000")
		h.Set("anthropic-ratelimit-tokens-reset", reset)
		h.Set("anthropic-organization-id", "00000000-0000-4000-8000-00000000lab0")
		return
	}
	h.Set("openai-organization", "burnrate-lab")
	h.Set("openai-version", "2020-10-01")
	h.Set("openai-processing-ms", "12")
	h.Set("x-ratelimit-limit-requests", "10000")
	h.Set("x-ratelimit-remaining-requests", remaining)
	h.Set("x-ratelimit-reset-requests", "6ms")
	h.Set("x-ratelimit-limit-tokens", "30000000")
	h.Set("x-ratelimit-remaining-tokens", "29999000")
	h.Set("x-ratelimit-reset-tokens", "0s")
}

func (s *Server) idHeader(w http.ResponseWriter, kind api, id string) {
	if kind == apiAnthropic {
		w.Header().Set("request-id", id)
	} else {
		w.Header().Set("x-request-id", id)
	}
}

// writeError sends the fault's error as the provider would and returns
// the status sent.
func (s *Server) writeError(w http.ResponseWriter, kind api, e Entry) int {
	var status int
	var typ, msg, code string
	switch e.Fault {
	case Overloaded:
		status, typ, msg = 529, "overloaded_error", "Overloaded"
		if kind != apiAnthropic {
			status, typ, msg = 503, "server_error", "The server is overloaded or not ready yet."
		}
	case RateLimited, RateLimitedAfter:
		status, typ, msg, code = 429, "rate_limit_error", "This request would exceed the rate limit for your organization. Please reduce the prompt length or the maximum tokens requested, or try again later.", "rate_limit_exceeded"
		if kind != apiAnthropic {
			typ, msg = "requests", "Rate limit reached for requests. Please try again in 1s."
		}
		if e.Fault == RateLimitedAfter {
			w.Header().Set("retry-after", "1")
		}
	case BadRequest:
		status, typ, msg, code = 400, "invalid_request_error", "messages: text content blocks must be non-empty", "invalid_value"
	default: // ServerError
		status, typ, msg = 500, "api_error", "Internal server error"
		if kind != apiAnthropic {
			typ, msg = "server_error", "The server had an error while processing your request. Sorry about that!"
		}
	}
	s.idHeader(w, kind, e.RequestID)
	s.rateHeaders(w, kind, 0, status == 429)
	if s.RetryAfterMs > 0 && status >= 500 {
		w.Header().Set("retry-after-ms", strconv.Itoa(s.RetryAfterMs))
	}
	w.Header().Set("content-type", "application/json")
	var b []byte
	if kind == apiAnthropic {
		b, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": e.RequestID})
	} else {
		var c any
		if code != "" {
			c = code
		}
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
	return status
}
