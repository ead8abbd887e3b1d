package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/ingest/follow"
)

func line(i int) string {
	return fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"job-%d","model":"claude-sonnet-4-6","status":200,"input_tokens":10,"output_tokens":5}`+"\n", 1773104400000+int64(i), i)
}

func appendLines(t testing.TB, path string, from, to int) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(line(i))
		if b.Len() > 64<<10 {
			f.WriteString(b.String())
			b.Reset()
		}
	}
	f.WriteString(b.String())
	f.Close()
}

// waitAttempts waits until the engine has applied n attempts.
func waitAttempts(t testing.TB, e *Engine, n int64, within time.Duration) *Frame {
	deadline := time.After(within)
	var last *Frame
	for {
		select {
		case f := <-e.Frames():
			last = f
			if f.Snap.Attempts >= n {
				return f
			}
		case <-deadline:
			got := int64(0)
			if last != nil {
				got = last.Snap.Attempts
			}
			t.Fatalf("applied %d attempts, want %d", got, n)
			return nil
		}
	}
}

// TestTailFollowsAppendsAndRotations: another process appends, renames
// the file away and creates a new one, then truncates it in place
// (copytruncate); the file did not exist at start. No line is lost.
func TestTailFollowsAppendsAndRotations(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.jsonl")
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond}, follow.NewTail([]string{path}, false, decode.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)

	time.Sleep(100 * time.Millisecond) // the file does not exist yet
	appendLines(t, path, 0, 100)
	waitAttempts(t, e, 100, 5*time.Second)

	// rename + create
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendLines(t, path, 100, 250)
	waitAttempts(t, e, 250, 5*time.Second)

	// copytruncate: copy elsewhere, truncate in place, keep writing. The
	// follower polls every 250 ms and sees the size drop; the writes after
	// a real rotation regrow the file far slower than that.
	time.Sleep(100 * time.Millisecond)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	appendLines(t, path, 250, 400)
	f := waitAttempts(t, e, 400, 5*time.Second)
	if len(f.Snap.Jobs) != 400 {
		t.Errorf("jobs %d, want 400 distinct", len(f.Snap.Jobs))
	}
	cancel()
	<-e.Done()
}

// TestGlobPicksUpNewFiles: a glob pattern finds files created after start.
func TestGlobPicksUpNewFiles(t *testing.T) {
	dir := t.TempDir()
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond}, follow.NewTail([]string{filepath.Join(dir, "*.jsonl")}, false, decode.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	appendLines(t, filepath.Join(dir, "a.jsonl"), 0, 10)
	appendLines(t, filepath.Join(dir, "b.jsonl"), 10, 20)
	waitAttempts(t, e, 20, 10*time.Second)
}

func TestShutdownWithoutStartAndTwice(t *testing.T) {
	e := New(Options{Config: correlate.DefaultConfig()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.Run(ctx) // no sources, already cancelled: returns at once
	<-e.Done()
	if r := e.Report(); r.Totals.Attempts != 0 {
		t.Errorf("empty engine reported %d attempts", r.Totals.Attempts)
	}
}

// BenchmarkTailAbsorb measures how many appended lines per second the
// watch path (tail → parse → engine → frames) absorbs. Target: 20,000/s.
func BenchmarkTailAbsorb(b *testing.B) {
	const lines = 50_000
	for range b.N {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "app.jsonl")
		os.WriteFile(path, nil, 0o644)
		e := New(Options{Config: correlate.DefaultConfig()}, follow.NewTail([]string{path}, false, decode.Options{}))
		ctx, cancel := context.WithCancel(context.Background())
		go e.Run(ctx)
		time.Sleep(50 * time.Millisecond)
		b.StartTimer()
		appendLines(b, path, 0, lines)
		waitAttempts(b, e, lines, time.Minute)
		b.StopTimer()
		cancel()
		<-e.Done()
		b.StartTimer()
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func TestTailRefusesGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl.gz")
	os.WriteFile(path, []byte{0x1f, 0x8b, 8, 0, 0, 0}, 0o644)
	tl := follow.NewTail([]string{path}, false, decode.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	tl.Run(ctx, make(chan ingest.Batch, 1))
	if st := tl.Status(); len(st) != 1 || !strings.Contains(st[0].Err, "replay") {
		t.Errorf("status %+v: a gzip file must be refused with a pointer to replay/report", st)
	}
}

// TestWatchStdinEndsWithThePipe: `… | burnrate watch -` reads the pipe and
// the source ends when it closes.
func TestWatchStdinEndsWithThePipe(t *testing.T) {
	r, w, _ := os.Pipe()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	go func() {
		for i := range 50 {
			w.WriteString(line(i))
		}
		w.Close()
	}()
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond}, follow.NewTail([]string{"-"}, false, decode.Options{}))
	done := make(chan struct{})
	go func() { e.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch - did not end when the pipe closed")
	}
	if rep := e.Report(); rep.Totals.Attempts != 50 {
		t.Errorf("%d attempts from the pipe, want 50", rep.Totals.Attempts)
	}
}

// TestCatchUpThenFollow: history is read at report speed, a last line still
// being written is left to the follower, and nothing is lost or counted
// twice across the hand-over.
func TestCatchUpThenFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.jsonl")
	appendLines(t, path, 0, 1000)
	partial := line(1000)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString(partial[:40]) // half a line, no newline yet
	f.Close()
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond}, follow.NewTail([]string{path}, false, decode.Options{}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	waitAttempts(t, e, 1000, 5*time.Second)
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	f.WriteString(partial[40:])
	f.Close()
	appendLines(t, path, 1001, 1100)
	fr := waitAttempts(t, e, 1100, 5*time.Second)
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-e.Done()
	rep := e.Report()
	if rep.Totals.Attempts != 1100 || rep.Source.Skipped != 0 || len(fr.Snap.Jobs) < 1000 {
		t.Errorf("attempts %d skipped %v: the hand-over lost or repeated lines", rep.Totals.Attempts, rep.Source.SkippedByReason)
	}
}

// BenchmarkWatchCatchUp: how fast `watch` rebuilds state from a file's
// history before following it (1,000,000 lines).
func BenchmarkWatchCatchUp(b *testing.B) {
	const lines = 1_000_000
	path := filepath.Join(b.TempDir(), "history.jsonl")
	f, _ := os.Create(path)
	var buf strings.Builder
	for i := range lines { // 12 calls per job, like a night of retried jobs
		fmt.Fprintf(&buf, `{"ts":%d,"event":"llm_call","job_id":"job-%d","idempotency_key":"k-%d","attempt":%d,"model":"claude-sonnet-4-6","status":%d,"input_tokens":10,"output_tokens":5}`+"\n",
			1773104400000+int64(i), i/12, i/4, i%4+1, []int{529, 529, 429, 200}[i%4])
		if buf.Len() > 64<<10 {
			f.WriteString(buf.String())
			buf.Reset()
		}
	}
	f.WriteString(buf.String())
	f.Close()
	b.ResetTimer()
	for range b.N {
		e := New(Options{Config: correlate.DefaultConfig()}, follow.NewTail([]string{path}, false, decode.Options{}))
		ctx, cancel := context.WithCancel(context.Background())
		go e.Run(ctx)
		waitAttempts(b, e, lines, 2*time.Minute)
		cancel()
		<-e.Done()
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// TestSpeedChangeWhilePausedIsPublished: issue 14 — "+" pressed while
// paused changed nothing on screen: no event arrived, so no frame went out.
func TestSpeedChangeWhilePausedIsPublished(t *testing.T) {
	var evs []string
	for i := range 50 {
		evs = append(evs, fmt.Sprintf(`{"ts":%d,"event":"llm_call","job_id":"j","model":"claude-sonnet-4-6","status":200}`, 1773104400000+int64(i)*60000))
	}
	r := file.NewReplay(file.NewIter(strings.NewReader(strings.Join(evs, "\n")+"\n"), "t", 0, decode.Options{}), nil, 1)
	e := New(Options{Config: correlate.DefaultConfig(), Tick: 10 * time.Millisecond}, r)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	r.TogglePause()
	deadline := time.After(3 * time.Second)
	for f := e.Latest(); f == nil || f.Replay == nil || !f.Replay.Paused; f = e.Latest() {
		select {
		case <-deadline:
			t.Fatal("no paused frame")
		case <-time.After(5 * time.Millisecond):
		}
	}
	r.Faster()
	for f := e.Latest(); f.Replay.Speed != 2; f = e.Latest() {
		select {
		case <-deadline:
			t.Fatalf("the new speed was never published: %+v", f.Replay)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
