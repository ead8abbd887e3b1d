package file

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// boundedFixture writes n small logs whose times overlap a few at a time,
// some out of order, some empty, some junk only, one that is a directory
// (cannot be opened), and returns their paths.
func boundedFixture(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 9))
	line := func(sec int, job string) string {
		return fmt.Sprintf(`{"ts":"2026-06-02T00:00:%02d.000Z","event":"llm_call","job_id":"%s","provider":"anthropic","model":"claude-haiku-4-5","status":200,"input_tokens":10,"output_tokens":5}`+"\n", sec, job)
	}
	// A tie: the first file's first event equals, in time and job, the
	// second event of a file opened before it; the file named first wins.
	var paths []string
	for name, body := range map[string]string{"a-tie.jsonl": line(5, "x"), "b-tie.jsonl": line(1, "x") + line(5, "x")} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths = append(paths, filepath.Join(dir, "a-tie.jsonl"), filepath.Join(dir, "b-tie.jsonl"))
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("w%04d.jsonl", i))
		var b strings.Builder
		switch i % 13 {
		case 5:
			// nothing
		case 7:
			b.WriteString("not a log line\n{\"half\":\n")
		case 11:
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
			continue
		default:
			base := r.IntN(2 * n) // files overlap a few others, in no order of their names
			n := 1 + r.IntN(6)
			if i%3 == 0 {
				n = keptPerFile + r.IntN(30) // read twice, not kept from the probe
			}
			for k := range n {
				sec := base + r.IntN(9)
				if i%4 == 0 {
					sec = base + 8 - k // out of order
				}
				fmt.Fprintf(&b, `{"ts":"2026-06-02T01:%02d:%02d.000Z","event":"llm_call","job_id":"j%d","attempt":%d,"provider":"anthropic","model":"claude-haiku-4-5","status":%d,"input_tokens":10,"output_tokens":5}`+"\n",
					sec/60, sec%60, r.IntN(3), k+1, []int{200, 529, 429}[r.IntN(3)])
			}
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

type readOut struct {
	events []string
	status []ingest.Status
	hints  []string
	unopen int
	mem    int // files read whole into memory: not compared
}

func readSet(t *testing.T, paths []string, budget int, ahead bool) readOut {
	t.Helper()
	old := openBudget
	openBudget = func() int { return budget }
	defer func() { openBudget = old }()
	fs, err := OpenFiles(paths, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	var it EventIter
	if ahead {
		it = fs.Events()
	} else {
		it = fs.Merged()
	}
	var out readOut
	var e ingest.Event
	for it.Next(&e) {
		out.events = append(out.events, fmt.Sprintf("%d %s %d %d", e.TS, e.JobID, e.Attempt, e.Source))
		if !ahead {
			if open := openInputs(t, paths); len(out.events)%4 == 0 && open > budget {
				t.Fatalf("%d inputs open at once, budget %d", open, budget)
			}
		}
	}
	out.status = fs.Status()
	for _, f := range fs.Files {
		out.hints = append(out.hints, f.Hint())
	}
	out.unopen = fs.Unopened()
	out.mem = fs.InMemory()
	return out
}

// openInputs counts this process's descriptors open on one of paths.
func openInputs(t *testing.T, paths []string) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && want[target] {
			n++
		}
	}
	return n
}

// TestBoundedSetReadsAsOpenAll: R6-15 — a set of more files than the
// open-files budget is read a few at a time, and yields exactly what
// reading them all at once does: the same events in the same order, the
// same counters, errors and hints — with at most the budget open.
func TestBoundedSetReadsAsOpenAll(t *testing.T) {
	paths := boundedFixture(t, 90)
	for _, ahead := range []bool{false, true} {
		all := readSet(t, paths, 1000, ahead)
		if len(all.events) < 100 || all.unopen != 7 {
			t.Fatalf("fixture: %d events, %d unopened", len(all.events), all.unopen)
		}
		for _, budget := range []int{1, 3, 8} {
			got := readSet(t, paths, budget, ahead)
			if budget == 1 && got.mem == 0 {
				t.Errorf("budget 1: no file read into memory: the fixture does not overlap")
			}
			got.mem = 0
			if !reflect.DeepEqual(got, all) {
				for i := range min(len(got.events), len(all.events)) {
					if got.events[i] != all.events[i] {
						t.Errorf("budget %d: event %d is %q, all at once %q", budget, i, got.events[i], all.events[i])
						break
					}
				}
				t.Fatalf("budget %d (read ahead %v): %d events, %d unopened; all at once %d, %d", budget, ahead, len(got.events), got.unopen, len(all.events), all.unopen)
			}
		}
	}
}

// TestUnopenedFileCostsItself: a file that cannot be opened is counted and
// named; the others are read. When none can be, the error is returned.
func TestUnopenedFileCostsItself(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"ts":"2026-06-02T01:00:00Z","event":"llm_call","job_id":"a","status":200,"model":"claude-haiku-4-5","input_tokens":1,"output_tokens":1}`+"\n"), 0o644)
	missing := filepath.Join(dir, "missing.jsonl")
	for _, budget := range []int{1, 10} {
		old := openBudget
		openBudget = func() int { return budget }
		fs, err := OpenFiles([]string{missing, good}, decode.Options{})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		var e ingest.Event
		n := 0
		for it := fs.Events(); it.Next(&e); n++ {
		}
		st := fs.Status()
		fs.Close()
		if n != 1 || fs.Unopened() != 1 || !strings.Contains(st[0].Err, "no such file") || st[1].Err != "" {
			t.Errorf("budget %d: %d events, %d unopened, status %+v", budget, n, fs.Unopened(), st)
		}
		if _, err := OpenFiles([]string{missing, missing + "2"}, decode.Options{}); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
			t.Errorf("budget %d: none opened: %v", budget, err)
		}
		openBudget = old
	}
}

// TestBoundedSetFileGoneBeforeItsTurn: a file removed after the set read
// its head and before the merge reached it (a log rotated away while a
// report of 20,000 files runs) costs that file only: counted, named, the
// others read.
func TestBoundedSetFileGoneBeforeItsTurn(t *testing.T) {
	paths := boundedFixture(t, 40)
	old := openBudget
	openBudget = func() int { return 2 }
	defer func() { openBudget = old }()
	fs, err := OpenFiles(paths, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	before := fs.Unopened()
	// The last file by first event, not kept from its probe: opened again.
	gone := -1
	for _, i := range fs.order {
		if fs.mem[i] == nil {
			gone = i
		}
	}
	if gone < 0 {
		t.Fatal("fixture: every file kept from its probe")
	}
	os.Remove(paths[gone])
	var e ingest.Event
	n := 0
	for it := fs.Events(); it.Next(&e); n++ {
		if int(e.Source) == gone {
			t.Fatalf("an event of the file removed: %+v", e)
		}
	}
	if fs.Unopened() != before+1 || !strings.Contains(fs.Files[gone].ErrText(), "not read") || n == 0 {
		t.Errorf("%d events, %d unopened (was %d), the file's error %q", n, fs.Unopened(), before, fs.Files[gone].ErrText())
	}
}
