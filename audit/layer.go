package audit

import (
	"bytes"
	"fmt"
	"regexp"
)

// newLayer is a layer at the library's default: what the code gets when
// nothing is set.
func newLayer(id, rel string, line int, group string, conf Confidence) Layer {
	d := mustDefault(id)
	return Layer{
		File: rel, Line: line, DefaultID: d.ID, Library: d.Library, Kind: d.Kind,
		Attempts: d.Attempts, Unbounded: d.Unbounded, Setting: d.Knob + " (not set: the default)",
		Retries4xx: d.Retries4xx, Backoff: d.BudgetBackoff, RetryAfter: d.RetryAfter,
		Confidence: conf, group: group,
	}
}

// set records a configured knob value, in the library's own units.
func (l *Layer) set(knob int, written string) {
	l.pending = false
	d := mustDefault(l.DefaultID)
	l.Attempts = max(1, d.AttemptsFor(knob))
	l.Unbounded = false
	l.Configured = true
	l.Setting = written
}

// setAttempts records a configured total.
func (l *Layer) setAttempts(attempts int, written string) {
	l.pending = false
	l.Attempts = max(1, attempts)
	l.Unbounded = false
	l.Configured = true
	l.Setting = written
}

// setUnbounded records a setting that removes the limit.
func (l *Layer) setUnbounded(written string) {
	l.pending = false
	l.Attempts = 0
	l.Unbounded = true
	l.Configured = true
	l.Setting = written
}

// setUnknown: the knob is set from a variable; the default stands in and
// the confidence drops.
func (l *Layer) setUnknown(written string) {
	if !l.pending {
		l.pending, l.confBefore = true, l.Confidence
	}
	l.Configured = true
	l.Setting = written
	l.Confidence = ConfidenceLow
	l.Note = fmt.Sprintf("set from an expression the audit cannot evaluate; the default (%s) is shown", attemptsText(*l))
}

func attemptsText(l Layer) string {
	if l.Unbounded {
		return "unbounded"
	}
	return fmt.Sprintf("%d attempts", l.Attempts)
}

// setKnob records the knob re finds in region: a literal is the value (in
// the library's units), anything else leaves the default at low
// confidence. It reports whether the knob is written at all.
func setKnob(l *Layer, re *regexp.Regexp, region []byte) bool {
	v, ok, num, k := intKnob(re, region)
	switch {
	case ok && num && negativeKnob(re, region[k:]) && mustDefault(l.DefaultID).NegativeNone:
		// max_retries=-1, Retry(total=-1): the library sends the call
		// once (its row says where its source reads so), not unbounded.
		l.setAttempts(1, snippet(region, k)+" (negative: no retry)")
	case ok && num:
		l.set(v, snippet(region, k))
	case ok:
		l.setUnknown(snippet(region, k))
	}
	return ok
}

// negativeKnob: the knob re matches at the start of at is written as a
// negative number (max_retries=-1, total = -3).
func negativeKnob(re *regexp.Regexp, at []byte) bool {
	m := re.FindSubmatchIndex(at)
	return m != nil && m[2] >= 0 && bytes.HasPrefix(bytes.TrimSpace(at[m[2]:m[3]]), []byte("-"))
}
