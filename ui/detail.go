package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/guptarohit/asciigraph"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
)

// detailPane explains one job: its attempts grouped by layer, findings and
// a mini chart of its calls over time.
type detailPane struct {
	st   *styles
	keys *keyMap
	// canKill: a kill hook is configured, so x is offered.
	canKill bool
	jobID   string
	d       *correlate.JobDetail
	now     int64
	lines   []string
	offset  int
	width   int
	height  int
	cache   string
	dirty   bool
}

func (p *detailPane) open(id string) {
	p.jobID, p.d, p.offset, p.lines, p.dirty = id, nil, 0, nil, true
}

func (p *detailPane) row() (correlate.JobRow, bool) {
	if p.d == nil {
		return correlate.JobRow{ID: p.jobID}, p.jobID != ""
	}
	return p.d.Row, true
}

func (p *detailPane) SetSize(w, h int) { p.width, p.height, p.dirty = w, h, true; p.build() }

// SetFrame takes the open job's detail from the frame.
func (p *detailPane) SetFrame(f *engine.Frame) { p.setDetail(f.Snap.Detail, f.Clock()) }

// ShortHelp: the detail scrolls and closes.
func (p *detailPane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Back, p.keys.Up, p.keys.Down, p.keys.PageDown}
}

func (p *detailPane) setDetail(d *correlate.JobDetail, now int64) {
	if d == nil || d.Row.ID != p.jobID {
		return
	}
	p.d, p.now = d, now
	p.build()
}

// Update scrolls the detail; esc asks the model to close it.
func (p *detailPane) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Back):
		return true, ask(closeDetailMsg{})
	case key.Matches(msg, k.Up):
		p.scroll(-1)
	case key.Matches(msg, k.Down):
		p.scroll(1)
	case key.Matches(msg, k.PageUp):
		p.scroll(-p.height)
	case key.Matches(msg, k.PageDown):
		p.scroll(p.height)
	default:
		return false, nil
	}
	return true, nil
}

func (p *detailPane) scroll(d int) {
	p.offset = max(0, min(p.offset+d, len(p.lines)-p.height+1))
	p.dirty = true
}

// build formats the whole detail once per frame; view only slices it.
func (p *detailPane) build() {
	p.dirty = true
	p.lines = p.lines[:0]
	if p.d == nil {
		p.lines = append(p.lines, p.st.Title.Render("Job "+sanitize(p.jobID)), "loading…")
		return
	}
	r := p.d.Row
	add := func(s string) { p.lines = append(p.lines, s) }
	keysHint := "  esc back"
	if p.canKill {
		keysHint += " · x kill"
	}
	add(p.st.Title.Render(fmt.Sprintf("Job %s", sanitize(r.ID))) + p.st.Dim.Render(keysHint))
	// Money and tokens first: a narrow terminal cuts the end of the line.
	tokens := "tokens in " + correlate.Count(p.d.InputTokens)
	if p.d.CacheShare >= 0 {
		tokens += fmt.Sprintf(" (%.0f%% cached)", p.d.CacheShare*100)
	}
	out := correlate.Count(p.d.OutputTokens)
	if p.d.OutputPartial {
		out = "≥" + out // the attempts not retained are not in it
	}
	spend := usd(r.Spend.USD())
	if r.Unpriced > 0 {
		// As the report writes it (report.JobSpend): a floor, and how
		// many calls nothing priced.
		spend = fmt.Sprintf("≥%s (%d unpriced)", spend, r.Unpriced)
	}
	add(fmt.Sprintf("spend %s · wasted %s · %s out %s", spend, usd(r.Wasted.USD()), tokens, out))
	add(fmt.Sprintf("type %s · %s · %d calls · %d tool calls · layers %s (×%d) · %d duplicates",
		sanitize(r.Type), r.Outcome, r.Calls, r.ToolCalls, r.LayersText(), r.Amp, r.Duplicates))
	switch p.d.Count { // issue 39: how far the call count goes
	case correlate.CountLowerBound:
		add(p.st.Dim.Render(truncate("calls are a lower bound: a layer below the log retries unseen — "+sanitize(p.d.Unseen), max(p.width-1, 1))))
	case correlate.CountAmbiguous:
		add(p.st.Dim.Render("calls are ambiguous: some were placed in this job by timing alone (never a finding's evidence, never a kill)"))
	}
	if names := attemptNames(p.d.Attempts); names != "" {
		// The table may cut a name in its middle; here each is whole.
		add(truncate("models/tools "+names, max(p.width-1, 1)))
	}
	for _, k := range p.d.Findings {
		add(p.st.Warn.Render("▲ "+k.String()) + " " + p.st.Dim.Render(truncate(correlate.Advice[k], max(p.width-30, 10))))
	}
	// The chart only when it leaves room for a screen of attempts: at 24
	// rows it took every row the attempts had.
	if len(p.d.CallsPerMinute) > 1 && p.height-len(p.lines)-7 >= minAttemptRows {
		plot := asciigraph.Plot(p.d.CallsPerMinute, asciigraph.Height(4), asciigraph.Width(min(max(p.width-12, 10), 60)),
			asciigraph.Precision(0), asciigraph.Caption("calls per minute"), asciigraph.LowerBound(0))
		p.lines = append(p.lines, strings.Split(plot, "\n")...)
	}
	longest := 0
	for _, a := range p.d.Attempts {
		longest = max(longest, lipglossWidth(sanitize(a.Name)))
	}
	cols := attemptColumns(p.width-1, longest)
	add(p.st.Header.Render(cols.row("LAYER", "TIME", "MODEL/TOOL", "STAT", "ERROR", "RA", "WAITED", "TOKENS i/o", "COST")))
	lastQ, lastR := uint16(0), uint16(0)
	for _, a := range p.d.Attempts {
		if a.Queue != lastQ {
			add(p.st.Bold.Render(fmt.Sprintf("queue attempt %d", a.Queue)))
			lastQ, lastR = a.Queue, 0
		}
		if a.Round != lastR && a.Flags&correlate.FlagTool == 0 {
			add(p.st.Dim.Render(fmt.Sprintf("  wrapper round %d", a.Round)))
			lastR = a.Round
		}
		layer := fmt.Sprintf("  #%d", a.Num)
		if a.Flags&correlate.FlagTool != 0 {
			layer = fmt.Sprintf("  t#%d", a.Num)
		}
		ra, waited := "-", "-"
		if a.RetryAfterMs >= 0 {
			ra = fmt.Sprintf("%.1fs", float64(a.RetryAfterMs)/1000)
		}
		if a.WaitMs >= 0 {
			waited = fmt.Sprintf("%.1fs", float64(a.WaitMs)/1000)
		}
		line := cols.row(layer, clockMs(a.TS), sanitize(a.Name), status(a.Status), sanitize(a.ErrType), ra, waited,
			fmt.Sprintf("%d/%d", a.InputTokens, a.OutputTokens), usd(a.Cost.USD()))
		switch {
		case a.Flags&(correlate.FlagTerminalRetried|correlate.FlagRetryAfterIgnored|correlate.FlagDuplicate) != 0:
			line = p.st.Bad.Render(line)
		case a.Status >= 200 && a.Status < 300:
			line = p.st.Good.Render(line)
		}
		add(line)
	}
	if int(p.d.Row.Calls+p.d.Row.ToolCalls) > len(p.d.Attempts) {
		add(p.st.Dim.Render(fmt.Sprintf("… %d more attempts not retained (limit %d per job)", int(p.d.Row.Calls+p.d.Row.ToolCalls)-len(p.d.Attempts), correlate.MaxRetainedAttemptsPerJob)))
	}
}

