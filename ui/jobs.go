package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

type sortKey int

const (
	bySpend sortKey = iota
	byCalls
	byAmplification
	byRecent
	numSortKeys
)

var sortNames = [numSortKeys]string{"spend", "calls", "amplification", "recent"}

var stateFilters = []string{"", "active", "running", "queued", "succeeded", "failed", "dead_lettered", "findings"}

// jobsPane is the jobs table. It filters and sorts indexes when data or
// settings change (in Update) and formats only the visible rows (in View),
// so 100,000 jobs cost the same to draw as 20.
type jobsPane struct {
	st         *styles
	keys       *keyMap
	rows       []correlate.JobRow
	kills      map[string]alerts.KillState
	now        int64
	idx        []int32
	cursor     int
	offset     int
	selID      string
	sortBy     sortKey
	text       string
	typeFilter string
	state      int
	types      []string
	focused    bool
	// hint is said on the title line: where the panes with no room are.
	hint string
	// longestID is the widest job ID (bytes, capped): the JOB column is
	// sized from it, not stretched to the terminal.
	longestID int
	width     int
	height    int
	cache     string
	dirty     bool
}

func newJobsPane(st *styles, keys *keyMap) jobsPane {
	return jobsPane{st: st, keys: keys, focused: true, dirty: true}
}

func (p *jobsPane) SetSize(w, h int) { p.width, p.height, p.dirty = w, h, true; p.clampScroll() }

func (p *jobsPane) SetFrame(f *engine.Frame) {
	p.rows, p.now, p.kills = f.Snap.Jobs, f.Clock(), f.Kills
	p.refresh()
}

// ShortHelp: the jobs table opens, filters and sorts.
func (p *jobsPane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Enter, p.keys.Tab, p.keys.Filter, p.keys.Sort, p.keys.StateFilter}
}

// Update takes the table's keys: sort and filters always; movement and
// enter (open the job's detail, asked of the model) while it has the focus.
func (p *jobsPane) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Sort):
		p.nextSort()
	case key.Matches(msg, k.TypeFilter):
		p.cycleType()
	case key.Matches(msg, k.StateFilter):
		p.cycleState()
	case !p.focused:
		return false, nil
	case key.Matches(msg, k.Enter):
		if row, ok := p.selected(); ok {
			return true, ask(openDetailMsg{row})
		}
	case key.Matches(msg, k.Up):
		p.move(-1)
	case key.Matches(msg, k.Down):
		p.move(1)
	case key.Matches(msg, k.PageUp):
		p.move(-max(1, p.height-1))
	case key.Matches(msg, k.PageDown):
		p.move(max(1, p.height-1))
	case key.Matches(msg, k.Top):
		p.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		p.move(1 << 30)
	default:
		return false, nil
	}
	return true, nil
}

func (p *jobsPane) setText(t string) { p.text = strings.ToLower(t); p.refresh() }

func (p *jobsPane) nextSort() { p.sortBy = (p.sortBy + 1) % numSortKeys; p.refresh() }

func (p *jobsPane) cycleState() { p.state = (p.state + 1) % len(stateFilters); p.refresh() }

