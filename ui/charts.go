package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

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
	// header's spend, never a two-hour window of it. The run starts at $0:
	// the axis of a cumulative spend starts there too.
	spend := make([]float64, 0, len(s.SpendCurve)+1)
	spend = append(spend, 0)
	for _, v := range s.SpendCurve {
		spend = append(spend, v.USD())
	}
	if len(spend) < 2 || len(ok) < 2 {
		p.cache = p.st.Dim.Render("charts appear after two minutes of log time")
		return
	}
	half := max(p.width/2-12, 10)
	h := max(p.height-2, 3)
	// Never stretched: a series is drawn one point per column, or folded
	// into the pane's columns, and the caption says what a column is
	// (stretched, a 25-minute batch filled 68 columns under "1 min per
	// column").
	step := max(s.SpendCurveStep, 1)
	spend, spendPer := fold(spend[1:], half-1, step, lastOf)
	spend = append([]float64{0}, spend...)
	spendOpts := []asciigraph.Option{asciigraph.Height(h), asciigraph.Precision(2), asciigraph.LowerBound(0)}
	caption := "cumulative spend, USD, " + perColumn(spendPer)
	ceilRow := -1
	if c := s.CeilingUSD; c > 0 {
		// The ceiling is a row of its own, at its value: the upper bound
		// is chosen so that c falls exactly on a row (1.05×c put it at a
		// label of 5.25 for a $5.00 ceiling).
		top := slices.Max(spend)
		upper, k := c, h
		if top > c {
			k = int(math.Floor(c * float64(h) / top))
			if k >= 1 {
				upper = c * float64(h) / float64(k)
			} else {
				upper = top
			}
		}
		if k >= 1 {
			ceilRow = h - k
		}
		spendOpts = append(spendOpts, asciigraph.UpperBound(upper))
		caption += fmt.Sprintf("; ╌ ceiling %s", usd(c))
	}
	spendOpts = append(spendOpts, asciigraph.Caption(fitCaption(caption, "USD; "+perColumnShort(spendPer)+ceilShort(s.CeilingUSD), (p.width-2)/2-8)))
	okF, callsPer := fold(ok, half, 1, meanOf)
	retryF, _ := fold(retry, half, 1, meanOf)
	termF, _ := fold(term, half, 1, meanOf)
	callOpts := []asciigraph.Option{asciigraph.Height(h), asciigraph.Precision(0), asciigraph.LowerBound(0),
		asciigraph.Caption(fitCaption("calls/min: ok · retryable · terminal, "+perColumn(callsPer), "calls/min ok·retry·term; "+perColumnShort(callsPer), (p.width-2)/2-8))}
	if !p.st.plain {
		spendOpts = append(spendOpts, asciigraph.SeriesColors(asciigraph.Green))
		callOpts = append(callOpts, asciigraph.SeriesColors(asciigraph.Green, asciigraph.Yellow, asciigraph.Red))
	}
	left := asciigraph.PlotMany([][]float64{spend}, spendOpts...)
	if ceilRow >= 0 {
		left = dashRow(left, ceilRow, len(spend)-1, p.st)
	}
	right := asciigraph.PlotMany([][]float64{okF, retryF, termF}, callOpts...)
	p.cache = fill(clip(lipgloss.JoinHorizontal(lipgloss.Top, left, "  ", right), p.width, p.height), p.width, p.height)
}

// perColumn says what one column of a chart is.
func perColumn(minutes float64) string {
	switch {
	case minutes == math.Trunc(minutes) && minutes < 120:
		return fmt.Sprintf("%.0f min per column", minutes)
	case minutes < 120:
		return fmt.Sprintf("%.1f min per column", minutes)
	}
	return fmt.Sprintf("%.1f h per column", minutes/60)
}

// perColumnShort is perColumn in few cells.
func perColumnShort(minutes float64) string {
	return strings.Replace(strings.Replace(perColumn(minutes), " per column", "/col", 1), " min", "m", 1)
}

func ceilShort(c float64) string {
	if c <= 0 {
		return ""
	}
	return "; ╌ " + usd(c)
}

// fitCaption is the long caption when it fits in w cells, else the short
// one: a caption cut at the pane's edge lost what a column is.
func fitCaption(long, short string, w int) string {
	if lipglossWidth(long) <= w {
		return long
	}
	return short
}

func lastOf(xs []float64) float64 { return xs[len(xs)-1] }

func meanOf(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// fold maps points of step minutes each onto at most cols columns: one
// point per column when they fit, else each column takes agg of the
// points it spans. It returns the columns and the minutes one column is.
func fold(xs []float64, cols int, step int64, agg func([]float64) float64) ([]float64, float64) {
	cols = max(cols, 1)
	if len(xs) <= cols {
		return xs, float64(step)
	}
	out := make([]float64, cols)
	for i := range out {
		lo, hi := i*len(xs)/cols, (i+1)*len(xs)/cols
		out[i] = agg(xs[lo:max(hi, lo+1)])
	}
	return out, float64(len(xs)) * float64(step) / float64(cols)
}

// dashRow draws the ceiling as a dashed line on row r of a plot: the
// plot's empty cells right of the axis, cols of them, become ╌, what the
// series drew stays. Escape sequences (colours) are copied as they are.
func dashRow(plot string, r, cols int, st *styles) string {
	lines := strings.Split(plot, "\n")
	if r < 0 || r >= len(lines) {
		return plot
	}
	var b strings.Builder
	l := lines[r]
	axis, n := false, 0
	for i := 0; i < len(l); {
		if l[i] == 0x1b { // copy an escape sequence to its final byte
			j := i + 1
			if j < len(l) && l[j] == '[' {
				j++
				for j < len(l) && (l[j] < 0x40 || l[j] > 0x7e) {
					j++
				}
			}
			j = min(j+1, len(l))
			b.WriteString(l[i:j])
			i = j
			continue
		}
		ch, size := utf8.DecodeRuneInString(l[i:])
		switch {
		case !axis && (ch == '┤' || ch == '┼'):
			axis = true
			b.WriteRune(ch)
		case axis && ch == ' ':
			b.WriteString(st.Bad.Render("╌"))
			n++
		default:
			b.WriteRune(ch)
			if axis {
				n++
			}
		}
		i += size
	}
	if axis && n < cols {
		// asciigraph trims a line's trailing blanks: the dashes go on.
		b.WriteString(st.Bad.Render(strings.Repeat("╌", cols-n)))
	}
	lines[r] = b.String()
	return strings.Join(lines, "\n")
}

func (p *chartsPane) View() string { return strings.TrimRight(p.cache, "\n") }
