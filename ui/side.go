package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
)

// listPane is what the breakers and findings panes share: a titled list
// that scrolls on its own keys while it has the focus.
type listPane struct {
	st      *styles
	keys    *keyMap
	f       *engine.Frame
	focused bool
	offset  int
	width   int
	dirty   bool
}

func (p *listPane) SetFrame(f *engine.Frame) { p.f, p.dirty = f, true }
func (p *listPane) SetSize(w, _ int)         { p.width, p.dirty = w, true }

// ShortHelp: the side panes scroll.
func (p *listPane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Up, p.keys.Down, p.keys.Tab}
}

// Update scrolls the list.
func (p *listPane) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
	k := p.keys
	d := 0
	switch {
	case key.Matches(msg, k.Up):
		d = -1
	case key.Matches(msg, k.Down):
		d = 1
	case key.Matches(msg, k.PageUp):
		d = -10
	case key.Matches(msg, k.PageDown):
		d = 10
	case key.Matches(msg, k.Top):
		d = -1 << 30
	case key.Matches(msg, k.Bottom):
		d = 1 << 30
	default:
		return false, nil
	}
	p.offset = max(0, p.offset+d)
	p.dirty = true
	return true, nil
}

func (p *listPane) title(s string) string {
	if p.focused {
		return p.st.Title.Render(s)
	}
	return p.st.Bold.Render(s)
}

// scrolled is lines from the pane's offset (its title scrolls away too).
func (p *listPane) scrolled(lines []string) []string {
	p.offset = min(p.offset, max(len(lines)-1, 0))
	return lines[p.offset:]
}

func (p *listPane) sev(s correlate.Severity) string {
	switch s {
	case correlate.SeverityCritical:
		return p.st.Bad.Render("[CRIT]")
	case correlate.SeverityWarning:
		return p.st.Warn.Render("[WARN]")
	}
	return p.st.Dim.Render("[info]")
}

// breakersPane shows each endpoint's shadow breaker.
type breakersPane struct{ listPane }

func (p *breakersPane) lines() []string {
	w := max(p.width-2, 10)
	out := []string{p.title("Breakers")}
	if p.f == nil {
		return out
	}
	brs := p.f.Snap.Breakers
	if len(brs) == 0 {
		out = append(out, p.st.Dim.Render("  no calls yet"))
	}
	for _, b := range brs {
		st := p.st.Good
		switch b.State {
		case correlate.BreakerStateOpen:
			st = p.st.Bad
		case correlate.BreakerStateHalfOpen:
			st = p.st.Warn
		}
		rate := fmt.Sprintf("fail %3.0f%%", b.FailureRate*100)
		if b.State != correlate.BreakerStateClosed && (b.TripFailureRate > 0 || b.ReopenedByProbe) {
			// Its window starts over on a trip: show what opened it.
			rate = fmt.Sprintf("tripped at %3.0f%%", b.TripFailureRate*100)
			if b.ReopenedByProbe {
				rate = "probe failed"
			}
			if b.State == correlate.BreakerStateOpen && b.OpenUntilTS > p.f.Clock() {
				rate += ", half-open in " + shortDur(time.Duration(b.OpenUntilTS-p.f.Clock()))
			}
		}
		// The endpoint first, whole or cut in its middle (its model's
		// version is at the end): "…trips 1 cla…" said nothing.
		name := sanitize(b.Key)
		line := fmt.Sprintf(" %s %s  %s  %s · trips %d", st.Render("●"), name, b.State, rate, b.Trips)
		if lipglossWidth(line) <= w {
			out = append(out, line)
			continue
		}
		head := fmt.Sprintf(" %s %s  ", st.Render("●"), b.State)
		out = append(out, head+truncMiddle(name, w-lipglossWidth(head)), truncate(fmt.Sprintf("     %s · trips %d", rate, b.Trips), w))
	}
	return p.scrolled(out)
}

func (p *breakersPane) View() string { return strings.Join(p.lines(), "\n") }

// findingsPane shows findings and alerts, newest first.
type findingsPane struct{ listPane }

