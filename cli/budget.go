package cli

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/burnrate-dev/burnrate/budget"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/declared"
	"github.com/burnrate-dev/burnrate/display"
)

// stackFlags read a layer stack from --layer flags or a TOML file.
type stackFlags struct {
	layers []string
	file   string
}

func (s *stackFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&s.layers, "layer", nil, "a retry layer, outermost first: NAME:attempts=N,timeout=D,backoff=none|fixed:D|exp:D|linear:D+S (repeat)")
	cmd.Flags().StringVar(&s.file, "file", "", "TOML file with [[layer]] tables: name, attempts, timeout, backoff")
}

func (s *stackFlags) stack() (budget.Stack, error) {
	var st budget.Stack
	if s.file != "" {
		layers, err := declared.ReadBudgetStack(s.file, "--file")
		if err != nil {
			return nil, err
		}
		st = append(st, layers...)
	}
	for _, spec := range s.layers {
		l, err := budget.ParseLayer(spec)
		if err != nil {
			return nil, fmt.Errorf("--layer: %w", err)
		}
		st = append(st, l)
	}
	return st, nil
}

func newBudgetCmd() *cobra.Command {
	var fromLog []string
	var sf stackFlags
	var format string
	var a analysisFlags
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Retry-budget calculator: layer stacks, the probability model, and what the logs show",
		Long: `List every layer that can retry, multiply, and look at the number before tonight's
run: retry layers multiply, and a retry policy is a probability model, not a vibe.

  burnrate budget layers --layer queue:attempts=7,timeout=600s,backoff=exp:2s ...
  burnrate budget model --p 0.3 --retries 4 --base 1s --cap 30s --jitter full --deadline 90s --target 0.999
  burnrate budget --from-log night.jsonl [--layer ... to compare]`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(fromLog) == 0 {
				return cmd.Help()
			}
			_, cfg, err := a.load()
			if err != nil {
				return err
			}
			cfg.NoAttemptDetail = true // no view reads them
			cfg.SettleResumed = true   // its files are read together, in time order
			var st budget.Stack
			if len(sf.layers) > 0 || sf.file != "" {
				if st, err = sf.stack(); err != nil {
					return err
				}
			}
			state, _, err := correlateFiles(cfg, fromLog, a.input, a.declared)
			if err != nil {
				return err
			}
			m := budget.Measure(state.ReportWith(correlate.ReportOptions{StreamJobs: true}), st) // no job list: the budget reads none
			if format == "json" {
				return budget.WriteJSON(cmd.OutOrStdout(), m)
			}
			budget.PrintMeasured(cmd.OutOrStdout(), m)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&fromLog, "from-log", nil, "measure p, latency and layer stacks from these logs (repeat)")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	sf.register(cmd)
	a.register(cmd)
	cmd.AddCommand(newBudgetLayersCmd(), newBudgetModelCmd())
	return cmd
}

