// Package archtest holds the code map in docs/development.md to the code:
// a package that imports what the map says it must never import fails the
// build's tests.
package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/burnrate-dev/burnrate"

// boundary is one row of the code map's "never imports" column.
type boundary struct {
	pkg string // a package of the module, and its subpackages with a trailing /...
	// never are import paths (a trailing /... takes subpackages) the
	// package may not import directly.
	never []string
	// neverDeps may not appear among its transitive dependencies.
	neverDeps []string
	// tests: the package's test files count too (a package of tests only).
	tests bool
	why   string
}

var boundaries = []boundary{
	{pkg: "ingest", never: []string{"ingest/decode/...", "ingest/file/...", "ingest/follow/...", "ingest/otlp/..."},
		neverDeps: []string{"google.golang.org/grpc", "go.opentelemetry.io/collector/pdata", "github.com/burnrate-dev/burnrate/ingest/decode"},
		why:       "ingest is the contract every package imports: a few hundred lines, no decoder, gRPC or pdata"},
	{pkg: "ingest/decode", never: []string{"ingest/file/...", "ingest/follow/...", "ingest/otlp/..."},
		neverDeps: []string{"google.golang.org/grpc", "go.opentelemetry.io/collector/pdata"},
		why:       "decoders turn bytes into events; reading files and receiving OTLP build on them"},
	{pkg: "ingest/file", never: []string{"ingest/follow/...", "ingest/otlp/..."},
		neverDeps: []string{"google.golang.org/grpc", "go.opentelemetry.io/collector/pdata"},
		why:       "an OTLP/JSON file's decoder is passed in (decode.Options.OTLP), never imported"},
	{pkg: "ingest/...", never: []string{"correlate/...", "alerts/...", "engine/...", "ui/...", "report/...", "metrics/...", "budget/...", "cli/...", "config/..."},
		why: "ingest knows nothing of spend: the data flows ingest → correlate"},
	// Its generator (correlate/internal/pricegen) is a build tool, not correlate.
	{pkg: "correlate", never: []string{"alerts/...", "engine/...", "ui/...", "cli/...", "config/...", "report/...", "metrics/...", "os", "os/exec", "net", "net/http", "time/tzdata"},
		why: "correlate is pure and deterministic: no I/O, no clock"},
	{pkg: "alerts", never: []string{"engine/...", "ui/...", "cli/...", "ingest/follow/...", "ingest/otlp/..."},
		neverDeps: []string{"google.golang.org/grpc", "go.opentelemetry.io/collector/pdata", "github.com/nxadm/tail"},
		why:       "alerts runs headless and in report without the sources' weight"},
	{pkg: "engine", never: []string{"ui/...", "cli/..."}, why: "the engine is the live loop only; the UI renders its frames"},
	{pkg: "config", never: []string{"engine/...", "ui/...", "cli/..."}, why: "config turns files and flags into settings"},
	{pkg: "report", never: []string{"metrics/...", "budget/...", "cli/...", "ui/..."}, why: "the leaf outputs do not depend on each other"},
	{pkg: "metrics", never: []string{"report/...", "budget/...", "cli/...", "ui/..."}, why: "the leaf outputs do not depend on each other"},
	{pkg: "budget", never: []string{"report/...", "metrics/...", "cli/...", "ui/..."}, why: "the leaf outputs do not depend on each other"},
	{pkg: "audit", never: []string{"report/...", "metrics/...", "cli/...", "ui/...", "engine/...", "ingest/...", "correlate/...", "alerts/..."},
		why: "audit reads source trees, not logs: a leaf that uses budget's fold and display's sanitiser only"},
	{pkg: "display", never: []string{"..."}, why: "the one sanitizer imports nothing of ours"},
	{pkg: "layers", never: []string{"..."}, why: "the vocabulary of retry layers and providers is read by ingest, correlate, audit and budget: it imports nothing of ours"},
	{pkg: "cli", never: []string{"encoding/...", "crypto/...", "regexp", "github.com/BurntSushi/toml", "internal/..."},
		why: "cli is wiring: flags, commands and exit codes; a file format, a hash or a pattern found in cli is a package waiting to be born"},
	{pkg: "declared", never: []string{"cli/...", "ui/...", "engine/...", "alerts/...", "ingest/...", "statedir/...", "metrics/..."},
		why: "declared stacks meet the logs through correlate's report: no live loop, no sources, no state on disk"},
	{pkg: "statedir", never: []string{"cli/...", "ui/...", "alerts", "report/...", "metrics/...", "budget/...", "declared/..."},
		why: "state on disk (the assumptions log) is read and written here; alerts takes its lock, not the reverse"},
	{pkg: "statedir/spool", never: []string{"cli/...", "ui/...", "alerts/...", "engine/...", "correlate/...", "config/...", "report/...", "metrics/...", "budget/...", "declared/...", "audit/...", "layers/...", "scenario/...", "ingest/decode/...", "ingest/file/...", "ingest/follow/...", "ingest/otlp/..."},
		why: "the spool keeps ingest's events, beside the journal's lock: the engine imports it, never the reverse"},
	{pkg: "statedir/flock", never: []string{"..."}, why: "the one lock of the state directory imports nothing of ours, so alerts can take it"},
	{pkg: "...", never: []string{"internal/e2e"}, why: "the process-level tests are imported by nothing"},
	{pkg: "internal/e2e", never: []string{"cli/...", "ui/..."}, tests: true,
		why: "the process-level tests run the binary as a user does, never cli in-process"},
}

