// Package ui is burnrate's terminal dashboard (bubbletea). It renders the
// frames the engine publishes; it never computes spend. Only this package
// imports bubbletea and lipgloss.
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
)

// Feed is where frames come from: the engine.
type Feed interface {
	Frames() <-chan *engine.Frame
	ShowDetail(jobID string)
}

// ReplayControls steer a replay; nil when the dashboard is live.
type ReplayControls interface {
	TogglePause()
	Step()
	Faster()
	Slower()
	JumpToEnd()
}

// Killer fires the kill action for a job. Describe says, before anything
// happens, which hook would be called; Kill must not block (it queues).
type Killer interface {
	Describe(jobID, jobType string) string
	Kill(job correlate.JobRow, at int64) error
}

// Options configure the dashboard.
type Options struct {
	Title  string // "watch", "replay", "demo"
	Replay ReplayControls
	Killer Killer // nil: no kill hook configured
	// KillNote is said wherever the kill hook is (the header and the
	// confirm dialog): the demo's "kills go to an in-process receiver".
	KillNote string
}

type mode int

const (
	modeNormal mode = iota
	modeFilter
	modeDetail
	modeConfirmKill
	modeHelp
	// modeCharts: the charts fill the body, on a terminal too short to
	// show them under the table (c had no visible effect at 80×24).
	modeCharts
)

type paneID int

const (
	paneJobs paneID = iota
	paneFindings
	paneBreakers
	numPanes
)

// frameMsg carries a new frame from the engine.
type frameMsg struct{ f *engine.Frame }

// openDetailMsg asks the model to open a job's detail (the jobs pane's
// enter); closeDetailMsg to close it (the detail pane's esc). Panes own
// their keys and ask the model for what changes the screen.
type (
	openDetailMsg  struct{ row correlate.JobRow }
	closeDetailMsg struct{}
)

