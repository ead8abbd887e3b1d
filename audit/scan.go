package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options bound a scan: a hostile repository gets the same memory and time
// as a friendly one.
type Options struct {
	MaxFileBytes     int64 // a source or config file larger than this is skipped
	MaxLockfileBytes int64 // lockfiles are larger by nature
	MaxFiles         int   // files read per root; the rest are counted as skipped
	MaxDepth         int   // directory depth below the root
	MaxLayers        int   // layers kept in all
	MaxLineBytes     int   // a line longer than this in a source file marks it minified
	Threshold        int   // stacks over this many attempts are a warning
	Workers          int   // files read at once; 0: GOMAXPROCS
	// AttemptTime is how long one failing innermost call takes, for the
	// fail-fast wall clock (seed 000's 529s: answered, not timed out).
	AttemptTime time.Duration
}

// DefaultOptions are the CLI's bounds.
func DefaultOptions() Options {
	return Options{
		MaxFileBytes:     1 << 20,
		MaxLockfileBytes: 32 << 20,
		MaxFiles:         1_000_000,
		MaxDepth:         64,
		MaxLayers:        10_000,
		MaxLineBytes:     4096,
		Threshold:        10,
		AttemptTime:      10 * time.Second,
	}
}

const maxSkipExamples = 5

// Skip reasons.
const (
	skipSymlink   = "symlink (never followed)"
	skipVendored  = "vendored or dependency directory"
	skipTooLarge  = "larger than the size limit"
	skipBinary    = "binary"
	skipGenerated = "generated or minified"
	skipDepth     = "deeper than the depth limit"
	skipTooMany   = "over the file-count limit"
	skipNotFile   = "not a regular file (device, FIFO, socket)"
	skipUnreadble = "unreadable"
	skipUnparsed  = "could not be parsed"
	skipPartial   = "partly read: 256 matches of one shape, the rest not examined"
	skipTemplate  = "a template (render it, e.g. helm template, and audit the output)"
)

// vendoredDirs are directories of other people's code or build output:
// their retry code is the libraries' own, which the defaults table already
// describes.
var vendoredDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true, "bower_components": true,
	".venv": true, "venv": true, "site-packages": true, "__pycache__": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, "dist": true, "build": true, "target": true, ".next": true, ".nuxt": true,
	".svelte-kit": true, ".turbo": true, ".cache": true, "coverage": true, ".terraform": true, "third_party": true,
	".yarn": true, ".pnpm-store": true, ".gradle": true, ".idea": true, ".vscode": true,
}

// fileKind is which detectors a file goes to (rulelist.go).
type fileKind int

const (
	fkNone fileKind = iota
	fkJS
	fkPython
	fkGo
	fkRuby
	fkYAML
	fkWorkflow // a GitHub Actions workflow
	fkNginx
	fkClaudeSettings
	fkHAProxy
	fkCodexConfig
	fkAirflowCfg
	fkLock
	fkMinified // named as minified or bundled: counted, never read
	fkCSharp
)

func classify(rel string) fileKind {
	k := classifyName(rel)
	if k == fkYAML && isWorkflow(rel) {
		return fkWorkflow
	}
	return k
}

func isWorkflow(rel string) bool {
	return strings.HasPrefix(rel, ".github/workflows/") || strings.Contains(rel, "/.github/workflows/")
}

