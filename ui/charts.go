package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/guptarohit/asciigraph"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
)

// chartsPane plots spend against the ceiling and calls per minute by
// class. Plots are made when a frame arrives, never in View.
type chartsPane struct {
	st     *styles
	snap   *correlate.Snapshot
	width  int
	height int
	cache  string
}

func (p *chartsPane) SetFrame(f *engine.Frame) { p.snap = f.Snap; p.plot() }
func (p *chartsPane) SetSize(w, h int)         { p.width, p.height = w, h; p.plot() }
func (p *chartsPane) ShortHelp() []key.Binding { return nil }

// Update: the charts take no keys.
func (p *chartsPane) Update(tea.KeyMsg) (bool, tea.Cmd) { return false, nil }

func (p *chartsPane) plot() {
	if p.height <= 0 || p.width <= 0 || p.snap == nil {
		p.cache = ""
		return
	}
	s := p.snap
	n := len(s.Timeline)
	ok, retry, term := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	prev := int64(0)
	for i, b := range s.Timeline {
		// Minutes with no calls are gaps in the map: plot them as zeros.
		for prev != 0 && i > 0 && b.Minute > prev+1 && len(ok) < correlate.SnapshotMinutes {
			ok, retry, term = append(ok, 0), append(retry, 0), append(term, 0)
			prev++
		}
		ok, retry, term = append(ok, float64(b.Success)), append(retry, float64(b.Retryable)), append(term, float64(b.Terminal))
		prev = b.Minute
	}
	// Spend against the ceiling covers the whole run (correlate folds it
	// into at most SpendCurvePoints steps): the chart's last point is the
	// header's spend, never a two-hour window of it.
	spend := make([]float64, len(s.SpendCurve))
	for i, v := range s.SpendCurve {
		spend[i] = v.USD()
	}
	if len(spend) < 2 || len(ok) < 2 {
		p.cache = p.st.Dim.Render("charts appear after two minutes of log time")
		return
	}
	half := max(p.width/2-12, 10)
	h := max(p.height-2, 3)
	// Pin the bounds so the axes do not jump between frames.
	spendOpts := []asciigraph.Option{asciigraph.Height(h), asciigraph.Width(half), asciigraph.Precision(2), asciigraph.LowerBound(0),
		asciigraph.Caption(fmt.Sprintf("spend over the run, USD (ceiling dashed; %s per column)", stepLabel(s.SpendCurveStep)))}
	series := [][]float64{spend}
	if s.CeilingUSD > 0 {
		series = append(series, flat(s.CeilingUSD, len(spend)))
		spendOpts = append(spendOpts, asciigraph.UpperBound(max(s.CeilingUSD*1.05, spend[len(spend)-1])))
	}
	callOpts := []asciigraph.Option{asciigraph.Height(h), asciigraph.Width(half), asciigraph.Precision(0), asciigraph.LowerBound(0),
		asciigraph.Caption("calls/min: ok · retryable · terminal")}
	if !p.st.plain {
		spendOpts = append(spendOpts, asciigraph.SeriesColors(asciigraph.Green, asciigraph.Red))
		callOpts = append(callOpts, asciigraph.SeriesColors(asciigraph.Green, asciigraph.Yellow, asciigraph.Red))
	}
	left := asciigraph.PlotMany(series, spendOpts...)
	right := asciigraph.PlotMany([][]float64{ok, retry, term}, callOpts...)
	p.cache = fill(clip(lipgloss.JoinHorizontal(lipgloss.Top, left, "  ", right), p.width, p.height), p.width, p.height)
}

func stepLabel(minutes int64) string {
	if minutes <= 1 {
		return "1 min"
	}
	if minutes%60 == 0 {
		return fmt.Sprintf("%d h", minutes/60)
	}
	return fmt.Sprintf("%d min", minutes)
}

func flat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func (p *chartsPane) View() string { return strings.TrimRight(p.cache, "\n") }
