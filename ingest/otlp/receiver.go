package otlp

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed gRPC requests
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/burnrate-dev/burnrate/ingest"
)

// Defaults safe for an ops box.
const (
	DefaultGRPCAddr = "127.0.0.1:4317"
	DefaultHTTPAddr = "127.0.0.1:4318"
	DefaultMaxBytes = 16 << 20
	// DefaultMaxInFlightBytes bounds the memory all requests being read,
	// decompressed and decoded may take together. With decodeFactor that
	// admits 4 maximal requests at once and keeps the whole process within
	// a few hundred MiB however many clients send.
	DefaultMaxInFlightBytes = 256 << 20
	// decodeFactor is what a request costs in memory per byte of its
	// body: the body, the decoded pdata tree and the events mapped from
	// it, measured at about 3.4× for GenAI spans (see TestOTLPFloods).
	decodeFactor = 4
	// RetryAfter is what a saturated receiver tells clients to wait.
	RetryAfter = time.Second
	// enqueueWait is how long a request may wait for room in the queue
	// before it is refused: long enough to ride out a render, short
	// enough that memory never grows.
	enqueueWait = 50 * time.Millisecond
)

// Config configures the receivers; an empty address disables one.
type Config struct {
	GRPCAddr string
	HTTPAddr string
	Token    string // required as "Authorization: Bearer TOKEN" when set
	MaxBytes int64
	// MaxInFlightBytes bounds the memory of all requests in progress;
	// past it a request is refused (429 / RESOURCE_EXHAUSTED with a retry
	// delay) before its body is read.
	MaxInFlightBytes int64
	InsecureListen   bool // allow a non-loopback address without a token
	// HTTPReadTimeout bounds reading one OTLP/HTTP request, body included;
	// 0 is a minute. A body still arriving then is answered 408.
	HTTPReadTimeout time.Duration
}

// Validate refuses settings that would expose spend data by accident.
func (c Config) Validate() error {
	var errs []error
	for _, a := range []string{c.GRPCAddr, c.HTTPAddr} {
		if a == "" {
			continue
		}
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("OTLP address %q: %v (use HOST:PORT, e.g. 127.0.0.1:4317)", a, err))
			continue
		}
		if !isLoopback(host) && c.Token == "" && !c.InsecureListen {
			errs = append(errs, fmt.Errorf("OTLP address %q is not loopback: set --otlp-token so only your exporters can send, or pass --insecure-listen", a))
		}
	}
	if c.MaxBytes < 0 {
		errs = append(errs, errors.New("OTLP request size limit must be positive"))
	}
	if c.MaxInFlightBytes < 0 || (c.MaxInFlightBytes > 0 && c.MaxInFlightBytes < c.MaxBytes*decodeFactor) {
		errs = append(errs, fmt.Errorf("--otlp-max-inflight-bytes %d cannot admit one request of --otlp-max-bytes %d (it costs %d× in memory): raise it or lower --otlp-max-bytes", c.MaxInFlightBytes, c.MaxBytes, decodeFactor))
	}
	return errors.Join(errs...)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Stats counts what the receiver did.
type Stats struct {
	Requests, Spans, LogRecords, Events int64
	Rejected                            int64 // items refused in partial-success responses
	BadRequests                         int64 // malformed, unauthorized or oversized
	Refused                             int64 // 429 / RESOURCE_EXHAUSTED: the engine was behind or memory was full
	// Linked counts traces whose calls came before the span naming their
	// job, and were moved to it; Unlinked those left under the trace ID
	// (the mapper's memory of them reached its bound first).
	Linked, Unlinked int64
}

