// Command gen writes burnrate's sample logs from package scenario.
//
//	go run ./sample-logs/gen -out sample-logs
//	go run ./sample-logs/gen -night 1000000 > night.jsonl   # a benchmark log
//	go run ./sample-logs/gen -night 1000000 -calls 8 -uniform > uniform.jsonl
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/scenario"
)

func main() {
	out := flag.String("out", "sample-logs", "directory to write the logs into")
	night := flag.Int("night", 0, "instead, write an interleaved benchmark log of this many lines to stdout")
	concurrent := flag.Int("concurrent", 8000, "jobs in flight at once in the -night log")
	calls := flag.Int("calls", 10, "model calls per job in the -night log (a job is calls+2 lines)")
	uniform := flag.Bool("uniform", false, "in the -night log, keep every job in flight for the whole log, its lines spread uniformly and shuffled (-concurrent is ignored)")
	seed := flag.Uint64("seed", 1, "shuffle seed of the -uniform log")
	flag.Parse()
	if *night > 0 {
		write := func() error { return scenario.NightOf(os.Stdout, *night, *concurrent, *calls) }
		if *uniform {
			write = func() error { return scenario.NightUniform(os.Stdout, *night, *calls, *seed) }
		}
		if err := write(); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if err := writeAll(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func writeAll(dir string) error {
	names := make([]string, 0, len(scenario.Samples))
	for n := range scenario.Samples {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := writeFile(filepath.Join(dir, name), scenario.Samples[name]()); err != nil {
			return err
		}
	}
	// Fixtures of the other formats burnrate reads.
	if err := os.MkdirAll(filepath.Join(dir, "formats"), 0o755); err != nil {
		return err
	}
	for name, gen := range scenario.FormatFixtures {
		if err := os.WriteFile(filepath.Join(dir, "formats", name), []byte(gen()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, lines []scenario.Line) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var w io.Writer = f
	if strings.HasSuffix(path, ".gz") {
		zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		defer zw.Close()
		w = zw
	}
	return scenario.Write(w, lines)
}