func (p *jobsPane) cycleType() {
	seen := map[string]bool{}
	var types []string
	for i := range p.rows {
		if t := p.rows[i].Type; !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	slices.Sort(types)
	types = append([]string{""}, types...)
	i := slices.Index(types, p.typeFilter)
	p.typeFilter = types[(i+1)%len(types)]
	p.refresh()
}

func (p *jobsPane) keep(r *correlate.JobRow) bool {
	if p.typeFilter != "" && r.Type != p.typeFilter {
		return false
	}
	switch sf := stateFilters[p.state]; sf {
	case "":
	case "findings":
		if r.Findings == 0 {
			return false
		}
	default:
		if r.Outcome.String() != sf {
			return false
		}
	}
	if p.text != "" && !strings.Contains(strings.ToLower(r.ID), p.text) && !strings.Contains(strings.ToLower(r.Type), p.text) {
		return false
	}
	return true
}

// refresh rebuilds the visible order and keeps the cursor on the same job.
func (p *jobsPane) refresh() {
	p.idx = p.idx[:0]
	for i := range p.rows {
		if p.keep(&p.rows[i]) {
			p.idx = append(p.idx, int32(i))
		}
	}
	p.longestID = 8
	for i := range p.rows {
		p.longestID = max(p.longestID, min(len(p.rows[i].ID), 64))
	}
	rows := p.rows
	slices.SortFunc(p.idx, func(a, b int32) int {
		ra, rb := &rows[a], &rows[b]
		var c int
		switch p.sortBy {
		case bySpend:
			c = cmp.Compare(rb.Spend, ra.Spend)
		case byCalls:
			c = cmp.Compare(rb.Calls, ra.Calls)
		case byAmplification:
			c = cmp.Compare(rb.Amp, ra.Amp)
		case byRecent:
			c = cmp.Compare(rb.LastTS, ra.LastTS)
		}
		return cmp.Or(c, cmp.Compare(ra.Seq, rb.Seq))
	})
	if p.selID != "" {
		for i, ix := range p.idx {
			if rows[ix].ID == p.selID {
				p.cursor = i
				break
			}
		}
	}
	p.clampScroll()
	p.dirty = true
}

func (p *jobsPane) move(d int) {
	p.cursor += d
	p.clampScroll()
	if r, ok := p.selected(); ok {
		p.selID = r.ID
	}
	p.dirty = true
}

func (p *jobsPane) clampScroll() {
	p.cursor = max(0, min(p.cursor, len(p.idx)-1))
	visible := max(p.height-2, 1)
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+visible {
		p.offset = p.cursor - visible + 1
	}
	p.offset = max(0, min(p.offset, max(len(p.idx)-visible, 0)))
}

func (p *jobsPane) selected() (correlate.JobRow, bool) {
	if p.cursor < 0 || p.cursor >= len(p.idx) {
		return correlate.JobRow{}, false
	}
	return p.rows[p.idx[p.cursor]], true
}

type column struct {
	title string
	width int
	right bool
	cell  func(r *correlate.JobRow) string
}

func (p *jobsPane) columns() []column {
	cols := []column{
		{"JOB", 0, false, func(r *correlate.JobRow) string { return sanitize(r.ID) }},
		{"TYPE", 10, false, func(r *correlate.JobRow) string { return sanitize(r.Type) }},
		{"STATE", 9, false, func(r *correlate.JobRow) string {
			if k, ok := p.kills[r.ID]; ok {
				return killLabel(k)
			}
			return shortOutcome(r.Outcome)
		}},
		{"CALLS", 6, true, func(r *correlate.JobRow) string { return fmt.Sprint(r.Calls) }},
		{"LAYERS", 8, false, func(r *correlate.JobRow) string { return r.LayersText() }},
		{"SPEND", 9, true, func(r *correlate.JobRow) string { return spendAtLeast(r) }},
		{"WASTED", 9, true, func(r *correlate.JobRow) string { return usd(r.Wasted.USD()) }},
		{"LAST", 5, true, func(r *correlate.JobRow) string { return status(r.LastStatus) }},
		{"AGE", 5, true, func(r *correlate.JobRow) string { return age(p.now, r.LastTS) }},
	}
	// Narrow terminals drop the least essential columns first.
	fixed := func() int {
		n := 0
		for _, c := range cols[1:] {
			n += c.width + 1
		}
		return n
	}
	for _, drop := range []string{"AGE", "WASTED", "TYPE", "LAST", "LAYERS", "CALLS"} {
		if p.width-fixed() >= 16 {
			break
		}
		cols = slices.DeleteFunc(cols, func(c column) bool { return c.title == drop })
	}
	cols[0].width = max(min(p.width-fixed()-1, p.longestID+2), 8)
	return cols
}

// naturalWidth is the width the table needs with every column and its
// longest ID whole: beyond it a wide terminal's room goes to the side.
func (p *jobsPane) naturalWidth() int {
	// JOB, then TYPE 10, STATE 9, CALLS 6, LAYERS 8, SPEND 9, WASTED 9,
	// LAST 5, AGE 5, each after a space.
	return p.longestID + 2 + 10 + 9 + 6 + 8 + 9 + 9 + 5 + 5 + 9
}

func shortOutcome(o correlate.Outcome) string {
	if o == correlate.OutcomeDeadLettered {
		return "dead-lttr"
	}
	return o.String()
}

func (p *jobsPane) View() string {
	if !p.dirty && p.cache != "" {
		return p.cache
	}
	p.dirty = false
	var b strings.Builder
	cols := p.columns()
	var hdr []string
	for _, c := range cols {
		if c.right {
			hdr = append(hdr, padLeft(c.title, c.width))
		} else {
			hdr = append(hdr, pad(c.title, c.width))
		}
	}
	title := fmt.Sprintf("Jobs %d/%d · sort %s", len(p.idx), len(p.rows), sortNames[p.sortBy])
	if p.typeFilter != "" {
		title += " · type " + sanitize(p.typeFilter)
	}
	if sf := stateFilters[p.state]; sf != "" {
		title += " · state " + sf
	}
	if p.text != "" {
		title += " · /" + sanitize(p.text)
	}
	ts := p.st.Bold
	if p.focused {
		ts = p.st.Title
	}
	if p.hint != "" {
		title += "  " + p.hint
	}
	b.WriteString(ts.Render(truncate(title, p.width)))
	b.WriteString("\n")
	b.WriteString(p.st.Header.Render(strings.Join(hdr, " ")))
	visible := max(p.height-2, 0)
	for i := p.offset; i < len(p.idx) && i < p.offset+visible; i++ {
		r := &p.rows[p.idx[i]]
		cells := make([]string, len(cols))
		for j, c := range cols {
			switch {
			case j == 0:
				// An ID is cut in its middle: its distinguishing end stays.
				cells[j] = pad(truncMiddle(c.cell(r), c.width), c.width)
			case c.right:
				cells[j] = padLeft(c.cell(r), c.width)
			default:
				cells[j] = pad(c.cell(r), c.width)
			}
		}
		line := strings.Join(cells, " ")
		switch {
		case i == p.cursor && p.focused:
			line = p.st.Selected.Render(line)
		case r.OverCeiling, r.Outcome == correlate.OutcomeDeadLettered:
			line = p.st.Bad.Render(line)
		case r.Amp >= 10 || r.Duplicates > 0:
			line = p.st.Warn.Render(line)
		}
		b.WriteString("\n")
		b.WriteString(line)
	}
	if len(p.idx) == 0 {
		b.WriteString("\n" + p.st.Dim.Render("no jobs match"))
	}
	p.cache = clip(b.String(), p.width, p.height)
	p.cache = fill(p.cache, p.width, p.height)
	return p.cache
}

// fill pads a block to exactly w×h so panes line up when joined.
func fill(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = l + strings.Repeat(" ", max(0, w-lipglossWidth(l)))
	}
	return strings.Join(lines, "\n")
}

// killLabel fits a kill's state in the STATE column; "!" marks a killed
// job that is still logging attempts.
func killLabel(k alerts.KillState) string {
	var label string
	switch k.State {
	case alerts.StateRequested:
		label = "kill:req"
	case alerts.StateSent:
		label = "kill:sent"
	case alerts.StateAcknowledged:
		label = "killed"
	case alerts.StateFailed:
		label = "kill:fail"
	case alerts.StateRejected:
		label = "kill:rej"
	case alerts.StateMisconfigured:
		label = "kill:cfg"
	case alerts.StateGaveUp:
		label = "kill:gave"
	case alerts.StateHeld:
		label = "kill:held"
	case alerts.StateRetrying:
		label = "kill:retry"
	case alerts.StateRefused:
		label = "kill:refd"
	case alerts.StateWouldFire:
		label = "kill:dry"
	default:
		label = "kill:" + string(k.State)
	}
	if k.StillLogging {
		label += "!"
	}
	return label
}
