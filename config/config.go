// Package config reads burnrate.toml and turns it, with command-line
// overrides, into the validated settings of each part.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/ingest/decode"
	"github.com/burnrate-dev/burnrate/ingest/file"
)

// DefaultPath is read when --config is not given and the file exists.
const DefaultPath = "burnrate.toml"

// Duration is a TOML string such as "300s" or "10m", or a number of seconds.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// UnmarshalTOML accepts plain numbers of seconds as well as strings.
func (d *Duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		return d.UnmarshalText([]byte(x))
	case int64:
		d.Duration = time.Duration(x) * time.Second
	case float64:
		d.Duration = time.Duration(x * float64(time.Second))
	default:
		return fmt.Errorf("duration must be a string like \"300s\" or a number of seconds, not %T", v)
	}
	return nil
}

// ParseDuration accepts Go syntax ("1s", "250ms", "1h30m") or plain seconds ("2.5").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs >= 0 && secs < 1e9 {
		return time.Duration(secs * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("invalid duration %q: use Go syntax such as 300s, 250ms, 10m, or a number of seconds", s)
}

// File is the whole configuration file.
type File struct {
	// Prices is a LiteLLM model_prices_and_context_window.json to load.
	Prices string `toml:"prices"`
	// Warnings are what Correlate went on past (a damaged cached price
	// table, replaced by the embedded one): the command says them on
	// stderr.
	Warnings []string `toml:"-"`
	// PricesURL is where `burnrate prices update` fetches a newer table.
	PricesURL      string `toml:"prices_url"`
	MaxCallsPerJob *int   `toml:"max_calls_per_job"`
	// MaxCallCostUSD flags a call whose computed cost (tokens × the price
	// table) is above it; 0 flags none (correlate.Config.MaxCallCost).
	MaxCallCostUSD         *float64  `toml:"max_call_cost_usd"`
	AmplificationThreshold *int      `toml:"amplification_threshold"`
	JobDeadline            *Duration `toml:"job_deadline"`
	// JobIdle ends a job without queue lifecycle events once it has logged
	// nothing for this long (log time).
	JobIdle *Duration `toml:"job_idle"`
	// JobRetention retires finished jobs from a live run this long (log
	// time) after their last event: their sums stay, their detail goes.
	JobRetention *Duration `toml:"job_retention"`

	Breaker  BreakerSection            `toml:"breaker"`
	Findings map[string]string         `toml:"findings"`
	JobTypes map[string]JobTypeSection `toml:"job_types"`
	Budget   BudgetSection             `toml:"budget"`
	// Format forces the input format ("" or "auto" detects per file), or,
	// as [[format]] tables, describes the application's own line formats.
	Format FormatSetting `toml:"format"`
	// Map maps canonical fields to dotted paths in nested JSON (--map).
	Map map[string]string `toml:"map"`
	// Timezone is the zone of a time written without one (--timezone):
	// an IANA name, Local, or an offset; "" is UTC.
	Timezone string `toml:"timezone"`
	// AlertOn maps finding kinds to the severity of their alert ("off" silences one).
	AlertOn map[string]string `toml:"alerts"`
	Actions ActionsSection    `toml:"actions"`
	Journal string            `toml:"journal"`
	// RunID names the run kills are keyed by (--run-id).
	RunID string `toml:"run_id"`
	// RunWindow draws run boundaries for logs that name no run_id
	// (--run-window): "daily 06:00 Europe/Berlin", "idle 2h" or "none".
	RunWindow string `toml:"run_window"`
	// Layers says whose counts the log's own fields are: [layers]
	// attempt = "sdk" (the provider SDK's), "app" (the default: the
	// application's wrapper) or a layer's name (docs/assumptions.md).
	Layers LayersSection `toml:"layers"`

	// path is where the file was read from, for messages and defaults;
	// implicit when it was found in the working directory, not named.
	path     string
	implicit bool
}

// validLayerName: letters, digits, '-', '_' and '.', up to 64 bytes, as
// the layers' keys (anthropic-sdk, hand-rolled) are spelled.
func validLayerName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// LayersSection is the [layers] table.
type LayersSection struct {
	// Attempt is the layer a record's attempt field counts.
	Attempt string `toml:"attempt"`
}

// Path is the file the configuration was read from, or "".
func (f *File) Path() string { return f.path }

// Describe names the config read, for the start-up line.
func (f *File) Describe() string {
	switch {
	case f.path == "":
		return "no config file"
	case f.implicit:
		return "config " + f.path + " (found in the working directory)"
	}
	return "config " + f.path
}