// Receiver serves OTLP/gRPC and OTLP/HTTP. Run starts it; it stops, after
// draining in-flight requests, when the context ends.
type Receiver struct {
	cfg    Config
	mapper *Mapper

	out chan<- ingest.Batch
	// hand, when set (Source.HandWith), takes each batch in place of the
	// send on out: it spools the batch before the request is answered.
	hand func(ctx context.Context, b ingest.Batch) error

	requests, spans, logRecords, events, rejected, bad, refused atomic.Int64

	budget    budget
	deliverMu sync.Mutex // one request's batches enter the queue together

	mu       sync.Mutex
	grpcAddr net.Addr
	httpAddr net.Addr
	ready    chan struct{}
}

// New returns a receiver; call Run to start it.
func New(cfg Config) *Receiver {
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxInFlightBytes == 0 {
		cfg.MaxInFlightBytes = max(DefaultMaxInFlightBytes, cfg.MaxBytes*decodeFactor)
	}
	r := &Receiver{cfg: cfg, mapper: NewMapper(), ready: make(chan struct{})}
	r.budget.limit = cfg.MaxInFlightBytes
	return r
}

// Ready is closed once both listeners are bound.
func (r *Receiver) Ready() <-chan struct{} { return r.ready }

// Addrs returns the bound addresses (useful with port 0).
func (r *Receiver) Addrs() (grpcAddr, httpAddr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.grpcAddr != nil {
		grpcAddr = r.grpcAddr.String()
	}
	if r.httpAddr != nil {
		httpAddr = r.httpAddr.String()
	}
	return
}

// Stats returns the counters.
func (r *Receiver) Stats() Stats {
	linked, unlinked := r.mapper.links()
	return Stats{Requests: r.requests.Load(), Spans: r.spans.Load(), LogRecords: r.logRecords.Load(), Events: r.events.Load(),
		Rejected: r.rejected.Load(), BadRequests: r.bad.Load(), Refused: r.refused.Load(), Linked: linked, Unlinked: unlinked}
}

var (
	errSaturated = errors.New("burnrate is behind: the event queue is full; retry after the Retry-After delay")
	errNoMemory  = errors.New("burnrate is at its memory limit for requests in progress (--otlp-max-inflight-bytes); retry after the Retry-After delay")
)

// budget is a non-blocking byte semaphore: a request takes what it may
// cost before its body is read, and is refused at once when that would
// pass the limit. Refusing, not queueing, is what keeps memory flat under
// a flood.
type budget struct {
	limit int64
	used  atomic.Int64
}

func (b *budget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *budget) give(n int64) { b.used.Add(-n) }

// httpReadTimeout bounds reading one OTLP/HTTP request, body included,
// when Config.HTTPReadTimeout does not say.
const httpReadTimeout = time.Minute

// timedOut: the read deadline passed while the body was still arriving
// (http.Server's ReadTimeout sets it on the connection).
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// reservingReader reads a body while holding budget for what it has read
// so far (times decodeFactor), growing the reservation a step at a time;
// past the budget, Read fails with errNoMemory. release gives back all it
// holds.
type reservingReader struct {
	r      io.Reader
	budget *budget
	held   int64
	read   int64
}

// reserveStep is how much a growing reservation takes at once.
const reserveStep = 1 << 20

func (rr *reservingReader) grow(need int64) bool {
	if need <= rr.held {
		return true
	}
	delta := max(need-rr.held, reserveStep)
	if !rr.budget.take(delta) {
		return false
	}
	rr.held += delta
	return true
}

func (rr *reservingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	rr.read += int64(n)
	if !rr.grow(rr.read * decodeFactor) {
		return n, errNoMemory
	}
	return n, err
}

func (rr *reservingReader) release() {
	rr.budget.give(rr.held)
	rr.held = 0
}