// minAttemptRows is the attempts a detail keeps room for before a chart.
const minAttemptRows = 8

// attemptCols are the widths of the attempts table's two text columns;
// the others are fixed. The model or tool name and the error type share
// what the fixed columns leave, so tokens and cost (at the end) always
// show from 100 columns: at 140, beside the side pane, they were cut.
type attemptCols struct{ name, err int }

// attemptFixed is the fixed columns' cells, separators included:
// LAYER 6, TIME 12, STAT 5, RA 6, WAITED 7, TOKENS 11, COST 9, 8 spaces.
const attemptFixed = 6 + 12 + 5 + 6 + 7 + 11 + 9 + 8

// attemptColumns sizes the name column from its content (the longest
// model or tool name, so "claude-sonnet-4-6" reads whole where it fits),
// leaving the error type at least 9 cells; a longer name is cut in its
// middle (row), keeping its version.
func attemptColumns(w, longest int) attemptCols {
	left := max(w-attemptFixed, 0)
	name := min(max(longest, 8), max(left-9, left*11/20, 8), 40)
	errw := min(left-name, 20)
	if errw < 6 { // too narrow to say anything: the name takes it
		name, errw = min(max(left, 8), max(longest, 8), 40), 0
	}
	return attemptCols{name, errw}
}

func (c attemptCols) row(layer, at, name, stat, errType, ra, waited, tokens, cost string) string {
	out := fmt.Sprintf("%-6s %-12s %s %5s ", layer, at, pad(truncMiddle(name, c.name), c.name), stat)
	if c.err > 0 {
		out += pad(errType, c.err) + " "
	}
	return out + fmt.Sprintf("%6s %7s %11s %9s", ra, waited, tokens, cost)
}

func clockMs(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return clock(ns) + fmt.Sprintf(".%03d", (ns/1e6)%1000)
}

func (p *detailPane) View() string {
	if !p.dirty && p.cache != "" {
		return p.cache
	}
	p.dirty = false
	end := min(len(p.lines), p.offset+p.height)
	start := min(p.offset, end)
	p.cache = fill(clip(strings.Join(p.lines[start:end], "\n"), max(p.width-1, 1), p.height), p.width, p.height) // a column of gap before the side pane
	return p.cache
}

// attemptNames lists the models and tools a job's attempts called, most
// called first, each with its count.
func attemptNames(as []correlate.AttemptView) string {
	count := map[string]int{}
	var names []string
	for _, a := range as {
		if count[a.Name] == 0 {
			names = append(names, a.Name)
		}
		count[a.Name]++
	}
	slices.SortStableFunc(names, func(a, b string) int { return count[b] - count[a] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", sanitize(n), count[n])
	}
	return strings.Join(parts, " · ")
}
