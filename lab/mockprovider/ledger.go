package mockprovider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Entry is one HTTP request as the provider saw it: one line of the ledger.
type Entry struct {
	Time   time.Time `json:"time"` // when the request arrived
	Seq    int64     `json:"seq"`  // arrival order, from 1
	Job    string    `json:"job"`  // "" when neither header nor metadata named one
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Status is the HTTP status sent; 0 when none was (timeout, reset).
	Status int   `json:"status"`
	Fault  Fault `json:"fault,omitempty"`
	// RequestID is the request-id (Anthropic) or x-request-id (OpenAI)
	// header sent back; empty when no response was sent.
	RequestID string `json:"request_id,omitempty"`
	// RetryCount is the x-stainless-retry-count header as the client sent
	// it ("" when absent): the SDK's own count of its retries.
	RetryCount       string `json:"retry_count,omitempty"`
	Model            string `json:"model,omitempty"`
	Stream           bool   `json:"stream,omitempty"`
	InputTokens      int64  `json:"input_tokens"` // fresh input: without cache reads and writes
	OutputTokens     int64  `json:"output_tokens"`
	CacheReadTokens  int64  `json:"cache_read_tokens"`
	CacheWriteTokens int64  `json:"cache_write_tokens"`
	// CostPico is the call's cost in picodollars, priced by the table
	// burnrate embeds (correlate.EmbeddedPrices); 0 for a failed call.
	CostPico   int64 `json:"cost_pico"`
	DurationMs int64 `json:"duration_ms"`
}

// Ledger appends entries as JSON lines. It is safe for concurrent use.
type Ledger struct {
	mu  sync.Mutex
	w   *bufio.Writer
	c   io.Closer
	seq int64
	err error
}

// NewLedger writes to w; Close flushes (and closes w when it is a Closer).
func NewLedger(w io.Writer) *Ledger {
	l := &Ledger{w: bufio.NewWriter(w)}
	if c, ok := w.(io.Closer); ok {
		l.c = c
	}
	return l
}

// CreateLedger creates (truncates) the ledger file at path.
func CreateLedger(path string) (*Ledger, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return NewLedger(f), nil
}

// next reserves the next sequence number (taken when a request arrives, so
// the order is the wire's even when a held request is written later).
func (l *Ledger) next() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

func (l *Ledger) write(e Entry) {
	b, err := json.Marshal(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		b = append(b, '\n')
		_, err = l.w.Write(b)
	}
	if err == nil {
		// Flushed per line: a run that is killed still leaves its wire.
		err = l.w.Flush()
	}
	if err != nil && l.err == nil {
		l.err = err
	}
}

// Close flushes the ledger and returns the first write error, if any.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.w.Flush()
	if l.c != nil {
		if cerr := l.c.Close(); err == nil {
			err = cerr
		}
		l.c = nil
	}
	if l.err != nil {
		return l.err
	}
	return err
}

// ReadLedger reads a ledger written by Ledger. A line that is not an entry
// is an error naming its line number: the ledger is the truth, so a damaged
// one must stop the comparison, not shrink it.
func ReadLedger(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("ledger line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return out, nil
}