func newBudgetLayersCmd() *cobra.Command {
	var sf stackFlags
	var format, emit, fromAssumptions string
	var threshold int
	cmd := &cobra.Command{
		Use:   "layers",
		Short: "Worst-case attempts and wall clock of a stack of retry layers",
		Example: `  burnrate budget layers --layer scheduler:attempts=2,timeout=3600s,backoff=fixed:300s \
    --layer watchdog:attempts=2,timeout=900s --layer wrapper:attempts=3,timeout=300s,backoff=exp:10s \
    --layer sdk:attempts=3,timeout=120s,backoff=linear:1s+1s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := sf.stack()
			if err != nil {
				return err
			}
			var assumed []string
			if fromAssumptions != "" {
				as, err := declared.ReadAssumptionsReport(fromAssumptions)
				if err != nil {
					return err
				}
				layers, notes, err := declared.LayersFromAssumptions(as)
				if err != nil {
					return fmt.Errorf("--from-assumptions %s: %w", fromAssumptions, err)
				}
				st, assumed = append(layers, st...), notes
			}
			if err := st.Validate(); err != nil {
				return err
			}
			switch emit {
			case "":
			case "env", "toml", "json":
				in := st[len(st)-1]
				if in.Timeout <= 0 {
					return fmt.Errorf("--emit: the innermost layer (%s) has no timeout, and API_TIMEOUT_MS is its timeout: give it timeout=D", display.Text(in.Name))
				}
				wall, _ := st.WallClock() // bounded: the innermost layer has a timeout
				return budget.EmitConfig(cmd.OutOrStdout(), emit, budget.EmitValues{MaxRetries: 0, TimeoutS: in.Timeout.Seconds(), MaxCalls: st.WorstCaseAttempts(), DeadlineS: wall.Seconds()})
			default:
				return fmt.Errorf("--emit %q: use env, toml or json", emit)
			}
			l := budget.Layers{Stack: st, Threshold: threshold, From: fromAssumptions, Assumed: assumed}
			if format == "json" {
				return budget.WriteLayersJSON(cmd.OutOrStdout(), l)
			}
			budget.PrintLayers(cmd.OutOrStdout(), l)
			return nil
		},
	}
	sf.register(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	cmd.Flags().IntVar(&threshold, "threshold", 10, "flag stacks whose worst-case attempts exceed this")
	cmd.Flags().StringVar(&emit, "emit", "", "print ready-to-paste settings instead: env, toml or json")
	cmd.Flags().StringVar(&fromAssumptions, "from-assumptions", "", "a report's JSON (report --format json): its declared (else derived) layers, outermost first, before any --layer")
	return cmd
}

func newBudgetModelCmd() *cobra.Command {
	var m budget.Model
	var retries int
	var base, capS, latency, deadline, retryAfter, format, emit, jitter string
	var costPerCall float64
	cmd := &cobra.Command{
		Use:     "model",
		Short:   "The retry probability model: success odds, time, deadline risk and their inversions",
		Example: "  burnrate budget model --p 0.3 --retries 4 --base 1s --multiplier 2 --cap 30s --jitter full --latency 8s --deadline 90s --target 0.999",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m.Retries, m.Jitter = retries, budget.Jitter(jitter)
			if math.IsNaN(costPerCall) || math.IsInf(costPerCall, 0) || costPerCall < 0 || costPerCall > budget.MaxCostPerCallUSD {
				return fmt.Errorf("--cost-per-call %g: give USD per attempt, 0..%g", costPerCall, float64(budget.MaxCostPerCallUSD))
			}
			for _, d := range []struct {
				flag string
				in   string
				out  *float64
			}{{"--base", base, &m.Base}, {"--cap", capS, &m.Cap}, {"--latency", latency, &m.Latency}, {"--deadline", deadline, &m.Deadline}, {"--retry-after", retryAfter, &m.RetryAfter}} {
				if d.in == "" {
					continue
				}
				v, err := budget.ParseSeconds(d.in)
				if err != nil {
					return fmt.Errorf("%s: %w", d.flag, err)
				}
				*d.out = v.Seconds()
			}
			if err := m.Validate(); err != nil {
				return err
			}
			r := m.Evaluate()
			switch emit {
			case "":
			case "env", "toml", "json":
				n := m.Retries
				if r.Recommended != nil {
					n = *r.Recommended
				}
				ev := budget.EmitValues{MaxRetries: n, TimeoutS: m.Latency * 2, MaxCalls: n + 1, DeadlineS: m.Deadline}
				if m.Deadline > 0 {
					ev.TimeoutS = math.Max(m.Latency, (m.Deadline-(r.WorstTime-float64(m.Retries+1)*m.Latency))/float64(n+1))
				}
				if costPerCall > 0 {
					ev.JobCeilingUSD = costPerCall * float64(n+1)
				}
				return budget.EmitConfig(cmd.OutOrStdout(), emit, ev)
			default:
				return fmt.Errorf("--emit %q: use env, toml or json", emit)
			}
			if format == "json" {
				out := struct {
					budget.Result
					CDF [][2]float64 `json:"cdf"`
				}{Result: r}
				ts, c := r.CDF(m.P, 40)
				for i := range ts {
					out.CDF = append(out.CDF, [2]float64{ts[i], c[i]})
				}
				return budget.WriteJSON(cmd.OutOrStdout(), out)
			}
			budget.PrintModel(cmd.OutOrStdout(), m, r)
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&m.P, "p", 0.3, "per-attempt failure probability (429, 529, 500, dropped stream)")
	f.IntVar(&retries, "retries", 2, "n: retries after the first attempt (the SDK default is 2)")
	f.StringVar(&base, "base", "1s", "b: base delay")
	f.Float64Var(&m.Multiplier, "multiplier", 2, "m: delay multiplier")
	f.StringVar(&capS, "cap", "", "delay cap (none by default)")
	f.StringVar(&jitter, "jitter", "full", "none, full, equal or decorrelated")
	f.StringVar(&latency, "latency", "1s", "L: latency of one attempt")
	f.StringVar(&deadline, "deadline", "", "D: hard deadline for the whole call")
	f.Float64Var(&m.Target, "target", 0, "S: target success probability, e.g. 0.999")
	f.StringVar(&retryAfter, "retry-after", "", "an honoured Retry-After, which replaces the schedule")
	f.Float64Var(&costPerCall, "cost-per-call", 0, "USD per attempt, to emit a per-job ceiling")
	f.StringVar(&format, "format", "text", "text or json")
	f.StringVar(&emit, "emit", "", "print ready-to-paste settings instead: env, toml or json")
	return cmd
}
