//go:build realdata

package follow

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestLiveClaudePrintStreamIsTimedWhenRead: claude -p --output-format
// stream-json writes no timestamps (the real run in
// ../shared/realdata/round2/claude-headless). Watched live, its calls had
// time 0 (an alert's "at" was empty) and no line counted as no_timestamp;
// like any untimed line they happened when read.
func TestLiveClaudePrintStreamIsTimedWhenRead(t *testing.T) {
	b, err := os.ReadFile("../../../shared/realdata/round2/claude-headless/vecsum-2026-01-14-12-37-51-659_req_fix_02_database-schema.stream.jsonl")
	if err != nil {
		t.Fatalf("%v (../shared must sit beside the repository)", err)
	}
	path := filepath.Join(t.TempDir(), "run.stream.jsonl")
	os.WriteFile(path, nil, 0o644)
	tl := NewTail([]string{path}, false, decode.Options{})
	tl.SetPoll(10 * time.Millisecond)
	c, _, _ := startTail(t, tl)
	mu := &c.mu
	before := time.Now().UnixNano()
	os.WriteFile(path, b, 0o644)
	calls := func() (n int) {
		for _, e := range c.events {
			if e.Kind == ingest.KindLLMCall {
				n++
			}
		}
		return n
	}
	waitFor(t, "the run's 3 calls", 5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return calls() == 3 })
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, e := range c.events {
		if e.Kind != ingest.KindAssumption && (e.TS < before || e.TS > time.Now().UnixNano()) {
			t.Errorf("%s at %d: an untimed record is timed when read (after %d)", e.Kind, e.TS, before)
		}
	}
	if st := tl.Status()[0].Stats; st.NoTimestamp == 0 {
		t.Errorf("stats %+v: the untimed records are not counted as no_timestamp", st)
	}
}