// deliver hands one request's events to the engine in batches of
// ingest.BatchSize, all or none: it waits (up to enqueueWait) until the
// queue has room for every batch, so a request is never half-counted and
// the queue — bounded in batches, hence in events — bounds memory too.
func (r *Receiver) deliver(ctx context.Context, evs []ingest.Event) error {
	if len(evs) == 0 {
		return nil
	}
	n := (len(evs) + ingest.BatchSize - 1) / ingest.BatchSize
	r.deliverMu.Lock()
	defer r.deliverMu.Unlock()
	deadline := time.Now().Add(enqueueWait)
	for cap(r.out)-len(r.out) < min(n, cap(r.out)) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			r.refused.Add(1)
			return errSaturated
		}
		time.Sleep(time.Millisecond)
	}
	if r.hand != nil {
		for len(evs) > 0 {
			k := min(len(evs), ingest.BatchSize)
			if err := r.hand(ctx, ingest.Batch(evs[:k:k])); err != nil {
				// Stopping: what was handed is spooled and applied at the
				// next start; the sender retries the request, and its
				// records are billed once (their identity).
				r.refused.Add(1)
				return errSaturated
			}
			r.events.Add(records(evs[:k]))
			evs = evs[k:]
		}
		return nil
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for sent := 0; len(evs) > 0; sent++ {
		k := min(len(evs), ingest.BatchSize)
		// Each batch is a window of evs, owned by the engine once sent;
		// evs itself is not touched again. The room was checked above, so
		// only an unbuffered queue or a file source racing for the same
		// slots can make a send wait.
		select {
		case r.out <- ingest.Batch(evs[:k:k]):
		case <-timer.C:
			if sent == 0 {
				r.refused.Add(1)
				return errSaturated
			}
			// Part is in: the rest must follow, or the request is half-counted.
			select {
			case r.out <- ingest.Batch(evs[:k:k]):
			case <-ctx.Done():
				r.refused.Add(1)
				return errSaturated
			}
		case <-ctx.Done():
			r.refused.Add(1)
			return errSaturated
		}
		r.events.Add(records(evs[:k]))
		evs = evs[k:]
	}
	return nil
}

// records counts the events of b that are records, not the mapper's
// memory (KindSpanLink).
func records(b []ingest.Event) int64 {
	n := int64(len(b))
	for i := range b {
		if b[i].Kind == ingest.KindSpanLink {
			n--
		}
	}
	return n
}

// Run binds the listeners and serves until ctx is done, then stops
// accepting and waits for in-flight requests, whose events are delivered.
func (r *Receiver) Run(ctx context.Context, out chan<- ingest.Batch) error {
	if err := r.cfg.Validate(); err != nil {
		close(r.ready)
		return err
	}
	r.out = out
	var gs *grpc.Server
	var hs *http.Server
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	if r.cfg.GRPCAddr != "" {
		ln, err := net.Listen("tcp", r.cfg.GRPCAddr)
		if err != nil {
			close(r.ready)
			return fmt.Errorf("OTLP/gRPC listen %s: %w", r.cfg.GRPCAddr, err)
		}
		r.mu.Lock()
		r.grpcAddr = ln.Addr()
		r.mu.Unlock()
		// gRPC's own limit is twice ours: between the two, rawCodec marks
		// the message and the handler answers INVALID_ARGUMENT (dropped by
		// exporters); past it gRPC answers RESOURCE_EXHAUSTED without a
		// retry delay, which OTLP exporters do not retry either.
		gs = grpc.NewServer(grpc.MaxRecvMsgSize(int(2*r.cfg.MaxBytes)), grpc.InTapHandle(r.tapGRPC), grpc.ForceServerCodecV2(rawCodec{max: r.cfg.MaxBytes}))
		gs.RegisterService(&traceServiceDesc, r)
		gs.RegisterService(&logsServiceDesc, r)
		wg.Add(1)
		go func() { defer wg.Done(); errc <- gs.Serve(ln) }()
	}
	if r.cfg.HTTPAddr != "" {
		ln, err := net.Listen("tcp", r.cfg.HTTPAddr)
		if err != nil {
			if gs != nil {
				gs.Stop()
			}
			close(r.ready)
			return fmt.Errorf("OTLP/HTTP listen %s: %w", r.cfg.HTTPAddr, err)
		}
		r.mu.Lock()
		r.httpAddr = ln.Addr()
		r.mu.Unlock()
		mux := http.NewServeMux()
		mux.HandleFunc("/v1/traces", r.handleHTTP(true))
		mux.HandleFunc("/v1/logs", r.handleHTTP(false))
		// A client that sends its headers or body slowly, or holds an idle
		// connection, is cut off: four never-ending bodies must not hold
		// the receiver (with the reservation below, they hold no memory).
		readTimeout := cmp.Or(r.cfg.HTTPReadTimeout, httpReadTimeout)
		hs = &http.Server{Handler: mux, ReadHeaderTimeout: min(10*time.Second, readTimeout), ReadTimeout: readTimeout, IdleTimeout: 2 * time.Minute}
		wg.Add(1)
		go func() { defer wg.Done(); errc <- hs.Serve(ln) }()
	}
	close(r.ready)
	<-ctx.Done()
	if gs != nil {
		gs.GracefulStop()
	}
	if hs != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		hs.Shutdown(sctx)
		cancel()
	}
	wg.Wait()
	return nil
}