type BreakerSection struct {
	Window   *int      `toml:"window"`
	TripRate *float64  `toml:"trip_rate"`
	Cooldown *Duration `toml:"cooldown"`
}

// JobTypeSection overrides settings for one job type.
type JobTypeSection struct {
	MaxCallsPerJob *int `toml:"max_calls_per_job"`
	// CeilingUSD caps the total spend of all jobs of the type.
	CeilingUSD *float64 `toml:"ceiling_usd"`
	// JobCeilingUSD caps each job of the type.
	JobCeilingUSD *float64 `toml:"job_ceiling_usd"`
}

// BudgetSection holds the spend limits the rules evaluate.
type BudgetSection struct {
	CeilingUSD          float64  `toml:"ceiling_usd"`
	JobCeilingUSD       float64  `toml:"job_ceiling_usd"`
	BurnRateUSDPerMin   float64  `toml:"burn_rate_usd_per_min"`
	BurnRateWindow      Duration `toml:"burn_rate_window"`
	ProjectedCeilingUSD float64  `toml:"projected_ceiling_usd"`
}

// ActionsSection configures what fires when a rule does.
type ActionsSection struct {
	KillWebhook string `toml:"kill_webhook"`
	KillExec    string `toml:"kill_exec"`
	// RunKillExec is the command for a run-wide kill (run ceiling), with
	// {run_id}, {spend_usd} and {ceiling_usd}; kill_exec when unset.
	RunKillExec   string `toml:"run_kill_exec"`
	NotifyWebhook string `toml:"notify_webhook"`
	// SecretEnv names the environment variable holding the HMAC secret.
	SecretEnv string   `toml:"secret_env"`
	Timeout   Duration `toml:"timeout"`
	Deadline  Duration `toml:"deadline"`
	// RetryFor is the absolute deadline of a kill in a running daemon;
	// MaxRetryAfter caps a receiver's Retry-After (alerts.DefaultRetryFor,
	// alerts.DefaultMaxRetryAfter).
	RetryFor      Duration `toml:"retry_for"`
	MaxRetryAfter Duration `toml:"max_retry_after"`
	ExecTimeout   Duration `toml:"exec_timeout"`
	// DrainWindow is how long a clean stop waits for deliveries under way.
	DrainWindow Duration `toml:"drain_window"`
	DryRun      bool     `toml:"dry_run"`
	ReadOnly    bool     `toml:"readonly"`
	KillOn      []string `toml:"kill_on"`
}

// Load reads path; with path "" it reads DefaultPath if that exists and
// otherwise returns an empty File.
func Load(path string) (*File, error) { return LoadFor(path, false) }

// LoadFor is Load for a command that may act (kill, notify) when acting
// is set: such a command reads no config it was not given. A
// ./burnrate.toml found in the working directory could otherwise turn
// kills off (readonly, kill_on = []), aim them elsewhere ([map] job_id),
// or raise every ceiling — without a word on the command line.
func LoadFor(path string, acting bool) (*File, error) {
	explicit := path != ""
	if !explicit {
		if env := os.Getenv(EnvConfig); env != "" {
			path, explicit = env, true
		}
	}
	if !explicit {
		if _, err := os.Lstat(DefaultPath); err != nil {
			return &File{}, nil
		}
		if acting {
			return nil, fmt.Errorf("%s is in the working directory, but watch, replay, demo and claude — the commands that can kill — read a config only when it is named: pass --config %s (or set %s), or run elsewhere", DefaultPath, DefaultPath, EnvConfig)
		}
		path = DefaultPath
	}
	data, err := ReadSmallFile(path, maxConfigBytes, "config")
	if err != nil {
		return nil, err
	}
	f := &File{path: path, implicit: !explicit}
	md, err := toml.Decode(string(data), f)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w (see docs/configuration.md)", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		slices.Sort(keys)
		return nil, fmt.Errorf("config %s: unknown key(s) %s: check the spelling against burnrate.example.toml", path, strings.Join(keys, ", "))
	}
	if !explicit {
		// A burnrate.toml in a cloned repository must not run commands
		// or send anything anywhere because someone typed "burnrate
		// demo" in it: such a file is read only when it is named.
		var acts []string
		for key, v := range map[string]string{"[actions] kill_exec": f.Actions.KillExec, "[actions] run_kill_exec": f.Actions.RunKillExec, "[actions] kill_webhook": f.Actions.KillWebhook,
			"[actions] notify_webhook": f.Actions.NotifyWebhook, "prices_url": f.PricesURL, "prices": f.Prices} {
			if v != "" {
				acts = append(acts, key)
			}
		}
		if len(acts) > 0 {
			slices.Sort(acts)
			return nil, fmt.Errorf("config %s was found in the working directory and sets %s; a config that runs a command, sends to a URL or loads prices is read only when named: pass --config %s (or set %s), or run elsewhere",
				path, strings.Join(acts, ", "), path, EnvConfig)
		}
	}
	return f, nil
}

