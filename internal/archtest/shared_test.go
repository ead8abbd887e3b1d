package archtest

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// realdataTag is the build tag of every test that reads third-party files
// in ../shared beside the repository. A fresh clone has no ../shared, and
// `go test ./...` must pass there; .ci/run adds the tag and refuses to run
// without ../shared, so those tests are never skipped in CI.
const realdataTag = "realdata"

// TestSharedFilesOnlyUnderTheTag fails when a test file without the
// realdata tag names a path in ../shared: that test would fail on a fresh
// clone (34 did, in 5 packages, before the tag).
func TestSharedFilesOnlyUnderTheTag(t *testing.T) {
	// The test files, and what only tests import (internal/testutil): a
	// path kept in a helper is read by the test that calls it.
	out, err := exec.Command("git", "-C", "../..", "ls-files", "*_test.go", "internal/testutil/*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err) // a source archive has no ../shared either
	}
	files := strings.Fields(string(out))
	if len(files) < 50 {
		t.Fatalf("git ls-files found %d test files", len(files))
	}
	tagged := 0
	for _, name := range files {
		fs := token.NewFileSet()
		f, err := parser.ParseFile(fs, "../../"+name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if name == "internal/archtest/shared_test.go" {
			continue // this file names the path it looks for
		}
		if hasTag(f, realdataTag) {
			tagged++
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && readsShared(s) {
				t.Errorf("%s: %q is in ../shared, which a fresh clone does not have: move the test to a file with //go:build %s", fs.Position(lit.Pos()), s, realdataTag)
			}
			return true
		})
	}
	if tagged == 0 {
		t.Errorf("no test file carries //go:build %s: the real-file tests are gone or the tag was renamed (.ci/run passes -tags %s)", realdataTag, realdataTag)
	}
}

// readsShared is true for a path that climbs out of the repository into
// shared/: "../../shared/pricing/…", "../../../shared/realdata/…", and
// the word a path is joined from (filepath.Join("..", "..", "shared")).
func readsShared(s string) bool {
	return strings.Contains(s, "../shared/") || strings.HasSuffix(s, "../shared") || s == "shared" || strings.HasSuffix(s, "/shared") || strings.HasPrefix(s, "shared/")
}

func hasTag(f *ast.File, tag string) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			// The file builds with the tag and not without it.
			with := expr.Eval(func(s string) bool { return s == tag })
			without := expr.Eval(func(string) bool { return false })
			return with && !without
		}
	}
	return false
}
