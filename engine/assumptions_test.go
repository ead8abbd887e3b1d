package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
)

// fakeAssumptionsLog keeps what the engine records, in order, and compares
// as the real log does.
type fakeAssumptionsLog struct {
	last     []correlate.AssumptionReport
	recorded []*correlate.Report
	compared []*correlate.Report
}

func (l *fakeAssumptionsLog) Baseline(string) []correlate.AssumptionReport { return l.last }
func (l *fakeAssumptionsLog) Upstream(string, string, string) []string {
	return nil
}
func (l *fakeAssumptionsLog) Compare(r *correlate.Report, base []correlate.AssumptionReport) {
	if base != nil {
		correlate.CompareAssumptions(r, base, correlate.DefaultConfig().SeverityOf)
	}
	l.compared = append(l.compared, r)
}
func (l *fakeAssumptionsLog) Record(r *correlate.Report, base []correlate.AssumptionReport) {
	l.Compare(r, base)
	l.recorded = append(l.recorded, r)
	l.last = r.Assumptions
}

// night is one run of seed 003's shape: the [assumptions] line first, with
// no time of its own (the reader gives it the line before it's, carried),
// then the night's calls, named by run_id.
func assumptionNight(runID string, start time.Time, maxRetries string, prevTS int64) []ingest.Event {
	decl := ingest.Event{Kind: ingest.KindAssumption, TS: prevTS, TSCarried: prevTS != 0}
	decl.SetAssumption("log line", "anthropic-sdk.maxRetries", maxRetries)
	evs := []ingest.Event{decl}
	for i := range 3 {
		evs = append(evs, ingest.Event{Kind: ingest.KindLLMCall, TS: start.Add(time.Duration(i) * time.Minute).UnixNano(), RunID: runID,
			JobID: runID + "-job", Attempt: 1, Status: 200, Model: "claude-sonnet-4-6", Provider: "anthropic", InputTokens: 1000, OutputTokens: 100})
	}
	return evs
}

// TestAssumptionsAcrossRunsInOneProcess: a daemon that sees three nights
// records each as the next begins (not one line at its stop), compares
// each night with the one before it — the declaration at the top of a
// night belongs to that night, though it carries the time of the last
// line of the night before — and shows the change in the live frame.
func TestAssumptionsAcrossRunsInOneProcess(t *testing.T) {
	n1 := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	var evs []ingest.Event
	evs = append(evs, assumptionNight("n1", n1, "0", 0)...)
	evs = append(evs, assumptionNight("n2", n1.Add(24*time.Hour), "2", evs[len(evs)-1].TS)...)
	evs = append(evs, assumptionNight("n3", n1.Add(48*time.Hour), "2", evs[len(evs)-1].TS)...)
	for _, batching := range []string{"one event per batch", "one batch"} {
		t.Run(batching, func(t *testing.T) {
			log := &fakeAssumptionsLog{}
			// Night 2 is shown live before night 3 arrives.
			release := make(chan struct{})
			n3 := slices.IndexFunc(evs, func(ev ingest.Event) bool { return ev.RunID == "n3" }) - 1
			src := &gated{events: slices.Clone(evs), at: n3, release: release, oneBatch: batching == "one batch"}
			eng := New(Options{Config: correlate.DefaultConfig(), Assumptions: log, Tick: time.Millisecond}, src)
			var sawChange bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				for f := range eng.Frames() {
					if f.RunID == "n2" && !sawChange {
						for _, fr := range f.Snap.Findings {
							if fr.Kind == "assumption_changed" {
								sawChange = true
								close(release)
							}
						}
					}
					if f.Final {
						return
					}
				}
			}()
			go func() {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Error("no frame of night 2 showed assumption_changed in 10 s")
					close(release)
				}
			}()
			eng.Run(context.Background())
			<-done
			final := eng.Report()
			eng.RecordFinal(final)
			var ids []string
			for _, r := range log.recorded {
				ids = append(ids, r.RunID)
			}
			if !slices.Equal(ids, []string{"n1", "n2", "n3"}) {
				t.Fatalf("recorded %v, want each night once, in order", ids)
			}
			declared := func(r *correlate.Report) string {
				for _, a := range r.Assumptions {
					if a.Key == "anthropic-sdk.maxRetries" {
						return a.Declared
					}
				}
				return "none"
			}
			for i, want := range []string{"0", "2", "2"} {
				if got := declared(log.recorded[i]); got != want {
					t.Errorf("night %d declared %s, want %s (a night's declaration is its own)", i+1, got, want)
				}
			}
			changes := func(r *correlate.Report) (n int64, at string) {
				for _, f := range r.Findings {
					if f.Kind == "assumption_changed" {
						n += f.Count
						at = f.FirstAt
					}
				}
				return n, at
			}
			if n, _ := changes(log.recorded[0]); n != 0 {
				t.Errorf("night 1 changed nothing, got %d changes", n)
			}
			if n, at := changes(log.recorded[1]); n != 1 || at != correlate.FormatTime(n1.Add(24*time.Hour).UnixNano()) {
				t.Errorf("night 2: %d changes first at %s, want 1 at its first call", n, at)
			}
			if n, _ := changes(log.recorded[2]); n != 0 {
				t.Errorf("night 3 is night 2 again, got %d changes", n)
			}
		})
	}
}