func (r *Receiver) authorized(auth string) bool {
	if r.cfg.Token == "" {
		return true
	}
	want := "Bearer " + r.cfg.Token
	return subtle.ConstantTimeCompare([]byte(auth), []byte(want)) == 1
}

// tapGRPC checks the bearer token when a stream opens, before any message
// is received: an unauthenticated client costs no read and no decode.
func (r *Receiver) tapGRPC(ctx context.Context, info *tap.Info) (context.Context, error) {
	var auth string
	if v := info.Header.Get("authorization"); len(v) > 0 {
		auth = v[0]
	}
	if !r.authorized(auth) {
		r.bad.Add(1)
		return ctx, status.Error(codes.Unauthenticated, "missing or wrong bearer token: set the exporter's Authorization header to \"Bearer <--otlp-token>\"")
	}
	return ctx, nil
}

func retryLaterGRPC(err error) error {
	st, serr := status.New(codes.ResourceExhausted, err.Error()).WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(RetryAfter)})
	if serr != nil {
		return status.Error(codes.ResourceExhausted, err.Error())
	}
	return st.Err()
}

// The OTLP services, registered by hand rather than through pdata's
// generated ones, so that the handler runs before the message is read:
// it takes the memory the request may cost, refusing with a retry delay
// when there is none, and it turns gRPC's "message larger than max"
// (RESOURCE_EXHAUSTED, which exporters retry) into INVALID_ARGUMENT, which
// they drop. The body is then decoded by pdata, as on the HTTP path.
var (
	traceServiceDesc = grpc.ServiceDesc{
		ServiceName: "opentelemetry.proto.collector.trace.v1.TraceService",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: exportHandler(true)}},
		Metadata:    "opentelemetry/proto/collector/trace/v1/trace_service.proto",
	}
	logsServiceDesc = grpc.ServiceDesc{
		ServiceName: "opentelemetry.proto.collector.logs.v1.LogsService",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: exportHandler(false)}},
		Metadata:    "opentelemetry/proto/collector/logs/v1/logs_service.proto",
	}
)

func exportHandler(traces bool) func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	return func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		r := srv.(*Receiver)
		// gRPC has read the message (within MaxRecvMsgSize) before the
		// handler runs: reserve what decoding it will cost by its real
		// size, not the largest possible one (a reservation of the limit
		// for every export refused 18% of tiny ones at 16-way
		// concurrency).
		var msg rawMessage
		if err := dec(&msg); err != nil {
			return nil, err
		}
		if msg.oversize > 0 {
			r.bad.Add(1)
			return nil, status.Errorf(codes.InvalidArgument, "request of %d bytes is over the %d-byte limit (--otlp-max-bytes): send smaller batches", msg.oversize, r.cfg.MaxBytes)
		}
		cost := int64(len(msg.b)) * decodeFactor
		if !r.budget.take(cost) {
			r.refused.Add(1)
			return nil, retryLaterGRPC(errNoMemory)
		}
		defer r.budget.give(cost)
		resp, decodeErr, exportErr := r.export(ctx, traces, false, msg.b)
		switch {
		case decodeErr != nil:
			r.bad.Add(1)
			return nil, status.Errorf(codes.InvalidArgument, "malformed OTLP %s: %v", signalName(traces), decodeErr)
		case exportErr != nil:
			return nil, retryLaterGRPC(exportErr)
		}
		out, err := resp.MarshalProto()
		if err != nil {
			return nil, status.Errorf(codes.Internal, "encoding the response: %v", err)
		}
		return &rawMessage{b: out}, nil
	}
}

