package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/correlate"
)

// ActionFlags are the command-line equivalents of [budget] and [actions].
type ActionFlags struct {
	Ceiling, JobCeiling, BurnRate, Projected float64
	KillWebhook, KillExec, NotifyWebhook     string
	RunKillExec                              string
	DryRun, ReadOnly                         bool
	RunID, Journal, RunWindow                string
	DrainWindow                              time.Duration
}

// Actions is everything the alerts layer needs, validated.
type Actions struct {
	Rules       alerts.Config
	Hooks       alerts.Hooks
	Poster      *alerts.Poster
	Journal     string
	DrainWindow time.Duration
	// RunWindow draws run boundaries for the engine (see ParseRunWindow).
	RunWindow correlate.RunWindow
}

// Alerts builds the rules and hooks: defaults, then the file, then flags.
func (f *File) Alerts(fl ActionFlags) (*Actions, error) {
	var errs []error
	b := f.Budget
	rc := alerts.Config{RunCeilingUSD: b.CeilingUSD, JobCeilingUSD: b.JobCeilingUSD, BurnRateUSDPerMin: b.BurnRateUSDPerMin,
		BurnWindow: b.BurnRateWindow.Duration, ProjectedCeilingUSD: b.ProjectedCeilingUSD, KillOn: f.Actions.KillOn, RunID: f.RunID}
	if fl.RunID != "" {
		rc.RunID = fl.RunID
	}
	// A bad limit is blamed on where it came from: the flag, or the
	// file's key (--job-ceiling -5 was blamed on a burnrate.toml that did
	// not set it).
	var flagErrs []error
	badLimits := false
	for _, l := range []struct {
		dst          *float64
		flag, key    string
		flagV, fileV float64
	}{{&rc.RunCeilingUSD, "--ceiling", "ceiling_usd", fl.Ceiling, b.CeilingUSD}, {&rc.JobCeilingUSD, "--job-ceiling", "job_ceiling_usd", fl.JobCeiling, b.JobCeilingUSD},
		{&rc.BurnRateUSDPerMin, "--burn-rate", "burn_rate_usd_per_min", fl.BurnRate, b.BurnRateUSDPerMin}, {&rc.ProjectedCeilingUSD, "--projected-ceiling", "projected_ceiling_usd", fl.Projected, b.ProjectedCeilingUSD}} {
		if l.flagV != 0 {
			*l.dst = l.flagV
			if err := alerts.CheckLimit(l.flag, l.flagV); err != nil {
				flagErrs, badLimits = append(flagErrs, err), true
			}
		} else if err := alerts.CheckLimit("[budget] "+l.key, l.fileV); err != nil {
			errs, badLimits = append(errs, err), true
		}
	}
	// Per-type limits come only from the file: named by table and key,
	// and said with the [budget] ones, so one start lists every bad limit.
	for _, jt := range slices.Sorted(maps.Keys(f.JobTypes)) {
		sec := f.JobTypes[jt]
		for _, l := range []struct {
			key string
			v   *float64
		}{{"ceiling_usd", sec.CeilingUSD}, {"job_ceiling_usd", sec.JobCeilingUSD}} {
			if l.v == nil || (l.key == "job_ceiling_usd" && fl.JobCeiling != 0) {
				continue // unset, or overridden by --job-ceiling: not in force
			}
			if err := alerts.CheckLimit(fmt.Sprintf("[job_types.%s] %s", jt, l.key), *l.v); err != nil {
				errs, badLimits = append(errs, err), true
			}
		}
	}
	for jt, sec := range f.JobTypes {
		if sec.CeilingUSD != nil {
			if rc.JobTypeCeilingUSD == nil {
				rc.JobTypeCeilingUSD = map[string]float64{}
			}
			rc.JobTypeCeilingUSD[jt] = *sec.CeilingUSD
		}
		if sec.JobCeilingUSD != nil {
			if rc.JobTypeJobCeilingUSD == nil {
				rc.JobTypeJobCeilingUSD = map[string]float64{}
			}
			rc.JobTypeJobCeilingUSD[jt] = *sec.JobCeilingUSD
		}
	}
	// Precedence, as an operator expects at 3 a.m.: a flag beats the
	// file's per-type settings, which beat its global ones. --job-ceiling
	// is every job's ceiling, whatever [job_types] says.
	if fl.JobCeiling != 0 {
		rc.JobTypeJobCeilingUSD = nil
	}
	if rc.KillOn == nil {
		rc.KillOn = alerts.DefaultKillOn
	}
	// Warning and critical findings alert at their own severity unless
	// [alerts] says otherwise; info findings stay in the report.
	for k := range correlate.NumFindingKinds {
		if sev := correlate.DefaultSeverity[k]; sev >= correlate.SeverityWarning {
			rc.FindingAlerts[k] = sev
		}
	}
	for name, sev := range f.AlertOn {
		k, err := correlate.ParseFindingKind(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("[alerts]: %w", err))
			continue
		}
		s, err := correlate.ParseSeverity(sev)
		if err != nil {
			errs = append(errs, fmt.Errorf("[alerts] %s: %w", name, err))
			continue
		}
		rc.FindingAlerts[k] = s
	}
	if badLimits {
		// Said above, by source; Validate would say them again.
	} else if err := rc.Validate(); err != nil {
		errs = append(errs, err)
	}

	a := f.Actions
	h := alerts.Hooks{KillWebhook: a.KillWebhook, NotifyWebhook: a.NotifyWebhook, DryRun: a.DryRun || fl.DryRun, ReadOnly: a.ReadOnly || fl.ReadOnly}
	if fl.KillWebhook != "" {
		h.KillWebhook = fl.KillWebhook
	}
	if fl.NotifyWebhook != "" {
		h.NotifyWebhook = fl.NotifyWebhook
	}
	for name, u := range map[string]string{"kill webhook": h.KillWebhook, "notify webhook": h.NotifyWebhook} {
		if u == "" {
			continue
		}
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			errs = append(errs, fmt.Errorf("%s %s: use an http:// or https:// URL", name, alerts.RedactURL(u)))
		}
	}
	execTmpl, execName := a.KillExec, "[actions] kill_exec"
	if fl.KillExec != "" {
		execTmpl, execName = fl.KillExec, "--kill-exec"
	}
	if execTmpl != "" {
		t, err := alerts.ParseExecNamed(execName, execTmpl, a.ExecTimeout.Duration)
		if err != nil && fl.KillExec != "" {
			flagErrs = append(flagErrs, err) // the flag's, not the file's
		} else if err != nil {
			errs = append(errs, err)
		}
		h.KillExec = t
	}
	runExec, runExecName := a.RunKillExec, "[actions] run_kill_exec"
	if fl.RunKillExec != "" {
		runExec, runExecName = fl.RunKillExec, "--run-kill-exec"
	}
	if runExec != "" {
		t, err := alerts.ParseExecNamed(runExecName, runExec, a.ExecTimeout.Duration)
		if err != nil && fl.RunKillExec != "" {
			flagErrs = append(flagErrs, err)
		} else if err != nil {
			errs = append(errs, err)
		}
		h.RunKillExec = t
	}
	var secret []byte
	if a.SecretEnv != "" {
		// Kept from kill commands' environment, its value redacted from
		// their output, like the built-in secret variables.
		alerts.AddSecretEnv(a.SecretEnv)
		v, ok := os.LookupEnv(a.SecretEnv)
		if !ok || v == "" {
			errs = append(errs, fmt.Errorf("[actions] secret_env = %q but that environment variable is empty: export it, or remove secret_env", a.SecretEnv))
		}
		secret = []byte(v)
	}
	journal := f.Journal
	if fl.Journal != "" {
		journal = fl.Journal
	}
	if journal == "" {
		journal = alerts.DefaultJournalPath()
	}
	drain := a.DrainWindow.Duration
	if fl.DrainWindow > 0 {
		drain = fl.DrainWindow
	}
	if drain <= 0 {
		drain = alerts.DefaultDrainWindow
	}
	windowText, windowName := f.RunWindow, "run_window"
	if fl.RunWindow != "" {
		windowText, windowName = fl.RunWindow, "--run-window"
	}
	window, err := ParseRunWindow(windowText)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", windowName, err))
	}
	if err := errors.Join(append(flagErrs, f.wrap(errs))...); err != nil {
		return nil, err
	}
	poster := alerts.NewPoster(a.Timeout.Duration, a.Deadline.Duration, secret)
	if a.RetryFor.Duration > 0 {
		poster.RetryFor = a.RetryFor.Duration
	}
	if a.MaxRetryAfter.Duration > 0 {
		poster.MaxRetryAfter = a.MaxRetryAfter.Duration
	}
	return &Actions{Rules: rc, Hooks: h, Poster: poster, Journal: journal, DrainWindow: drain,
		RunWindow: window}, nil
}

