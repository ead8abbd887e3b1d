package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkScan100kFiles: a 100,000-file tree (1,000 directories of
// TypeScript, Python, Go and Markdown, one file in 50 holding a retry
// layer), scanned end to end: walk, read, blank, match, stack.
//
//	go test ./audit -run x -bench Scan100k -benchtime 3x
func BenchmarkScan100kFiles(b *testing.B) {
	dir := b.TempDir()
	const dirs, perDir = 1000, 100
	ts := []byte("import { z } from \"zod\";\n\nexport function parse(x: unknown) {\n  // validate the input\n  return z.object({ id: z.string() }).parse(x);\n}\n")
	py := []byte("import json\n\n\ndef load(path):\n    \"\"\"Read a report.\"\"\"\n    with open(path) as f:\n        return json.load(f)\n")
	gosrc := []byte("package p\n\nimport \"fmt\"\n\nfunc Hello(n string) string { return fmt.Sprintf(\"hi %s\", n) }\n")
	md := []byte("# notes\n\nretry the build if it fails\n")
	for d := range dirs {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d/100), fmt.Sprintf("mod%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range perDir {
			var name string
			var body []byte
			switch i := d*perDir + f; {
			case i%50 == 0:
				name, body = fmt.Sprintf("llm%d.ts", f), []byte(layerTS)
			case f%10 < 5:
				name, body = fmt.Sprintf("f%d.ts", f), ts
			case f%10 < 8:
				name, body = fmt.Sprintf("f%d.py", f), py
			case f%10 < 9:
				name, body = fmt.Sprintf("f%d.go", f), gosrc
			default:
				name, body = fmt.Sprintf("f%d.md", f), md
			}
			if err := os.WriteFile(filepath.Join(sub, name), body, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	opt := DefaultOptions()
	b.ResetTimer()
	var r *Result
	for b.Loop() {
		var err error
		if r, err = Scan([]string{dir}, opt); err != nil {
			b.Fatal(err)
		}
	}
	if len(r.Layers) != dirs*perDir/50 {
		b.Fatalf("%d layers, want %d", len(r.Layers), dirs*perDir/50)
	}
	b.ReportMetric(float64(r.Files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkHostileFiles: 1 MiB files built to make a scanner slow — 60,000
// unclosed constructor calls, 30,000 loop heads, 120,000 unterminated
// imports — each read in bounded time.
//
//	go test ./audit -run x -bench Hostile
func BenchmarkHostileFiles(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{
		"calls.ts":   "import Anthropic from \"@anthropic-ai/sdk\";\n" + strings.Repeat(strings.Repeat("new Anthropic(", 20)+"\n", 3000),
		"loops.ts":   strings.Repeat(strings.Repeat("for (let i = 0; i < 3; i++) {", 10)+"\n", 3000),
		"imports.ts": strings.Repeat("import {", 120_000),
		"tasks.py":   "from celery import Celery\n" + strings.Repeat("@app.task(autoretry_for=(E,), bind=True\n", 20_000),
	}
	benchScanFiles(b, dir, files)
}

// BenchmarkConstantsTimesCalls: 16,000 one-line job-option constants of
// one name, each in its own file, and 10,000 `.add(…, OPTS)` calls that
// name it. Resolving each call against every definition made the cost the
// product (27–33 s); the definitions of a name are ordered once.
//
//	go test ./audit -run x -bench ConstantsTimesCalls -benchtime 1x
func BenchmarkConstantsTimesCalls(b *testing.B) {
	dir := b.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("package.json", `{"dependencies": {"bullmq": "5.0.0"}}`)
	for i := range 16_000 {
		write(fmt.Sprintf("opts/o%03d/c%d.ts", i/100, i), fmt.Sprintf("export const OPTS = { attempts: %d };\n", 2+i%5))
	}
	for i := range 40 {
		var s strings.Builder
		s.WriteString("import { Queue } from \"bullmq\";\nconst q = new Queue(\"q\");\n")
		for j := range 250 {
			fmt.Fprintf(&s, "q.add(\"job%d\", { n: %d }, OPTS);\n", j, j)
		}
		write(fmt.Sprintf("jobs/j%d.ts", i), s.String())
	}
	opt := DefaultOptions()
	b.ResetTimer()
	for b.Loop() {
		r, err := Scan([]string{dir}, opt)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Layers) != 10_000 {
			b.Fatalf("%d layers, want 10000", len(r.Layers))
		}
	}
}

// BenchmarkPnpmLock64k: a pnpm-lock.yaml of 64,000 dependencies in one
// importer and 64,000 packages (13–16 s when each key was checked against
// every other for duplicates).
//
//	go test ./audit -run x -bench PnpmLock -benchtime 1x
func BenchmarkPnpmLock64k(b *testing.B) {
	var s strings.Builder
	s.WriteString("lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n")
	for i := range 64_000 {
		fmt.Fprintf(&s, "      pkg-%d:\n        specifier: ^1.0.%d\n        version: 1.0.%d\n", i, i, i)
	}
	s.WriteString("packages:\n")
	for i := range 64_000 {
		fmt.Fprintf(&s, "  pkg-%d@1.0.%d:\n    resolution: {integrity: sha512-x}\n", i, i)
	}
	lock := []byte(s.String())
	b.SetBytes(int64(len(lock)))
	for b.Loop() {
		vs := versionSet{}
		if err := parsePnpmLock(lock, func(string) versionSet { return vs }); err != nil {
			b.Fatal(err)
		}
		if len(vs) < 64_000 {
			b.Fatalf("%d versions", len(vs))
		}
	}
}

// BenchmarkLockfile32MiB: a tree whose lockfile is just under the 32 MiB
// limit (MaxLockfileBytes) — a pnpm-lock.yaml of one workspace importer and
// its packages and snapshots, and a package-lock.json v3 of nested
// node_modules entries — scanned end to end with one SDK client whose
// version the lockfile gives.
//
//	go test ./audit -run x -bench Lockfile32MiB -benchtime 1x
func BenchmarkLockfile32MiB(b *testing.B) {
	const limit = 32 << 20
	gen := map[string]func() []byte{
		"pnpm-lock.yaml": func() []byte {
			var s strings.Builder
			s.WriteString("lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\nimporters:\n  .:\n    dependencies:\n      '@anthropic-ai/sdk':\n        specifier: ^0.39.0\n        version: 0.39.0\n")
			n := 0
			for ; s.Len() < limit/4; n++ {
				fmt.Fprintf(&s, "      '@scope%d/pkg-%d':\n        specifier: ^%d.2.3\n        version: %d.2.3(react@18.3.1)\n", n%97, n, n%13, n%13)
			}
			s.WriteString("\npackages:\n\n")
			for i := 0; s.Len() < limit*3/5; i++ {
				fmt.Fprintf(&s, "  '@scope%d/pkg-%d@%d.2.3':\n    resolution: {integrity: sha512-%064x}\n    engines: {node: '>=18'}\n\n", i%97, i%n, i%13, i)
			}
			s.WriteString("snapshots:\n\n")
			for i := 0; s.Len() < limit-256; i++ {
				fmt.Fprintf(&s, "  '@scope%d/pkg-%d@%d.2.3(react@18.3.1)':\n    dependencies:\n      react: 18.3.1\n\n", i%97, i%n, i%13)
			}
			return []byte(s.String())
		},
		"package-lock.json": func() []byte {
			var s strings.Builder
			s.WriteString("{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\"name\": \"app\", \"dependencies\": {\"@anthropic-ai/sdk\": \"^0.39.0\"}},\n    \"node_modules/@anthropic-ai/sdk\": {\"version\": \"0.39.0\", \"resolved\": \"https://registry.npmjs.org/@anthropic-ai/sdk/-/sdk-0.39.0.tgz\", \"integrity\": \"sha512-x\"}")
			for i := 0; s.Len() < limit-512; i++ {
				fmt.Fprintf(&s, ",\n    \"node_modules/pkg-%d/node_modules/dep-%d\": {\"version\": \"%d.0.%d\", \"resolved\": \"https://registry.npmjs.org/dep-%d/-/dep-%d-%d.0.%d.tgz\", \"integrity\": \"sha512-%064x\", \"license\": \"MIT\"}", i/7, i, i%9, i%31, i, i, i%9, i%31, i)
			}
			s.WriteString("\n  }\n}\n")
			return []byte(s.String())
		},
	}
	for _, name := range []string{"pnpm-lock.yaml", "package-lock.json"} {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			lock := gen[name]()
			if len(lock) > limit {
				b.Fatalf("%d bytes, over the limit", len(lock))
			}
			for p, body := range map[string][]byte{
				name:           lock,
				"package.json": []byte(`{"dependencies": {"@anthropic-ai/sdk": "^0.39.0"}}`),
				"src/llm.ts":   []byte("import Anthropic from \"@anthropic-ai/sdk\";\nexport const client = new Anthropic();\n"),
			} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), body, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(lock)))
			opt := DefaultOptions()
			for b.Loop() {
				r, err := Scan([]string{dir}, opt)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Layers) != 1 || r.Layers[0].Version != "0.39.0" {
					b.Fatalf("layers %+v skipped %+v", r.Layers, r.Skipped)
				}
			}
		})
	}
}

// benchScanFiles writes files into dir and times scanning it, with files
// up to 2 MiB read.
func benchScanFiles(b *testing.B, dir string, files map[string]string) {
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	opt := DefaultOptions()
	opt.MaxFileBytes = 2 << 20
	for b.Loop() {
		if _, err := Scan([]string{dir}, opt); err != nil {
			b.Fatal(err)
		}
	}
}
