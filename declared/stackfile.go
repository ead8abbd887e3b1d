package declared

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"

	"github.com/BurntSushi/toml"

	"github.com/burnrate-dev/burnrate/budget"
	"github.com/burnrate-dev/burnrate/config"
)

// A stack file is the [[layer]] tables `burnrate audit --format toml`
// writes and `budget layers --file` and `report --stack` read: outermost
// first, each with name, attempts, timeout, backoff, and — written by
// audit, optional — the library and the file:line it is set at.

// maxStackFileBytes bounds a stack file (`--stack /dev/zero` must not grow
// to the OOM killer): a thousand layers fit in a tenth of it.
const maxStackFileBytes = 1 << 20

// maxStackLayers is more layers than any call path nests (an audit writes
// at most one per kind, seven): past it the file is not a stack.
const maxStackLayers = 64

// StackLayer is one [[layer]] table as written.
type StackLayer struct {
	Name     string `toml:"name"`
	Attempts int    `toml:"attempts"`
	Timeout  any    `toml:"timeout"` // "120s" or plain seconds
	Backoff  string `toml:"backoff"`
	Library  string `toml:"library"` // what audit calls it
	Source   string `toml:"source"`  // file:line where the code sets it
	line     int    // of its [[layer]] header in the stack file, 0 unknown
}

var layerHeader = regexp.MustCompile(`^\s*\[\[\s*layer\s*\]\]`)

// ReadStackFile reads and checks a stack file; flag names it in errors
// ("--file", "--stack").
func ReadStackFile(path, flag string) ([]StackLayer, error) {
	data, err := config.ReadSmallFile(path, maxStackFileBytes, flag)
	if err != nil {
		return nil, fmt.Errorf("%w (a stack file is the [[layer]] tables burnrate audit --format toml writes)", err)
	}
	var f struct {
		Layer []StackLayer `toml:"layer"`
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("%s %s: unknown key %s: each [[layer]] has name, attempts, timeout, backoff (and, as audit writes them, library and source)", flag, path, u[0])
	}
	if len(f.Layer) == 0 {
		return nil, fmt.Errorf("%s %s: no [[layer]] tables: write one per retry layer, outermost first (burnrate audit --format toml PATH writes them from the code)", flag, path)
	}
	if len(f.Layer) > maxStackLayers {
		return nil, fmt.Errorf("%s %s: %d layers, more than the %d any call path nests: not a stack of one call's retry layers", flag, path, len(f.Layer), maxStackLayers)
	}
	// Where each table starts, for a layer that names no source: the
	// headers in order are the tables in order (when the count agrees;
	// a header inside a multi-line string would make it disagree).
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxStackFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		if layerHeader.Match(sc.Bytes()) {
			lines = append(lines, n)
		}
	}
	if len(lines) == len(f.Layer) {
		for i := range f.Layer {
			f.Layer[i].line = lines[i]
		}
	}
	return f.Layer, nil
}

// budgetLayer is the layer as `budget layers` computes it. A layer
// without a timeout is taken (its attempts multiply; the wall clock says
// "no timeout" unless a layer outside it has one).
func (l StackLayer) BudgetLayer() (budget.Layer, error) {
	b := l.Backoff
	if b == "" {
		b = "none"
	}
	timeout := ""
	if l.Timeout != nil {
		timeout = fmt.Sprintf(",timeout=%v", l.Timeout)
	}
	return budget.ParseLayer(fmt.Sprintf("%s:attempts=%d%s,backoff=%s", l.Name, l.Attempts, timeout, b))
}

// checkForReport validates what report --stack reads: the name and the
// attempts; a timeout or backoff, not used to count calls, must still be
// readable when given.
func (l StackLayer) CheckForReport() error {
	if l.Name == "" {
		return fmt.Errorf("a [[layer]] has no name")
	}
	if l.Attempts < 1 || l.Attempts > 1000 {
		return fmt.Errorf("layer %s: attempts %d: use 1..1000 (attempts include the first; 1 is a layer that does not retry)", l.Name, l.Attempts)
	}
	if l.Timeout != nil {
		if _, err := budget.ParseSeconds(fmt.Sprint(l.Timeout)); err != nil {
			return fmt.Errorf("layer %s: timeout: %w", l.Name, err)
		}
	}
	if l.Backoff != "" {
		if _, err := budget.ParseBackoff(l.Backoff); err != nil {
			return fmt.Errorf("layer %s: %w", l.Name, err)
		}
	}
	return nil
}

// ReadBudgetStack reads a stack file as budget layers, outermost first;
// flag names it in errors ("--file").
func ReadBudgetStack(path, flag string) (budget.Stack, error) {
	layers, err := ReadStackFile(path, flag)
	if err != nil {
		return nil, err
	}
	var st budget.Stack
	for _, l := range layers {
		layer, err := l.BudgetLayer()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, err)
		}
		st = append(st, layer)
	}
	return st, nil
}
