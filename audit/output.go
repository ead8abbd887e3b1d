package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/burnrate-dev/burnrate/display"
)

// Every string that came from the scanned tree (paths, settings as
// written) goes through display before it reaches a person; JSON and SARIF
// escape control characters themselves.

// LayerJSON is one layer of `audit --format json`.
type LayerJSON struct {
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Root       string  `json:"root"`
	Library    string  `json:"library"`
	Default    string  `json:"default_id"`
	Version    *string `json:"version"`
	Kind       Kind    `json:"kind"`
	Attempts   *int    `json:"attempts"`
	Unbounded  bool    `json:"unbounded"`
	Configured bool    `json:"configured"`
	Setting    string  `json:"setting"`
	Retries4xx bool    `json:"retries_4xx"`
	Backoff    string  `json:"backoff"`
	RetryAfter string  `json:"retry_after,omitempty"`
	Confidence string  `json:"confidence"`
	Note       string  `json:"note,omitempty"`
}

// StackJSON is one likely call path.
type StackJSON struct {
	Group      string   `json:"group"`
	Layers     []int    `json:"layers"`
	Attempts   *int     `json:"attempts"`
	Unbounded  bool     `json:"unbounded"`
	Product    string   `json:"product"`
	WallClockS *float64 `json:"worst_case_wall_clock_s"`
	FailFastS  *float64 `json:"fail_fast_wall_clock_s"`
	Note       string   `json:"note,omitempty"`
}

// FindingJSON is one finding.
type FindingJSON struct {
	Severity Severity    `json:"severity"`
	Kind     FindingKind `json:"kind"`
	File     string      `json:"file"`
	Line     int         `json:"line"`
	Message  string      `json:"message"`
	Stack    *int        `json:"stack"`
}

// ReportJSON is the whole of `audit --format json`.
type ReportJSON struct {
	Roots     []string      `json:"roots"`
	Files     int           `json:"files_read"`
	Layers    []LayerJSON   `json:"layers"`
	Stacks    []StackJSON   `json:"stacks"`
	Findings  []FindingJSON `json:"findings"`
	Skipped   []Skip        `json:"skipped"`
	Truncated bool          `json:"layers_truncated"`
	Threshold int           `json:"threshold"`
	AttemptS  float64       `json:"attempt_time_s"`
}

// JSON is the report's JSON model.
func (r *Result) JSON() ReportJSON {
	out := ReportJSON{Roots: r.Roots, Files: r.Files, Layers: []LayerJSON{}, Stacks: []StackJSON{}, Findings: []FindingJSON{}, Skipped: r.Skipped, Truncated: r.Truncated, Threshold: r.Threshold, AttemptS: r.AttemptTime}
	if out.Skipped == nil {
		out.Skipped = []Skip{}
	}
	for _, l := range r.Layers {
		j := LayerJSON{File: l.File, Line: l.Line, Root: l.Root, Library: l.Library, Default: l.DefaultID, Kind: l.Kind,
			Unbounded: l.Unbounded, Configured: l.Configured, Setting: l.Setting, Retries4xx: l.Retries4xx, Backoff: l.Backoff,
			RetryAfter: l.RetryAfter, Confidence: string(l.Confidence), Note: l.Note}
		if l.Version != "" {
			v := l.Version
			j.Version = &v
		}
		if !l.Unbounded {
			a := l.Attempts
			j.Attempts = &a
		}
		out.Layers = append(out.Layers, j)
	}
	for _, s := range r.Stacks {
		j := StackJSON{Group: s.Group, Layers: s.Layers, Unbounded: s.Unbounded, Product: s.Product, Note: s.Note}
		if !s.Unbounded {
			a := s.Attempts
			j.Attempts = &a
			if s.WallClockS > 0 {
				w, f := s.WallClockS, s.FailFastS
				j.WallClockS, j.FailFastS = &w, &f
			}
		}
		out.Stacks = append(out.Stacks, j)
	}
	for _, f := range r.Findings {
		j := FindingJSON{Severity: f.Severity, Kind: f.Kind, File: f.File, Line: f.Line, Message: f.Message}
		if f.Stack >= 0 {
			s := f.Stack
			j.Stack = &s
		}
		out.Findings = append(out.Findings, j)
	}
	return out
}

// WriteJSON writes `--format json`.
func (r *Result) WriteJSON(w io.Writer) error {
	// Paths and settings are kept exact; bidi and zero-width characters
	// in them are written as \u escapes (the same JSON, inert on a terminal).
	enc := json.NewEncoder(&display.JSONWriter{W: w})
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}

// escaper makes untrusted text inert in one human format: Markdown escapes
// for a Markdown file, plain text for a terminal (where `&lt;=` is noise,
// not an escape).
type escaper struct {
	cell, md func(string) string
}

var (
	markdownEscaper = escaper{cell: display.MarkdownCell, md: display.Markdown}
	textEscaper     = escaper{cell: display.Text, md: display.Text}
)

// WriteMarkdown writes the human report as Markdown, for a file or a page.
func (r *Result) WriteMarkdown(w io.Writer) error { return r.writeHuman(w, markdownEscaper) }

