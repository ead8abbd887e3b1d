// Command matrix runs the lab (docs/lab.md): each app on the real SDKs
// against the mock provider, burnrate on the evidence, and burnrate's
// answer per job against the provider's ledger. It prints a Markdown table
// and exits 1 when a setup marked "must hold" does not, or the wire broke
// its own expectation (seed 000: 63 calls per job).
//
//	lab/node/install.sh && go run ./lab/cmd/matrix              # the whole matrix
//	go run ./lab/cmd/matrix -slice ci                            # the slice .ci/run runs
//	go run ./lab/cmd/matrix -seeds 0-19                          # the 20-seed matrix
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/burnrate-dev/burnrate/lab/matrix"
)

func main() {
	slice := flag.String("slice", "full", "full: app × logging × -concurrency × -seeds (with seed 000's night); ci: the fixed slice")
	seeds := flag.String("seeds", "0-3", "the full slice's seeds: a range and/or a list, e.g. 0-19 or 0,5,7 (0: seed 000's storm and night)")
	conc := flag.String("concurrency", "1,4,16", "the full slice's concurrencies, e.g. 4 or 1,4,16")
	only := flag.String("app", "", "run only this app's setups")
	keep := flag.String("keep", "", "keep the runs' files (ledgers, logs, reports) in this directory")
	retryAfter := flag.Int("retry-after-ms", 5, "the lab's clock: retry-after-ms on 5xx answers (timing only, never counts)")
	pretryMin := flag.Int("pretry-min-ms", 10, "the lab's clock: p-retry's minTimeout")
	clientTimeout := flag.Int("client-timeout-ms", 1500, "the apps' SDK timeout: a timeout fault holds past it")
	flag.Parse()
	os.Exit(run(*slice, *seeds, *conc, *only, *keep, *retryAfter, *pretryMin, *clientTimeout))
}

func run(slice, seedList, concList, only, keep string, retryAfter, pretryMin, clientTimeout int) int {
	var setups []matrix.Setup
	switch slice {
	case "full":
		seeds, err := matrix.ParseSeeds(seedList)
		if err != nil {
			fmt.Fprintln(os.Stderr, "matrix:", err)
			return 2
		}
		var concs []int
		for _, c := range strings.Split(concList, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n < 1 || n > 64 {
				fmt.Fprintf(os.Stderr, "matrix: -concurrency %q: %q is not a concurrency from 1 to 64\n", concList, c)
				return 2
			}
			concs = append(concs, n)
		}
		setups = matrix.Matrix(seeds, concs)
	case "ci":
		setups = matrix.CI()
	default:
		fmt.Fprintf(os.Stderr, "matrix: -slice %q: use full or ci\n", slice)
		return 2
	}
	if only != "" {
		var keepOnly []matrix.Setup
		for _, s := range setups {
			if s.App == only {
				keepOnly = append(keepOnly, s)
			}
		}
		setups = keepOnly
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "matrix:", err)
		return 2
	}
	if _, err := os.Stat(filepath.Join(root, "lab/node/node_modules/@anthropic-ai/sdk")); err != nil {
		fmt.Fprintln(os.Stderr, "matrix: the apps' npm packages are not installed: run lab/node/install.sh")
		return 2
	}
	work := keep
	if work == "" {
		if work, err = os.MkdirTemp("", "burnrate-lab-"); err != nil {
			fmt.Fprintln(os.Stderr, "matrix:", err)
			return 2
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "matrix:", err)
		return 2
	}
	bin := filepath.Join(work, "burnrate")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "matrix: go build:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l := &matrix.Lab{Root: root, Burnrate: bin, Work: work, RetryAfterMs: retryAfter, PRetryMinMs: pretryMin, ClientTimeoutMs: clientTimeout,
		Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, "lab: "+f+"\n", a...) }}
	defer l.Close()
	start := time.Now()
	rows := l.Run(ctx, setups)
	matrix.Summary(os.Stdout, rows)
	fmt.Println()
	matrix.Table(os.Stdout, rows)
	fmt.Fprintf(os.Stderr, "lab: %d setups in %s\n", len(rows), time.Since(start).Round(time.Second))
	if failed := matrix.Failed(rows); len(failed) > 0 {
		var names []string
		for _, r := range failed {
			names = append(names, r.Setup.String())
		}
		fmt.Fprintf(os.Stderr, "matrix: %d setups that must hold do not: %s\n", len(failed), strings.Join(names, ", "))
		return 1
	}
	return 0
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m: %w (run from inside the repository)", err)
	}
	return strings.TrimSpace(string(out)), nil
}
