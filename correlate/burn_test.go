package correlate

import (
	"math"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestBurnRateIsTrueInTheFirstMinute replays issue 23's trial: steady
// spend, 50 lines a second for 60 s, starting 37 s into a minute. After
// the first 10 s the 1- and 5-minute rates are within 5% of the true
// $3.00/min (they read $9.08 and $3.14 against $14.42/min, dividing by
// the whole window however little of it the log covered), warming up
// until their window is full, and the ceiling estimate is from the same
// rate.
func TestBurnRateIsTrueInTheFirstMinute(t *testing.T) {
	st := New(DefaultConfig())
	start := time.Date(2026, 3, 10, 1, 0, 37, 0, time.UTC).UnixNano()
	const perSec, cost = 50, 0.001 // claude-haiku-4-5, 1,000 input tokens at $1/M
	const want = perSec * cost * 60
	for i := range 60 * perSec {
		ts := start + int64(i)*int64(time.Second)/perSec
		ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "j" + itoa(i), Model: "claude-haiku-4-5",
			Status: 200, InputTokens: 1000, Attempt: 1, RetryAfterMs: -1}
		st.Apply(&ev)
		if elapsed := ts - start; elapsed >= int64(10*time.Second) && i%perSec == 0 {
			s := st.Snapshot(SnapshotOptions{CeilingUSD: 12, NoJobRows: true})
			for _, r := range []struct {
				name string
				rate float64
				warm bool
			}{{"1m", s.BurnPerMin1, s.BurnWarming1}, {"5m", s.BurnPerMin5, s.BurnWarming5}} {
				if math.Abs(r.rate-want) > 0.05*want {
					t.Fatalf("after %s: %s rate $%.4f/min, want $%.2f within 5%%", time.Duration(elapsed), r.name, r.rate, want)
				}
				if !r.warm {
					t.Fatalf("after %s: the %s window is not full yet and must say it is warming up", time.Duration(elapsed), r.name)
				}
			}
			if left := (12 - s.Spend.USD()) / s.BurnPerMin1; math.Abs(s.MinutesToCeil-left) > 1e-9 {
				t.Fatalf("ceiling in %.2f min, want %.2f from the 1-minute rate", s.MinutesToCeil, left)
			}
		}
	}
	// Past the first minute the 1-minute window is full.
	ev := ingest.Event{TS: start + int64(61*time.Second), Kind: ingest.KindLLMCall, JobID: "late", Model: "claude-haiku-4-5",
		Status: 200, InputTokens: 1000, Attempt: 1, RetryAfterMs: -1}
	st.Apply(&ev)
	if s := st.Snapshot(SnapshotOptions{NoJobRows: true}); s.BurnWarming1 || !s.BurnWarming5 {
		t.Errorf("after 61 s: warming 1m %v 5m %v, want false and true", s.BurnWarming1, s.BurnWarming5)
	}
}

// TestBurnRateOfOneEventIsBounded: the first event alone is divided by
// at least 10 s of log, never by nothing.
func TestBurnRateOfOneEventIsBounded(t *testing.T) {
	st := New(DefaultConfig())
	ev := ingest.Event{TS: time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).UnixNano(), Kind: ingest.KindLLMCall, JobID: "j",
		Model: "claude-haiku-4-5", Status: 200, InputTokens: 1000, Attempt: 1, RetryAfterMs: -1}
	st.Apply(&ev)
	s := st.Snapshot(SnapshotOptions{NoJobRows: true})
	if math.IsInf(s.BurnPerMin1, 0) || math.IsNaN(s.BurnPerMin1) || math.Abs(s.BurnPerMin1-0.006) > 1e-12 {
		t.Fatalf("one $0.001 event: rate $%v/min, want $0.006 (over 10 s)", s.BurnPerMin1)
	}
}

// TestASkewedLoggerNeitherHidesNorInflatesTheShownBurn: issue 34's red
// team — the dashboard's burn figures ran on the one log clock, so with a
// second logger 10 h ahead (in the same file, or in a file of its own)
// they showed only the minutes near that clock: half of a steady
// $0.60/min. They run on the burn clock the burn_rate alert's window
// runs on: $0.60/min, and a line dated 2199 changes nothing.
func TestASkewedLoggerNeitherHidesNorInflatesTheShownBurn(t *testing.T) {
	start := time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC).UnixNano()
	const want = 0.60 // two loggers, $0.025 each every 5 s
	for _, c := range []struct {
		name   string
		src2   uint16
		ahead  time.Duration
		at2199 bool
	}{
		{"no skew", 0, 0, false},
		{"10 h ahead, same file", 0, 10 * time.Hour, false},
		{"10 h ahead, own file", 1, 10 * time.Hour, false},
		{"10 h ahead, same file, a line dated 2199", 0, 10 * time.Hour, true},
	} {
		st := New(DefaultConfig())
		apply := func(ts int64, src uint16, job string) {
			ev := ingest.Event{TS: ts, Source: src, Kind: ingest.KindLLMCall, JobID: job, Model: "gpt-4o", Status: 200,
				CostUSD: 0.025, HasCost: true, Attempt: 1, RetryAfterMs: -1}
			st.Apply(&ev)
		}
		for i := range 120 { // 10 minutes
			ts := start + int64(i)*int64(5*time.Second)
			apply(ts, 0, "a"+itoa(i))
			apply(ts+int64(c.ahead), c.src2, "b"+itoa(i))
			if c.at2199 && i == 100 {
				apply(time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(), 0, "far")
			}
		}
		s := st.Snapshot(SnapshotOptions{NoJobRows: true})
		extra := 0.0
		if c.at2199 {
			extra = 0.025 / 5 // the far line's spend, counted at the burn clock's now
		}
		if math.Abs(s.BurnPerMin5-want-extra) > 0.05*want || math.Abs(s.BurnPerMin1-want) > 0.1*want {
			t.Errorf("%s: burn $%.4f/min (1m) and $%.4f/min (5m), want $%.2f", c.name, s.BurnPerMin1, s.BurnPerMin5, want)
		}
	}
}

// TestAClockSetBackHoursInflatesNoShownBurn: lines more than an hour
// behind their source's clock step a lane of their own, so the burn
// clock moves on while the source's clock waits to come back: a steady
// $0.30/min after a host clock set back 2 hours shows $0.30/min.
func TestAClockSetBackHoursInflatesNoShownBurn(t *testing.T) {
	st := New(DefaultConfig())
	base := time.Date(2026, 3, 10, 3, 0, 0, 0, time.UTC).UnixNano()
	for i := range 180 { // 30 minutes, one $0.05 call every 10 s
		ts := base + int64(i)*10e9
		if i >= 60 {
			ts -= int64(2 * time.Hour)
		}
		ev := ingest.Event{TS: ts, Kind: ingest.KindLLMCall, JobID: "j" + itoa(i), Model: "gpt-4o", Status: 200,
			CostUSD: 0.05, HasCost: true, Attempt: 1, RetryAfterMs: -1}
		st.Apply(&ev)
		if i < 60+40 || i%10 != 0 {
			continue
		}
		if s := st.Snapshot(SnapshotOptions{NoJobRows: true}); math.Abs(s.BurnPerMin5-0.30) > 0.1*0.30 {
			t.Fatalf("call %d: burn $%.4f/min over 5 minutes, want $0.30", i, s.BurnPerMin5)
		}
	}
}
