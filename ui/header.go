package ui

import (
	"fmt"
	"strings"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// headerPane is the at-a-glance line set: spend against the ceiling, burn,
// projection, rates, log clock and source status.
type headerPane struct {
	st    *styles
	title string
	note  string // said of the kill hook (the demo's in-process receiver)
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
	if h.f.Final {
		mode = "END" // the input ended: these are the run's final figures
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
	// Each line is parts in order of urgency; a narrow terminal shortens
	// the last parts first, then drops them from the end (fitLine).
	clockPart := hpart{"log clock " + clock(h.f.Clock()), clock(h.f.Clock())}
	line1 := []hpart{{st.Title.Render("burnrate") + " " + st.Dim.Render(h.title), st.Title.Render("burnrate")},
		{st.Tag.Render("● " + mode), st.Tag.Render("● " + mode)}, clockPart}
	if q := h.f.QuietFor; q > 0 {
		// The log clock stopped with the last line; the clock shown runs
		// on, and the reader must know nothing has arrived.
		line1 = append(line1, hpart{st.Warn.Render("input quiet " + shortDur(q)), st.Warn.Render("quiet " + shortDur(q))})
	}
	if h.f.JournalProblem != "" {
		// Kills may be sent again after a restart: ahead of everything.
		line1 = append(line1, hpart{st.Bad.Render("✗ " + sanitize(h.f.JournalProblem)), st.Bad.Render("✗ journal")})
	}
	if sp := h.f.Spool; sp != nil && sp.Problem != "" {
		// Events applied but not spooled: a restart would not have them.
		line1 = append(line1, hpart{st.Bad.Render("✗ spool: " + sanitize(sp.Problem)), st.Bad.Render("✗ spool")})
	}
	if len(problems) > 0 {
		// A source in trouble is the first thing to see after the journal.
		line1 = append(line1, hpart{st.Bad.Render(fmt.Sprintf("✗ %d source problem(s): %s", len(problems), sanitize(problems[0]))),
			st.Bad.Render(fmt.Sprintf("✗ %d source problem(s)", len(problems)))})
	}
	if h.f.RunChurn != "" {
		line1 = append(line1, hpart{st.Warn.Render("run IDs churn: routed by --run-window"), st.Warn.Render("run ID churn")})
	}
	if h.f.RunSpan != "" {
		line1 = append(line1, hpart{st.Warn.Render("one run for days: set --run-window"), st.Warn.Render("run > 1 day")})
	}
	if badge, short, bad := assumptionBadge(s.Findings); badge != "" {
		// A premise of the run broke or moved (seed 003): said while the
		// finding is open, ahead of the run's name.
		style := st.Warn
		if bad {
			style = st.Bad
		}
		line1 = append(line1, hpart{style.Render(badge), style.Render(short)})
	}
	if len(missing) > 0 {
		line1 = append(line1, hpart{st.Warn.Render("waiting for " + sanitize(strings.Join(missing, ", "))),
			st.Warn.Render(fmt.Sprintf("waiting for %d file(s)", len(missing)))})
	}
	// After the problems, ahead of the run's name: where kills go.
	if h.note != "" {
		line1 = append(line1, hpart{st.Warn.Render(sanitize(h.note)), st.Warn.Render("kills: in-process")})
	}
	if h.f.RunID != "" {
		// A daemon sees one run per night: say which one the numbers are.
		run := "run " + sanitize(h.f.RunID)
		long := run
		if p := h.f.PreviousRun; p != nil {
			long += fmt.Sprintf(" (%d runs; before: %s spent %s)", h.f.Runs, sanitize(p.RunID), usd(p.SpendUSD))
		}
		line1 = append(line1, hpart{st.Bold.Render(long), st.Bold.Render(run)})
	}
	line1 = append(line1, hpart{fmt.Sprintf("sources %d, %d lines skipped", files, skipped), fmt.Sprintf("%d src, %d skipped", files, skipped)})

	spend := s.Spend.USD()
	// With unpriced calls every sum below is a floor: "≥", never a figure
	// that reads whole (the jobs table says how many of a job's calls).
	ge, unpricedNote := "", ""
	if s.Unpriced > 0 {
		ge, unpricedNote = "≥", fmt.Sprintf(" (%d calls unpriced)", s.Unpriced)
	}
	var line2 []hpart
	if s.CeilingUSD > 0 {
		frac := spend / s.CeilingUSD
		line2 = append(line2, hpart{fmt.Sprintf("spend %s / %s %s %3.0f%%%s", st.Bold.Render(ge+usd(spend)), usd(s.CeilingUSD), bar(frac, 20, st), frac*100, unpricedNote),
			fmt.Sprintf("spend %s / %s %3.0f%%", st.Bold.Render(ge+usd(spend)), usd(s.CeilingUSD), frac*100)})
		switch {
		case spend >= s.CeilingUSD:
			line2 = append(line2, hpart{st.Bad.Render("over by " + usd(spend-s.CeilingUSD)), st.Bad.Render("over")})
		case h.f.Final:
			// Nothing more will be spent: no countdown to a ceiling the
			// run can no longer reach.
			line2 = append(line2, hpart{"ended " + usd(s.CeilingUSD-spend) + " under the ceiling", "under by " + usd(s.CeilingUSD-spend)})
		case s.MinutesToCeil >= 0:
			in := "ceiling in " + minutes(s.MinutesToCeil)
			if s.BurnWarming1 {
				in += " (at the rate so far)"
			}
			line2 = append(line2, hpart{in, "ceiling in " + minutes(s.MinutesToCeil)})
		}
	} else {
		line2 = append(line2, hpart{fmt.Sprintf("spend %s%s %s", st.Bold.Render(ge+usd(spend)), unpricedNote, st.Dim.Render("(no ceiling: --ceiling USD)")),
			"spend " + st.Bold.Render(ge+usd(spend))})
	}
	line2 = append(line2, hpart{"wasted " + st.Bad.Render(ge+usd(s.Wasted.USD())), "wasted " + st.Bad.Render(ge+usd(s.Wasted.USD()))})
	// Model and tool calls fail apart: 40,700 tool 400s under 0% model
	// errors is the poisoned-record night, and must show.
	window := func(name string, warming bool) (long, short string) {
		if warming {
			return "(" + name + ", warming up)", "(" + name + " so far)"
		}
		return "(" + name + ")", "(" + name + ")"
	}
	l1, s1 := window("1m", s.BurnWarming1)
	l5, s5 := window("5m", s.BurnWarming5)
	line3 := []hpart{
		{fmt.Sprintf("burn %s/min %s", ge+usd(s.BurnPerMin1), l1), fmt.Sprintf("burn %s/min %s", ge+usd(s.BurnPerMin1), s1)},
		{fmt.Sprintf("errors: model %s tool %s (5m)", errShare(s.ErrorShare, st), errShare(s.ToolErrorShare, st)),
			fmt.Sprintf("err %s/%s", errShare(s.ErrorShare, st), errShare(s.ToolErrorShare, st))},
		{fmt.Sprintf("%s/min %s", ge+usd(s.BurnPerMin5), l5), fmt.Sprintf("%s/min %s", ge+usd(s.BurnPerMin5), s5)},
	}
	if s.ProjectedUSD > spend && !h.f.Final {
		// A projection is the spend plus the open jobs at the mean cost of
		// finished ones; with no job finished (or none open) there is
		// nothing to project, and "projected run" equal to the spend so
		// far would pretend otherwise.
		line3 = append(line3, hpart{"projected run " + usd(s.ProjectedUSD), "proj " + usd(s.ProjectedUSD)})
	}
	line3 = append(line3,
		hpart{fmt.Sprintf("%.1f attempts/s", s.AttemptsPerSec), fmt.Sprintf("%.1f/s", s.AttemptsPerSec)},
		hpart{fmt.Sprintf("calls %d", s.Attempts), ""},
		hpart{fmt.Sprintf("jobs %d", s.JobCount), ""})
	if h.f.Final {
		// The run is over: its final figures, not the rates of its last
		// minutes.
		what := "input ended"
		if h.f.Replay != nil {
			what = "run ended"
		}
		line3 = []hpart{
			{st.Tag.Render(what) + ": final figures", st.Tag.Render(what)},
			{fmt.Sprintf("calls %d", s.Attempts), fmt.Sprintf("%d calls", s.Attempts)},
			{fmt.Sprintf("jobs %d", s.JobCount), fmt.Sprintf("%d jobs", s.JobCount)},
			{fmt.Sprintf("errors: model %s tool %s (last 5m)", errShare(s.ErrorShare, st), errShare(s.ToolErrorShare, st)), ""},
		}
	}
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
	h.cache = clip(strings.Join([]string{fitLine(h.width, line1), fitLine(h.width, line2), fitLine(h.width, line3), line4}, "\n"), h.width, 4)
	return h.cache
}

// assumptionBadge is the header's word on the assumptions log: the open
// assumption_* and default_changed_upstream findings by kind, most urgent
// first; bad when one is critical (a declaration the traffic broke).
func assumptionBadge(fs []correlate.FindingReport) (long, short string, bad bool) {
	var parts []string
	n := 0
	for _, k := range []struct {
		kind correlate.FindingKind
		word string
	}{{correlate.AssumptionViolated, "violated"}, {correlate.AssumptionChanged, "changed"}, {correlate.DefaultChangedUpstream, "default changed upstream"}, {correlate.AssumptionMissing, "undeclared"}} {
		for _, f := range fs {
			if f.Kind != k.kind.String() || f.Count == 0 || f.Ambiguous {
				// An ambiguous row convicts no one: the side panel lists
				// it, the header's warning does not count it.
				continue
			}
			parts = append(parts, fmt.Sprintf("%d %s", f.Count, k.word))
			n += int(f.Count)
			bad = bad || f.Severity == correlate.SeverityCritical
		}
	}
	if n == 0 {
		return "", "", false
	}
	return "⚠ assumptions: " + strings.Join(parts, ", ") + " (report --format md)", fmt.Sprintf("⚠ %d assumption(s)", n), bad
}

// hpart is one part of a header line, long and short ("" to drop it
// rather than shorten it).
type hpart struct{ long, short string }

// fitLine joins parts into at most w cells: all long when they fit; else
// the parts from the end are shortened one by one, then dropped from the
// end (never the first); what is left is cut at w.
func fitLine(w int, parts []hpart) string {
	cur := make([]string, len(parts))
	for i, p := range parts {
		cur[i] = p.long
	}
	join := func() string {
		var b strings.Builder
		for _, c := range cur {
			if c == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
		}
		return b.String()
	}
	line := join()
	for i := len(parts) - 1; i >= 0 && lipglossWidth(line) > w; i-- {
		cur[i] = parts[i].short
		line = join()
	}
	for i := len(parts) - 1; i > 0 && lipglossWidth(line) > w; i-- {
		cur[i] = ""
		line = join()
	}
	return line
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
	switch {
	case m >= 120:
		return fmt.Sprintf("%.1fh", m/60)
	case m < 1:
		// Under a minute, seconds: "ceiling in 0m" at 93% said nothing.
		return fmt.Sprintf("%.0fs", m*60)
	}
	return fmt.Sprintf("%.0fm", m)
}