// FileKind names a mode's file type for messages (see file.Kind).
func FileKind(m fs.FileMode) string { return file.Kind(m) }

// EnvConfig names a config file, as --config does.
const EnvConfig = "BURNRATE_CONFIG"

// maxConfigBytes bounds a config file: `--config /dev/zero` must not grow
// to the OOM killer.
const maxConfigBytes = 1 << 20

// ReadSmallFile reads a regular file of at most limit bytes that no other
// user may write: what says which commands run and what things cost must
// come from the file's owner. what names it in errors ("config",
// "--prices"). A symlink is followed (/etc and Kubernetes mounts are
// made of them), but what it names must pass the same checks.
func ReadSmallFile(path string, limit int64, what string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO would wait for a writer for ever; the
	// file is then refused by its type. On a regular file it changes
	// nothing.
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is %s, not a regular file: give the path of a file", what, path, FileKind(st.Mode()))
	}
	if err := othersMayWrite(st); err != nil {
		return nil, fmt.Errorf("%s %s %w", what, path, err)
	}
	if err := othersMayReplace(path); err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s %s is %d bytes, over the %d this file may have", what, path, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %s grew past %d bytes while read", what, path, limit)
	}
	return data, nil
}

// Input builds the decoder options: the file's [map] and format, then flags.
func (f *File) Input(format string, maps []string, patterns ...string) (decode.Options, error) {
	var o decode.Options
	if format == "" {
		format = f.Format.Force
	}
	for i, lf := range f.Format.Lines {
		name := lf.Name
		if name == "" {
			name = fmt.Sprintf("format %d", i+1)
		}
		p, err := decode.CompilePattern(decode.PatternSpec{Name: name, Regex: lf.Pattern, TimeLayout: lf.TimeLayout, Set: lf.Set})
		if err != nil {
			return o, fmt.Errorf("config %s: [[format]] %w", f.path, err)
		}
		o.Patterns = append(o.Patterns, p)
	}
	for i, re := range patterns {
		p, err := decode.CompilePattern(decode.PatternSpec{Name: fmt.Sprintf("--pattern %d", i+1), Regex: re})
		if err != nil {
			return o, fmt.Errorf("--pattern: %w", err)
		}
		o.Patterns = append(o.Patterns, p)
	}
	fm, err := decode.ParseFormat(format)
	if err != nil {
		return o, err
	}
	o.Format = fm
	if o.Zone, err = decode.ParseZone(f.Timezone); err != nil {
		return o, fmt.Errorf("config %s: timezone: %w", f.path, err)
	}
	keys := make([]string, 0, len(f.Map))
	for k := range f.Map {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		maps = append([]string{k + "=" + f.Map[k]}, maps...)
	}
	for _, m := range maps {
		fmap, err := decode.ParseFieldMap(m)
		if err != nil {
			return o, err
		}
		o.Maps = append(o.Maps, fmap)
	}
	return o, nil
}

// FormatSetting is the config's format key: a string forces the input
// format; [[format]] tables are the application's own line formats.
type FormatSetting struct {
	Force string
	Lines []LineFormat
}

// LineFormat is one [[format]] table: a regular expression whose named
// groups are canonical fields (docs/formats.md: Your own format).
type LineFormat struct {
	Name       string
	Pattern    string
	TimeLayout string
	Set        map[string]string
}

// UnmarshalTOML reads format = "jsonl" or [[format]] tables, refusing
// keys it does not know as the rest of the file does.
func (s *FormatSetting) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		s.Force = v
		return nil
	case []map[string]any:
		for i, t := range v {
			lf, err := lineFormat(t)
			if err != nil {
				return fmt.Errorf("[[format]] number %d: %w", i+1, err)
			}
			s.Lines = append(s.Lines, lf)
		}
		return nil
	}
	return fmt.Errorf("format: give a format name (format = \"sdk-text\") or [[format]] tables with a pattern, not %T", v)
}

