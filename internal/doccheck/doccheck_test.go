// Package doccheck holds the documentation to the code: the README and
// every page under docs/ run their "$ burnrate" examples against a built
// binary, the tables that mirror a Go table are generated from it, and every
// page is linked from the README. It has no code of its own, only tests.
package doccheck

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// root is the repository, from this package's directory.
const root = "../.."

var update = flag.Bool("update", false, "rewrite the generated tables of README.md and docs/*.md")

// docFiles are the documentation files, relative to the root: README.md
// first, then docs/*.md by name.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md: run the tests from internal/doccheck")
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out[1:])
	return out
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
