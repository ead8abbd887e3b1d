package cli

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/engine"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/metrics"
)

// TestMetricsBurnIsTheDashboards: /metrics carries the 1- and 5-minute
// burn rates the dashboard shows, the same figures.
func TestMetricsBurnIsTheDashboards(t *testing.T) {
	r, err := loadReplay([]string{"../sample-logs/seed002-six-pipelines.jsonl"}, 0, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rules := alerts.NewRules(alerts.Config{KillOn: alerts.DefaultKillOn}, nil, nil)
	eng := engine.New(engine.Options{Config: correlate.DefaultConfig(), Observer: rules}, r)
	eng.Run(context.Background())
	srv, addr, err := metrics.Listen("127.0.0.1:0", eng, rules, "", false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s := eng.Latest().Snap
	if s.BurnPerMin5 <= 0 {
		t.Fatalf("seed 002 ends burning nothing over 5 minutes: the test would compare zeros")
	}
	for window, want := range map[string]float64{"1m": s.BurnPerMin1, "5m": s.BurnPerMin5} {
		prefix := `burnrate_burn_usd_per_minute{window="` + window + `"} `
		i := strings.Index(string(body), prefix)
		if i < 0 {
			t.Fatalf("metrics lack %s:\n%.2000s", prefix, body)
		}
		line := string(body[i+len(prefix):])
		got, err := strconv.ParseFloat(line[:strings.IndexByte(line, '\n')], 64)
		if err != nil || got != want {
			t.Errorf("%s: %v (%v), want the dashboard's %v", window, got, err, want)
		}
	}
}