func classifyName(rel string) fileKind {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	if lockfileParser(base) != nil {
		return fkLock
	}
	switch {
	case strings.HasSuffix(lower, ".min.js"), strings.HasSuffix(lower, ".bundle.js"), strings.HasSuffix(lower, ".d.ts"):
		return fkMinified
	case (base == "settings.json" || base == "settings.local.json") && path.Base(path.Dir(rel)) == ".claude":
		return fkClaudeSettings
	case base == "config.toml" && path.Base(path.Dir(rel)) == ".codex":
		return fkCodexConfig
	case lower == "airflow.cfg":
		return fkAirflowCfg
	case strings.HasSuffix(lower, ".cfg"):
		// haproxy.cfg, and any .cfg: HAProxy's own examples are named for
		// what they show. scanHAProxy wants a backend or listen section
		// with a server, which setup.cfg and the like never have.
		return fkHAProxy
	}
	switch path.Ext(lower) {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return fkJS
	case ".py", ".ipynb":
		return fkPython
	case ".go":
		return fkGo
	case ".rb":
		return fkRuby
	case ".cs":
		return fkCSharp
	case ".yaml", ".yml":
		return fkYAML
	case ".json":
		// State machines (Amazon States Language) are JSON, named so by
		// convention; YAML's parser reads JSON and gives line numbers.
		// Other JSON (data, fixtures) is not read.
		l := strings.ToLower(rel)
		for _, hint := range []string{".asl.json", "statemachine", "state-machine", "state_machine", "stepfunction", "step-function", "step_function", "sfn"} {
			if strings.Contains(l, hint) {
				return fkYAML
			}
		}
	case ".conf":
		if strings.Contains(lower, "nginx") || strings.Contains(rel, "nginx") || strings.HasPrefix(rel, "conf.d/") || strings.Contains(rel, "/conf.d/") || strings.Contains(rel, "sites-") {
			return fkNginx
		}
	}
	if lower == "nginx.conf" {
		return fkNginx
	}
	return fkNone
}

// rootScan is the state of one root's scan.
type rootScan struct {
	root     string
	opt      Options
	mu       sync.Mutex
	layers   []Layer
	skipped  map[string]*Skip
	files    int
	versions *versionTree
	// declared holds the packages any manifest names, for detectors
	// that only trust a bare shape when the library is a dependency.
	pending []pendingFile
	consts  map[string][]jsConst // object constants with attempts, by name
	// pyClasses are the Python classes with bases, for the subclasses of
	// modelled classes (subclass.go).
	pyClasses []pyClassDef
	jsClasses []jsClassDef
	// jsFiles: the JS/TS files that send a request (a fetch, an HTTP
	// client, an SDK layer), build an HTTP client instance, or call one
	// another file builds: a query calling a function they export calls an
	// API (resolveQueries).
	jsFiles map[string]*jsFileInfo
	trunc   bool
	// candCut counts the candidates --max-layers cut before resolution
	// (cutLayers), candFiles the first of their files by path.
	candCut   int
	candFiles []string
}

type pendingFile struct {
	rel  string
	abs  string
	kind fileKind
}

func (s *rootScan) skip(reason, rel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.skipped[reason]
	if k == nil {
		k = &Skip{Reason: reason}
		s.skipped[reason] = k
	}
	k.Count++
	// The first paths in order, not the first the workers happened to
	// reach: the same tree gives the same report.
	switch {
	case len(k.Examples) < maxSkipExamples:
		k.Examples = append(k.Examples, rel)
	case rel < k.Examples[len(k.Examples)-1]:
		k.Examples[len(k.Examples)-1] = rel
	default:
		return
	}
	slices.Sort(k.Examples)
}

// add keeps the layers found. Over MaxLayers, the layers kept are the
// first by file and line, not the first the workers happened to reach: the
// same tree gives the same report at any GOMAXPROCS. They are cut once the
// list holds three times the limit (cutLayers keeps up to twice it: the
// settled and the candidates), so memory stays within 3 × MaxLayers.
func (s *rootScan) add(ls []Layer) {
	if len(ls) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.layers = append(s.layers, ls...)
	if len(s.layers) > s.opt.MaxLayers && len(s.layers)-s.opt.MaxLayers > s.opt.MaxLayers && len(s.layers)-s.opt.MaxLayers-s.opt.MaxLayers > s.opt.MaxLayers {
		s.cutLayers() // written so that a --max-layers near the int's limit does not overflow
	}
}

// keepFirst orders xs by file and line and cuts it to its first n, once it
// holds more than over: as cutLayers, so which classes a huge tree indexes,
// and in which order, does not depend on which files the workers read
// first.
func keepFirst[T any](xs []T, n, over int, key func(T) (string, int)) []T {
	if len(xs) <= over {
		return xs
	}
	slices.SortStableFunc(xs, func(a, b T) int {
		af, al := key(a)
		bf, bl := key(b)
		if c := strings.Compare(af, bf); c != 0 {
			return c
		}
		return al - bl
	})
	if len(xs) <= n {
		return xs
	}
	clear(xs[n:])
	return xs[:n]
}

