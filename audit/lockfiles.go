package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	yaml "go.yaml.in/yaml/v3"
)

// versionSet maps "ecosystem/package" to the version a lockfile resolves
// (or a manifest's range when no lockfile names it): openai on npm and
// openai on PyPI are different packages. Filled before the sources are
// read, then only read.
type versionSet map[string]string

func (v versionSet) put(eco, name, version string, exact bool) {
	name = eco + "/" + strings.ToLower(strings.TrimSpace(name))
	if name == "" || len(name) > 200 || len(version) > 100 {
		return
	}
	if old, ok := v[name]; ok && (!exact || !strings.HasPrefix(old, "range ")) {
		return // the first exact version wins; a range never replaces one
	}
	if !exact {
		version = "range " + version
	}
	v[name] = version
}

func (v versionSet) declares(eco, name string) bool { _, ok := v[eco+"/"+name]; return ok }

// versionTree holds one versionSet per directory that has a lockfile or
// manifest: a repository of several projects (an npm app beside a pnpm
// one, Poetry beside uv) resolves each file's version from its own
// project, not from whichever lockfile was read first.
type versionTree struct {
	dirs map[string]versionSet // slash-separated, relative to the root; "." is the root
	all  versionSet            // every package any manifest names, for declares
}

func newVersionTree() *versionTree {
	return &versionTree{dirs: map[string]versionSet{}, all: versionSet{}}
}

// at is the set of a directory below the root, made on first use.
func (t *versionTree) at(dir string) versionSet {
	dir = path.Clean(dir)
	v := t.dirs[dir]
	if v == nil {
		v = versionSet{}
		t.dirs[dir] = v
	}
	return v
}

// parse reads one lockfile or manifest into the set of its directory
// (pnpm's importers into the set of each importer's directory).
func (t *versionTree) parse(rel string, b []byte) error {
	dir := path.Dir(rel)
	return lockfileParser(path.Base(rel))(b, func(sub string) versionSet { return t.at(path.Join(dir, sub)) })
}

// finish fills the union that declares reads, in a fixed order.
func (t *versionTree) finish() {
	dirs := make([]string, 0, len(t.dirs))
	for d := range t.dirs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		for k, v := range t.dirs[d] {
			if _, ok := t.all[k]; !ok {
				t.all[k] = v
			}
		}
	}
}

// versionOf resolves the library's version for a file: the nearest
// directory up the tree whose lockfile pins it wins. A manifest's range
// nearer the file stands unless an ancestor's lockfile pins the same
// release line (a workspace's root lockfile resolving a member's range);
// a pin of another line is another project's and the range is kept.
func (t *versionTree) versionOf(d Default, rel string) string {
	if t == nil {
		return ""
	}
	nearRange := ""
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if set, ok := t.dirs[dir]; ok {
			if v := set.versionOf(d); v != "" {
				exact := !strings.HasPrefix(v, "range ")
				switch {
				case exact && (nearRange == "" || sameRelease(nearRange, v)):
					return v
				case !exact && nearRange == "":
					nearRange = v
				}
			}
		}
		if dir == "." || dir == "/" || dir == "" {
			break
		}
	}
	return nearRange
}

func (v versionSet) versionOf(d Default) string {
	ecos := []string{d.Ecosystem}
	if d.Ecosystem == "config" {
		ecos = []string{"npm", "pypi", "go", "gem"} // a row spanning SDKs names each one's package
	}
	for _, eco := range ecos {
		for _, p := range d.Packages {
			if s, ok := v[eco+"/"+strings.ToLower(p)]; ok && s != "range " {
				return s // "range " alone: declared without a version
			}
		}
	}
	return ""
}

// lockParser reads a lockfile or manifest; at gives the set of a
// directory relative to the file's own ("" is its own).
type lockParser func(b []byte, at func(sub string) versionSet) error

func lockfileParser(base string) lockParser {
	switch {
	case base == "go.mod":
		return parseGoMod
	case base == "package-lock.json" || base == "npm-shrinkwrap.json":
		return parsePackageLock
	case base == "package.json":
		return parsePackageJSON
	case base == "pnpm-lock.yaml":
		return parsePnpmLock
	case base == "yarn.lock":
		return parseYarnLock
	case base == "poetry.lock" || base == "uv.lock":
		return parseTOMLLock
	case base == "Gemfile.lock":
		return parseGemfileLock
	case strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt"):
		return parseRequirements
	}
	return nil
}

