package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/ingest/follow"
)

// countingObserver changes without events, as a kill's result does.
type countingObserver struct{ n atomic.Uint64 }

func (o *countingObserver) Observe(*correlate.State, *correlate.Job, *ingest.Event) {}
func (o *countingObserver) Lines() []alerts.Line                                    { return nil }
func (o *countingObserver) KillStates() map[string]alerts.KillState                 { return nil }
func (o *countingObserver) Changes() uint64                                         { return o.n.Load() }

func replayEngine(t *testing.T, obs Observer) (*Engine, context.CancelFunc) {
	var evs []string
	for i := range 20 {
		evs = append(evs, fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"job-%d","model":"claude-sonnet-4-6","status":200,"input_tokens":10}`, 1773104400000+int64(i), i))
	}
	r := file.NewReplay(file.NewIter(strings.NewReader(strings.Join(evs, "\n")+"\n"), "t", 0, decode.Options{}), nil, 0)
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond, Observer: obs}, r)
	ctx, cancel := context.WithCancel(context.Background())
	go e.Run(ctx)
	select {
	case <-e.Done():
	case <-time.After(5 * time.Second):
		cancel()
		t.Fatal("the replay never finished")
	}
	if f := e.Latest(); f == nil || !f.Final || f.Snap.Attempts != 20 {
		cancel()
		t.Fatalf("final frame %+v", f)
	}
	return e, cancel
}

// waitFrame waits for a frame that satisfies ok.
func waitFrame(t *testing.T, e *Engine, what string, ok func(*Frame) bool) *Frame {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case f := <-e.Frames():
			if ok(f) {
				return f
			}
		case <-deadline:
			t.Fatalf("no frame with %s after 5 s", what)
			return nil
		}
	}
}

// TestDetailAfterTheFinalFrame: issue 23 — replay, E to the end, enter on
// a job showed "loading…" forever: the engine stopped answering detail
// requests with its last frame.
func TestDetailAfterTheFinalFrame(t *testing.T) {
	e, cancel := replayEngine(t, nil)
	defer cancel()
	for _, id := range []string{"job-7", "job-12"} {
		e.ShowDetail(id)
		f := waitFrame(t, e, "the detail of "+id, func(f *Frame) bool { return f.Snap.Detail != nil && f.Snap.Detail.Row.ID == id })
		if !f.Final || f.Snap.Attempts != 20 {
			t.Fatalf("the answer must be a final frame of the whole replay: final %v, %d attempts", f.Final, f.Snap.Attempts)
		}
	}
	cancel()
}

// TestResultWithoutAnEventIsPublished: a manual kill on a quiet log was
// journaled acknowledged, but its state appeared only with the next line.
func TestResultWithoutAnEventIsPublished(t *testing.T) {
	obs := &countingObserver{}
	e, cancel := replayEngine(t, obs)
	defer cancel()
	for len(e.Frames()) > 0 {
		<-e.Frames()
	}
	obs.n.Add(1)
	waitFrame(t, e, "the observer's change", func(f *Frame) bool { return f.Final })
}

// TestLiveClockRunsBetweenLines: issue 23 — when input stopped, the log
// clock froze and "half-open in 4m14s" and ages stopped with it. Frames
// keep coming on a quiet log, their clock running on with wall time, but
// no further than the idle horizon past the last line.
func TestLiveClockRunsBetweenLines(t *testing.T) {
	path := t.TempDir() + "/app.jsonl"
	appendLines(t, path, 0, 10)
	cfg := correlate.DefaultConfig()
	cfg.IdleAfter = time.Second
	e := New(Options{Config: cfg, Tick: 10 * time.Millisecond}, follow.NewTail([]string{path}, false, decode.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	first := waitAttempts(t, e, 10, 5*time.Second)
	logNow := first.Snap.Now
	f := waitFrame(t, e, "the clock a horizon past the last line", func(f *Frame) bool { return f.Now-f.Snap.Now >= int64(time.Second) })
	if f.Snap.Now != logNow || f.Now != logNow+int64(time.Second) {
		t.Fatalf("log clock %d → %d, live clock %d: want the log clock still and the live one capped at +1s", logNow, f.Snap.Now, f.Now)
	}
}

// TestEndedReplayHasNoActiveJobs: issue 36 — after a replay's last event
// every job stayed "active"; the final frame judges them as the report
// does.
func TestEndedReplayHasNoActiveJobs(t *testing.T) {
	e, cancel := replayEngine(t, nil)
	defer cancel()
	f := e.Latest()
	for _, r := range f.Snap.Jobs {
		if r.Outcome == correlate.OutcomeActive {
			t.Fatalf("job %s is still active in the final frame", r.ID)
		}
	}
}
