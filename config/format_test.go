package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleLineFormatCompiles: the [[format]] the example config shows
// (commented out) loads and compiles in place of its format line.
func TestExampleLineFormatCompiles(t *testing.T) {
	b, err := os.ReadFile("../burnrate.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case l == `format = "auto"`:
			continue
		case l == "# [[format]]":
			in = true
		case in && !strings.HasPrefix(l, "# "):
			in = false
		}
		if in {
			l = strings.TrimPrefix(l, "# ")
		}
		out = append(out, l)
	}
	p := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o644)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.Input("", nil)
	if err != nil || len(o.Patterns) != 1 || o.Patterns[0].Name != "nanobot-retry" {
		t.Fatalf("%v %+v", err, o.Patterns)
	}
}

// TestFormatKeyErrors: the format key's two forms and their mistakes.
func TestFormatKeyErrors(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		"format = 3\n":               "give a format name",
		"[[format]]\nname = \"x\"\n": "pattern is missing",
		"[[format]]\npattern = 'a (?P<attempt>\\d)'\nset = 1\n":                 "set must be a table",
		"[[format]]\npattern = 'a (?P<attempt>\\d)'\nset = { status = true }\n": "set.status must be a string or a number",
		"[[format]]\npattern = 'a (?P<atempt>\\d)'\n":                           "(?P<atempt>…) is not a field",
		"format = \"jsnl\"\n": "unknown format",
	} {
		p := filepath.Join(dir, "c.toml")
		os.WriteFile(p, []byte(body), 0o644)
		f, err := Load(p)
		if err == nil {
			_, err = f.Input("", nil)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