func parseGoMod(b []byte, at func(string) versionSet) error {
	v := at("")
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "require (":
			in = true
			continue
		case in && line == ")":
			in = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !in:
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 {
			v.put("go", f[0], f[1], true)
			// github.com/openai/openai-go/v3 is openai-go too.
			if i := strings.LastIndex(f[0], "/v"); i > 0 && strings.Trim(f[0][i+2:], "0123456789") == "" {
				v.put("go", f[0][:i], f[1], true)
			}
		}
	}
	return sc.Err()
}

func parsePackageLock(b []byte, at func(string) versionSet) error {
	v := at("")
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
		Dependencies map[string]struct {
			Version string `json:"version"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return err
	}
	for k, p := range lock.Packages {
		name, ok := strings.CutPrefix(k, "node_modules/")
		if ok && !strings.Contains(name, "/node_modules/") {
			v.put("npm", name, p.Version, true)
		}
	}
	for name, p := range lock.Dependencies {
		v.put("npm", name, p.Version, true)
	}
	return nil
}

func parsePackageJSON(b []byte, at func(string) versionSet) error {
	v := at("")
	var pj struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return err
	}
	for n, r := range pj.Dependencies {
		v.put("npm", n, r, false)
	}
	for n, r := range pj.DevDependencies {
		v.put("npm", n, r, false)
	}
	return nil
}

// parsePnpmLock walks the lockfile's node tree rather than decoding it
// into maps: the decoder checks each mapping's keys against every other for
// duplicates, which made 64,000 dependencies cost 37 s. Aliases are not
// followed (a lockfile writes none; an alias bomb expands nothing here).
func parsePnpmLock(b []byte, at func(string) versionSet) error {
	var doc yaml.Node
	if cut := pnpmSections(b); len(cut) == len(b) || yaml.Unmarshal(cut, &doc) != nil {
		// Whole, or the cut refers to what it dropped (an alias to an
		// anchor in another section): the whole file is read.
		doc = yaml.Node{}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return err
		}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	put := func(v versionSet, deps *yaml.Node) {
		eachPair(deps, func(k, d *yaml.Node) {
			switch d.Kind {
			case yaml.ScalarNode:
				v.put("npm", k.Value, strings.SplitN(d.Value, "(", 2)[0], true)
			case yaml.MappingNode:
				if s := pairValue(d, "version"); s != nil && s.Kind == yaml.ScalarNode {
					v.put("npm", k.Value, strings.SplitN(s.Value, "(", 2)[0], true)
				}
			}
		})
	}
	// Importers are the workspace's projects, keyed by their directory
	// relative to the lockfile ("." is its own).
	eachPair(pairValue(root, "importers"), func(dir, imp *yaml.Node) {
		put(at(dir.Value), pairValue(imp, "dependencies"))
		put(at(dir.Value), pairValue(imp, "devDependencies"))
	})
	put(at(""), pairValue(root, "dependencies")) // lockfile v5
	return nil
}

// pnpmKept are the top-level sections of a pnpm lockfile that hold the
// versions read: packages and snapshots, nine tenths of a large lockfile,
// name every package of the tree and are never read.
var pnpmKept = map[string]bool{"lockfileVersion": true, "importers": true, "dependencies": true, "devDependencies": true}

// pnpmSections is b cut to the top-level sections in pnpmKept, so a 32 MiB
// lockfile builds the node tree of its importers, not of every package (5 s
// to 1 s). A top-level key is a line at column 0 (pnpm writes block
// style); a file with no such section line — a flow-style document — is
// returned whole, and a cut that does not parse alone is read whole
// (parsePnpmLock).
func pnpmSections(b []byte) []byte {
	var out []byte
	keep, cut := true, false
	for i := 0; i < len(b); {
		e := bytes.IndexByte(b[i:], '\n')
		if e < 0 {
			e = len(b)
		} else {
			e += i + 1
		}
		line := b[i:e]
		if len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '\n' && line[0] != '\r' && line[0] != '-' {
			if k, _, ok := bytes.Cut(line, []byte(":")); ok {
				keep = pnpmKept[strings.Trim(string(k), "'\" ")]
				cut = cut || !keep
			}
		}
		if keep {
			out = append(out, line...)
		}
		i = e
	}
	if !cut {
		return b
	}
	return out
}

// eachPair calls fn on each scalar key and its value of a mapping node (nil
// or another kind: none).
func eachPair(m *yaml.Node, fn func(k, v *yaml.Node)) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode {
			fn(m.Content[i], m.Content[i+1])
		}
	}
}

// pairValue is the value of key in a mapping node, or nil.
func pairValue(m *yaml.Node, key string) *yaml.Node {
	var out *yaml.Node
	eachPair(m, func(k, v *yaml.Node) {
		if out == nil && k.Value == key {
			out = v
		}
	})
	return out
}

var (
	yarnHead    = regexp.MustCompile(`^"?((?:@[^/@"\s]+/)?[^@"\s,]+)@`)
	yarnVersion = regexp.MustCompile(`^\s+version:?\s+"?([^"\s]+)"?`)
)

