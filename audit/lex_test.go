package audit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The constructs that blinded the one generic lexer to the rest of a file,
// each in the shape real code writes it. After each, a retry construct on
// its own line must survive blanking untouched and be found.
var lexTraps = []struct {
	name, lang, line string
}{
	{"regex ending in a slash-star", "js", `const trim = (u) => u.replace(/\/*$/, '');`},
	{"regex of backticks", "js", "if (/^```/.test(line)) inFence = !inFence;"},
	{"regex with a quote", "js", `const q = s.split(/'/);`},
	{"regex with a slash in a class", "js", `const parts = p.split(/[/\\]/);`},
	{"regex after return", "js", `function isUrl(s) { return /^https?:\/\//.test(s) }`},
	{"division then a comment", "js", `const half = total / 2; // split /* evenly`},
	{"nested template", "js", "const msg = `outer ${ `inner ${x} ` + '`' } end`;"},
	{"template over lines", "js", "const sql = `\n  SELECT /* hint */ *\n  FROM ${table} -- it's\n`;"},
	{"template with a brace string", "js", "const s = `${ obj['}'] }`;"},
	{"go raw string ending in a backslash", "go", "var winPath = `C:\\`"},
	{"go raw string over lines", "go", "var tmpl = `\n\"quoted\" /* not a comment\n`"},
	{"go rune of a quote", "go", `var q = '"'`},
	{"python f-string with the same quotes (3.12)", "py", `print(f"{d["key"]} and {d['x']!r:>{width}}")`},
	{"python f-string with braces", "py", `s = f"{{literal}} {x}" + '"""'`},
	{"python triple quotes", "py", "DOC = '''\nIt's a \"doc\" # not a comment\n'''"},
	{"python raw string", "py", `pat = r"\d+\"" + rb'\''`},
	{"python unterminated triple", "py", `x = """never closed`},
	{"js unterminated template", "js", "const x = `never closed"},
	{"js unterminated block comment", "js", "/* never closed"},
	{"go unterminated raw string", "go", "var x = `never closed"},
	{"string continued by a backslash", "js", "const s = 'abc\\"},
	{"c# verbatim string ending in a backslash", "cs", `var dir = @"C:\temp\";`},
	{"c# verbatim string over lines", "cs", "var sql = @\"\nSELECT \"\"x\"\" /* not a comment\n\";"},
	{"c# raw string", "cs", "var json = \"\"\"\n  { \"a\": \"/*\" }\n  \"\"\";"},
	{"c# unterminated raw string", "cs", "var x = \"\"\"never closed"},
	{"c# interpolated string", "cs", `var m = $"{name}: {(ok ? "yes" : "no")}";`},
}

var lexConstruct = map[string]string{
	"js": "const client = new Anthropic({ maxRetries: 5 });",
	"go": "client := retryablehttp.NewClient() ; client.RetryMax = 5",
	"py": "client = anthropic.Anthropic(max_retries=5)",
	"cs": "var pipeline = builder.AddRetry(new RetryStrategyOptions { MaxRetryAttempts = 5 });",
}

var lexSyntax = map[string]syntax{"js": jsSyntax, "go": goSyntax, "py": pySyntax, "cs": csSyntax}

// TestLexerTrapsDoNotBlankWhatFollows: the line after each trap is intact
// once blanked.
func TestLexerTrapsDoNotBlankWhatFollows(t *testing.T) {
	for _, tc := range lexTraps {
		c := lexConstruct[tc.lang]
		src := tc.line + "\n" + c + "\n"
		got := blank([]byte(src), lexSyntax[tc.lang])
		if len(got) != len(src) || bytes.Count(got, []byte("\n")) != strings.Count(src, "\n") {
			t.Errorf("%s: blanking changed the length or the lines", tc.name)
		}
		if !bytes.Contains(got, []byte("\n"+c+"\n")) {
			t.Errorf("%s: the construct after it was blanked:\n%s", tc.name, got)
		}
	}
}

// TestLexerBlanksWhatItShould: strings, comments and regex bodies are
// blank; the code around them is not.
func TestLexerBlanksWhatItShould(t *testing.T) {
	for _, tc := range []struct{ lang, src, want string }{
		{"js", `u.replace(/\/*$/, '') + x /* c */`, `u.replace(/    /, '') + x        `},
		{"js", "a = `x ${ `y${z}` } w`; b", "a = `                `; b"},
		{"js", `n = a / b / c; m = "new X("`, `n = a / b / c; m = "      "`},
		{"js", "return /a'b/.test(s) && f('x')", "return /   /.test(s) && f(' ')"},
		{"go", "s := `a\\` + x // c", "s := `  ` + x     "},
		{"py", `f"{d["k"]}" + g('#')  # c`, `f"        " + g(' ')     `},
		{"py", "x = '''a\nb''' + y", "x = ''' \n ''' + y"},
		{"cs", `a = @"x""y" + "z\"" // c`, `a = @"    " + "   "     `},
	} {
		got := string(blank([]byte(tc.src), lexSyntax[tc.lang]))
		if got != tc.want {
			t.Errorf("%s %q:\n got %q\nwant %q", tc.lang, tc.src, got, tc.want)
		}
	}
}

