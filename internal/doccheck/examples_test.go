package doccheck

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// burnrate is the binary, built once per test process as a user would
// run it: the examples are held to what the command prints, not to a
// package's API.
func burnrate(t *testing.T) string { return testutil.Binary(t) }

// example is one "$ burnrate …" command of a documentation code block and
// the output the page shows under it.
type example struct {
	file string // README.md or docs/NAME.md
	line int    // of the command in file
	args []string
	// stdout, when set, is the file the command's output is redirected to.
	stdout string
	want   []string
}

// examples finds every "$ burnrate" command in a page's code blocks. A
// command may continue over lines ending in "\"; the lines under it, to
// the next "$ " line or the block's end, are its output.
func examples(t *testing.T, file, page string) []example {
	var out []example
	lines := strings.Split(page, "\n")
	inBlock := false
	var cur *example
	flush := func() {
		if cur != nil {
			for len(cur.want) > 0 && strings.TrimSpace(cur.want[len(cur.want)-1]) == "" {
				cur.want = cur.want[:len(cur.want)-1]
			}
			out = append(out, *cur)
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			flush()
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		if strings.HasPrefix(l, "$ ") {
			flush()
			start := i + 1
			cmd := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			words, err := shellWords(cmd)
			if err != nil || len(words) == 0 || words[0] != "burnrate" {
				t.Fatalf("%s line %d: %q is not a burnrate command this test can run (%v)", file, start, cmd, err)
			}
			ex := example{file: file, line: start}
			for j := 1; j < len(words); j++ {
				if words[j] == ">" && j+1 < len(words) {
					ex.stdout = words[j+1]
					j++
					continue
				}
				ex.args = append(ex.args, words[j])
			}
			cur = &ex
			continue
		}
		if cur != nil {
			cur.want = append(cur.want, l)
		}
	}
	flush()
	return out
}

// shellWords splits a command line as the kill command's template is
// split (alerts.SplitWords): words and quotes; a pipe, variable or
// substitution is not run.
func shellWords(s string) ([]string, error) { return alerts.SplitWords(s, "|;&<`$()") }

// normalize makes alignment free: a page may pad columns less than the
// tool does, never change a word.
func normalize(l string) string { return strings.Join(strings.Fields(l), " ") }

// matches says whether an output line is the page's line: the same
// words, or, for a page's line ending in "…", the same words up to it.
func matches(want, got string) bool {
	w, g := normalize(want), normalize(got)
	if cut, ok := strings.CutSuffix(w, "…"); ok && cut != "" {
		return strings.HasPrefix(g, strings.TrimSpace(cut))
	}
	return w == g
}

// compareOutput checks the page's lines against the output: all of it,
// line for line, unless the page marks an excerpt with a line "…";
// then its lines must appear in the output in order.
func compareOutput(want []string, got string) string {
	gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	excerpt := false
	var ws []string
	for _, w := range want {
		switch strings.TrimSpace(w) {
		case "…":
			excerpt = true
		case "":
			if !excerpt {
				ws = append(ws, w)
			}
		default:
			ws = append(ws, w)
		}
	}
	if !excerpt {
		if len(ws) != len(gotLines) {
			return "the page shows " + strconv.Itoa(len(ws)) + " lines, the command prints " + strconv.Itoa(len(gotLines)) + " (mark an excerpt with a line \"…\")"
		}
		for i := range ws {
			if !matches(ws[i], gotLines[i]) {
				return "line " + strconv.Itoa(i+1) + ": the page shows\n  " + ws[i] + "\nthe command prints\n  " + gotLines[i]
			}
		}
		return ""
	}
	j := 0
	for _, w := range ws {
		for j < len(gotLines) && !matches(w, gotLines[j]) {
			j++
		}
		if j == len(gotLines) {
			return "the page shows a line the command does not print (or not in this order):\n  " + w
		}
		j++
	}
	return ""
}

// TestExamples runs every "$ burnrate" example of README.md and of each
// docs/*.md page, in order, each page in a directory of its own holding the
// sample logs, and compares the output the page shows with the output the
// command prints: a page may not show a number, a line or a flag the tool
// does not have. A page's examples may use files its earlier examples
// wrote, never another page's.
func TestExamples(t *testing.T) {
	bin := burnrate(t)
	total := 0
	for _, file := range docFiles(t) {
		exs := examples(t, file, readDoc(t, file))
		total += len(exs)
		if len(exs) == 0 {
			continue
		}
		dir := t.TempDir()
		for _, name := range []string{"sample-logs", "burnrate.example.toml", "audit"} {
			abs, err := filepath.Abs(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		for _, ex := range exs {
			runExample(t, bin, dir, ex)
		}
	}
	if total < 8 {
		t.Fatalf("found %d examples, want the report, budget and formats ones (at least 8)", total)
	}
}

func runExample(t *testing.T, bin, dir string, ex example) {
	t.Helper()
	cmd := exec.Command(bin, ex.args...)
	cmd.Dir = dir
	// No config, agent sessions or colours from the machine.
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "NO_COLOR=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() >= 2) {
		t.Errorf("%s line %d: burnrate %s: %v\n%s", ex.file, ex.line, strings.Join(ex.args, " "), err, stderr.String())
		return
	}
	if ex.stdout != "" {
		if err := os.WriteFile(filepath.Join(dir, ex.stdout), stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if len(ex.want) > 0 {
			t.Errorf("%s line %d: output redirected to %s, yet the page shows output", ex.file, ex.line, ex.stdout)
		}
		return
	}
	if msg := compareOutput(ex.want, stdout.String()); msg != "" {
		t.Errorf("%s line %d: burnrate %s: %s", ex.file, ex.line, strings.Join(ex.args, " "), msg)
	}
}

// TestREADMECompareCanFail: the comparison catches a number that is not
// the tool's, a line left out of a full output, and lines out of order.
func TestREADMECompareCanFail(t *testing.T) {
	got := "a  1\nb  2\nc  3\n"
	for _, tc := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a 1", "b 2", "c 3"}, true},
		{[]string{"a 1", "b 2"}, false},        // a full output cut short
		{[]string{"a 1", "b 9", "c 3"}, false}, // a wrong number
		{[]string{"…", "c 3", "a 1"}, false},   // out of order
		{[]string{"…", "a 1", "c 3"}, true},    // an excerpt
		{[]string{"a…", "b 2", "c 3"}, true},   // a cut line
		{[]string{"…", "d 4"}, false},          // not printed at all
	} {
		if msg := compareOutput(tc.want, got); (msg == "") != tc.ok {
			t.Errorf("%q: %q", tc.want, msg)
		}
	}
}