// rawMessage is a message as bytes: rawCodec leaves decoding to pdata.
type rawMessage struct {
	b        []byte
	oversize int // set instead of b when the message is over the limit
}

// rawCodec moves messages as bytes. It is forced on the server, which
// serves nothing but the two OTLP services.
type rawCodec struct{ max int64 }

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec cannot marshal %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(m.b)}, nil
}

func (c rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("rawCodec cannot unmarshal into %T", v)
	}
	if n := data.Len(); int64(n) > c.max {
		m.oversize = n
		return nil
	}
	m.b = data.Materialize() // a copy: data is freed when this returns
	return nil
}

func (r *Receiver) traces(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.requests.Add(1)
	td := req.Traces()
	r.spans.Add(int64(td.SpanCount()))
	evs, rejected, reason, keys := r.mapper.MapTracesOnce(td)
	resp := ptraceotlp.NewExportResponse()
	if err := r.deliver(ctx, evs); err != nil {
		r.mapper.Forget(keys) // refused: the retry must be taken
		return resp, err
	}
	if rejected > 0 {
		r.rejected.Add(rejected)
		resp.PartialSuccess().SetRejectedSpans(rejected)
	}
	if reason != "" {
		// With nothing rejected, the message is a warning (OTLP's partial
		// success): a field the spans carried could not be read.
		resp.PartialSuccess().SetErrorMessage(reason)
	}
	return resp, nil
}

func (r *Receiver) logs(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	r.requests.Add(1)
	ld := req.Logs()
	r.logRecords.Add(int64(ld.LogRecordCount()))
	evs, rejected, reason := r.mapper.MapLogs(ld)
	resp := plogotlp.NewExportResponse()
	if err := r.deliver(ctx, evs); err != nil {
		return resp, err
	}
	if rejected > 0 {
		r.rejected.Add(rejected)
		resp.PartialSuccess().SetRejectedLogRecords(rejected)
	}
	if reason != "" {
		resp.PartialSuccess().SetErrorMessage(reason)
	}
	return resp, nil
}