// gated sends events up to at, waits for release, then sends the rest:
// one event per batch, or each part as one batch.
type gated struct {
	events   []ingest.Event
	at       int
	release  chan struct{}
	oneBatch bool
}

func (s *gated) Run(ctx context.Context, out chan<- ingest.Batch) error {
	send := func(part []ingest.Event) error {
		batches := []ingest.Batch{part}
		if !s.oneBatch {
			batches = batches[:0]
			for _, ev := range part {
				batches = append(batches, ingest.Batch{ev})
			}
		}
		for _, b := range batches {
			select {
			case out <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	if err := send(s.events[:s.at]); err != nil {
		return err
	}
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return send(s.events[s.at:])
}
func (s *gated) Status() []ingest.Status { return nil }

// TestADeclarationAtTheEndIsKept: a declaration the input ends on waits
// for no event that will come: it is the current run's.
func TestADeclarationAtTheEndIsKept(t *testing.T) {
	n1 := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	evs := assumptionNight("n1", n1, "0", 0)[1:]
	decl := ingest.Event{Kind: ingest.KindAssumption, TS: evs[len(evs)-1].TS, TSCarried: true}
	decl.SetAssumption("log line", "retry.owner", "queue")
	evs = append(evs, decl)
	eng := New(Options{Config: correlate.DefaultConfig()}, &oneByOne{events: evs})
	eng.Run(context.Background())
	r := eng.Report()
	if !slices.ContainsFunc(r.Assumptions, func(a correlate.AssumptionReport) bool { return a.Key == "retry.owner" && a.Declared == "queue" }) {
		t.Fatalf("the last line's declaration was lost: %+v", r.Assumptions)
	}
}

// TestADeclarationAtTheTopOfARunIDLogIsThatRuns: the decoder gives an
// untimed declaration the next line's time; at the top of a log whose
// events name a run_id it opened a derived run of its own, and the real
// run lost its declarations (red team).
func TestADeclarationAtTheTopOfARunIDLogIsThatRuns(t *testing.T) {
	n1 := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	evs := assumptionNight("night-1", n1, "0", 0)
	evs[0].TS, evs[0].TSCarried = evs[1].TS, false // as the jsonl decoder releases it
	eng := New(Options{Config: correlate.DefaultConfig()}, &oneByOne{events: evs})
	eng.Run(context.Background())
	r := eng.Report()
	if r.RunID != "night-1" || len(r.PreviousRuns) != 0 {
		t.Fatalf("run %q with %d runs before it, want night-1 alone", r.RunID, len(r.PreviousRuns))
	}
	if !slices.ContainsFunc(r.Assumptions, func(a correlate.AssumptionReport) bool {
		return a.Key == "anthropic-sdk.maxRetries" && a.Declared == "0"
	}) {
		t.Errorf("night-1 lost its declaration: %+v", r.Assumptions)
	}
}

// TestHeldDeclarationsAreBounded: a million untimed declarations with no
// event between held 990 MB; one key's keep only its last, and distinct
// keys never pass maxHeld.
func TestHeldDeclarationsAreBounded(t *testing.T) {
	eng := New(Options{Config: correlate.DefaultConfig()})
	var b ingest.Batch
	for i := range 100_000 {
		ev := ingest.Event{Kind: ingest.KindAssumption}
		ev.SetAssumption("log line", "anthropic-sdk.maxRetries", strconv.Itoa(i))
		b = append(b, ev)
	}
	eng.apply(b)
	if len(eng.held) != 1 {
		t.Fatalf("%d held for one key", len(eng.held))
	}
	b = nil
	for i := range 3 * maxHeld {
		ev := ingest.Event{Kind: ingest.KindAssumption}
		ev.SetAssumption("log line", "k"+strconv.Itoa(i), "1")
		b = append(b, ev)
	}
	eng.apply(b)
	if len(eng.held) >= maxHeld {
		t.Fatalf("%d held, bound %d", len(eng.held), maxHeld)
	}
}

// TestEveryRunIsRecordedOnce: a hundred runs beginning in one batch (64
// stay open; the rest are closed) each get their line, once; a run whose
// run_id interleaves with the next is recorded only when the next has
// moved an hour past it, so its later retries are in its line.
func TestEveryRunIsRecordedOnce(t *testing.T) {
	base := time.Date(2026, 6, 30, 1, 0, 0, 0, time.UTC)
	var evs []ingest.Event
	for i := range 100 {
		evs = append(evs, assumptionNight(fmt.Sprintf("r%03d", i), base.Add(time.Duration(i)*2*time.Hour), "0", 0)...)
	}
	log := &fakeAssumptionsLog{}
	eng := New(Options{Config: correlate.DefaultConfig(), Assumptions: log}, &oneBatch{events: evs})
	eng.Run(context.Background())
	eng.RecordFinal(eng.Report())
	seen := map[string]int{}
	for _, r := range log.recorded {
		seen[r.RunID]++
	}
	if len(seen) != 100 || len(log.recorded) != 100 {
		t.Fatalf("%d lines for %d runs, want 100 once each", len(log.recorded), len(seen))
	}

	// A and B interleave: A's retry after B began is in A's line.
	call := func(run string, at time.Duration, attempt int16) ingest.Event {
		return ingest.Event{Kind: ingest.KindLLMCall, TS: base.Add(at).UnixNano(), RunID: run, JobID: run + "-job", Attempt: attempt,
			Status: 200, Model: "claude-sonnet-4-6", Provider: "anthropic", InputTokens: 10, OutputTokens: 1}
	}
	evs = []ingest.Event{call("A", 0, 1), call("B", time.Minute, 1), call("A", 2*time.Minute, 2), call("A", 3*time.Minute, 3), call("B", 2*time.Hour, 1)}
	log = &fakeAssumptionsLog{}
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk" // the calls number the SDK's attempts (by default a record's attempt is the application's)
	eng = New(Options{Config: cfg, Assumptions: log}, &oneByOne{events: evs})
	eng.Run(context.Background())
	if len(log.recorded) != 1 || log.recorded[0].RunID != "A" {
		t.Fatalf("recorded %d runs before the stop, want A once B moved an hour past it", len(log.recorded))
	}
	var observed string
	for _, a := range log.recorded[0].Assumptions {
		if a.Key == "anthropic-sdk.maxRetries" {
			observed = a.Observed
		}
	}
	if observed != "2" {
		t.Errorf("A's line says %q retries, want its later 2", observed)
	}
}

// oneBatch sends every event in one batch.
type oneBatch struct{ events []ingest.Event }

func (s *oneBatch) Run(ctx context.Context, out chan<- ingest.Batch) error {
	select {
	case out <- ingest.Batch(s.events):
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
func (s *oneBatch) Status() []ingest.Status { return nil }