func (p *findingsPane) lines() []string {
	w := max(p.width-2, 10)
	out := []string{p.title("Findings & alerts")}
	if p.f == nil {
		return out
	}
	type item struct {
		at   int64 // log time, ns: the pane lists newest first
		text string
	}
	var items []item
	for _, a := range p.f.Alerts {
		items = append(items, item{a.At, truncate(fmt.Sprintf("%s %s %s", p.sev(a.Severity), clock(a.At), sanitize(a.Text)), w)})
	}
	fs := slices.Clone(p.f.Snap.Findings)
	slices.SortStableFunc(fs, func(a, b correlate.FindingReport) int { return strings.Compare(b.FirstAt, a.FirstAt) })
	for _, f := range fs {
		k, _ := correlate.ParseFindingKind(f.Kind)
		first, _ := time.Parse(time.RFC3339Nano, f.FirstAt)
		head := fmt.Sprintf("%s %s ×%d  %s", p.sev(f.Severity), f.Kind, f.Count, findingMoney(f, p.f.Snap.Unpriced))
		if lipglossWidth(head) > w {
			// The money is never cut: too long for one line, it has its own.
			head = fmt.Sprintf("%s %s ×%d\n    %s", p.sev(f.Severity), f.Kind, f.Count, findingMoney(f, p.f.Snap.Unpriced))
		}
		items = append(items, item{first.UnixNano(), fmt.Sprintf("%s\n    %s\n    %s", head, p.st.Dim.Render(truncate(sanitize(f.Example), w-4)), p.st.Tag.Render(truncate(correlate.Advice[k], w-4)))})
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(b.at, a.at) })
	if len(items) == 0 {
		out = append(out, p.st.Dim.Render("  none yet"))
	}
	for _, it := range items {
		out = append(out, strings.Split(it.text, "\n")...)
	}
	return p.scrolled(out)
}

func (p *findingsPane) View() string { return strings.Join(p.lines(), "\n") }

// sideColumn lays the breakers and findings panes out in one column: beside
// the table there is room for both, breakers first; under it (a narrow
// terminal) findings come first: they say what to do. It is layout only;
// the panes own their content and keys.
type sideColumn struct {
	breakers *breakersPane
	findings *findingsPane
	narrow   bool
	width    int
	height   int
	cache    string
}

func (c *sideColumn) SetSize(w, h int) {
	c.width, c.height = w, h
	c.breakers.SetSize(w, h)
	c.findings.SetSize(w, h)
}

func (c *sideColumn) View() string {
	if !c.breakers.dirty && !c.findings.dirty && c.cache != "" {
		return c.cache
	}
	c.breakers.dirty, c.findings.dirty = false, false
	first, second := c.breakers.lines(), c.findings.lines()
	firstName, secondName := "breakers", "findings"
	if c.narrow {
		first, second = second, first
		firstName, secondName = secondName, firstName
	}
	var lines []string
	switch {
	case len(first)+1+min(len(second), 3) <= c.height:
		// Both fit (the second at least by its title and two lines).
		lines = append(append(first, ""), second...)
	case c.breakers.focused && c.narrow, c.findings.focused && !c.narrow:
		// Only one fits: the one with the focus, saying how to reach
		// the other (a pane pushed off the screen kept the focus order).
		lines = withHint(second, firstName+" hidden: tab to reach", c.breakers.st)
	default:
		lines = withHint(first, secondName+" hidden: tab to reach", c.breakers.st)
	}
	c.cache = fill(clip(strings.Join(lines, "\n"), c.width, c.height), c.width, c.height)
	return c.cache
}

// withHint adds a dim hint to a pane's title line.
func withHint(lines []string, hint string, st *styles) []string {
	if len(lines) == 0 {
		return lines
	}
	out := slices.Clone(lines)
	out[0] += "  " + st.Dim.Render(hint)
	return out
}

func shortDur(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%.1fh", d.Hours())
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

// findingMoney says a finding's money in words: what the finding itself
// wasted, and what the jobs it touched wasted in all ("$0 own/$0.36 jobs"
// could not be decoded).
//
// With unpriced calls in the run both are floors ("≥"), never a "$0" that
// reads whole.
func findingMoney(f correlate.FindingReport, unpriced int64) string {
	ge := ""
	if unpriced > 0 {
		ge = "≥"
	}
	return "own " + ge + usd(f.WastedUSD) + " · in its jobs " + ge + usd(f.JobsWastedUSD)
}
