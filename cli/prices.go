package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
			return printPrices(cmd.OutOrStdout(), cfg.Prices, args)
		},
	}
	a.register(cmd)
	cmd.AddCommand(newPricesUpdateCmd())
	return cmd
}

func printPrices(w io.Writer, t *correlate.PriceTable, models []string) error {
	if len(models) == 0 {
		for tb := t; tb != nil; tb = tb.Base {
			fmt.Fprintf(w, "source  %s\ndate    %s\nsha256  %s\nmodels  %d\n", display.Text(tb.Source), display.Text(orDash(tb.Date)), display.Text(tb.SHA256), tb.Models)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", display.Text(m), display.Text(r.Key), perM(r.Price.Input), perM(r.Price.Output), perM(r.Price.CacheRead), perM(r.Price.CacheWrite), priceNote(r))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nUSD per million tokens.")
	if unpriced > 0 {
		return errCritical // a script can tell that a model is not priced
	}
	return nil
}

// priceNote names every way a resolved price is not the entry's own
// exact rate — the same approximations the report's pricing section
// names — so the table a reader checks says what the report will say.
func priceNote(r correlate.Resolution) string {
	var notes []string
	if r.Approximate {
		notes = append(notes, "approximate: priced as its family")
	}
	if r.Price.NoCacheRead {
		// The entry has no cache-read rate: the CACHE READ column is the
		// input rate, charged so cached tokens are never free.
		notes = append(notes, "no cache-read rate: cache reads priced at the input rate")
	}
	if len(r.Price.Tiers) > 0 {
		tr := r.Price.Tiers[0]
		notes = append(notes, fmt.Sprintf("above %dk input: %s / %s", tr.Above/1000, perM(tr.Input), perM(tr.Output)))
	}
	return strings.Join(notes, "; ")
}

func perM(p correlate.Pico) string { return fmt.Sprintf("$%g", float64(p)/1e6) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// maxPriceTableBytes bounds what `prices update` downloads.
const maxPriceTableBytes = config.MaxPriceTableBytes

// pricesTransport carries `prices update`'s request; tests give it their
// TLS server's.
var pricesTransport http.RoundTripper = http.DefaultTransport

func newPricesUpdateCmd() *cobra.Command {
	var rawURL, configPath string
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
			if rawURL == "" {
				rawURL = file.PricesURL
			}
			if rawURL == "" {
				rawURL = config.DefaultPricesURL
			}
			dest := config.UpdatedPricesPath()
			if dest == "" {
				return fmt.Errorf("no user cache directory (set XDG_CACHE_HOME or HOME), so there is nowhere to keep the table; use --prices FILE instead")
			}
			t, err := fetchPrices(cmd.Context(), rawURL, dest)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d models, updated %s, sha256 %s\n", dest, t.Models, orDash(t.Date), t.SHA256)
			return nil
		},
	}
	cmd.Flags().StringVar(&rawURL, "url", "", "where to fetch the table (default prices_url, else "+config.DefaultPricesURL+")")
	cmd.Flags().StringVar(&configPath, "config", "", "TOML config file (default ./burnrate.toml if present)")
	return cmd
}

func fetchPrices(ctx context.Context, rawURL, dest string) (*correlate.PriceTable, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		// What the table says decides whether a ceiling fires: it comes
		// over an authenticated channel or not at all.
		return nil, fmt.Errorf("prices update: %q is not an https:// URL; tables are fetched only over HTTPS (for a file you have, use --prices FILE)", rawURL)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w", err)
	}
	req.Header.Set("User-Agent", "burnrate")
	client := &http.Client{Transport: pricesTransport, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if r.URL.Scheme != "https" || r.URL.Host != via[0].URL.Host {
			return fmt.Errorf("redirected to %s://%s, another host or not HTTPS: refused", r.URL.Scheme, r.URL.Host)
		}
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w; nothing was changed (the table in use still prices everything; try again later or pass --prices FILE)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("prices update: %s answered HTTP %d; nothing was changed", rawURL, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPriceTableBytes+1))
	if err != nil {
		return nil, fmt.Errorf("prices update: reading %s: %w", rawURL, err)
	}
	if len(body) > maxPriceTableBytes {
		return nil, fmt.Errorf("prices update: %s is over %d MiB; nothing was changed", rawURL, maxPriceTableBytes>>20)
	}
	t, err := correlate.LoadLiteLLMPrices(bytes.NewReader(body), rawURL)
	if err != nil {
		return nil, fmt.Errorf("prices update: %w; nothing was changed", err)
	}
	prevs := []*correlate.PriceTable{correlate.EmbeddedPrices()}
	if data, err := config.ReadSmallFile(dest, config.MaxPriceTableBytes, "the price table in use"); err == nil {
		if cur, err := correlate.LoadLiteLLMPrices(bytes.NewReader(data), dest); err == nil {
			prevs = append(prevs, cur) // the table this one replaces
		}
	}
	if err := correlate.PlausiblePrices(body, prevs...); err != nil {
		return nil, fmt.Errorf("prices update: %s: %w; nothing was changed, the table in use stays", rawURL, err)
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
