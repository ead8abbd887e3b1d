// Command burnrate watches LLM API spend and retries: it correlates every
// call attempt in JSON-lines logs and OTLP into per-job call counts, spend
// against a ceiling, breaker state and retry findings.
package main

import (
	"os"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/cli"
)

func main() {
	// The binary's only children are its kill commands (alerts): any
	// other child is an orphan adopted as their subreaper, to reap.
	alerts.OwnAllChildren()
	os.Exit(cli.Main(os.Args[1:]))
}