// cutLayers keeps MaxLayers layers: the critical-shaped first (unbounded,
// then every-error), then the first by file, line and row. A candidate that
// resolution may still drop (a loop whose bound is in another file, a
// re-enqueue of another task) has MaxLayers places of its own, so a file
// of such candidates cannot push a real layer — or a critical and its exit
// code — out before resolution drops them (R6-1). One file's layers come
// from one goroutine in the order its detectors found them, and the sorts
// are stable: equal keys (one file's) keep that order. The layers kept are
// left in file, line and row order.
func (s *rootScan) cutLayers() {
	max := s.opt.MaxLayers
	if len(s.layers) <= max {
		return
	}
	byPlace := func(a, b Layer) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.DefaultID, b.DefaultID)
	}
	rank := func(l Layer) int {
		switch {
		case l.loopPending || l.reenqueueTask != "" || l.query != nil:
			return 3 // a query not yet followed to a request is one too (resolveQueries)
		case l.Unbounded:
			return 0
		case l.Retries4xx && l.Attempts > 1:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(s.layers, func(a, b Layer) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return byPlace(a, b)
	})
	settled := 0
	for settled < len(s.layers) && rank(s.layers[settled]) < 3 {
		settled++
	}
	keep := make([]Layer, 0, min(settled, max)+min(len(s.layers)-settled, max))
	keep = append(keep, s.layers[:min(settled, max)]...)
	keep = append(keep, s.layers[settled:settled+min(len(s.layers)-settled, max)]...)
	if settled > max {
		s.trunc = true
	}
	// Candidates cut are said apart: most are dropped by resolution, so
	// "more layers than the limit" over an empty list was no answer.
	for _, l := range s.layers[settled+min(len(s.layers)-settled, max):] {
		s.candCut++
		if !slices.Contains(s.candFiles, l.File) {
			s.candFiles = append(s.candFiles, l.File)
			slices.Sort(s.candFiles)
			s.candFiles = s.candFiles[:min(len(s.candFiles), maxSkipExamples)]
		}
	}
	slices.SortStableFunc(keep, byPlace)
	clear(s.layers) // the cut layers' strings are not pinned
	s.layers = keep
}

// candidatesCut is the reason "Not read" gives for the loop candidates
// --max-layers cut before resolution could read their bounds.
const candidatesCut = "loop and query candidates past --max-layers, cut before their bound (in another file or a caller) or their request was read"

// Scan audits each root: it walks the tree without following a symlink,
// reads lockfiles for versions, runs the detectors, then groups the layers
// into stacks and writes the findings.
func Scan(roots []string, opt Options) (*Result, error) {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	res := &Result{Roots: roots, Threshold: opt.Threshold, AttemptTime: opt.AttemptTime.Seconds()}
	skips := map[string]*Skip{}
	for _, root := range roots {
		s, err := scanRoot(root, opt)
		if err != nil {
			return nil, err
		}
		exampleBase := root
		if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
			exampleBase = filepath.Dir(root) // a file named alone
		}
		res.Files += s.files
		res.Truncated = res.Truncated || s.trunc
		res.Layers = append(res.Layers, s.layers...)
		for _, k := range s.skipped {
			m := skips[k.Reason]
			if m == nil {
				m = &Skip{Reason: k.Reason}
				skips[k.Reason] = m
			}
			m.Count += k.Count
			for _, e := range k.Examples {
				if len(m.Examples) < maxSkipExamples {
					m.Examples = append(m.Examples, path.Join(filepath.ToSlash(exampleBase), e))
				}
			}
		}
	}
	for _, k := range skips {
		res.Skipped = append(res.Skipped, *k)
	}
	slices.SortFunc(res.Skipped, func(a, b Skip) int { return strings.Compare(a.Reason, b.Reason) })
	slices.SortStableFunc(res.Layers, func(a, b Layer) int {
		if c := strings.Compare(a.Root, b.Root); c != 0 {
			return c
		}
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.DefaultID, b.DefaultID)
	})
	buildStacks(res)
	writeFindings(res)
	return res, nil
}

