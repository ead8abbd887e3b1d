// Command pricegen writes burnrate's embedded price table
// (correlate/pricedata/prices.tsv) from a LiteLLM
// model_prices_and_context_window.json: the figures burnrate prices from,
// in its own format, with the source's date and SHA-256. Run it through
// `go generate ./correlate`; TestEmbeddedTableIsGenerated fails when the
// committed table differs from what it writes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/burnrate-dev/burnrate/correlate"
)

func main() {
	in := flag.String("in", "", "LiteLLM model_prices_and_context_window.json")
	out := flag.String("out", "", "the table to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "pricegen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	t, err := correlate.LoadLiteLLMPrices(f, in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := correlate.WritePriceTSV(&b, t, "correlate/internal/pricegen"); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}
