package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

func newFormatsCmd() *cobra.Command {
	var detect, patterns []string
	var configPath string
	cmd := &cobra.Command{
		Use:   "formats [--detect FILE...]",
		Short: "List the input formats burnrate reads, or say which one each file is",
		Long: `burnrate detects each file's format from its first lines; --input-format forces one.
--detect FILE... reads the first 200 lines of each FILE and shows how many lines
each format's rule matched, which format the file will be read as, and a hint
when no line matched. With --pattern (or [[format]] tables in --config) the
lines your own patterns match are counted as pattern.`,
		Example: "  burnrate formats\n  burnrate formats --detect worker-*.log app.log\n  burnrate formats --pattern 'attempt (?P<attempt>\\d+)/\\d+' --detect app.log",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := append(detect, args...)
			if len(detect) == 0 && len(args) > 0 {
				return errors.New("give the files after --detect: burnrate formats --detect FILE...")
			}
			out := cmd.OutOrStdout()
			if len(files) == 0 {
				w := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
				fmt.Fprintln(w, "FORMAT\tWHAT\tVERSIONS TESTED\tEXAMPLE LINE")
				for _, f := range decode.Formats {
					v := f.Versions
					if v == "" {
						v = "-"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Name, f.Summary, v, f.Example)
				}
				w.Flush()
				fmt.Fprintln(out, "\nAny other JSON logger: --map CANONICAL=dotted.path (e.g. --map job_id=ctx.job.id).")
				fmt.Fprintln(out, "Your application's own text lines: --pattern REGEX or [[format]] tables (docs/formats.md: Your own format).")
				return nil
			}
			cfg, err := config.Load(configPath)
			if err != nil {
				return err
			}
			opts, err := cfg.Input("", nil, patterns...)
			if err != nil {
				return err
			}
			opts.Format = decode.FormatAuto // what the file is, not what a config forces
			failed := 0
			for _, path := range files {
				if err := detectOne(out, path, opts); err != nil {
					fmt.Fprintln(os.Stderr, "burnrate:", display.Text(err.Error()))
					failed++
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d files could not be read", failed, len(files))
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&detect, "detect", nil, "the files to detect: --detect FILE... (or repeat the flag)")
	cmd.Flags().StringArrayVar(&patterns, "pattern", nil, "a line format of your own to count (repeat; docs/formats.md: Your own format)")
	cmd.Flags().StringVar(&configPath, "config", "", "TOML config file whose [[format]] tables are counted too (default ./burnrate.toml if present)")
	return cmd
}

// detectOne prints one file's verdict and, when it has one, a hint.
func detectOne(w io.Writer, path string, opts decode.Options) error {
	it, err := file.OpenFile(path, 0, opts)
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
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s%s (rules matched on %d non-blank lines of the first 200:", path, d.Format, doc, d.Lines)
	total := 0
	for _, f := range decode.Formats {
		fmt.Fprintf(&b, " %s %d", f.Name, d.Counts[f.Name])
		total += d.Counts[f.Name]
	}
	b.WriteString(")")
	fmt.Fprintln(w, display.Text(b.String()))
	var matched []string
	for _, f := range decode.Formats {
		if d.Counts[f.Name] > 0 {
			matched = append(matched, string(f.Name))
		}
	}
	switch other := d.Lines - total; {
	case d.Document || d.Lines == 0:
	case total == 0:
		fmt.Fprintln(w, "  hint: no line matched any format. If these are your application's own lines, describe them with --pattern 'REGEX' whose named groups are canonical fields (docs/formats.md: Your own format); JSON of another logger: --map")
	case len(matched) > 1:
		fmt.Fprintf(w, "  hint: lines of %s: each line is read by the format that recognises it (%d lines matched none)\n", strings.Join(matched, ", "), other)
	case other > 0 && d.Format != decode.FormatJSONL:
		fmt.Fprintf(w, "  hint: %d of the %d lines matched no format: read as the application's own text (counted as text; with --pattern, as unmatched). Describe them with --pattern if they are calls\n", other, d.Lines)
	}
	return nil
}