func ask(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// killResultMsg reports what the kill action said.
type killResultMsg struct {
	job string
	err error
}

// Model is the root of the dashboard. Child panes get their sizes from it.
type Model struct {
	opt    Options
	feed   Feed
	keys   keyMap
	st     styles
	help   help.Model
	filter textinput.Model

	frame  *engine.Frame
	width  int
	height int
	mode   mode
	focus  paneID
	charts bool
	status string

	header   headerPane
	jobs     jobsPane
	detail   detailPane
	breakers breakersPane
	findings findingsPane
	side     sideColumn // lays out breakers and findings
	chart    chartsPane
	killJob  correlate.JobRow
}

// New builds the dashboard model over a feed.
func New(feed Feed, opt Options) *Model {
	st := newStyles(defaultTheme)
	fi := textinput.New()
	fi.Prompt = "/"
	fi.CharLimit = 128
	h := help.New()
	h.ShowAll = true
	m := &Model{opt: opt, feed: feed, keys: newKeyMap(), st: st, help: h, filter: fi, charts: true}
	m.header = headerPane{st: &m.st, title: opt.Title, note: opt.KillNote}
	m.jobs = newJobsPane(&m.st, &m.keys)
	m.detail = detailPane{st: &m.st, keys: &m.keys, canKill: opt.Killer != nil}
	m.breakers = breakersPane{listPane{st: &m.st, keys: &m.keys}}
	m.findings = findingsPane{listPane{st: &m.st, keys: &m.keys}}
	m.side = sideColumn{breakers: &m.breakers, findings: &m.findings}
	m.chart = chartsPane{st: &m.st}
	return m
}

// Init starts waiting for frames.
func (m *Model) Init() tea.Cmd { return waitForFrame(m.feed.Frames()) }

// waitForFrame captures the channel, not the model: the Cmd runs on
// another goroutine.
func waitForFrame(ch <-chan *engine.Frame) tea.Cmd {
	return func() tea.Msg {
		f, ok := <-ch
		if !ok {
			return nil
		}
		return frameMsg{f}
	}
}

// fireKill captures the job's values: the Cmd runs on another goroutine.
func fireKill(k Killer, row correlate.JobRow, at int64) tea.Cmd {
	return func() tea.Msg {
		return killResultMsg{job: row.ID, err: k.Kill(row, at)}
	}
}

// Update routes messages: data and sizes to their owners, keys to the
// focused pane according to the mode.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case frameMsg:
		m.setFrame(msg.f)
		return m, waitForFrame(m.feed.Frames())
	case openDetailMsg:
		m.mode = modeDetail
		m.detail.open(msg.row.ID)
		m.feed.ShowDetail(msg.row.ID)
		if m.frame != nil && m.frame.Snap.Detail != nil && m.frame.Snap.Detail.Row.ID == msg.row.ID {
			m.detail.setDetail(m.frame.Snap.Detail, m.frame.Clock())
		}
		return m, nil
	case closeDetailMsg:
		m.mode = modeNormal
		m.feed.ShowDetail("")
		return m, nil
	case killResultMsg:
		if msg.err != nil {
			m.status = fmt.Sprintf("kill %s: %v", sanitize(msg.job), msg.err)
		} else {
			m.status = fmt.Sprintf("kill requested for %s", sanitize(msg.job))
		}
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

// pane is the one contract every part of the screen keeps: the parent
// sizes it, hands it each frame, asks for its view, and shows the keys it
// takes when it has the focus (soft-serve's component pattern).
type pane interface {
	SetSize(w, h int)
	SetFrame(f *engine.Frame)
	View() string
	ShortHelp() []key.Binding
	// Update takes a key while the pane has the focus and reports whether
	// it was the pane's; what the pane cannot do itself (open a job's
	// detail) it asks of the model with a Cmd.
	Update(msg tea.KeyMsg) (bool, tea.Cmd)
}

var (
	_ pane = (*headerPane)(nil)
	_ pane = (*jobsPane)(nil)
	_ pane = (*detailPane)(nil)
	_ pane = (*breakersPane)(nil)
	_ pane = (*findingsPane)(nil)
	_ pane = (*chartsPane)(nil)
)

func (m *Model) setFrame(f *engine.Frame) {
	m.frame = f
	natural := m.jobs.naturalWidth()
	for _, p := range []pane{&m.header, &m.jobs, &m.breakers, &m.findings, &m.chart} {
		p.SetFrame(f)
	}
	if m.jobs.naturalWidth() != natural && m.width > 0 {
		m.layout() // a longer ID: the table's share of a wide screen grows
	}
	if m.mode == modeDetail {
		m.detail.SetFrame(f)
	}
}

// focused is the pane whose keys the footer shows.
func (m *Model) focused() pane {
	switch {
	case m.mode == modeDetail:
		return &m.detail
	case m.focus == paneJobs:
		return &m.jobs
	case m.focus == paneBreakers:
		return &m.breakers
	}
	return &m.findings
}

// handleKey routes a key by mode: an open dialog or input takes every key;
// otherwise the keys that work everywhere, then the focused pane's.
func (m *Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.status = "" // a message lasts until the next key
	switch m.mode {
	case modeFilter:
		return m.filterKey(msg)
	case modeConfirmKill:
		return m.confirmKey(msg)
	case modeHelp:
		if k := m.keys; key.Matches(msg, k.Help) || key.Matches(msg, k.Back) || key.Matches(msg, k.Quit) {
			m.mode = modeNormal
		}
		return m, nil
	}
	if cmd, handled := m.globalKey(msg); handled {
		return m, cmd
	}
	if m.mode == modeCharts {
		if key.Matches(msg, m.keys.Back) {
			m.mode = modeNormal
			m.layout()
		}
		return m, nil
	}
	if m.mode == modeDetail {
		_, cmd := m.detail.Update(msg)
		return m, cmd
	}
	return m.jobsKey(msg)
}

// filterKey edits the jobs filter; enter keeps it, esc clears it.
func (m *Model) filterKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEnter, tea.KeyEsc:
		if msg.Type == tea.KeyEsc {
			m.filter.SetValue("")
			m.jobs.setText("")
		}
		m.filter.Blur()
		m.mode = modeNormal
		m.layout()
		return m, nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	m.jobs.setText(m.filter.Value())
	return m, cmd
}

