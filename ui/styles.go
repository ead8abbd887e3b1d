package ui

import (
	"os"

	"github.com/charmbracelet/lipgloss"
)

// styles are built once from a theme; View never creates styles.
type styles struct {
	Title, Dim, Bold, Good, Warn, Bad, Selected, Header, Border, Dialog, Tag lipgloss.Style
	BarFull, BarEmpty                                                        lipgloss.Style
	plain                                                                    bool
}

type theme struct {
	accent, good, warn, bad, dim, selBg lipgloss.TerminalColor
}

var defaultTheme = theme{
	accent: lipgloss.Color("39"), good: lipgloss.Color("42"), warn: lipgloss.Color("214"),
	bad: lipgloss.Color("196"), dim: lipgloss.Color("245"), selBg: lipgloss.Color("237"),
}

// newStyles honours NO_COLOR (https://no-color.org): no colour at all, and
// emphasis by text attributes only.
func newStyles(t theme) styles {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return plainStyles()
	}
	s := styles{
		Title:    lipgloss.NewStyle().Bold(true).Foreground(t.accent),
		Dim:      lipgloss.NewStyle().Foreground(t.dim),
		Bold:     lipgloss.NewStyle().Bold(true),
		Good:     lipgloss.NewStyle().Foreground(t.good),
		Warn:     lipgloss.NewStyle().Foreground(t.warn).Bold(true),
		Bad:      lipgloss.NewStyle().Foreground(t.bad).Bold(true),
		Selected: lipgloss.NewStyle().Background(t.selBg).Bold(true),
		Header:   lipgloss.NewStyle().Bold(true).Underline(true),
		Border:   lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.dim),
		Dialog:   lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(t.bad).Padding(1, 2),
		Tag:      lipgloss.NewStyle().Foreground(t.accent),
		BarFull:  lipgloss.NewStyle().Foreground(t.good),
		BarEmpty: lipgloss.NewStyle().Foreground(t.dim),
	}
	return s
}

func plainStyles() styles {
	n := lipgloss.NewStyle()
	return styles{Title: n.Bold(true), Dim: n, Bold: n.Bold(true), Good: n, Warn: n.Bold(true), Bad: n.Bold(true),
		Selected: n.Reverse(true), Header: n.Underline(true), Border: n.Border(lipgloss.NormalBorder()),
		Dialog: n.Border(lipgloss.DoubleBorder()).Padding(1, 2), Tag: n, BarFull: n, BarEmpty: n, plain: true}
}