func scanRoot(root string, opt Options) (*rootScan, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w (give a directory or file to scan)", root, err)
	}
	// The root the user names is theirs to follow; links below it are not.
	walkRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", root, err)
	}
	s := &rootScan{root: root, opt: opt, skipped: map[string]*Skip{}, versions: newVersionTree(), consts: map[string][]jsConst{}}
	if !fi.IsDir() {
		// One file: scan it alone, named by its base name. A link the
		// user named is followed like a root directory's: the file read
		// is its target (the read refuses links), named as the user
		// named it unless only the target's name says what it is.
		rel := filepath.Base(root)
		if classify(rel) == fkNone {
			rel = filepath.Base(walkRoot)
		}
		s.consider(rel, walkRoot, fi.Size(), fi.Mode())
	} else if err := s.walk(walkRoot); err != nil {
		return nil, err
	}
	// Lockfiles first, so every layer can be given its version.
	var src []pendingFile
	for _, p := range s.pending {
		if p.kind == fkLock {
			s.readLock(p)
		} else {
			src = append(src, p)
		}
	}
	s.versions.finish()
	work := make(chan pendingFile)
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				s.readSource(p)
			}
		}()
	}
	for _, p := range src {
		work <- p
	}
	close(work)
	wg.Wait()
	s.cutLayers() // before the passes that read the layers, so they read the same ones
	s.pyClasses = keepFirst(s.pyClasses, maxClassDefs, 0, func(d pyClassDef) (string, int) { return d.file, d.line })
	s.jsClasses = keepFirst(s.jsClasses, maxClassDefs, 0, func(d jsClassDef) (string, int) { return d.file, d.line })
	s.followSubclasses(src)
	s.followJSSubclasses(src)
	s.resolveConstants()
	s.resolveReenqueues(src)
	s.resolveCallSites(src) // before resolveValues, which drops the loops still pending
	s.resolveValues(src)
	s.resolveQueries() // after resolveValues: a query's retry may be a name defined elsewhere
	// rt5 F4's rule for every layer, whatever read its bound (a knob
	// written 10**9 or 1e400, a module name bound to 5000): over 1,000
	// tries is no limit a night notices — unbounded, the critical finding.
	for i := range s.layers {
		if l := &s.layers[i]; !l.Unbounded && l.Attempts > maxSiteBound {
			markUnbounded(l, l.Attempts)
		}
	}
	s.cutLayers()
	if s.candCut > 0 {
		s.skipped[candidatesCut] = &Skip{Reason: candidatesCut, Count: s.candCut, Examples: s.candFiles}
	}
	for i := range s.layers {
		l := &s.layers[i]
		l.Root = root
		if d, ok := Lookup(l.DefaultID); ok {
			if l.Version == "" {
				l.Version = s.versions.versionOf(d, l.File)
			}
			// A default read at one major version says little of another.
			if got, read := major(l.Version), major(d.Versions); !l.Configured && got >= 0 && read >= 0 && got != read {
				l.Confidence = ConfidenceLow
				l.Note = strings.TrimPrefix(l.Note+"; ", "; ") + fmt.Sprintf("the default was read at %s; this repository has %s: check that version's default", d.Versions, l.Version)
			}
		}
	}
	return s, nil
}

// resolveConstants gives a layer whose options are a named constant the
// attempts of that constant, defined in any file of the root
// (defaultJobOptions: DEFAULT_JOB_OPTIONS, exported from another file).
// Several definitions of one name: the worst, at low confidence. None: a
// defaultJobOptions layer stays, valued unknown at low confidence; an
// .add(…, opts) of an unknown name is no layer.
func (s *rootScan) resolveConstants() {
	// The definitions of a name are ordered and their worst found once, not
	// once per layer naming it: 10,000 calls naming one of 16,000
	// definitions cost the sum, not the product.
	type resolved struct {
		defs  []jsConst
		worst jsConst
	}
	byName := map[string]resolved{}
	kept := s.layers[:0]
	for _, l := range s.layers {
		if l.fromConst == "" {
			kept = append(kept, l)
			continue
		}
		rs, ok := byName[l.fromConst]
		if !ok {
			rs.defs = slices.Clone(s.consts[l.fromConst])
			slices.SortFunc(rs.defs, func(a, b jsConst) int {
				if c := strings.Compare(a.file, b.file); c != 0 {
					return c
				}
				return a.line - b.line
			})
			if len(rs.defs) > 0 {
				rs.worst = rs.defs[0]
				for _, d := range rs.defs[1:] {
					if d.attempts > rs.worst.attempts {
						rs.worst = d
					}
				}
			}
			byName[l.fromConst] = rs
		}
		defs := rs.defs
		switch {
		case len(defs) == 0 && !l.constRequired:
			continue
		case len(defs) == 0:
			l.Note = fmt.Sprintf("the options are %s, defined in no file read: the default (%s) is shown", l.fromConst, attemptsText(l))
		default:
			worst := rs.worst
			l.setAttempts(worst.attempts, fmt.Sprintf("%s (%s at %s:%d)", l.Setting, worst.written, worst.file, worst.line))
			if l.Backoff == "none" {
				l.Backoff = worst.backoff
			}
			l.Confidence = ConfidenceMedium
			l.Note = fmt.Sprintf("%s is defined at %s:%d", l.fromConst, worst.file, worst.line)
			if len(defs) > 1 {
				l.Confidence = ConfidenceLow
				l.Note = fmt.Sprintf("%d constants are named %s: the worst, at %s:%d, is shown", len(defs), l.fromConst, worst.file, worst.line)
			}
		}
		kept = append(kept, l)
	}
	s.layers = kept
}

