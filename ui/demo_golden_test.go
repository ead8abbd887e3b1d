package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
	tea "github.com/charmbracelet/bubbletea"
)

// collect keeps every event of a log, in order.
type collect struct{ evs []ingest.Event }

func (c *collect) Consume(b ingest.Batch) { c.evs = append(c.evs, b...) }

// demoFrames builds the demo's frames as the demo shows them ($5 run
// ceiling, $0.25 job ceiling, 60×) after a share of its events: the clock
// is the log's, so every frame is the same on every run.
type demoFrames struct {
	evs []ingest.Event
}

func newDemoFrames(t testing.TB) *demoFrames {
	var buf bytes.Buffer
	if err := scenario.Write(&buf, scenario.Demo()); err != nil {
		t.Fatal(err)
	}
	var c collect
	file.Drain(file.NewIter(&buf, "demo (built-in)", 0, decode.Options{}), &c)
	return &demoFrames{evs: c.evs}
}

// at is the frame after share (0..1] of the events; detail names a job
// whose detail it carries.
func (d *demoFrames) at(share float64, detail string) *engine.Frame {
	n := int(share * float64(len(d.evs)))
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk" // as burnrate demo: the simulation's attempt field is the SDK's
	st := correlate.New(cfg)
	for i := 0; i < n; i += 256 {
		st.Consume(ingest.Batch(d.evs[i:min(i+256, n)]))
	}
	final := n == len(d.evs)
	snap := st.Snapshot(correlate.SnapshotOptions{CeilingUSD: 5, JobCeilings: correlate.JobCeilings{Default: correlate.PicoFromUSD(0.25)},
		DetailJob: detail, Ended: final})
	f := &engine.Frame{Snap: snap, Final: final, Now: snap.Now, RunID: "demo-1",
		Sources: []ingest.Status{{Name: "demo (built-in)"}},
		Replay:  &ingest.ReplayStatus{Pos: n, Total: len(d.evs), Fraction: share, Speed: 60, LogTS: snap.Now}}
	if share >= 0.5 {
		// The job ceiling's kill, as the demo's in-process receiver
		// acknowledges it.
		f.Kills = map[string]alerts.KillState{"rec-00042": {State: alerts.StateAcknowledged, StillLogging: true}}
	}
	return f
}

// demoKiller stands for the demo's in-process receiver.
type demoKiller struct{ fakeKiller }

func (demoKiller) Describe(id, typ string) string {
	return "will POST http://127.0.0.1:40000/demo-kill"
}

// TestDemoGoldenScreens: the demo's start, middle and end, its help, a
// job's detail and the kill dialog, at 80×24, 120×40 and 200×60.
func TestDemoGoldenScreens(t *testing.T) {
	d := newDemoFrames(t)
	start, middle, end := d.at(0.08, ""), d.at(0.5, ""), d.at(1, "")
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		w, h := size[0], size[1]
		open := func(f *engine.Frame) *Model {
			t.Setenv("NO_COLOR", "1")
			m := New(&fakeFeed{ch: make(chan *engine.Frame, 1)}, Options{Title: "demo", Replay: nopReplay{}, Killer: &demoKiller{}, KillNote: "demo: kills go to an in-process receiver"})
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			m.Update(frameMsg{f})
			return m
		}
		shot := func(name string, m *Model) string {
			screen := m.View()
			checkSize(t, screen, w, h)
			golden(t, fmt.Sprintf("demo_%s_%dx%d", name, w, h), screen)
			return screen
		}
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			s := shot("start", open(start))
			if !strings.Contains(s, "x kill") || !strings.Contains(s, "ceiling in") {
				t.Errorf("the demo's start offers x and counts down to the ceiling:\n%s", s)
			}
			shot("middle", open(middle))
			e := shot("end", open(end))
			if strings.Contains(e, "ceiling in") || strings.Contains(e, " active ") || !strings.Contains(e, "run ended") {
				t.Errorf("the demo's end says it ended, with no countdown and no active job:\n%s", e)
			}
			m := open(end)
			press(m, "?")
			if hs := shot("help", m); !strings.Contains(hs, "kill job") {
				t.Errorf("the demo's help lists x:\n%s", hs)
			}
			m = open(end)
			press(m, "s", "s") // amplification: the poisoned record first
			row, _ := m.jobs.selected()
			press(m, "enter")
			m.Update(frameMsg{d.at(1, row.ID)})
			shot("detail", m)
			m = open(middle)
			press(m, "x")
			if ks := shot("kill_confirm", m); !strings.Contains(ks, "in-process receiver") || !strings.Contains(ks, "Kill this job?") {
				t.Errorf("the kill dialog says where the kill goes:\n%s", ks)
			}
		})
	}
}