// confirmKey answers the kill dialog: only y kills.
func (m *Model) confirmKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Confirm):
		m.mode = modeNormal
		m.status = "kill: sending…"
		var at int64
		if m.frame != nil {
			at = m.frame.Snap.Now
		}
		return m, fireKill(m.opt.Killer, m.killJob, at)
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Quit):
		m.mode = modeNormal
		m.status = "kill cancelled"
	}
	return m, nil
}

// globalKey handles the keys that work whatever pane has the focus.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k, r := m.keys, m.opt.Replay
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.mode = modeHelp
	case key.Matches(msg, k.Pause) && r != nil:
		r.TogglePause()
	case key.Matches(msg, k.Step) && r != nil:
		r.Step()
	case key.Matches(msg, k.Faster) && r != nil:
		r.Faster()
	case key.Matches(msg, k.Slower) && r != nil:
		r.Slower()
	case key.Matches(msg, k.End) && r != nil:
		r.JumpToEnd()
	case key.Matches(msg, k.Charts):
		m.toggleCharts()
	case key.Matches(msg, k.Kill):
		m.startKill()
	default:
		return nil, false
	}
	return nil, true
}

// jobsKey handles the main screen's own keys — focus and the filter
// input — then hands the key to the focused pane.
func (m *Model) jobsKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Tab):
		m.focus = (m.focus + 1) % numPanes
		m.jobs.focused = m.focus == paneJobs
		m.breakers.focused, m.findings.focused = m.focus == paneBreakers, m.focus == paneFindings
		m.jobs.dirty, m.breakers.dirty, m.findings.dirty = true, true, true
		m.layout()
		return m, nil
	case key.Matches(msg, k.Filter):
		m.mode = modeFilter
		m.filter.Focus()
		m.layout()
		return m, textinput.Blink
	}
	handled, cmd := m.focused().Update(msg)
	if !handled && m.focus != paneJobs {
		// Sorting and the type and state filters act on the table
		// whichever pane has the focus.
		_, cmd = m.jobs.Update(msg)
	}
	return m, cmd
}

// chartsFit says whether the charts fit under the panes at this size.
func (m *Model) chartsFit() bool {
	return m.height-m.header.heightFor(m.width)-1 >= minChartBody
}

// toggleCharts: c always does something visible. Where the charts fit
// under the panes it shows or hides them; where they do not, it gives
// them the body (and c or esc gives it back); in a job's detail on a
// short terminal it says why not.
func (m *Model) toggleCharts() {
	switch {
	case m.mode == modeCharts:
		m.mode = modeNormal
	case m.chartsFit():
		m.charts = !m.charts
		if m.charts {
			m.status = "charts on"
		} else {
			m.status = "charts off (c shows them)"
		}
	case m.mode == modeNormal:
		m.mode = modeCharts
	default:
		m.status = fmt.Sprintf("charts: no room beside the detail at %d rows; esc, then c", m.height)
	}
	m.layout()
}

// minMainWidth is the least the jobs table or a job's detail is given
// beside the side panes (the detail's attempts table needs about this).
const minMainWidth = 110

// minSplitBody is the body height under which a narrow terminal shows
// one pane at a time.
const minSplitBody = 12

// minChartBody is the body height under which the charts do not fit
// under the panes.
const minChartBody = 22

