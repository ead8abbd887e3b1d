package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", display.Text(m), r.Key, perM(r.Price.Input), perM(r.Price.Output), perM(r.Price.CacheRead), perM(r.Price.CacheWrite), priceNote(r))
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

// maxPlausiblePerToken is a price no model has come near: $10,000 per
// million tokens (the dearest today are about $600).
const maxPlausiblePerToken = 0.01

// plausiblePrices refuses a table that would blind the ceilings, against
// each table it would replace (the embedded one, and the one in use): a
// model ID those priced that the new table prices at nothing (0, or less
// than a picodollar; a new key that shadows a priced ID counts, as
// resolution would take it), any negative price of any kind (read as 0),
// or a price more than 100× the previous one or past maxPlausiblePerToken
// where the previous table was not already there.
func plausiblePrices(body []byte, prevs ...*correlate.PriceTable) error {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(body, &entries); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	rates := []struct {
		key string
		was func(correlate.Price) correlate.Pico
	}{
		{"input_cost_per_token", func(p correlate.Price) correlate.Pico { return p.Input }},
		{"output_cost_per_token", func(p correlate.Price) correlate.Pico { return p.Output }},
		{"cache_read_input_token_cost", func(p correlate.Price) correlate.Pico { return p.CacheRead }},
		{"cache_creation_input_token_cost", func(p correlate.Price) correlate.Pico { return p.CacheWrite }},
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var e map[string]any
		if json.Unmarshal(entries[name], &e) != nil {
			continue // not an entry (last_updated)
		}
		if _, ok := e["input_cost_per_token"].(float64); !ok {
			continue // not priced per token (sample_spec, images, …)
		}
		for _, k := range slices.Sorted(maps.Keys(e)) {
			if v, ok := e[k].(float64); ok && strings.Contains(k, "cost") && (v < 0 || math.IsNaN(v)) {
				problems = append(problems, fmt.Sprintf("%s %s is %g", name, k, v))
			}
		}
		for _, rate := range rates {
			v, ok := e[rate.key].(float64)
			if !ok || v < 0 {
				continue
			}
			for _, prev := range prevs {
				r := prev.Resolve(name)
				was := 0.0
				if r.Key != "" {
					was = rate.was(r.Price).USD()
				}
				switch {
				case was > 0 && correlate.PicoFromUSD(v) == 0:
					problems = append(problems, fmt.Sprintf("%s becomes free: %s %g (was $%g per million tokens)", name, rate.key, v, was*1e6))
				case (v > maxPlausiblePerToken && v > was) || (was > 0 && v > 100*was):
					problems = append(problems, fmt.Sprintf("%s %s is $%g per token (was $%g)", name, rate.key, v, was))
				default:
					continue
				}
				break // one problem per rate is enough
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	shown := problems[:min(len(problems), 5)]
	more := ""
	if len(problems) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(problems)-len(shown))
	}
	return fmt.Errorf("the table would blind the ceilings: %s%s", strings.Join(shown, "; "), more)
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
			fmt.Printf("wrote %s: %d models, updated %s, sha256 %s\n", dest, t.Models, orDash(t.Date), t.SHA256)
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
	if err := plausiblePrices(body, prevs...); err != nil {
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