// walk lists the files to read. filepath.WalkDir never follows a symbolic
// link (it reports the link itself), so a link to / or a link loop costs
// one entry; the depth and file-count limits bound a tree built to exhaust.
func (s *rootScan) walk(root string) error {
	count := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			rel = p
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == root {
				return fmt.Errorf("audit %s: %w", root, err)
			}
			s.skip(skipUnreadble, rel)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			s.skip(skipSymlink, rel)
			return nil
		}
		if d.IsDir() {
			if vendoredDirs[d.Name()] {
				s.skip(skipVendored, rel)
				return fs.SkipDir
			}
			if strings.Count(rel, "/")+1 > s.opt.MaxDepth {
				s.skip(skipDepth, rel)
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			s.skip(skipNotFile, rel)
			return nil
		}
		k := classify(rel)
		if k == fkNone {
			return nil // not a file any detector reads: not counted as skipped
		}
		if k == fkMinified {
			s.skip(skipGenerated, rel)
			return nil
		}
		if count >= s.opt.MaxFiles {
			s.skip(skipTooMany, rel)
			return nil
		}
		count++
		info, err := d.Info()
		if err != nil {
			s.skip(skipUnreadble, rel)
			return nil
		}
		s.consider(rel, p, info.Size(), info.Mode())
		return nil
	})
}

func (s *rootScan) consider(rel, abs string, size int64, mode fs.FileMode) {
	k := classify(rel)
	if k == fkNone || k == fkMinified {
		return
	}
	if !mode.IsRegular() {
		s.skip(skipNotFile, rel)
		return
	}
	limit := s.opt.MaxFileBytes
	if k == fkLock {
		limit = s.opt.MaxLockfileBytes
	}
	if size > limit {
		s.skip(skipTooLarge, rel)
		return
	}
	s.pending = append(s.pending, pendingFile{rel: rel, abs: abs, kind: k})
}

var errTooLarge = errors.New("file grew past the size limit")

