package audit

import (
	"fmt"
	"os"
	"path/filepath"
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
