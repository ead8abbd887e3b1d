// Command burnrate watches LLM API spend and retries: it correlates every
// call attempt in JSON-lines logs and OTLP into per-job call counts, spend
// against a ceiling, breaker state and retry findings.
package main

import (
	"os"

	"github.com/burnrate-dev/burnrate/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
