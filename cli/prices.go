package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/config"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
)

func newPricesCmd() *cobra.Command {
	var a analysisFlags
	cmd := &cobra.Command{
		Use:   "prices [MODEL]...",
		Short: "Show the price table in use, or how model IDs resolve in it",
		Long: `Without arguments: the table that prices reports — source, date, SHA-256 and
model count. With model IDs: the entry each one resolves to and its prices in USD
per million tokens. The table is LiteLLM's, embedded in the binary; --prices FILE,
prices = "FILE" in the config, or a table fetched by 'burnrate prices update'
takes precedence over it, and the embedded one prices what they lack.`,
		Example: "  burnrate prices\n  burnrate prices claude-opus-4-6[1m] openrouter/anthropic/claude-sonnet-4.5 gpt-5-codex",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, cfg, err := a.load()
			if err != nil {
				return err
			}
			return printPrices(os.Stdout, cfg.Prices, args)
		},
	}
	a.register(cmd)
	cmd.AddCommand(newPricesUpdateCmd())
	return cmd
}

func printPrices(w io.Writer, t *correlate.PriceTable, models []string) error {
	if len(models) == 0 {
		for tb := t; tb != nil; tb = tb.Base {
			fmt.Fprintf(w, "source  %s\ndate    %s\nsha256  %s\nmodels  %d\n", tb.Source, orDash(tb.Date), tb.SHA256, tb.Models)
			if tb.Base != nil {
				fmt.Fprintln(w, "\nand for the models it lacks:")
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPRICED AS\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tNOTE")
	unpriced := 0
	for _, m := range models {
		r := t.Resolve(m)
		if r.Key == "" {
			unpriced++
			fmt.Fprintf(tw, "%s\t-\t\t\t\t\tunpriced: reported with its tokens, never as $0\n", display.Text(m))
			continue
		}
		note := ""
		if r.Approximate {
			note = "approximate: priced as its family"
		}
		if len(r.Price.Tiers) > 0 {
			tr := r.Price.Tiers[0]
			note = fmt.Sprintf("%s above %dk input: %s / %s", note, tr.Above/1000, perM(tr.Input), perM(tr.Output))
		}
		p := r.Price
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", display.Text(m), r.Key, perM(p.Input), perM(p.Output), perM(p.CacheRead), perM(p.CacheWrite), note)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nUSD per million tokens.")
	if unpriced > 0 {
		return errCritical // a script can tell that a model is not priced
	}
	return nil
}

func perM(p correlate.Pico) string { return fmt.Sprintf("$%g", float64(p)/1e6) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// maxPriceTableBytes bounds what `prices update` downloads.
const maxPriceTableBytes = 64 << 20

func newPricesUpdateCmd() *cobra.Command {
	var url, configPath string
	cmd := &cobra.Command{
		Use:   "update [--url URL]",
		Short: "Fetch a newer LiteLLM price table into the user cache (never needed, never automatic)",
		Long: `Downloads LiteLLM's model_prices_and_context_window.json (or prices_url from the
config, or --url), checks that it parses as a price table, and writes it atomically to
the user cache, where every later run that names no table of its own prices from it.
Nothing else ever fetches prices: reports and dashboards never touch the network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := config.Load(configPath)
			if err != nil {
				return err
			}
			if url == "" {
				url = file.PricesURL
			}
			if url == "" {
				url = config.DefaultPricesURL
			}
			dest := config.UpdatedPricesPath()
			if dest == "" {
				return fmt.Errorf("no user cache directory (set XDG_CACHE_HOME or HOME), so there is nowhere to keep the table; use --prices FILE instead")
			}
			t, err := fetchPrices(cmd.Context(), url, dest)
			if err != nil {
				return err
			}
			fmt.Printf("wrote %s: %d models, updated %s, sha256 %s\n", dest, t.Models, orDash(t.Date), t.SHA256)
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "where to fetch the table (default prices_url, else "+config.DefaultPricesURL+")")
	cmd.Flags().StringVar(&configPath, "config", "", "TOML config file (default ./burnrate.toml if present)")
	return cmd
}

func fetchPrices(ctx context.Context, url, dest string) (*correlate.PriceTable, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w", err)
	}
	req.Header.Set("User-Agent", "burnrate")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w (the embedded table still prices everything; try again later or pass --prices FILE)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("prices update: %s answered HTTP %d; nothing was changed", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPriceTableBytes+1))
	if err != nil {
		return nil, fmt.Errorf("prices update: reading %s: %w", url, err)
	}
	if len(body) > maxPriceTableBytes {
		return nil, fmt.Errorf("prices update: %s is over %d MiB; nothing was changed", url, maxPriceTableBytes>>20)
	}
	t, err := correlate.LoadLiteLLMPrices(bytes.NewReader(body), url)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w; nothing was changed", err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return nil, fmt.Errorf("prices update: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".prices-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("prices update: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("prices update: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("prices update: %w", err)
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return nil, fmt.Errorf("prices update: %w", err)
	}
	return t, nil
}
