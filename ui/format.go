package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
)

// sanitize makes control characters and escape sequences visible text
// (display.Text): log content is cleaned at ingest, and again here,
// before it can reach the terminal.
func sanitize(s string) string { return display.Text(s) }

// lipglossWidth is the number of terminal cells s takes.
func lipglossWidth(s string) int { return ansi.StringWidth(s) }

// truncate cuts s to w cells, marking the cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// truncMiddle cuts plain text to w cells in its middle, keeping the
// distinguishing end whole: IDs and model names differ at the end
// ("…claude-sonnet-4-6", "job-…-00042"), never cut there.
func truncMiddle(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	if w <= 1 {
		return truncate(s, w)
	}
	head := (w - 1) / 3
	tail := w - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, n-tail, "")
}

// pad truncates or right-pads plain text to exactly w cells.
func pad(s string, w int) string {
	s = truncate(s, w)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft right-aligns plain text in w cells.
func padLeft(s string, w int) string {
	s = truncate(s, w)
	if n := ansi.StringWidth(s); n < w {
		s = strings.Repeat(" ", w-n) + s
	}
	return s
}

// clip cuts a rendered block to w×h so a resize never wraps lines.
func clip(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return "" // a pane given no room shows nothing (never slices [:-1])
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// usd formats dollars as the report does.
func usd(v float64) string { return correlate.USD(v) }

// spendAtLeast is a job row's spend, "≥$x" when some of its calls are
// unpriced (the detail says how many): a floor never reads whole.
func spendAtLeast(r *correlate.JobRow) string {
	if r.Unpriced > 0 {
		return "≥" + usd(r.Spend.USD())
	}
	return usd(r.Spend.USD())
}

func clock(ns int64) string {
	if ns == 0 {
		return "--:--:--"
	}
	return time.Unix(0, ns).UTC().Format("15:04:05")
}

func age(now, then int64) string {
	if then == 0 || now < then {
		return "-"
	}
	d := time.Duration(now - then)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh", int(d.Hours()))
}

func status(s int16) string {
	if s < 0 {
		return "?"
	}
	if s == 0 {
		return "conn"
	}
	return fmt.Sprint(s)
}

// bar draws a w-cell gauge of frac (0..1).
func bar(frac float64, w int, st *styles) string {
	frac = math.Max(0, math.Min(frac, 1))
	full := int(math.Round(frac * float64(w)))
	style := st.BarFull
	switch {
	case frac >= 0.9:
		style = st.Bad
	case frac >= 0.7:
		style = st.Warn
	}
	return style.Render(strings.Repeat("█", full)) + st.BarEmpty.Render(strings.Repeat("░", w-full))
}
