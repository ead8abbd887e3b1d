package ui

import (
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/engine"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// headerPane is the at-a-glance line set: spend against the ceiling, burn,
// projection, rates, log clock and source status.
type headerPane struct {
	st    *styles
	title string
	width int
	f     *engine.Frame
	cache string
	dirty bool
}

func (h *headerPane) SetFrame(f *engine.Frame) { h.f, h.dirty = f, true }
func (h *headerPane) SetSize(w, _ int)         { h.width, h.dirty = w, true }
func (h *headerPane) ShortHelp() []key.Binding { return nil }

func (h *headerPane) heightFor(int) int { return 4 }

// Update: the header takes no keys.
func (h *headerPane) Update(tea.KeyMsg) (bool, tea.Cmd) { return false, nil }

func (h *headerPane) View() string {
	if !h.dirty && h.cache != "" {
		return h.cache
	}
	h.dirty = false
	st := h.st
	if h.f == nil {
		h.cache = clip(st.Title.Render("burnrate")+"  waiting for events…\n\n\n", h.width, 4)
		return h.cache
	}
	s := h.f.Snap
	mode := "LIVE"
	if h.f.Replay != nil {
		mode = "REPLAY"
		if h.f.Replay.Paused {
			mode = "PAUSED"
		}
	}
	if h.f.Final && h.f.Replay != nil {
		mode = "END"
	}
	var files, skipped int64
	var missing, problems []string
	for _, src := range h.f.Sources {
		files++
		skipped += src.Stats.SkippedTotal()
		if src.Missing {
			missing = append(missing, src.Name)
		}
		if src.Err != "" {
			problems = append(problems, src.Name+": "+src.Err)
		} else if src.Warn != "" {
			problems = append(problems, src.Name+": "+src.Warn)
		}
	}
	line1 := fmt.Sprintf("%s %s  %s  log clock %s   sources %d, %d lines skipped",
		st.Title.Render("burnrate"), st.Dim.Render(h.title), st.Tag.Render("● "+mode), clock(s.Now), files, skipped)
	if h.f.RunID != "" {
		// A daemon sees one run per night: say which one the numbers are.
		run := "  run " + sanitize(h.f.RunID)
		if p := h.f.PreviousRun; p != nil {
			run += fmt.Sprintf(" (%d runs; before: %s spent %s)", h.f.Runs, sanitize(p.RunID), usd(p.SpendUSD))
		}
		line1 += st.Bold.Render(run)
	}
	if len(missing) > 0 {
		line1 += st.Warn.Render("  waiting for " + sanitize(strings.Join(missing, ", ")))
	}
	if h.f.JournalProblem != "" {
		// Kills may be sent again after a restart: ahead of everything.
		line1 += st.Bad.Render("  ✗ " + sanitize(h.f.JournalProblem))
	}
	if len(problems) > 0 {
		// A source in trouble is the first thing to see: ahead of the rest.
		line1 += st.Bad.Render(fmt.Sprintf("  ✗ %d source problem(s): %s", len(problems), sanitize(problems[0])))
	}

	spend := s.Spend.USD()
	var line2 string
	if s.CeilingUSD > 0 {
		frac := spend / s.CeilingUSD
		line2 = fmt.Sprintf("spend %s / %s %s %3.0f%%", st.Bold.Render(usd(spend)), usd(s.CeilingUSD), bar(frac, 20, st), frac*100)
		switch {
		case spend >= s.CeilingUSD:
			line2 += st.Bad.Render("  over by " + usd(spend-s.CeilingUSD))
		case s.MinutesToCeil >= 0:
			line2 += fmt.Sprintf("  ceiling in %s", minutes(s.MinutesToCeil))
		}
	} else {
		line2 = fmt.Sprintf("spend %s %s", st.Bold.Render(usd(spend)), st.Dim.Render("(no ceiling: --ceiling USD)"))
	}
	line2 += fmt.Sprintf("  wasted %s", st.Bad.Render(usd(s.Wasted.USD())))
	// Most urgent first: a narrow terminal cuts the end of the line.
	// Model and tool calls fail apart: 40,700 tool 400s under 0% model
	// errors is the poisoned-record night, and must show.
	line3 := fmt.Sprintf("burn %s/min (1m)  errors: model %s tool %s (5m)  %s/min (5m)  projected run %s  %.1f attempts/s  calls %d  jobs %d",
		usd(s.BurnPerMin1), errShare(s.ErrorShare, st), errShare(s.ToolErrorShare, st), usd(s.BurnPerMin5), usd(s.ProjectedUSD), s.AttemptsPerSec, s.Attempts, s.JobCount)
	line4 := ""
	if r := h.f.Replay; r != nil {
		speed := "max"
		if r.Speed > 0 {
			speed = fmt.Sprintf("%gx", r.Speed)
		}
		if r.Total > 0 {
			line4 = fmt.Sprintf("replay %s %3.0f%%  %d/%d events  speed %s", bar(float64(r.Pos)/float64(r.Total), 30, st), 100*float64(r.Pos)/float64(r.Total), r.Pos, r.Total, speed)
		} else {
			// Streamed: the count of all events is known once the input
			// has been read; until then, how much of it has been.
			line4 = fmt.Sprintf("replay %s %3.0f%% of the input  %d events  speed %s", bar(r.Fraction, 30, st), 100*r.Fraction, r.Pos, speed)
		}
		if r.Compressed > 0 {
			line4 += fmt.Sprintf("  %d long gap(s) of log time played as 5s", r.Compressed)
		}
	}
	h.cache = clip(strings.Join([]string{line1, line2, line3, line4}, "\n"), h.width, 4)
	return h.cache
}

func errShare(v float64, st *styles) string {
	txt := fmt.Sprintf("%.0f%%", v*100)
	switch {
	case v >= 0.5:
		return st.Bad.Render(txt)
	case v >= 0.1:
		return st.Warn.Render(txt)
	}
	return st.Good.Render(txt)
}

func minutes(m float64) string {
	if m >= 120 {
		return fmt.Sprintf("%.1fh", m/60)
	}
	return fmt.Sprintf("%.0fm", m)
}
