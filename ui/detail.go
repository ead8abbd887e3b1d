package ui

import (
	"fmt"
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
	st     *styles
	keys   *keyMap
	jobID  string
	d      *correlate.JobDetail
	now    int64
	lines  []string
	offset int
	width  int
	height int
	cache  string
	dirty  bool
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
func (p *detailPane) SetFrame(f *engine.Frame) { p.setDetail(f.Snap.Detail, f.Snap.Now) }

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
	add(p.st.Title.Render(fmt.Sprintf("Job %s", sanitize(r.ID))) + p.st.Dim.Render("  esc back · x kill"))
	cache := ""
	if p.d.CacheShare >= 0 {
		cache = fmt.Sprintf(" · cache %.0f%% of input", p.d.CacheShare*100)
	}
	add(fmt.Sprintf("type %s · %s · %d calls · %d tool calls · layers %s (×%d) · spend %s · wasted %s · %d duplicates%s",
		sanitize(r.Type), r.Outcome, r.Calls, r.ToolCalls, r.LayersText(), r.Amp, usd(r.Spend.USD()), usd(r.Wasted.USD()), r.Duplicates, cache))
	for _, k := range p.d.Findings {
		add(p.st.Warn.Render("▲ "+k.String()) + " " + p.st.Dim.Render(truncate(correlate.Advice[k], max(p.width-30, 10))))
	}
	if len(p.d.CallsPerMinute) > 1 {
		plot := asciigraph.Plot(p.d.CallsPerMinute, asciigraph.Height(4), asciigraph.Width(min(max(p.width-12, 10), 60)),
			asciigraph.Precision(0), asciigraph.Caption("calls per minute"), asciigraph.LowerBound(0))
		p.lines = append(p.lines, strings.Split(plot, "\n")...)
	}
	add(p.st.Header.Render(fmt.Sprintf("%-6s %-12s %-22s %5s %-20s %7s %7s %11s %9s", "LAYER", "TIME", "MODEL/TOOL", "STAT", "ERROR", "RA", "WAITED", "TOKENS i/o", "COST")))
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
		line := fmt.Sprintf("%-6s %-12s %-22s %5s %-20s %7s %7s %11s %9s", layer, clockMs(a.TS), truncate(sanitize(a.Name), 22),
			status(a.Status), truncate(sanitize(a.ErrType), 20), ra, waited, fmt.Sprintf("%d/%d", a.InputTokens, a.OutputTokens), usd(a.Cost.USD()))
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
