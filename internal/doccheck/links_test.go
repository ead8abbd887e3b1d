package doccheck

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxREADMELines keeps the README a front page: what burnrate is, how to
// start, and where each topic is. Everything else is a page under docs/.
const maxREADMELines = 250

func TestREADMEIsShort(t *testing.T) {
	if n := strings.Count(readDoc(t, "README.md"), "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to a page under docs/", n, maxREADMELines)
	}
}

// TestEveryPageIsLinkedFromREADME: a page nobody can find from the front
// page is a page nobody reads.
func TestEveryPageIsLinkedFromREADME(t *testing.T) {
	readme := readDoc(t, "README.md")
	for _, file := range docFiles(t)[1:] {
		if !strings.Contains(readme, "]("+file+")") && !strings.Contains(readme, "]("+file+"#") {
			t.Errorf("README.md does not link %s", file)
		}
	}
}

var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeRE is an inline code span, whose brackets are no link.
	codeRE = regexp.MustCompile("`[^`]*`")
)

// TestLinksResolve: every relative link of README.md and docs/*.md names
// a file that exists, and every #anchor a heading of the page it names (a
// page moved or a heading renamed breaks no link unnoticed).
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	for _, file := range docFiles(t) {
		anchors[file] = headingAnchors(readDoc(t, file))
	}
	for _, file := range docFiles(t) {
		for n, line := range outsideCode(readDoc(t, file)) {
			for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				p, anchor, _ := strings.Cut(target, "#")
				dest := file
				if p != "" {
					dest = path.Clean(path.Join(path.Dir(file), p))
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
						t.Errorf("%s line %d: %s: no such file", file, n+1, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if as, ok := anchors[dest]; !ok || !as[anchor] {
					t.Errorf("%s line %d: %s: %s has no heading with that anchor", file, n+1, target, dest)
				}
			}
		}
	}
}

// outsideCode is a page's lines, with those of fenced code blocks blank.
func outsideCode(page string) []string {
	lines := strings.Split(page, "\n")
	block := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			block = !block
			lines[i] = ""
		} else if block {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces made hyphens, a repeat numbered.
func headingAnchors(page string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	for _, l := range outsideCode(page) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if k := count[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}