// ParseRunWindow reads a run window: "" or "none"; "daily HH:MM [ZONE]"
// (an IANA zone such as Europe/Berlin; UTC when left out), a run per day
// from that wall-clock time; or "idle DURATION", a run that ends after
// that much log time with no event.
func ParseRunWindow(s string) (correlate.RunWindow, error) {
	f := strings.Fields(s)
	if len(f) == 0 || (len(f) == 1 && f[0] == "none") {
		return correlate.RunWindow{}, nil
	}
	switch f[0] {
	case "daily":
		if len(f) < 2 || len(f) > 3 {
			break
		}
		var h, m int
		if n, err := fmt.Sscanf(f[1], "%d:%d", &h, &m); err != nil || n != 2 || h < 0 || h > 23 || m < 0 || m > 59 || len(f[1]) != 5 {
			return correlate.RunWindow{}, fmt.Errorf("%q: the reset time is HH:MM on a 24-hour clock, such as 06:00", s)
		}
		w := correlate.RunWindow{Kind: correlate.RunWindowDaily, Hour: h, Minute: m, Zone: time.UTC}
		if len(f) == 3 {
			loc, err := time.LoadLocation(f[2])
			if err != nil || f[2] == "Local" {
				return correlate.RunWindow{}, fmt.Errorf("%q: unknown time zone %q; name an IANA zone such as Europe/Berlin or America/New_York, or UTC", s, f[2])
			}
			w.Zone = loc
		}
		return w, nil
	case "idle":
		if len(f) != 2 {
			break
		}
		d, err := ParseDuration(f[1])
		if err != nil || d < time.Minute {
			return correlate.RunWindow{}, fmt.Errorf("%q: give an idle gap of at least a minute of log time, such as 2h", s)
		}
		return correlate.RunWindow{Kind: correlate.RunWindowIdle, Idle: d}, nil
	}
	return correlate.RunWindow{}, fmt.Errorf("%q: use \"daily 06:00 Europe/Berlin\", \"idle 2h\" or \"none\"", s)
}