// handleHTTP serves /v1/traces or /v1/logs: protobuf or JSON, optionally
// gzip'd, chunked or not, within the size limit.
func (r *Receiver) handleHTTP(traces bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		isJSON := strings.HasPrefix(req.Header.Get("Content-Type"), "application/json")
		fail := func(code int, msg string) {
			if code != http.StatusTooManyRequests {
				r.bad.Add(1)
			}
			writeStatus(w, isJSON, code, msg)
		}
		if req.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			fail(http.StatusMethodNotAllowed, "use POST")
			return
		}
		if !r.authorized(req.Header.Get("Authorization")) {
			fail(http.StatusUnauthorized, "missing or wrong bearer token: send \"Authorization: Bearer <--otlp-token>\"")
			return
		}
		ct := req.Header.Get("Content-Type")
		if !isJSON && !strings.HasPrefix(ct, "application/x-protobuf") && !strings.HasPrefix(ct, "application/protobuf") {
			fail(http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported Content-Type %q: use application/x-protobuf or application/json", ct))
			return
		}
		// Take what the request may cost before reading a byte of it when
		// its size is known; a chunked or compressed body takes its share
		// as it is read (reservingReader), so bodies that never end
		// cannot reserve the budget away from everyone else.
		res := &reservingReader{budget: &r.budget}
		defer res.release()
		if cl := req.ContentLength; cl >= 0 && cl <= r.cfg.MaxBytes && req.Header.Get("Content-Encoding") != "gzip" {
			if !res.grow(cl * decodeFactor) {
				r.refused.Add(1)
				w.Header().Set("Retry-After", fmt.Sprint(int(RetryAfter.Seconds())))
				fail(http.StatusTooManyRequests, errNoMemory.Error())
				return
			}
		}
		if req.ContentLength > r.cfg.MaxBytes {
			fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over the %d-byte limit: send smaller batches", r.cfg.MaxBytes))
			return
		}
		var body io.Reader = http.MaxBytesReader(w, req.Body, r.cfg.MaxBytes)
		switch enc := req.Header.Get("Content-Encoding"); enc {
		case "", "identity":
		case "gzip":
			zr, err := gzip.NewReader(body)
			if err != nil && timedOut(err) {
				fail(http.StatusRequestTimeout, slowBody)
				return
			}
			if err != nil {
				fail(http.StatusBadRequest, "Content-Encoding is gzip but the body is not: "+err.Error())
				return
			}
			defer zr.Close()
			body = zr
		default:
			fail(http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported Content-Encoding %q: use gzip or none", enc))
			return
		}
		// Bound the decompressed size too, or a small gzip bomb grows memory.
		res.r = io.LimitReader(body, r.cfg.MaxBytes+1)
		data, err := io.ReadAll(res)
		var tooBig *http.MaxBytesError
		switch {
		case errors.Is(err, errNoMemory):
			r.refused.Add(1)
			w.Header().Set("Retry-After", fmt.Sprint(int(RetryAfter.Seconds())))
			fail(http.StatusTooManyRequests, errNoMemory.Error())
			return
		case errors.As(err, &tooBig) || int64(len(data)) > r.cfg.MaxBytes:
			fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over the %d-byte limit: send smaller batches", r.cfg.MaxBytes))
			return
		case timedOut(err):
			// Not malformed: the body was too slow. 400 tells an exporter
			// to drop the batch; 408 says the request may be sent again.
			fail(http.StatusRequestTimeout, slowBody)
			return
		case err != nil:
			fail(http.StatusBadRequest, "reading the body: "+err.Error())
			return
		}
		resp, decodeErr, exportErr := r.export(req.Context(), traces, isJSON, data)
		switch {
		case decodeErr != nil:
			fail(http.StatusBadRequest, "malformed OTLP "+signalName(traces)+": "+decodeErr.Error())
			return
		case exportErr != nil:
			w.Header().Set("Retry-After", fmt.Sprint(int(RetryAfter.Seconds())))
			fail(http.StatusTooManyRequests, exportErr.Error())
			return
		}
		respBytes, _ := marshal(resp, isJSON)
		if isJSON {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "application/x-protobuf")
		}
		w.Write(respBytes)
	}
}

// slowBody is the 408's message.
const slowBody = "the request body did not arrive within the read timeout: send it again, or in smaller batches"

func signalName(traces bool) string {
	if traces {
		return "traces"
	}
	return "logs"
}

// export decodes one OTLP/HTTP body and hands it to the traces or logs path.
func (r *Receiver) export(ctx context.Context, traces, isJSON bool, data []byte) (resp protoJSONOut, decodeErr, exportErr error) {
	if traces {
		req := ptraceotlp.NewExportRequest()
		if err := unmarshal(req, isJSON, data); err != nil {
			return nil, err, nil
		}
		out, err := r.traces(ctx, req)
		return out, nil, err
	}
	req := plogotlp.NewExportRequest()
	if err := unmarshal(req, isJSON, data); err != nil {
		return nil, err, nil
	}
	out, err := r.logs(ctx, req)
	return out, nil, err
}