func (m *Model) startKill() {
	row, ok := m.jobs.selected()
	if m.mode == modeDetail {
		row, ok = m.detail.row()
	}
	if !ok {
		m.status = "kill: no job selected"
		return
	}
	if m.opt.Killer == nil {
		m.status = "kill: no kill hook is configured (start with --kill-webhook URL or --kill-exec CMD)"
		return
	}
	m.killJob = row
	m.mode = modeConfirmKill
}

// The smallest terminal the dashboard lays out: a 4-line header, a footer
// and a few rows of jobs.
const (
	minWidth  = 40
	minHeight = 10
)

// layout does the size arithmetic and pushes sizes down; panes never
// measure the terminal themselves.
func (m *Model) layout() {
	w, h := m.width, m.height
	headerH := m.header.heightFor(w)
	footerH := 1
	if m.mode == modeFilter {
		footerH = 2
	}
	body := max(h-headerH-footerH, 3)
	chartH := 0
	switch {
	case m.mode == modeCharts:
		chartH = body
	case m.charts && body >= minChartBody:
		chartH = min(12, body/3)
	}
	body -= chartH
	sideW := 0
	if w >= 110 {
		sideW = min(w*2/5, 64)
		// Widths from content: what the table (or a job's detail) does
		// not need goes to the findings, whose lines were cut at 64
		// beside a half-empty table at 200 columns.
		if need := max(m.jobs.naturalWidth(), minMainWidth); w-need > sideW {
			sideW = w - need
		}
	}
	mainW := w - sideW
	sideH := body
	mainH := body
	m.jobs.hint = ""
	if sideW == 0 {
		// Narrow: findings go under the table.
		sideH = max(body/3, 4)
		mainH = body - sideH
		if body < minSplitBody {
			// Too short to split (the table kept only its title): the
			// focused pane takes the body, and the table says where
			// the others are.
			sideH, mainH = 0, body
			if m.focus != paneJobs && m.mode != modeDetail {
				sideH, mainH = body, 0
			} else {
				m.jobs.hint = "+2 panes: tab"
			}
		}
	}
	m.header.SetSize(w, headerH)
	m.jobs.SetSize(mainW, mainH)
	m.detail.SetSize(mainW, mainH)
	m.side.narrow = sideW == 0
	if sideW == 0 {
		m.side.SetSize(w, sideH)
	} else {
		m.side.SetSize(sideW, sideH)
	}
	m.chart.SetSize(w, chartH)
}

// View composes the cached pane renders.
func (m *Model) View() string {
	if m.width == 0 {
		return "starting…"
	}
	if m.width < minWidth || m.height < minHeight {
		// Below the layout's minimum, panes would overlap or be cut to
		// nothing: say so (ingest, rules and kills go on regardless).
		return clip(fmt.Sprintf("terminal too small (%d×%d): burnrate needs %d×%d; rules and kills go on", m.width, m.height, minWidth, minHeight), m.width, max(m.height, 1))
	}
	if m.mode == modeHelp {
		return m.helpView()
	}
	if m.mode == modeCharts {
		return clip(lipgloss.JoinVertical(lipgloss.Left, m.header.View(), m.chart.View(), m.footer()), m.width, m.height)
	}
	main := m.jobs.View()
	if m.mode == modeDetail {
		main = m.detail.View()
	}
	var body string
	switch {
	case m.side.height <= 0:
		body = main // a short narrow terminal: one pane at a time
	case m.jobs.height <= 0 && m.mode != modeDetail:
		body = m.side.View()
	case m.side.width == m.width:
		body = lipgloss.JoinVertical(lipgloss.Left, main, m.side.View())
	default:
		body = lipgloss.JoinHorizontal(lipgloss.Top, main, m.side.View())
	}
	parts := []string{m.header.View(), body}
	if m.chart.height > 0 {
		parts = append(parts, m.chart.View())
	}
	parts = append(parts, m.footer())
	screen := lipgloss.JoinVertical(lipgloss.Left, parts...)
	if m.mode == modeConfirmKill {
		return m.confirmView()
	}
	return clip(screen, m.width, m.height)
}