// Effective describes the limits in force, for the start-up line: what an
// operator needs to see before trusting a night to them.
func (a *Actions) Effective() string {
	var parts []string
	money := func(v float64) string {
		if v <= 0 {
			return "none"
		}
		return correlate.USD(v)
	}
	parts = append(parts, "run ceiling "+money(a.Rules.RunCeilingUSD), "job ceiling "+money(a.Rules.JobCeilingUSD))
	types := make([]string, 0, len(a.Rules.JobTypeJobCeilingUSD))
	for t := range a.Rules.JobTypeJobCeilingUSD {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("job ceiling for %s %s", t, money(a.Rules.JobTypeJobCeilingUSD[t])))
	}
	types = types[:0]
	for t := range a.Rules.JobTypeCeilingUSD {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("type ceiling for %s %s", t, money(a.Rules.JobTypeCeilingUSD[t])))
	}
	if a.Rules.BurnRateUSDPerMin > 0 {
		parts = append(parts, "burn rate "+correlate.USD(a.Rules.BurnRateUSDPerMin)+"/min")
	}
	if a.Rules.ProjectedCeilingUSD > 0 {
		parts = append(parts, "projected ceiling "+correlate.USD(a.Rules.ProjectedCeilingUSD))
	}
	if a.RunWindow.Kind != correlate.RunWindowNone {
		parts = append(parts, "runs end at the logs' run_id or "+a.RunWindow.String())
	}
	kill := "no kill hook"
	switch {
	case a.Hooks.ReadOnly:
		kill = "kills disabled (read-only)"
	case a.Hooks.DryRun:
		kill = "dry run: nothing is sent"
	case a.Hooks.KillWebhook != "" || a.Hooks.KillExec != nil:
		kill = "kills on " + strings.Join(a.Rules.KillOn, ", ")
	case a.Hooks.RunKillExec != nil:
		kill = "run-wide kills only (run_kill_exec), on " + strings.Join(a.Rules.KillOn, ", ")
	}
	return strings.Join(parts, ", ") + "; " + kill
}
