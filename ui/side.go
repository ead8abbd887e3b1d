package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/charmbracelet/bubbles/key"
)

// sidePane shows the breakers, then findings and alerts, newest first.
type sidePane struct {
	st     *styles
	keys   *keyMap
	f      *engine.Frame
	focus  paneID
	narrow bool // under the jobs table rather than beside it
	offset int
	width  int
	height int
	cache  string
	dirty  bool
}

func (p *sidePane) SetFrame(f *engine.Frame) { p.f, p.dirty = f, true }
func (p *sidePane) SetSize(w, h int)         { p.width, p.height, p.dirty = w, h, true }

// ShortHelp: the side panes scroll.
func (p *sidePane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Up, p.keys.Down, p.keys.Tab}
}
func (p *sidePane) scroll(d int) { p.offset = max(0, p.offset+d); p.dirty = true }

func (p *sidePane) View() string {
	if !p.dirty && p.cache != "" {
		return p.cache
	}
	p.dirty = false
	var lines []string
	title := func(s string, id paneID) string {
		if p.focus == id {
			return p.st.Title.Render(s)
		}
		return p.st.Bold.Render(s)
	}
	w := max(p.width-2, 10)
	var breakers, findings []string
	breakers = append(breakers, title("Breakers", paneBreakers))
	if p.f != nil {
		brs := p.f.Snap.Breakers
		if len(brs) == 0 {
			breakers = append(breakers, p.st.Dim.Render("  no calls yet"))
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
				if b.State == correlate.BreakerStateOpen && b.OpenUntilTS > p.f.Snap.Now {
					rate += ", half-open in " + shortDur(time.Duration(b.OpenUntilTS-p.f.Snap.Now))
				}
			}
			breakers = append(breakers, truncate(fmt.Sprintf(" %s %-9s %s trips %d  %s", st.Render("●"), b.State, rate, b.Trips, sanitize(b.Key)), w))
		}
	}
	findings = append(findings, title("Findings & alerts", paneFindings))
	if p.f != nil {
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
			items = append(items, item{first.UnixNano(), fmt.Sprintf("%s %s ×%d %s wasted\n    %s\n    %s", p.sev(f.Severity), f.Kind, f.Count,
				usd(f.WastedUSD), p.st.Dim.Render(truncate(sanitize(f.Example), w-4)), p.st.Tag.Render(truncate(correlate.Advice[k], w-4)))})
		}
		slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(b.at, a.at) })
		if len(items) == 0 {
			findings = append(findings, p.st.Dim.Render("  none yet"))
		}
		for _, it := range items {
			findings = append(findings, strings.Split(it.text, "\n")...)
		}
	}
	// Beside the table there is room for both; under it (a narrow
	// terminal) findings come first: they say what to do.
	if p.narrow {
		lines = append(append(findings, ""), breakers...)
	} else {
		lines = append(append(breakers, ""), findings...)
	}
	start := min(p.offset, max(len(lines)-1, 0))
	p.cache = fill(clip(strings.Join(lines[start:], "\n"), p.width, p.height), p.width, p.height)
	return p.cache
}

func (p *sidePane) sev(s correlate.Severity) string {
	switch s {
	case correlate.SeverityCritical:
		return p.st.Bad.Render("[CRIT]")
	case correlate.SeverityWarning:
		return p.st.Warn.Render("[WARN]")
	}
	return p.st.Dim.Render("[info]")
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
