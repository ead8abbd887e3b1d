// Package declared is where the retry layers people declare meet the
// calls the logs show: the STACK.toml format (report --stack, budget
// layers --file), the rule that picks which of an audit's call paths
// meets the logs (report --audit), the assumptions an audit derives, and
// a report's assumptions turned into budget layers
// (budget layers --from-assumptions). It reads files and source trees;
// the comparison itself is correlate's (correlate.CompareDeclared).
package declared

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/burnrate-dev/burnrate/audit"
	"github.com/burnrate-dev/burnrate/correlate"
	"github.com/burnrate-dev/burnrate/display"
	"github.com/burnrate-dev/burnrate/layers"
)

// report --stack STACK.toml and report --audit PATH: the declared retry
// layers, set beside the calls of one operation seen in the logs
// (correlate.CompareDeclared).

// FromStackFile reads report --stack's file.
func FromStackFile(file string) (correlate.DeclaredStack, error) {
	layers, err := ReadStackFile(file, "--stack")
	if err != nil {
		return correlate.DeclaredStack{}, err
	}
	d := correlate.DeclaredStack{From: "--stack " + display.Text(file)}
	for _, l := range layers {
		if err := l.CheckForReport(); err != nil {
			return d, fmt.Errorf("--stack %s: %w", file, err)
		}
		src := l.Source
		if src == "" && l.line > 0 {
			src = fmt.Sprintf("%s:%d", filepath.Base(file), l.line)
		}
		// Every string here is the file's: inert before it is shown.
		d.Layers = append(d.Layers, correlate.DeclaredLayer{Name: display.Text(l.Name), Library: display.Text(l.Library), Source: display.Text(src), Attempts: l.Attempts})
	}
	return d, nil
}

// stackCandidate is one of an audit's likely call paths.
type stackCandidate struct {
	stack     correlate.DeclaredStack
	providers []string // the API providers its SDK layers call
	attempts  int
	unbounded bool
}

// FromAudit chooses the audit's stack to compare, and says how.
//
// A log shows no call path, and an audit finds one likely path per
// language, so the rule is an SRE's worst case: among the paths that call
// a provider these logs' models are of (every path when none names one),
// the one with the most attempts, bounded ones first. An operation is then
// flagged only when no path the code declares could have made that many
// calls — a hidden layer on a smaller path is missed rather than a
// path's calls taken for another's. An unbounded path explains any count:
// it is left out of the comparison and named, since it may be the gap.
func FromAudit(res *audit.Result, r *correlate.Report) (d correlate.DeclaredStack, rule string, others []string, err error) {
	if len(res.Stacks) == 0 {
		return d, "", nil, ErrNoAuditStack
	}
	var cands []stackCandidate
	for _, st := range res.Stacks {
		root := strings.Join(res.Roots, ", ")
		if len(st.Layers) > 0 {
			root = res.Layers[st.Layers[0]].Root // a path is of one root
		}
		c := stackCandidate{stack: correlate.DeclaredStack{From: fmt.Sprintf("audit of %s: %s path", display.Text(root), display.Text(st.Group))},
			attempts: st.Attempts, unbounded: st.Unbounded}
		for _, i := range st.Layers {
			l := res.Layers[i]
			file := l.File
			if len(res.Roots) > 1 {
				file = path.Join(filepath.ToSlash(l.Root), l.File)
			}
			c.stack.Layers = append(c.stack.Layers, correlate.DeclaredLayer{Name: l.DefaultID, Library: display.Text(l.Library),
				Source: display.Text(fmt.Sprintf("%s:%d", file, l.Line)), Attempts: l.Attempts, Unbounded: l.Unbounded})
			if p := providerOfLayer(l.DefaultID); p != "" && !slices.Contains(c.providers, p) {
				c.providers = append(c.providers, p)
			}
		}
		cands = append(cands, c)
	}
	logged := loggedProviders(r)
	var calling []int
	for i, c := range cands {
		for _, p := range c.providers {
			if slices.Contains(logged, p) {
				calling = append(calling, i)
				break
			}
		}
	}
	why := fmt.Sprintf("of the %d likely call paths the audit found", len(cands))
	if len(calling) > 0 {
		why = fmt.Sprintf("of the %d of %d likely call paths that call %s, the provider of these logs' models", len(calling), len(cands), strings.Join(logged, ", "))
	} else {
		for i := range cands {
			calling = append(calling, i)
		}
	}
	best := -1
	for _, i := range calling {
		c := cands[i]
		switch {
		case best < 0:
			best = i
		case cands[best].unbounded && !c.unbounded:
			best = i
		case !c.unbounded && !cands[best].unbounded && c.attempts > cands[best].attempts:
			best = i
		}
	}
	chosen := cands[best]
	var unbounded []string
	for _, i := range calling {
		if i != best && cands[i].unbounded {
			unbounded = append(unbounded, fmt.Sprintf("%s (%s)", res.Stacks[i].Group, cands[i].stack.Names()))
		}
	}
	if len(cands) > 1 {
		rule = fmt.Sprintf("the %s path: the most attempts %s. A log shows no call path, so an operation is judged against the most calls any path of the code allows", display.Text(res.Stacks[best].Group), why)
		if len(unbounded) > 0 {
			rule += fmt.Sprintf("; left out, unbounded: %s — bound it, it may be the gap", display.Text(strings.Join(unbounded, ", ")))
		}
	}
	for i, c := range cands {
		if i == best {
			continue
		}
		note := ""
		if !slices.Contains(calling, i) {
			note = " (calls no provider of these logs)"
		}
		others = append(others, fmt.Sprintf("%s: %s%s", c.stack.From, c.stack.ProductText(), note))
	}
	return chosen.stack, rule, others, nil
}

// ErrNoAuditStack: the audit found no retry layer, so nothing declared
// can be compared (a wrong PATH must not read as a hidden layer).
var ErrNoAuditStack = errors.New("the audit found no retry layer")

// providerOfLayer is the family of providers an SDK or agent layer
// calls, by its defaults row; "" for a layer that calls any (a queue, a
// wrapper, a multi-provider framework).
func providerOfLayer(id string) string { return layers.FamilyOfLayer(id) }

// loggedProviders are the providers of the logs' models: the family a
// model ID names, and the provider the log gives (Bedrock, Vertex and
// Azure serve other families' models through their own SDKs).
func loggedProviders(r *correlate.Report) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, m := range r.Models {
		add(layers.FamilyOfModel(m.Model))
		add(layers.FamilyOfLogged(m.Provider))
	}
	slices.Sort(out)
	return out
}