type protoJSON interface {
	UnmarshalProto([]byte) error
	UnmarshalJSON([]byte) error
}

// unmarshal decodes with pdata, turning a panic on hostile input into an
// error: a malformed payload is a 400, never a crash.
func unmarshal(m protoJSON, isJSON bool, data []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("undecodable payload (%v)", p)
		}
	}()
	if isJSON {
		if !json.Valid(data) {
			return errors.New("not valid JSON")
		}
		// One attribute's number past its type's range failed the whole
		// request, every other span with it (an exporter does not retry a
		// 400): such a value is read as the text it is, so only that
		// attribute is lost (R7-25). Before the decode: a failed one
		// leaves the message half filled.
		if fixed, n := numbersAsText(data); n > 0 {
			data = fixed
		}
		return m.UnmarshalJSON(data)
	}
	return m.UnmarshalProto(data)
}

// numbersAsText rewrites every "intValue" or "doubleValue" of OTLP/JSON
// whose number does not fit its type (an int64 past its range, 1e999)
// as a "stringValue" of its text; n is how many it rewrote. Only on the
// failure path, and the result is decoded again in full.
func numbersAsText(data []byte) ([]byte, int) {
	var out []byte
	n, copied := 0, 0
	space := func(v int) int {
		for v < len(data) && (data[v] == ' ' || data[v] == '\t' || data[v] == '\n' || data[v] == '\r') {
			v++
		}
		return v
	}
	for i := 0; i < len(data); {
		x := bytes.Index(data[i:], []byte(`Value"`))
		if x < 0 {
			break
		}
		at := i + x // at "Value\""
		end := at + len(`Value"`)
		var isInt bool
		switch {
		case at >= 4 && string(data[at-4:at]) == `"int`:
			isInt, at = true, at-4
		case at >= 7 && string(data[at-7:at]) == `"double`:
			at -= 7
		default:
			i = end
			continue
		}
		v := space(end)
		if v >= len(data) || data[v] != ':' {
			i = end
			continue
		}
		v = space(v + 1)
		quoted := v < len(data) && data[v] == '"'
		if quoted {
			v++
		}
		from := v
		for v < len(data) && strings.IndexByte("+-0123456789.eE", data[v]) >= 0 {
			v++
		}
		text := string(data[from:v])
		if quoted {
			if v >= len(data) || data[v] != '"' {
				i = end
				continue
			}
			v++
		}
		var err error
		if isInt {
			_, err = strconv.ParseInt(text, 10, 64)
		} else {
			_, err = strconv.ParseFloat(text, 64)
		}
		if err == nil || text == "" {
			i = v
			continue
		}
		out = append(out, data[copied:at]...)
		out = append(out, `"stringValue":"`...)
		out = append(out, text...)
		out = append(out, '"')
		copied, i = v, v
		n++
	}
	if n == 0 {
		return data, 0
	}
	return append(out, data[copied:]...), n
}

type protoJSONOut interface {
	MarshalProto() ([]byte, error)
	MarshalJSON() ([]byte, error)
}

func marshal(m protoJSONOut, isJSON bool) ([]byte, error) {
	if isJSON {
		return m.MarshalJSON()
	}
	return m.MarshalProto()
}

// writeStatus writes an OTLP error: a google.rpc.Status in the request's
// encoding (JSON here for both, which every exporter logs as text).
func writeStatus(w http.ResponseWriter, isJSON bool, code int, msg string) {
	body, _ := json.Marshal(map[string]any{"code": grpcCodeFor(code), "message": msg})
	if isJSON {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		body = bytes.TrimSpace([]byte(msg))
	}
	w.WriteHeader(code)
	w.Write(body)
}

func grpcCodeFor(httpCode int) codes.Code {
	switch httpCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusRequestTimeout:
		return codes.DeadlineExceeded
	}
	return codes.Unknown
}