func lineFormat(t map[string]any) (LineFormat, error) {
	var lf LineFormat
	str := func(k string) (string, error) {
		v, ok := t[k]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s must be a string", k)
		}
		return s, nil
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch k {
		case "name", "pattern", "time_layout":
		case "set":
			m, ok := t[k].(map[string]any)
			if !ok {
				return lf, errors.New("set must be a table of field = value, e.g. set = { status = 429 }")
			}
			lf.Set = map[string]string{}
			for f, v := range m {
				switch v := v.(type) {
				case string:
					lf.Set[f] = v
				case int64:
					lf.Set[f] = strconv.FormatInt(v, 10)
				case float64:
					lf.Set[f] = strconv.FormatFloat(v, 'f', -1, 64)
				default:
					return lf, fmt.Errorf("set.%s must be a string or a number", f)
				}
			}
		default:
			return lf, fmt.Errorf("unknown key %q: a [[format]] table has name, pattern, time_layout and set", k)
		}
	}
	var err error
	if lf.Name, err = str("name"); err != nil {
		return lf, err
	}
	if lf.Pattern, err = str("pattern"); err != nil {
		return lf, err
	}
	if lf.TimeLayout, err = str("time_layout"); err != nil {
		return lf, err
	}
	if lf.Pattern == "" {
		return lf, errors.New("pattern is missing: give a regular expression with named groups, e.g. pattern = 'attempt (?P<attempt>\\d+)'")
	}
	return lf, nil
}

// Analysis is what the command line can override in the analysis.
type Analysis struct {
	Prices         string
	MaxCallsPerJob int // -1: not given
	// MaxCallCostUSD is --max-call-cost, when MaxCallCostSet.
	MaxCallCostUSD float64
	MaxCallCostSet bool
	JobDeadline    time.Duration
	DeadlineSet    bool
	JobIdle        time.Duration
	IdleSet        bool
	JobRetention   time.Duration
	RetentionSet   bool
	// Live is set for the commands that run live (watch, replay, demo,
	// claude, codex): they retire finished jobs by default.
	Live bool
	// AttemptLayer is --attempt-layer: it wins over [layers] attempt.
	AttemptLayer string
}

// Correlate builds the correlation config: defaults, then the file, then flags.
func (f *File) Correlate(flags Analysis) (correlate.Config, error) {
	cfg := correlate.DefaultConfig()
	var errs []error
	f.Warnings = nil // this call's
	prices := f.Prices
	if flags.Prices != "" {
		prices = flags.Prices
	}
	cached := false
	if prices == "" {
		if p := UpdatedPricesPath(); p != "" {
			if _, err := os.Stat(p); err == nil {
				prices, cached = p, true // fetched by `burnrate prices update`
			}
		}
	}
	if prices != "" {
		t, err := loadPrices(prices)
		switch {
		case err == nil:
			cfg.Prices = t
		case cached:
			// Nobody named this file: a cache damaged since `prices update`
			// checked it (truncated, a disk error, an edit) must not stop
			// every report. The embedded table prices the run, and the
			// warning says which file and what to do. (Only the parse is
			// checked here: the plausibility check, done when the table was
			// fetched, costs 0.4 s, too much for every start.)
			f.Warnings = append(f.Warnings, fmt.Sprintf("the cached price table %s cannot be read (%s): priced from the embedded table instead; run burnrate prices update again, or delete the file", prices, strings.TrimPrefix(err.Error(), "prices "+prices+": ")))
		default:
			errs = append(errs, err) // the table the user asked for
		}
	}
	if f.MaxCallsPerJob != nil {
		cfg.MaxCallsPerJob = *f.MaxCallsPerJob
	}
	attempt, what := f.Layers.Attempt, "[layers] attempt"
	if flags.AttemptLayer != "" {
		attempt, what = flags.AttemptLayer, "--attempt-layer"
	}
	switch l := strings.TrimSpace(attempt); {
	case l == "" || l == "app":
	case !validLayerName(l):
		errs = append(errs, fmt.Errorf("%s %q: not a layer name; use \"app\" (the application's wrapper, the default), \"sdk\" (the provider SDK's) or a layer such as \"anthropic-sdk\"", what, l))
	default:
		cfg.AttemptLayer = l
	}
	if flags.MaxCallsPerJob >= 0 {
		cfg.MaxCallsPerJob = flags.MaxCallsPerJob
	}
	if f.MaxCallCostUSD != nil {
		if c, err := MaxCallCost(*f.MaxCallCostUSD); err != nil {
			errs = append(errs, fmt.Errorf("max_call_cost_usd: %w", err))
		} else {
			cfg.MaxCallCost = c
		}
	}
	if flags.MaxCallCostSet {
		if c, err := MaxCallCost(flags.MaxCallCostUSD); err != nil {
			errs = append(errs, fmt.Errorf("--max-call-cost: %w", err))
		} else {
			cfg.MaxCallCost = c
		}
	}
	if f.AmplificationThreshold != nil {
		cfg.AmplificationThreshold = *f.AmplificationThreshold
	}
	if f.JobDeadline != nil {
		cfg.JobDeadline = f.JobDeadline.Duration
	}
	if flags.DeadlineSet {
		cfg.JobDeadline = flags.JobDeadline
	}
	if f.JobIdle != nil {
		cfg.IdleAfter = f.JobIdle.Duration
	}
	if flags.IdleSet {
		cfg.IdleAfter = flags.JobIdle
	}
	if flags.Live {
		cfg.JobRetention = correlate.DefaultJobRetention
	}
	if f.JobRetention != nil {
		cfg.JobRetention = f.JobRetention.Duration
	}
	if flags.RetentionSet {
		cfg.JobRetention = flags.JobRetention
	}
	if f.Breaker.Window != nil {
		cfg.Breaker.Window = *f.Breaker.Window
	}
	if f.Breaker.TripRate != nil {
		cfg.Breaker.TripRate = *f.Breaker.TripRate
	}
	if f.Breaker.Cooldown != nil {
		cfg.Breaker.Cooldown = f.Breaker.Cooldown.Duration
	}
	for name, sev := range f.Findings {
		k, err := correlate.ParseFindingKind(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("[findings]: %w", err))
			continue
		}
		s, err := correlate.ParseSeverity(sev)
		if err != nil {
			errs = append(errs, fmt.Errorf("[findings] %s: %w", name, err))
			continue
		}
		if cfg.Severity == nil {
			cfg.Severity = map[correlate.FindingKind]correlate.Severity{}
		}
		cfg.Severity[k] = s
	}
	for jt, sec := range f.JobTypes {
		if sec.MaxCallsPerJob != nil {
			if cfg.MaxCallsPerJobType == nil {
				cfg.MaxCallsPerJobType = map[string]int{}
			}
			cfg.MaxCallsPerJobType[jt] = *sec.MaxCallsPerJob
		}
	}
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	return cfg, f.wrap(errs)
}