// WriteText writes the same report for a terminal: the same layout, its
// text sanitized for a terminal (display.Text) and not Markdown-escaped.
func (r *Result) WriteText(w io.Writer) error { return r.writeHuman(w, textEscaper) }

func (r *Result) writeHuman(w io.Writer, e escaper) error {
	cell, md := e.cell, e.md
	fmt.Fprintf(w, "# Retry layers in %s\n\n", cell(strings.Join(r.Roots, ", ")))
	if len(r.Layers) == 0 {
		fmt.Fprintf(w, "No retry layers found in %d files read.\n", r.Files)
	} else {
		fmt.Fprintln(w, "| # | file:line | library | version | kind | attempts | set | retries 4xx | setting | confidence |")
		fmt.Fprintln(w, "|---:|---|---|---|---|---:|---|---|---|---|")
		for i, l := range r.Layers {
			v := l.Version
			if v == "" {
				v = "—"
			}
			set := "configured"
			if !l.Configured {
				set = "**default, never set**"
			}
			fmt.Fprintf(w, "| %d | %s:%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", i, cell(l.File), l.Line, cell(l.Library), cell(v), l.Kind,
				attemptsCell(l), set, yesNo(l.Retries4xx), cell(l.Setting), l.Confidence)
		}
	}
	if len(r.Stacks) > 0 {
		fmt.Fprintln(w, "\n## Likely call paths (outermost first)")
		fmt.Fprintln(w)
		for i, s := range r.Stacks {
			var names []string
			for _, li := range s.Layers {
				names = append(names, cell(r.Layers[li].Library))
			}
			fmt.Fprintf(w, "%d. **%s** (%s): %s — %s attempts", i, cell(s.Group), strings.Join(names, " → "), cell(s.Product), attemptsOf(s))
			if s.WallClockS > 0 {
				fmt.Fprintf(w, "; wall clock %.0f s (%.1f min) when each call fails in %g s, %.0f s (%.1f min) when each runs to its timeout",
					s.FailFastS, s.FailFastS/60, r.AttemptTime, s.WallClockS, s.WallClockS/60)
			}
			if s.Note != "" {
				fmt.Fprintf(w, " (%s)", cell(s.Note))
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\n## Findings")
		fmt.Fprintln(w)
		for _, f := range r.Findings {
			fmt.Fprintf(w, "- **%s** %s at %s:%d — %s\n", f.Severity, f.Kind, cell(f.File), f.Line, md(f.Message))
		}
	}
	if len(r.Skipped) > 0 || r.Truncated {
		fmt.Fprintln(w, "\n## Not read")
		fmt.Fprintln(w)
		for _, s := range r.Skipped {
			ex := make([]string, len(s.Examples))
			for i, e := range s.Examples {
				ex[i] = cell(e)
			}
			fmt.Fprintf(w, "- %s: %d (%s)\n", s.Reason, s.Count, strings.Join(ex, ", "))
		}
		if r.Truncated {
			fmt.Fprintln(w, "- more layers than the limit: the rest were not kept")
		}
	}
	fmt.Fprintf(w, "\n%d files read. Static: a layer set at run time (environment, a config service) or in a dependency is not seen; `burnrate budget --from-log` measures what the logs show.\n", r.Files)
	return nil
}

func attemptsCell(l Layer) string {
	if l.Unbounded {
		return "∞"
	}
	return fmt.Sprint(l.Attempts)
}

func attemptsOf(s Stack) string {
	if s.Unbounded {
		return "unbounded"
	}
	return fmt.Sprint(s.Attempts)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// tomlComment makes text safe for one TOML comment line.
func tomlComment(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(display.Text(s))
}

// tomlString quotes s as a TOML basic string: a path from the scanned tree
// may hold any byte, and Go's %q writes escapes (\x1b, \a) TOML has not.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteTOML writes the worst bounded call path as a `budget layers --file`
// stack, outermost first, each layer's source in a comment. Unbounded
// layers cannot be multiplied: they are written as comments to decide on.
func (r *Result) WriteTOML(w io.Writer) error {
	fmt.Fprintln(w, "# burnrate audit: the worst likely call path, outermost first.")
	fmt.Fprintln(w, "# Correct the nesting, attempts and timeouts, then: burnrate budget layers --file THIS_FILE")
	best := -1
	for i, s := range r.Stacks {
		if best < 0 || (!s.Unbounded && (r.Stacks[best].Unbounded || s.Attempts > r.Stacks[best].Attempts)) {
			best = i
		}
	}
	if best < 0 {
		fmt.Fprintln(w, "# no retry layers found: nothing to multiply")
		return nil
	}
	s := r.Stacks[best]
	fmt.Fprintf(w, "# %s path: %s\n", tomlComment(s.Group), tomlComment(s.Product))
	if s.Note != "" {
		fmt.Fprintf(w, "# %s\n", tomlComment(s.Note))
	}
	for _, i := range s.Layers {
		l := r.Layers[i]
		timeout, assumed := assumedTimeout, true
		if d, ok := Lookup(l.DefaultID); ok && d.Timeout > 0 {
			timeout, assumed = d.Timeout, false
		}
		fmt.Fprintf(w, "\n# %s at %s:%d (%s)\n", tomlComment(l.Library), tomlComment(l.File), l.Line, tomlComment(l.Setting))
		if assumed {
			fmt.Fprintf(w, "# timeout: the library sets none; %s assumed — put your own\n", timeout)
		}
		prefix := ""
		if l.Unbounded {
			fmt.Fprintln(w, "# UNBOUNDED: give it an attempt limit, then uncomment")
			prefix = "# "
		}
		backoff := l.Backoff
		if backoff == "" {
			backoff = "none"
		}
		file := l.File
		if len(r.Roots) > 1 {
			file = path.Join(filepath.ToSlash(l.Root), l.File)
		}
		// library and source are what report --stack names the layer by;
		// budget layers --file reads and ignores them.
		fmt.Fprintf(w, "%s[[layer]]\n%sname = %s\n%sattempts = %d\n%stimeout = %q\n%sbackoff = %s\n%slibrary = %s\n%ssource = %s\n",
			prefix, prefix, tomlString(l.DefaultID), prefix, max(l.Attempts, 1), prefix, timeout.String(), prefix, tomlString(backoff),
			prefix, tomlString(display.Text(l.Library)), prefix, tomlString(display.Text(fmt.Sprintf("%s:%d", file, l.Line))))
	}
	return nil
}

// SARIF 2.1.0: what GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

var sarifRules = []struct {
	kind  FindingKind
	name  string
	desc  string
	level string
}{
	{FindingUnbounded, "UnboundedRetryLayer", "A retry layer with no attempt limit", "error"},
	{FindingRetries4xx, "RetriesNonRetryable4xx", "A retry layer that retries a non-retryable 4xx", "error"},
	{FindingOverBudget, "RetryProductOverThreshold", "Nested retry layers whose attempts multiply past the threshold", "warning"},
	{FindingSameDomain, "RetryLayersShareFailureDomain", "Two or more layers retry the same API failures", "warning"},
	{FindingUnsetDefault, "UnsetRetryDefault", "A library retries by default and nothing sets it", "note"},
}

// WriteSARIF writes the findings as SARIF 2.1.0, each at its file and line
// relative to the scanned root (uriBaseId %SRCROOT%).
func (r *Result) WriteSARIF(w io.Writer, version string) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "burnrate audit", InformationURI: "https://github.com/burnrate-dev/burnrate", Version: version}}, Results: []sarifResult{}}
	index := map[FindingKind]int{}
	for i, ru := range sarifRules {
		index[ru.kind] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: string(ru.kind), Name: ru.name, ShortDescription: sarifText{ru.desc}, DefaultConfiguration: sarifRuleConfig{ru.level}})
	}
	for _, f := range r.Findings {
		i := index[f.Kind]
		uri := f.File
		if len(r.Roots) > 1 {
			uri = path.Join(filepath.ToSlash(f.Root), f.File)
		}
		run.Results = append(run.Results, sarifResult{RuleID: string(f.Kind), RuleIndex: i, Level: sarifRules[i].level,
			Message:   sarifText{display.SARIFText(f.Message)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: display.SARIFURI(uri), URIBaseID: "%SRCROOT%"}, Region: sarifRegion{StartLine: max(f.Line, 1)}}}}})
	}
	enc := json.NewEncoder(&display.JSONWriter{W: w})
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// WriteDefaults prints the table, or the rows matching name.
func WriteDefaults(w io.Writer, rows []Default) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLIBRARY\tKIND\tATTEMPTS\tKNOB (COUNTS)\t4XX\tVERSIONS")
	for _, d := range rows {
		a := fmt.Sprint(d.Attempts)
		if d.Unbounded {
			a = "unbounded"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s (%s)\t%s\t%s\n", d.ID, d.Library, d.Kind, a, d.Knob, d.Semantics, yesNo(d.Retries4xx), d.Versions)
	}
	tw.Flush()
	if len(rows) == 1 {
		d := rows[0]
		fmt.Fprintf(w, "\nretries on:   %s\nbackoff:      %s\n", d.RetriesOn, d.Backoff)
		if d.RetryAfter != "" {
			fmt.Fprintf(w, "retry-after:  %s\n", d.RetryAfter)
		}
		if d.Timeout > 0 {
			fmt.Fprintf(w, "timeout:      %s per attempt\n", d.Timeout)
		}
		if d.Trap != "" {
			fmt.Fprintf(w, "trap:         %s\n", d.Trap)
		}
		fmt.Fprintf(w, "source:       %s\n", d.Source)
	}
}

// Find returns the rows whose ID, library or package matches name
// (case-insensitive, a substring of the ID or library is enough).
func Find(name string) []Default {
	n := strings.ToLower(strings.TrimSpace(name))
	var out []Default
	for _, d := range Defaults {
		hit := strings.Contains(d.ID, n) || strings.Contains(strings.ToLower(d.Library), n)
		for _, p := range d.Packages {
			hit = hit || strings.ToLower(p) == n
		}
		if hit {
			out = append(out, d)
		}
	}
	return out
}