func parseYarnLock(b []byte, at func(string) versionSet) error {
	v := at("")
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] != ' ' {
			name = ""
			if m := yarnHead.FindStringSubmatch(line); m != nil {
				name = m[1]
			}
			continue
		}
		if m := yarnVersion.FindStringSubmatch(line); m != nil && name != "" {
			v.put("npm", name, m[1], true)
			name = ""
		}
	}
	return sc.Err()
}

func parseTOMLLock(b []byte, at func(string) versionSet) error {
	v := at("")
	var lock struct {
		Package []struct {
			Name    string `toml:"name"`
			Version string `toml:"version"`
		} `toml:"package"`
	}
	if _, err := toml.Decode(string(b), &lock); err != nil {
		return err
	}
	for _, p := range lock.Package {
		v.put("pypi", normalisePy(p.Name), p.Version, true)
	}
	return nil
}

// reqLine: a requirement, with or without a version (a bare
// `openai-agents` declares the package as much as `openai-agents==0.4`).
var reqLine = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?:(==|>=|~=|<=|>|<)\s*([^\s;#,]+))?\s*(?:[;#].*)?$`)

func parseRequirements(b []byte, at func(string) versionSet) error {
	v := at("")
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m := reqLine.FindStringSubmatch(sc.Text()); m != nil {
			v.put("pypi", normalisePy(m[1]), m[3], m[2] == "==")
		}
	}
	return sc.Err()
}

var gemSpec = regexp.MustCompile(`^    ([A-Za-z0-9_.-]+) \(([^)]+)\)$`)

func parseGemfileLock(b []byte, at func(string) versionSet) error {
	v := at("")
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m := gemSpec.FindStringSubmatch(sc.Text()); m != nil {
			v.put("gem", m[1], m[2], true)
		}
	}
	return sc.Err()
}

// normalisePy is PEP 503's name normalisation.
func normalisePy(n string) string {
	return strings.NewReplacer("_", "-", ".", "-").Replace(strings.ToLower(n))
}

// sameRelease: the two versions share a major version, and a minor one
// below 1.0 (semver: ^0.30 and 0.120 are different lines).
func sameRelease(a, b string) bool {
	na, nb := numbers(a, 2), numbers(b, 2)
	if len(na) == 0 || len(nb) == 0 || na[0] != nb[0] {
		return false
	}
	if na[0] == 0 && len(na) > 1 && len(nb) > 1 {
		return na[1] == nb[1]
	}
	return true
}

// numbers is up to n dot-separated numbers from the first digit of v.
func numbers(v string, n int) []int {
	i := strings.IndexAny(v, "0123456789")
	if i < 0 {
		return nil
	}
	var out []int
	for len(out) < n && i < len(v) && v[i] >= '0' && v[i] <= '9' {
		x := 0
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9' && x < 1e6; i++ {
			x = x*10 + int(v[i]-'0')
		}
		out = append(out, x)
		if i >= len(v) || v[i] != '.' {
			break
		}
		i++
	}
	return out
}