// read opens without following a link (the tree can change between the
// walk and the read) and reads at most limit bytes.
func read(abs string, limit int64) ([]byte, error) {
	f, err := openNoFollow(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

func (s *rootScan) readSource(p pendingFile) {
	b, err := read(p.abs, s.opt.MaxFileBytes)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			s.skip(skipTooLarge, p.rel)
		} else {
			s.skip(skipUnreadble, p.rel)
		}
		return
	}
	if isBinary(b) {
		s.skip(skipBinary, p.rel)
		return
	}
	var lineOf []int // a notebook's: the JSON line of each line of its code
	if strings.HasSuffix(strings.ToLower(p.rel), ".ipynb") {
		if b, lineOf, err = notebookPython(b); err != nil {
			s.skip(skipUnparsed, p.rel)
			return
		}
	}
	if sy, ok := syntaxOf[p.kind]; ok && isGenerated(b, sy, s.opt.MaxLineBytes) {
		s.skip(skipGenerated, p.rel)
		return
	}
	s.mu.Lock()
	s.files++
	s.mu.Unlock()
	f := newFile(p.kind, p.rel, b, s.versions.all)
	ls, perr := detectIn(f)
	if lineOf != nil {
		for i := range ls {
			ls[i].Line = notebookLine(lineOf, ls[i].Line)
			if ls[i].wraps > 0 {
				ls[i].wraps = notebookLine(lineOf, ls[i].wraps)
			}
		}
	}
	if p.kind == fkJS {
		if ds := jsClassDefs(f); len(ds) > 0 {
			s.mu.Lock()
			s.jsClasses = keepFirst(append(s.jsClasses, ds...), maxClassDefs, 2*maxClassDefs, func(d jsClassDef) (string, int) { return d.file, d.line })
			s.mu.Unlock()
		}
	}
	if p.kind == fkPython {
		if ds := pyClassDefs(f); len(ds) > 0 {
			for i := range ds {
				if lineOf != nil {
					ds[i].line = notebookLine(lineOf, ds[i].line)
				}
			}
			s.mu.Lock()
			s.pyClasses = keepFirst(append(s.pyClasses, ds...), maxClassDefs, 2*maxClassDefs, func(d pyClassDef) (string, int) { return d.file, d.line })
			s.mu.Unlock()
		}
	}
	if p.kind == fkJS {
		if info := jsFileInfoOf(f, ls); info != nil {
			s.mu.Lock()
			if s.jsFiles == nil {
				s.jsFiles = map[string]*jsFileInfo{}
			}
			s.jsFiles[p.rel] = info
			s.mu.Unlock()
		}
	}
	if p.kind == fkJS {
		if cs := jsConstants(p.rel, b); len(cs) > 0 {
			s.mu.Lock()
			for name, c := range cs {
				s.consts[name] = append(s.consts[name], c)
			}
			s.mu.Unlock()
		}
	}
	perShape := map[string]int{}
	for _, l := range ls {
		if perShape[l.DefaultID]++; perShape[l.DefaultID] == maxCandidates {
			s.skip(skipPartial, p.rel)
		}
	}
	switch {
	case errors.Is(perr, errTemplate):
		s.skip(skipTemplate, p.rel)
	case perr != nil:
		s.skip(skipUnparsed, p.rel)
	}
	s.add(ls)
}

func (s *rootScan) readLock(p pendingFile) {
	b, err := read(p.abs, s.opt.MaxLockfileBytes)
	if err != nil {
		s.skip(skipUnreadble, p.rel)
		return
	}
	if isBinary(b) {
		s.skip(skipBinary, p.rel)
		return
	}
	s.files++
	if err := s.versions.parse(p.rel, b); err != nil {
		s.skip(skipUnparsed, p.rel)
	}
}

// major is the first number of a version ("range ^12.1.0" → 12, "v1.60.0"
// → 1), or -1 when there is none.
func major(v string) int {
	i := strings.IndexAny(v, "0123456789")
	if i < 0 {
		return -1
	}
	n := 0
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9' && n < 1e6; i++ {
		n = n*10 + int(v[i]-'0')
	}
	return n
}

// isBinary: a NUL in the first 8 KiB, as git and grep decide.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0
}

// syntaxOf is each source kind's comment and string syntax.
var syntaxOf = map[fileKind]syntax{
	fkJS: jsSyntax, fkPython: pySyntax, fkGo: goSyntax, fkRuby: rubySyntax, fkCSharp: csSyntax, fkNginx: configSyntax, fkHAProxy: configSyntax, fkAirflowCfg: configSyntax,
}

// isGenerated: Go's "Code generated ... DO NOT EDIT." convention, an
// @generated marker near the top, or a line holding more than maxLine bytes
// of code once comments and strings are blanked — minified or bundled code,
// whose retry loops are a library's own. A long string literal (a prompt
// on one line) is not code and does not count.
func isGenerated(b []byte, sy syntax, maxLine int) bool {
	head := b[:min(len(b), 1024)]
	if (bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT"))) || bytes.Contains(head, []byte("@generated")) {
		return true
	}
	long := false
	for start := 0; start < len(b); {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			i = len(b) - start
		}
		long = long || i > maxLine
		start += i + 1
	}
	if !long {
		return false
	}
	code := blank(b, sy)
	for start := 0; start < len(code); {
		i := bytes.IndexByte(code[start:], '\n')
		if i < 0 {
			i = len(code) - start
		}
		if i > maxLine && len(code[start:start+i])-bytes.Count(code[start:start+i], []byte(" ")) > maxLine {
			return true
		}
		start += i + 1
	}
	return false
}
