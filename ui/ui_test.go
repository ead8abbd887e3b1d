package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
	"github.com/burnrate-dev/burnrate/scenario"
)

// updating reports -update, the flag teatest registers for its goldens.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fakeFeed hands the model frames built from a fixed log.
type fakeFeed struct {
	ch     chan *engine.Frame
	mu     sync.Mutex
	detail []string
	st     *correlate.State
}

func (f *fakeFeed) Frames() <-chan *engine.Frame { return f.ch }
func (f *fakeFeed) ShowDetail(id string) {
	f.mu.Lock()
	f.detail = append(f.detail, id)
	f.mu.Unlock()
}

// frame builds a frame of seed 000's incident, with detail for job.
func (f *fakeFeed) frame(job string) *engine.Frame {
	snap := f.st.Snapshot(correlate.SnapshotOptions{CeilingUSD: 2, DetailJob: job})
	return &engine.Frame{Snap: snap, Sources: []ingest.Status{{Name: "seed000-incident.jsonl"}}, Final: true}
}

func newFeed(t testing.TB) *fakeFeed {
	var buf bytes.Buffer
	if err := scenario.Write(&buf, scenario.Samples["seed000-incident.jsonl"]()); err != nil {
		t.Fatal(err)
	}
	cfg := correlate.DefaultConfig()
	cfg.AttemptLayer = "sdk" // the simulation logs every HTTP attempt, numbered by the SDK (as burnrate demo)
	st := correlate.New(cfg)
	file.Drain(file.NewIter(&buf, "seed000", 0, decode.Options{}), st)
	return &fakeFeed{ch: make(chan *engine.Frame, 1), st: st}
}

type fakeKiller struct{ killed []string }

func (k *fakeKiller) Describe(id, typ string) string {
	return "POST https://ops.example/kill for " + id
}
func (k *fakeKiller) Kill(row correlate.JobRow, at int64) error {
	k.killed = append(k.killed, row.ID)
	return nil
}

