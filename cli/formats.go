package cli

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

func newFormatsCmd() *cobra.Command {
	var detect []string
	cmd := &cobra.Command{
		Use:   "formats [--detect FILE]...",
		Short: "List the input formats burnrate reads, or say which one a file is",
		Long: `burnrate detects each file's format from its first lines; --input-format forces one.
--detect FILE reads the first 200 lines of FILE and shows how many lines each
format's rule matched and which format the file will be read as.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(detect) == 0 {
				w := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(w, "FORMAT\tWHAT\tEXAMPLE LINE")
				for _, f := range decode.Formats {
					fmt.Fprintf(w, "%s\t%s\t%s\n", f.Name, f.Summary, f.Example)
				}
				w.Flush()
				fmt.Println("\nAny other JSON logger: --map CANONICAL=dotted.path (e.g. --map job_id=ctx.job.id).")
				return nil
			}
			for _, path := range detect {
				it, err := file.OpenFile(path, 0, decode.Options{})
				if err != nil {
					return err
				}
				var ev ingest.Event
				it.Next(&ev) // reads the head and detects
				it.Close()
				d := it.Detected
				doc := ""
				if d.Document {
					doc = ", a JSON document read record by record"
				}
				fmt.Printf("%s: %s%s (rules matched on %d non-blank lines of the first 200:", display.Text(path), d.Format, doc, d.Lines)
				for _, f := range decode.Formats {
					fmt.Printf(" %s %d", f.Name, d.Counts[f.Name])
				}
				fmt.Println(")")
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&detect, "detect", nil, "a file to detect (repeat)")
	return cmd
}