// wrap joins errors under the file's name, or nil when there are none.
// Each error is its own element of the join, named by the file, so one
// printed per line says where every one of them is (two bad limits were
// one line, the second without the file).
func (f *File) wrap(errs []error) error {
	where := "settings"
	if f.path != "" {
		where = "config " + f.path
	}
	var each []error
	for _, err := range flattenJoined(errs) {
		each = append(each, fmt.Errorf("%s: %w", where, err))
	}
	return errors.Join(each...)
}

// flattenJoined lists the errors inside errors.Join results, recursively,
// leaving any other error whole.
func flattenJoined(errs []error) []error {
	var out []error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok && isJoin(err, j.Unwrap()) {
			out = append(out, flattenJoined(j.Unwrap())...)
			continue
		}
		out = append(out, err)
	}
	return out
}

// isJoin tells an errors.Join result (its text is its errors' texts, one
// a line) from an error that wraps several with text of its own.
func isJoin(err error, inner []error) bool {
	msgs := make([]string, 0, len(inner))
	for _, e := range inner {
		if e != nil {
			msgs = append(msgs, e.Error())
		}
	}
	return err.Error() == strings.Join(msgs, "\n")
}

// MaxPriceTableBytes bounds a price table: LiteLLM's is about 1.5 MB.
const MaxPriceTableBytes = 64 << 20

func loadPrices(path string) (*correlate.PriceTable, error) {
	// A regular file only: "--prices /dev/zero" hashed for ever.
	data, err := ReadSmallFile(path, MaxPriceTableBytes, "prices")
	if err != nil {
		return nil, fmt.Errorf("%w (pass a LiteLLM model_prices_and_context_window.json)", err)
	}
	t, err := correlate.LoadLiteLLMPrices(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	return t.WithBase(correlate.EmbeddedPrices()), nil
}

// DefaultPricesURL is LiteLLM's price table as its repository publishes it.
const DefaultPricesURL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"

// UpdatedPricesPath is where `burnrate prices update` keeps the table it
// fetched (the user cache), "" when there is no cache directory. When the
// file exists it prices every run that names no table of its own.
func UpdatedPricesPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "burnrate", "model_prices_and_context_window.json")
}

// MaxCallCost reads a per-call cap in dollars: 0 flags no call; NaN, an
// infinity, a negative amount or one past what a Pico holds is refused.
func MaxCallCost(usd float64) (correlate.Pico, error) {
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 || usd >= correlate.MaxPico.USD() {
		return 0, fmt.Errorf("%g is not a cap: use 0 to flag no call, or dollars such as %g (the default)", usd, float64(correlate.DefaultMaxCallCostUSD))
	}
	return correlate.PicoFromUSD(usd), nil
}