func (m *Model) footer() string {
	var b strings.Builder
	if m.mode == modeFilter {
		b.WriteString(m.filter.View())
		b.WriteString("\n")
	}
	if m.status != "" {
		b.WriteString(m.st.Warn.Render(truncate(m.status, m.width)))
		return b.String()
	}
	short := help.New()
	short.Width = m.width
	// The keys that work everywhere first: a narrow footer cuts its end,
	// and kill, help and quit must stay readable.
	keys := m.keys.footer(m.opt.Replay != nil, m.opt.Killer != nil)
	if m.mode == modeCharts {
		keys = append([]key.Binding{m.keys.ChartsBack}, keys...)
	} else {
		keys = append(keys, m.focused().ShortHelp()...)
	}
	b.WriteString(short.ShortHelpView(keys))
	return b.String()
}

func (m *Model) helpView() string {
	m.help.Width = 0 // laid out here: groups wrap onto rows instead of being cut
	title := m.st.Title.Render("burnrate — keys") + "\n\n"
	groups := m.keys.fullHelp(m.opt.Replay != nil, m.opt.Killer != nil)
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		next := append(slices.Clone(row), g)
		if len(row) > 0 && lipgloss.Width(m.help.FullHelpView(next)) > m.width {
			rows = append(rows, m.help.FullHelpView(row))
			next = [][]key.Binding{g}
		}
		row = next
	}
	if len(row) > 0 {
		rows = append(rows, m.help.FullHelpView(row))
	}
	// Prose wraps by words at the terminal's width (cut at a fixed column,
	// an 80-column help lost "are over their").
	notes := "\n\n" + ansi.Wordwrap("The jobs table sorts by spend, calls, amplification or recency (s). Rows in red are over their "+
		"job ceiling; amber rows multiply retries 10× or more.", max(m.width, 20), "")
	return clip(title+strings.Join(rows, "\n\n")+m.st.Dim.Render(notes), m.width, m.height)
}

func (m *Model) confirmView() string {
	what := m.opt.Killer.Describe(m.killJob.ID, m.killJob.Type)
	text := m.st.Bad.Render("Kill this job?") + "\n\n" +
		fmt.Sprintf("job:  %s\ntype: %s\nspend: %s over %d calls\n\n%s\n\n", sanitize(m.killJob.ID), sanitize(m.killJob.Type), usd(m.killJob.Spend.USD()), m.killJob.Calls, sanitize(what)) +
		noteLine(m.opt.KillNote) +
		m.st.Selected.Render(" Cancel (n/esc/enter) ") + "   " + m.st.Dim.Render(" Kill (y) ")
	box := m.st.Dialog.Width(min(70, max(m.width-4, 20))).Render(text)
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box)
}

// Run shows the dashboard in the terminal's alternate screen until the
// operator quits or ctx ends.
func Run(ctx context.Context, feed Feed, opt Options) error {
	// Without a terminal the dashboard has nowhere to draw: say what to
	// run instead (bubbletea said only "could not open a new TTY").
	if !term.IsTerminal(os.Stdout.Fd()) {
		return errors.New(noTTY("standard output is not a terminal"))
	}
	// The command's context ends the program on SIGINT/SIGTERM: bubbletea's
	// own handler caught SIGTERM too and then blocked sending a quit
	// nobody read (4 stops in 10 hung for ever).
	p := tea.NewProgram(New(feed, opt), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutSignalHandler())
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("dashboard: %w; %s", err, noTTY("no terminal could be opened"))
	}
	return nil
}

func noTTY(why string) string {
	return "the dashboard needs a terminal, and " + why + ": run with --headless for alerts as JSON lines on stdout and a status line on stderr"
}

func noteLine(note string) string {
	if note == "" {
		return ""
	}
	return sanitize(note) + "\n\n"
}