// onlyImporters: these third-party packages may be imported by the named
// packages only.
var onlyImporters = map[string][]string{
	"github.com/charmbracelet/bubbletea": {"ui"},
	"github.com/charmbracelet/lipgloss":  {"ui"},
	"github.com/charmbracelet/bubbles":   {"ui"},
}

type listed struct {
	ImportPath  string
	Imports     []string
	TestImports []string
	Deps        []string
}

func list(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// matches reports whether path is pattern: a path of the module relative
// to its root ("ingest", "ingest/..."), a standard or third-party path, or
// "..." for every package of the module.
func matches(pattern, path string) bool {
	if pattern == "..." {
		return strings.HasPrefix(path, module+"/")
	}
	full := pattern
	if !strings.Contains(strings.SplitN(pattern, "/", 2)[0], ".") && !isStd(pattern) {
		full = module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(full, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	if pattern != full {
		return path == full // a package of ours, exactly
	}
	// A third-party or standard path: its subpackages count too
	// (bubbletea/... is bubbletea).
	return path == full || strings.HasPrefix(path, full+"/")
}

// isStd is true for the standard-library patterns the table names.
func isStd(p string) bool {
	return slices.Contains([]string{"os", "os/exec", "net", "net/http", "time/tzdata", "encoding/...", "crypto/...", "regexp"}, p)
}

// TestImportBoundaries fails when a package imports what the code
// map says it must never import.
func TestImportBoundaries(t *testing.T) {
	pkgs := list(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, b := range boundaries {
		seen := false
		for _, p := range pkgs {
			if !matches(b.pkg, p.ImportPath) {
				continue
			}
			seen = true
			imports := p.Imports
			if b.tests {
				imports = append(slices.Clone(imports), p.TestImports...)
			}
			for _, imp := range imports {
				for _, n := range b.never {
					if matches(n, imp) {
						t.Errorf("%s imports %s: the code map says %s never imports %s (%s)", p.ImportPath, imp, b.pkg, n, b.why)
					}
				}
			}
			for _, dep := range p.Deps {
				for _, n := range b.neverDeps {
					if matches(n, dep) {
						t.Errorf("%s depends on %s (%s)", p.ImportPath, dep, b.why)
					}
				}
			}
		}
		if !seen {
			t.Errorf("the code map names %s, which go list does not find: keep the table true", b.pkg)
		}
	}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			for lib, allowed := range onlyImporters {
				if !matches(lib, imp) {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || matches(a, p.ImportPath)
				}
				if !ok {
					t.Errorf("%s imports %s: only %v may (the code map)", p.ImportPath, imp, allowed)
				}
			}
		}
	}
}
