package otlp

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/burnrate-dev/burnrate/ingest"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// otlpSources is where OTLP senders' numbers (Event.Source) begin: above
// the files', which count from 0.
const otlpSources = 1 << 15

// sourceOf numbers a resource's sender (service, instance, host): each
// sender has a clock of its own in correlate, so one whose times are
// skewed (local time written as UTC) ages no other's jobs. A request
// may carry many resources (a Collector batching many services): each
// event takes its own resource's number, not the request's first. Two
// senders may share a number (a hash into 32,768); they then share a
// clock, as all did before.
func sourceOf(res pcommon.Map) uint16 {
	h := fnv.New32a()
	for _, k := range []string{"service.name", "service.instance.id", "host.name"} {
		if v, ok := res.Get(k); ok {
			h.Write([]byte(v.AsString()))
		}
		h.Write([]byte{0})
	}
	return uint16(otlpSources + h.Sum32()%otlpSources)
}

// stampFrom numbers events[from:] as src's.
func stampFrom(events []ingest.Event, from int, src uint16) {
	for i := from; i < len(events); i++ {
		events[i].Source = src
	}
}

// stamper numbers the events a loop over spans appends by the span each
// came from: next at each span (a continue skips nothing), done after
// the loop.
type stamper struct {
	events *[]ingest.Event
	from   int
	src    uint16
}

func (s *stamper) next(src uint16) {
	s.done()
	s.src = src
}

func (s *stamper) done() {
	stampFrom(*s.events, s.from, s.src)
	s.from = len(*s.events)
}

// Source adapts a Receiver to ingest.Source, keeping the error Run ended with.
type Source struct {
	R   *Receiver
	mu  sync.Mutex
	err string
}

// Run serves until ctx is done.
func (o *Source) Run(ctx context.Context, out chan<- ingest.Batch) error {
	err := o.R.Run(ctx, out)
	if err != nil {
		o.mu.Lock()
		o.err = err.Error()
		o.mu.Unlock()
	}
	return err
}

// HandWith makes the receiver hand each batch to hand instead of sending
// it: a request is answered once hand has taken all its batches.
func (o *Source) HandWith(hand func(ctx context.Context, b ingest.Batch) error) { o.R.hand = hand }

// Status reports the receiver's counters as one source.
func (o *Source) Status() []ingest.Status {
	g, h := o.R.Addrs()
	var names []string
	if g != "" {
		names = append(names, "grpc "+g)
	}
	if h != "" {
		names = append(names, "http "+h)
	}
	s := o.R.Stats()
	st := ingest.Status{Name: "otlp " + strings.Join(names, ", "), Active: true,
		Stats: ingest.Stats{Lines: s.Requests, Events: s.Events},
		Detail: fmt.Sprintf("%d requests, %d spans, %d log records, %d rejected, %d bad, %d refused (429)",
			s.Requests, s.Spans, s.LogRecords, s.Rejected, s.BadRequests, s.Refused)}
	if s.Linked > 0 {
		st.Detail += fmt.Sprintf("; %d traces moved to the job their late root span named, %d left under the trace ID (memory bound)", s.Linked, s.Unlinked)
	}
	o.mu.Lock()
	st.Err = o.err
	st.Active = o.err == "" // a receiver that could not listen reads nothing
	o.mu.Unlock()
	return []ingest.Status{st}
}