func newModel(t testing.TB, w, h int, opt Options) (*Model, *fakeFeed) {
	t.Setenv("NO_COLOR", "1") // golden screens are plain text
	feed := newFeed(t)
	if opt.Title == "" {
		opt.Title = "replay"
	}
	m := New(feed, opt)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(frameMsg{feed.frame("")})
	return m, feed
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, cmd := m.Update(msg)
		// As bubbletea would: a pane asks the model for what it cannot do
		// itself (open a job's detail) with a Cmd whose message comes back.
		if cmd != nil {
			if ask := cmd(); ask != nil {
				switch ask.(type) {
				case openDetailMsg, closeDetailMsg:
					m.Update(ask)
				}
			}
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name + ".golden"
	if updating() {
		os.WriteFile(path, []byte(got), 0o644)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s changed; run go test ./ui -update if intended.\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

func checkSize(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) > h {
		t.Errorf("screen has %d lines, terminal has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := lipglossWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, terminal has %d: %q", i, n, w, l)
		}
	}
}

func TestGoldenScreens(t *testing.T) {
	t.Run("main_140x45", func(t *testing.T) {
		m, _ := newModel(t, 140, 45, Options{})
		checkSize(t, m.View(), 140, 45)
		golden(t, "main_140x45", m.View())
	})
	t.Run("narrow_80x24", func(t *testing.T) {
		m, _ := newModel(t, 80, 24, Options{})
		checkSize(t, m.View(), 80, 24)
		golden(t, "narrow_80x24", m.View())
	})
	t.Run("detail", func(t *testing.T) {
		m, feed := newModel(t, 140, 45, Options{})
		press(m, "s", "s") // sort by amplification: the 7×3×3 jobs first
		press(m, "enter")
		row, _ := m.jobs.selected()
		m.Update(frameMsg{feed.frame(row.ID)})
		screen := m.View()
		if !strings.Contains(screen, "wrapper round 2") || !strings.Contains(screen, "overload") || !strings.Contains(screen, "COST") {
			t.Errorf("detail should show the attempts by layer:\n%s", screen)
		}
		golden(t, "detail_140x45", screen)
	})
	t.Run("help", func(t *testing.T) {
		m, _ := newModel(t, 100, 30, Options{})
		press(m, "?")
		golden(t, "help_100x30", m.View())
	})
	t.Run("help_80x24", func(t *testing.T) {
		m, _ := newModel(t, 80, 24, Options{})
		press(m, "?")
		screen := m.View()
		checkSize(t, screen, 80, 24)
		// Issue 23: the help was cut mid-word ("Rows in red ⏎ job ceiling").
		if !strings.Contains(screen, "Rows in red") || !strings.Contains(screen, "are over their job ceiling") {
			t.Errorf("the help's prose must wrap by words:\n%s", screen)
		}
		golden(t, "help_80x24", screen)
	})
	for _, w := range []int{80, 100} {
		t.Run(fmt.Sprintf("detail_%dx24", w), func(t *testing.T) {
			m, feed := newModel(t, w, 24, Options{})
			press(m, "s", "s")
			press(m, "enter")
			row, _ := m.jobs.selected()
			m.Update(frameMsg{feed.frame(row.ID)})
			screen := m.View()
			checkSize(t, screen, w, 24)
			// Issue 23: tokens and cost were hidden even at 160 columns.
			if w >= 100 && (!strings.Contains(screen, "TOKENS") || !strings.Contains(screen, "COST") || !strings.Contains(screen, "tokens in")) {
				t.Errorf("at %d columns the detail must show tokens and cost:\n%s", w, screen)
			}
			golden(t, fmt.Sprintf("detail_%dx24", w), screen)
		})
	}
	t.Run("kill_confirm", func(t *testing.T) {
		m, _ := newModel(t, 100, 30, Options{Killer: &fakeKiller{}})
		press(m, "x")
		screen := m.View()
		if !strings.Contains(screen, "POST https://ops.example/kill") {
			t.Errorf("the dialog must say which hook will fire:\n%s", screen)
		}
		golden(t, "kill_confirm_100x30", screen)
	})
}

func TestSortAndFilter(t *testing.T) {
	m, _ := newModel(t, 140, 45, Options{})
	first := func() correlate.JobRow { r, _ := m.jobs.selected(); return r }
	press(m, "s") // calls
	if r := first(); r.Calls != 63 {
		t.Errorf("sorted by calls, first row has %d calls", r.Calls)
	}
	press(m, "s", "s", "s") // back to spend
	if r := first(); r.Duplicates != 2 {
		t.Errorf("sorted by spend, the first job should be a 2-duplicate one, got %+v", r)
	}
	press(m, "/", "4", "1", "0", "7", "enter")
	if len(m.jobs.idx) != 1 || first().ID != "report:sess-4107" {
		t.Errorf("filter /4107 kept %d rows", len(m.jobs.idx))
	}
	press(m, "/", "esc")
	press(m, "f", "f", "f", "f", "f", "f") // all, active, running, queued, succeeded, failed, dead_lettered
	if len(m.jobs.idx) != 15 {
		t.Errorf("state filter dead_lettered kept %d rows, want 15", len(m.jobs.idx))
	}
}

func TestEnterOpensDetailAndEscCloses(t *testing.T) {
	m, feed := newModel(t, 140, 45, Options{})
	press(m, "down", "enter")
	if m.mode != modeDetail || len(feed.detail) != 1 || feed.detail[0] == "" {
		t.Fatalf("enter: mode %v, detail requests %v", m.mode, feed.detail)
	}
	press(m, "esc")
	if m.mode != modeNormal || feed.detail[len(feed.detail)-1] != "" {
		t.Errorf("esc: mode %v, last detail request %q", m.mode, feed.detail[len(feed.detail)-1])
	}
}

func TestKillWithoutHookSaysSo(t *testing.T) {
	m, _ := newModel(t, 100, 30, Options{})
	press(m, "x")
	if m.mode != modeNormal || !strings.Contains(m.View(), "no kill hook is configured") {
		t.Errorf("x without a hook must say so:\n%s", m.View())
	}
	press(m, "down")
	if strings.Contains(m.View(), "no kill hook is configured") || !strings.Contains(m.View(), "enter job detail") {
		t.Error("the message must give way to the key help on the next key")
	}
}

func TestKillConfirmDefaultsToCancel(t *testing.T) {
	k := &fakeKiller{}
	m, _ := newModel(t, 100, 30, Options{Killer: k})
	press(m, "x", "enter") // enter is the default button: Cancel
	if m.mode != modeNormal || len(k.killed) != 0 {
		t.Fatalf("enter must cancel: killed %v", k.killed)
	}
	press(m, "x")
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if cmd == nil || m.status != "kill: sending…" {
		t.Fatalf("y must fire the kill: status %q", m.status)
	}
	m.Update(cmd()) // the Cmd runs off the UI goroutine in bubbletea
	row, _ := m.jobs.selected()
	if len(k.killed) != 1 || k.killed[0] != row.ID || !strings.Contains(m.status, "kill requested for "+row.ID) {
		t.Errorf("killed %v, status %q", k.killed, m.status)
	}
}

// TestRaceEngineToUI hammers the hand-off: the engine replays a log at
// full speed, publishing frames, while the model updates and renders each
// frame as bubbletea would. Run under -race in CI.
func TestRaceEngineToUI(t *testing.T) {
	var buf bytes.Buffer
	scenario.Write(&buf, scenario.Demo())
	r := file.NewReplay(file.NewIter(&buf, "demo", 0, decode.Options{}), nil, 1500) // 25 log minutes in about a second
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Tick: time.Millisecond, CeilingUSD: 5}, r)
	t.Setenv("NO_COLOR", "1")
	m := New(eng, Options{Title: "race", Replay: r})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go eng.Run(ctx)
	frames := 0
	for {
		select {
		case f := <-eng.Frames():
			frames++
			m.Update(frameMsg{f})
			press(m, "down", "enter")
			_ = m.View()
			press(m, "esc")
			_ = m.View()
			if f.Final {
				if frames < 5 || f.Snap.Attempts == 0 {
					t.Errorf("frames %d attempts %d", frames, f.Snap.Attempts)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("engine did not finish")
		}
	}
}

// TestTeatestFlow drives the real program end to end: frames arrive, the
// operator sorts, opens a job and quits.
func TestTeatestFlow(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	feed := newFeed(t)
	m := New(feed, Options{Title: "replay"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	feed.ch <- feed.frame("")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("report:sess-")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	feed.ch <- feed.frame("report:sess-4107")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("queue attempt")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := tm.FinalModel(t).(*Model)
	if final.mode != modeDetail {
		t.Errorf("mode %v, want detail", final.mode)
	}
}

// BenchmarkView100kJobs: one View after a cursor move (so the table must
// re-render) with 100,000 jobs. Target: under 10 ms.
func BenchmarkView100kJobs(b *testing.B) {
	b.Setenv("NO_COLOR", "1")
	snap := &correlate.Snapshot{Now: time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC).UnixNano()}
	for i := range 100_000 {
		snap.Jobs = append(snap.Jobs, correlate.JobRow{ID: "job-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), Type: "report",
			Calls: int32(i % 63), Layers: [3]int32{7, 3, 3}, Amp: 63, Spend: correlate.Pico(i) * 1e6, LastStatus: 529, Seq: int32(i), LastTS: snap.Now})
	}
	feed := &fakeFeed{ch: make(chan *engine.Frame)}
	m := New(feed, Options{Title: "bench"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	m.Update(frameMsg{&engine.Frame{Snap: snap}})
	down := tea.KeyMsg{Type: tea.KeyDown}
	b.ResetTimer()
	for b.Loop() {
		m.Update(down)
		_ = m.View()
	}
}

// TestKillStateShows: a killed job's action state replaces its outcome.
func TestKillStateShows(t *testing.T) {
	m, feed := newModel(t, 140, 45, Options{})
	f := feed.frame("")
	f.Kills = map[string]alerts.KillState{"report:sess-4105": {State: alerts.StateAcknowledged, StillLogging: true}}
	f.Alerts = []alerts.Line{{At: f.Snap.Now, Severity: correlate.SeverityCritical, Text: "job report:sess-4105 spent $0.24, over its ceiling of $0.20"}}
	m.Update(frameMsg{f})
	screen := m.View()
	if !strings.Contains(screen, "killed!") || !strings.Contains(screen, "01:11:40 job report:sess-4105 spent $0.24") {
		t.Errorf("kill state or alert missing:\n%s", screen)
	}
}

// BenchmarkFrame100kJobs: taking a new frame of 100,000 jobs in Update
// (re-filter and re-sort, done once per frame, never in View).
func BenchmarkFrame100kJobs(b *testing.B) {
	b.Setenv("NO_COLOR", "1")
	snap := &correlate.Snapshot{Now: time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC).UnixNano()}
	for i := range 100_000 {
		snap.Jobs = append(snap.Jobs, correlate.JobRow{ID: fmt.Sprintf("job-%06d", i), Type: "report", Calls: int32(i % 63),
			Amp: i % 63, Spend: correlate.Pico((i * 7919) % 100_000 * 1e6), Seq: int32(i), LastTS: snap.Now})
	}
	m := New(&fakeFeed{ch: make(chan *engine.Frame)}, Options{Title: "bench"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	f := &engine.Frame{Snap: snap}
	for b.Loop() {
		m.Update(frameMsg{f})
		_ = m.View()
	}
}

// TestDashboardNumbersThatMisled: issue 14 — what the dashboard said wrong.
func TestDashboardNumbersThatMisled(t *testing.T) {
	m, feed := newModel(t, 140, 45, Options{})
	// At 215% of the ceiling: "over by", not "ceiling in 0m".
	f := feed.frame("")
	f.Snap.CeilingUSD = f.Snap.Spend.USD() / 2.15
	f.Snap.MinutesToCeil = 0
	m.Update(frameMsg{f})
	screen := m.View()
	if strings.Contains(screen, "ceiling in 0m") || !strings.Contains(screen, "over by $") {
		t.Errorf("over the ceiling, the header must say by how much:\n%.600s", screen)
	}
	// Model and tool error shares, labelled.
	if !strings.Contains(screen, "errors: model ") || !strings.Contains(screen, " tool ") {
		t.Errorf("the header must show model and tool error shares:\n%.600s", screen)
	}
	// An open breaker shows what tripped it and when it half-opens, not "fail 0%".
	if !strings.Contains(screen, "half-open in") || strings.Contains(screen, "open      fail   0%") {
		t.Errorf("the open breaker line:\n%s", screen)
	}
	// The help screen at 120 columns cuts nothing and shows how to quit.
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "?")
	help := m.View()
	if !strings.Contains(help, "quit") || strings.Contains(help, "…") {
		t.Errorf("help at 120 columns:\n%s", help)
	}
}

// TestFooterShowsOnlyKeysThatWork: no replay keys when live, no kill key
// without a kill hook.
func TestFooterShowsOnlyKeysThatWork(t *testing.T) {
	m, _ := newModel(t, 140, 45, Options{})
	if v := m.View(); strings.Contains(v, "pause replay") || strings.Contains(v, "kill job") {
		t.Errorf("live and without a kill hook, the footer offers replay or kill keys:\n%s", v[len(v)-300:])
	}
	m2, _ := newModel(t, 140, 45, Options{Killer: &fakeKiller{}})
	if v := m2.View(); !strings.Contains(v, "kill job") {
		t.Error("with a kill hook the footer must offer x")
	}
}

// TestEveryTerminalSize: issue 29 — a terminal of 8 rows or fewer panicked
// the dashboard (clip sliced [:-1]) and monitoring stopped. Every size from
// 0×0 to 300×100, in every mode a key reaches, renders within the
// terminal, saying "terminal too small" below the minimum.
func TestEveryTerminalSize(t *testing.T) {
	m, _ := newModel(t, 120, 40, Options{})
	// Every small size, then a stride through the large ones (each size
	// costs four full renders).
	var widths, heights []int
	for w := 0; w <= 300; w++ {
		if w < 50 || w%23 == 0 {
			widths = append(widths, w)
		}
	}
	for h := 0; h <= 100; h++ {
		if h < 25 || h%9 == 0 {
			heights = append(heights, h)
		}
	}
	for _, w := range widths {
		for _, h := range heights {
			for _, keys := range [][]string{nil, {"enter"}, {"?"}, {"/"}, {"c"}, {"tab", "tab"}} {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				press(m, keys...)
				screen := m.View()
				if w > 0 {
					checkSize(t, screen, w, max(h, 1))
				}
				if (w < minWidth || h < minHeight) && w > 0 && !strings.Contains(screen, "too small") && len(screen) > 0 && h > 0 && w >= 20 {
					t.Fatalf("%d×%d is below the minimum but does not say so:\n%s", w, h, screen)
				}
				press(m, "esc")
			}
		}
	}
}

// FuzzTerminalSize drives sizes and keys at random: no panic, nothing
// drawn outside the terminal.
func FuzzTerminalSize(f *testing.F) {
	f.Add(uint16(8), uint16(8), "jk")
	f.Add(uint16(1), uint16(1), "?")
	f.Add(uint16(300), uint16(100), "\x1b")
	f.Fuzz(func(t *testing.T, w, h uint16, keys string) {
		m, _ := newModel(t, 120, 40, Options{})
		w, h = w%400, h%200
		m.Update(tea.WindowSizeMsg{Width: int(w), Height: int(h)})
		for _, r := range keys {
			press(m, string(r))
		}
		screen := m.View()
		if w > 0 {
			checkSize(t, screen, int(w), max(int(h), 1))
		}
	})
}

// TestQuietInputRunsTheClock: on a quiet log the header says so and the
// breaker's countdown follows the live clock, not the frozen log clock.
func TestQuietInputRunsTheClock(t *testing.T) {
	m, feed := newModel(t, 140, 45, Options{})
	f := feed.frame("")
	before := m.View()
	f.Now, f.QuietFor = f.Snap.Now+int64(2*time.Minute), 2*time.Minute
	f.Final = false // a live log gone quiet, not an ended one
	f.Snap.BurnWarming1 = true
	m.Update(frameMsg{f})
	screen := m.View()
	if !strings.Contains(screen, "input quiet 2m00s") || !strings.Contains(screen, "(1m, warming up)") {
		t.Fatalf("want the quiet marker and the warming rate in the header:\n%s", screen)
	}
	if !strings.Contains(before, "half-open in 4m50s") || !strings.Contains(screen, "half-open in 2m50s") {
		t.Errorf("the breaker's countdown must run with the live clock: before\n%s\nafter\n%s", before, screen)
	}
	for _, w := range []int{60, 80} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		checkSize(t, m.View(), w, 24)
		if !strings.Contains(m.View(), "quiet 2m00s") {
			t.Errorf("at %d columns the quiet marker must stay:\n%s", w, m.View())
		}
	}
}

// TestREADMEScreensAreTheGoldens: the screens docs/dashboard.md shows are
// the ones this package renders (trailing spaces aside), not an old capture.
func TestREADMEScreensAreTheGoldens(t *testing.T) {
	readme, err := os.ReadFile("../docs/dashboard.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"main_140x45", "narrow_80x24", "detail_140x45", "demo_end_120x40", "demo_kill_confirm_80x24"} {
		g, err := os.ReadFile("testdata/" + name + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(g), "\n"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		if !strings.Contains(string(readme), "```\n"+strings.Join(lines, "\n")+"\n```") {
			t.Errorf("docs/dashboard.md does not show testdata/%s.golden as it is: paste it in again", name)
		}
	}
}

// TestCeilingInSeconds: under a minute to the ceiling, the estimate says
// seconds ("ceiling in 0m" at 93% said nothing).
func TestCeilingInSeconds(t *testing.T) {
	for m, want := range map[float64]string{0.4: "24s", 0: "0s", 5.2: "5m", 150: "2.5h"} {
		if got := minutes(m); got != want {
			t.Errorf("minutes(%v) = %q, want %q", m, got, want)
		}
	}
}

// TestHeaderFitsWithEverythingToSay: at 80 columns, with a run name, a
// failing journal and a source problem, each header line fits, the
// problems stay and the least urgent parts go first.
func TestHeaderFitsWithEverythingToSay(t *testing.T) {
	m, feed := newModel(t, 80, 24, Options{})
	f := feed.frame("")
	f.RunID, f.Runs = "nightly-2026-03-10-with-a-long-name", 3
	f.PreviousRun = &correlate.RunSummary{RunID: "nightly-2026-03-09", SpendUSD: 4.2}
	f.JournalProblem = "2 journal write(s) failed: no space left on device"
	f.Sources = []ingest.Status{{Name: "a.jsonl", Err: "permission denied"}, {Name: "b.jsonl", Missing: true}}
	f.Now, f.QuietFor = f.Snap.Now+int64(time.Minute), time.Minute
	f.Final = false // live: the burn rates are shown
	m.Update(frameMsg{f})
	screen := m.View()
	checkSize(t, screen, 80, 24)
	head := strings.Join(strings.Split(screen, "\n")[:3], "\n")
	t.Log("\n" + head)
	for _, want := range []string{"burnrate", "quiet 1m00s", "✗ journal", "✗ 1 source problem(s)", "spend $1.30", "wasted $0.7290", "burn "} {
		if !strings.Contains(head, want) {
			t.Errorf("the 80-column header lost %q:\n%s", want, head)
		}
	}
	if strings.Contains(head, "projecte") {
		t.Errorf("a part cut mid-word:\n%s", head)
	}
}

// TestHeaderAssumptionsBadge: while an assumption_* finding is open the
// header says so, at 160 columns in full and at 80 short, and says
// nothing when none is.
func TestHeaderAssumptionsBadge(t *testing.T) {
	for _, tc := range []struct {
		w    int
		want string
	}{{160, "⚠ assumptions: 1 violated, 2 changed"}, {80, "⚠ 3 assumption(s)"}} {
		m, feed := newModel(t, tc.w, 24, Options{})
		f := feed.frame("")
		f.RunID = "nightly-2026-07-01"
		f.Snap.Findings = append(f.Snap.Findings,
			correlate.FindingReport{Kind: "assumption_changed", Severity: correlate.SeverityWarning, Count: 2},
			correlate.FindingReport{Kind: "assumption_violated", Severity: correlate.SeverityCritical, Count: 1})
		m.Update(frameMsg{f})
		screen := m.View()
		head := strings.Join(strings.Split(screen, "\n")[:3], "\n")
		if !strings.Contains(head, tc.want) {
			t.Errorf("%d columns: the header lacks %q:\n%s", tc.w, tc.want, head)
		}
	}
	m, feed := newModel(t, 160, 24, Options{})
	m.Update(frameMsg{feed.frame("")})
	if head := strings.Join(strings.Split(m.View(), "\n")[:3], "\n"); strings.Contains(head, "assumption") {
		t.Errorf("a badge with no finding open:\n%s", head)
	}
}

// TestHeaderSaysTheTruthAtTheEnd: issue 36 — at the end of a replay the
// header said "ceiling in 38s"; "projected run" equal to the spend so far
// pretended to be a projection; a finding's "$0 own/$0.36 jobs".
func TestHeaderSaysTheTruthAtTheEnd(t *testing.T) {
	m, feed := newModel(t, 160, 40, Options{})
	f := feed.frame("")
	f.Snap.MinutesToCeil = 0.6
	f.Snap.ProjectedUSD = f.Snap.Spend.USD()
	m.Update(frameMsg{f})
	screen := m.View()
	if strings.Contains(screen, "ceiling in") || !strings.Contains(screen, "● END") || !strings.Contains(screen, "ended: final figures") {
		t.Errorf("an ended run must say so, with no countdown:\n%.800s", screen)
	}
	if !strings.Contains(screen, "own $0.7290 · in its jobs $0.7290") {
		t.Errorf("a finding's money in words:\n%s", screen)
	}
	live := feed.frame("")
	live.Final = false
	live.Snap.MinutesToCeil = 0.6
	live.Snap.ProjectedUSD = live.Snap.Spend.USD()
	m.Update(frameMsg{live})
	screen = m.View()
	if !strings.Contains(screen, "ceiling in 36s") || strings.Contains(screen, "projected run") {
		t.Errorf("live: a countdown, and no projection equal to the spend:\n%.800s", screen)
	}
	live.Snap.ProjectedUSD = live.Snap.Spend.USD() + 1
	m.Update(frameMsg{live})
	if !strings.Contains(m.View(), "projected run $2.30") {
		t.Errorf("a projection beyond the spend is shown:\n%.800s", m.View())
	}
}

// TestNoLostPanes: issue 36 — at 80×24 the breakers pane vanished under
// the findings while tab still moved the focus to it, and c did nothing.
func TestNoLostPanes(t *testing.T) {
	m, _ := newModel(t, 80, 24, Options{})
	if v := m.View(); !strings.Contains(v, "breakers hidden: tab to reach") || !strings.Contains(v, "? help") || !strings.Contains(v, "q quit") {
		t.Fatalf("the hidden pane must be named with the key that shows it:\n%s", v)
	}
	press(m, "tab", "tab")
	if v := m.View(); !strings.Contains(v, "Breakers") || !strings.Contains(v, "claude-sonnet-4-6") {
		t.Errorf("the focused breakers pane must show:\n%s", v)
	}
	press(m, "c")
	if v := m.View(); m.mode != modeCharts || !strings.Contains(v, "USD; 1m/col") || !strings.Contains(v, "back to jobs") {
		t.Errorf("c at 80×24 must show the charts:\n%s", v)
	}
	press(m, "esc")
	if m.mode != modeNormal {
		t.Errorf("esc leaves the charts: mode %v", m.mode)
	}
	big, _ := newModel(t, 140, 45, Options{})
	press(big, "c")
	if v := big.View(); strings.Contains(v, "cumulative spend") || !strings.Contains(v, "charts off") {
		t.Errorf("c at 140×45 hides the charts and says so:\n%s", v)
	}
}

// TestTruncMiddleKeepsTheEnd: an ID or model name cut keeps its end.
func TestTruncMiddleKeepsTheEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{{"anthropic/claude-sonnet-4-6", 16, "anthr…sonnet-4-6"}, {"job-00042", 20, "job-00042"}, {"job-aaaaaaaaaaaaaaaa-00042", 12, "job…aa-00042"}, {"éééé-x", 4, "é…-x"}} {
		if got := truncMiddle(tc.in, tc.w); got != tc.want || lipglossWidth(got) > tc.w {
			t.Errorf("truncMiddle(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

// TestUnpricedSumsAreFloorsOnTheDashboard: R7-1b — with every call
// unpriced the header said "spend $0", "wasted $0", "burn $0/min" and a
// finding "own $0": figures that read whole. Each is a floor, "≥".
func TestUnpricedSumsAreFloorsOnTheDashboard(t *testing.T) {
	m, feed := newModel(t, 200, 40, Options{})
	f := feed.frame("")
	f.Snap.Unpriced = 143
	m.Update(frameMsg{f})
	screen := m.View()
	for _, want := range []string{"spend ≥$", "143 calls unpriced", "wasted ≥$", "own ≥$0.7290 · in its jobs ≥$0.7290"} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q:\n%s", want, screen)
		}
	}
	live := feed.frame("")
	live.Final = false
	live.Snap.Unpriced = 143
	m.Update(frameMsg{live})
	if screen := m.View(); !strings.Contains(screen, "burn ≥$") {
		t.Errorf("live: no burn floor:\n%s", screen)
	}
	f = feed.frame("")
	f.Snap.Unpriced = 0
	m.Update(frameMsg{f})
	if screen := m.View(); strings.Contains(screen, "≥") {
		t.Errorf("a floor with every call priced:\n%s", screen)
	}
}
