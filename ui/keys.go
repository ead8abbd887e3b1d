package ui

import "github.com/charmbracelet/bubbles/key"

// keyMap holds every binding; help is generated from it.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Tab, Enter, Back                        key.Binding
	Filter, Sort, TypeFilter, StateFilter   key.Binding
	Pause, Step, Faster, Slower, End        key.Binding
	Kill, Confirm, Cancel                   key.Binding
	Charts, Help, Quit                      key.Binding
	// ChartsBack is c's help while the charts fill the screen.
	ChartsBack key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
		Tab:         key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		Enter:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "job detail")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter jobs")),
		Sort:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort: spend/calls/amplification/recent")),
		TypeFilter:  key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "cycle job type filter")),
		StateFilter: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "cycle state filter")),
		Pause:       key.NewBinding(key.WithKeys("p", " "), key.WithHelp("p/space", "pause replay")),
		Step:        key.NewBinding(key.WithKeys("."), key.WithHelp(".", "step one event")),
		Faster:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:      key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "slower")),
		End:         key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "jump to end of replay")),
		Kill:        key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "kill job…")),
		Confirm:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm kill")),
		Cancel:      key.NewBinding(key.WithKeys("n", "esc", "enter"), key.WithHelp("n/esc/enter", "cancel")),
		Charts:      key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "toggle charts")),
		ChartsBack:  key.NewBinding(key.WithKeys("c", "esc"), key.WithHelp("c/esc", "back to jobs")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// footer is the footer line: only keys that do something here — no
// replay keys when live, no kill key without a kill hook.
func (k keyMap) footer(replay, kill bool) []key.Binding {
	var b []key.Binding
	if kill {
		b = append(b, k.Kill)
	}
	if replay {
		b = append(b, k.Pause)
	}
	return append(b, k.Help, k.Quit)
}

// ShortHelp and FullHelp make keyMap a help.KeyMap; the model calls
// footer and fullHelp with what applies.
func (k keyMap) ShortHelp() []key.Binding  { return k.footer(true, true) }
func (k keyMap) FullHelp() [][]key.Binding { return k.fullHelp(true, true) }

// fullHelp is the help screen, one column per group; quitting and help
// come first so no terminal width can hide them.
func (k keyMap) fullHelp(replay, kill bool) [][]key.Binding {
	groups := [][]key.Binding{
		{k.Help, k.Quit, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Tab},
		{k.Enter, k.Back, k.Filter, k.Sort, k.TypeFilter, k.StateFilter, k.Charts},
	}
	if replay {
		groups = append(groups, []key.Binding{k.Pause, k.Step, k.Faster, k.Slower, k.End})
	}
	if kill {
		groups = append(groups, []key.Binding{k.Kill, k.Confirm, k.Cancel})
	}
	return groups
}