// nopReplay: replay keys that do nothing (the frames are fixed).
type nopReplay struct{}

func (nopReplay) TogglePause() {}
func (nopReplay) Step()        {}
func (nopReplay) Faster()      {}
func (nopReplay) Slower()      {}
func (nopReplay) JumpToEnd()   {}

// TestAttackTheScreens: issue 36's attacks — one session resized to 80×24,
// 40×10, 300×100; a 200-character model name; a breaker whose name
// carries escape sequences; no jobs; 100,000 jobs.
func TestAttackTheScreens(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	d := newDemoFrames(t)
	f := d.at(0.5, "")
	long := strings.Repeat("m", 190) + "-sonnet-4-6"
	f.Snap.Breakers = append(f.Snap.Breakers, correlate.BreakerReport{Key: "anthropic/" + long, State: correlate.BreakerStateOpen, Trips: 1},
		correlate.BreakerReport{Key: "evil\x1b[2J\x1b]0;pwned\x07/claude-opus-4-1", State: correlate.BreakerStateHalfOpen, Trips: 2})
	m := New(&fakeFeed{ch: make(chan *engine.Frame, 1)}, Options{Title: "demo", Replay: nopReplay{}, Killer: &demoKiller{}})
	m.Update(frameMsg{f})
	for _, size := range [][2]int{{80, 24}, {40, 10}, {300, 100}, {80, 24}} {
		w, h := size[0], size[1]
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		for _, keys := range [][]string{nil, {"tab"}, {"tab"}, {"tab"}, {"c"}, {"c"}, {"enter"}, {"esc"}, {"?"}, {"?"}} {
			press(m, keys...)
			screen := m.View()
			checkSize(t, screen, w, h)
			if strings.ContainsAny(screen, "\x1b\x07") {
				t.Fatalf("%d×%d: an escape reached the screen: %q", w, h, screen)
			}
		}
	}
	// The breakers pane, focused at 300×100, names both endpoints by their
	// ends, the escapes shown as text.
	m.Update(tea.WindowSizeMsg{Width: 300, Height: 100})
	for m.focus != paneBreakers {
		press(m, "tab")
	}
	screen := m.View()
	if !strings.Contains(screen, "sonnet-4-6") || !strings.Contains(screen, `\u001b[2J`) || !strings.Contains(screen, "claude-opus-4-1") {
		t.Errorf("breaker names at 300 columns:\n%s", screen)
	}
	// No jobs at all; then 100,000.
	empty := d.at(0.0001, "")
	empty.Snap.Jobs = nil
	m.Update(frameMsg{empty})
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		press(m, "enter", "x", "esc", "c", "c")
		checkSize(t, m.View(), size[0], size[1])
	}
	big := d.at(1, "")
	big.Snap.Jobs = nil
	for i := range 100_000 {
		big.Snap.Jobs = append(big.Snap.Jobs, correlate.JobRow{ID: fmt.Sprintf("job-%s-%06d", strings.Repeat("x", i%40), i), Type: "report", Seq: int32(i)})
	}
	m.Update(frameMsg{big})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "esc")
	for m.focus != paneJobs {
		press(m, "tab")
	}
	screen = m.View()
	if !strings.Contains(screen, "100000/100000") || !strings.Contains(screen, "-000000") {
		t.Errorf("100,000 jobs, IDs cut keeping their numbers:\n%s", screen)
	}
}