// FuzzLexersNeverBlankWhatFollows: whatever precedes it, a line of code
// without quotes after it comes out of every lexer untouched, and blanking
// keeps the length and the line breaks.
func FuzzLexersNeverBlankWhatFollows(f *testing.F) {
	for _, tc := range lexTraps {
		f.Add([]byte(tc.line))
	}
	f.Add([]byte("`${`${`"))
	f.Add([]byte("f'{\"\"\"'"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for lang, sy := range lexSyntax {
			c := lexConstruct[lang]
			src := append(append(bytes.Clone(b), '\n'), c+"\n"...)
			got := blank(src, sy)
			if len(got) != len(src) || bytes.Count(got, []byte("\n")) != bytes.Count(src, []byte("\n")) {
				t.Fatalf("%s: length or lines changed", lang)
			}
			if !bytes.HasSuffix(got, []byte("\n"+c+"\n")) {
				t.Fatalf("%s: construct blanked after %q:\n%q", lang, b, got)
			}
		}
		blank(b, rubySyntax)
	})
}

// TestATrapDoesNotHideTheLayersAfterIt: each file of the fixture opens with
// a construct that blinded the old lexer (a regex ending in /*, a regex of
// backticks, nested templates, 3.12 f-strings, a Go raw string ending in a
// backslash) and sets its retries after it; before, the scan said "No
// retry layers found" for the TypeScript file.
func TestATrapDoesNotHideTheLayersAfterIt(t *testing.T) {
	r := scan(t, "testdata/lextraps")
	got := map[string]int{}
	for _, l := range r.Layers {
		got[l.File+" "+l.DefaultID] = l.Attempts
	}
	for k, v := range map[string]int{
		"web/client.ts anthropic-ts":           6,
		"web/client.ts openai-node":            5,
		"worker/summarize.py anthropic-python": 7,
		"gosvc/client.go go-retryablehttp":     8,
	} {
		if got[k] != v {
			t.Errorf("%s: %d attempts, want %d (layers %v)", k, got[k], v, got)
		}
	}
}

// TestLexersOnACorpus holds the fuzz property to every line of a tree of
// real code named by BURNRATE_LEX_CORPUS (a checkout of any public
// repository; none is committed here): after each line, alone, a retry
// construct survives; and each whole file keeps its length and lines.
func TestLexersOnACorpus(t *testing.T) {
	root := os.Getenv("BURNRATE_LEX_CORPUS")
	if root == "" {
		t.Skip("BURNRATE_LEX_CORPUS names a tree of real code to lex")
	}
	ext := map[string]string{".cs": "cs", ".ts": "js", ".js": "js", ".mjs": "js", ".tsx": "js", ".py": "py", ".go": "go"}
	lines, files := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		lang, ok := ext[filepath.Ext(p)]
		if err != nil || d.IsDir() || !ok {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		if got := blank(b, lexSyntax[lang]); len(got) != len(b) || bytes.Count(got, []byte("\n")) != bytes.Count(b, []byte("\n")) {
			t.Errorf("%s: length or lines changed", p)
		}
		c := lexConstruct[lang]
		for _, l := range bytes.Split(b, []byte("\n")) {
			lines++
			src := append(append(bytes.Clone(l), '\n'), c+"\n"...)
			if got := blank(src, lexSyntax[lang]); !bytes.HasSuffix(got, []byte("\n"+c+"\n")) {
				t.Errorf("%s: the construct was blanked after the line %q", p, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d lines", files, lines)
}

// TestHostileLexingIsLinear: red team of the lexers — inputs built so each
// construct's scan would run to the end of its line or file: 120,000
// regex starts whose class never closes (it hung before the scan was
// bounded), 100,000 nested template and f-string openers, 70,000
// unclosed raw and verbatim strings. Each file is lexed in well under a
// second (BenchmarkHostileFiles measures it); the test fails only on a
// hang (noHang), never on a busy machine's seconds.
func TestHostileLexingIsLinear(t *testing.T) {
	for name, src := range map[string]string{
		"regex classes":  strings.Repeat("(/[", 120_000),
		"templates":      strings.Repeat("`${", 100_000),
		"f-strings":      strings.Repeat("f'{", 100_000) + "\n" + strings.Repeat("f\"\"\"{", 70_000),
		"raw strings":    strings.Repeat("`\n\"\"\"\n@\"\n", 70_000),
		"block comments": strings.Repeat("/*\n", 100_000),
		"aliases":        aliasChain(20_000),
	} {
		for lang, sy := range lexSyntax {
			noHang(t, name+" as "+lang, func() { blank([]byte(src), sy) })
		}
		noHang(t, name+" resolved", func() {
			f := newFile(fkPython, "a.py", []byte(src), nil)
			f.resolve("a19999")
			nf := newFile(fkJS, "a.ts", []byte(src), nil)
			nf.resolve("a19999")
		})
	}
}

// aliasChain is n names each defined as the one before, and a cycle.
func aliasChain(n int) string {
	var b strings.Builder
	b.WriteString("a0 = a1\nx = y\ny = x\n")
	for i := 1; i < n; i++ {
		b.WriteString("a" + itoa(i) + " = a" + itoa(i-1) + "\n")
	}
	return b.String()
}
