package audit

import (
	"bytes"
	"fmt"
	"regexp"
)

// A client built from the dict a method returns (issue 37, round 9) —
//
//	def _client_kwargs(self):
//	    max_retries = self.max_retries if self.max_retries is not None else int(os.environ.get("X", "5"))
//	    return {"api_key": …, "max_retries": max_retries}
//	…
//	self.client = OpenAI(http_client=h, **self._client_kwargs())
//
// — gets the max_retries of that dict: a literal, or a name resolved as
// any bound (values.go, pydefaults.go). The method is looked up in the
// call's file by name; its first `return {…}` that names the key decides.

var (
	pySplatCall   = regexp.MustCompile(`\*\*\s*(?:self\.|cls\.)?([A-Za-z_]\w*)\s*\(\s*\)`)
	pyDictKnobAny = regexp.MustCompile(`['"]max_retries['"]\s*:\s*([0-9][0-9_]*|[A-Za-z_][\w.]*)`)
)

// maxSplatMethodBytes bounds the body of the method read.
const maxSplatMethodBytes = 32 << 10

// splatFound is what a method's returned dict gives max_retries: ok
// false when it gives nothing readable.
type splatFound struct {
	n       int
	setting string
	low, ok bool
}

func pySplatReturnInto(f *file, l *Layer, a, b int) bool {
	if l.Configured {
		return false
	}
	code := f.blanked()
	m := pySplatCall.FindSubmatch(code[a:b])
	if m == nil {
		return false
	}
	name := string(m[1])
	sc := f.pyScopes()
	if sc.splat == nil {
		sc.splat = map[string]splatFound{}
	}
	s, seen := sc.splat[name]
	if !seen {
		s = pySplatMethod(f, name)
		sc.splat[name] = s
	}
	if !s.ok {
		return false
	}
	l.set(s.n, s.setting)
	if s.low {
		l.Confidence = ConfidenceLow
	}
	return true
}

// pySplatMethod reads the max_retries of the dict the method name returns.
func pySplatMethod(f *file, name string) splatFound {
	code := f.blanked()
	def := regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+` + regexp.QuoteMeta(name) + `[ \t]*\(`)
	d := def.FindIndex(code)
	if d == nil {
		return splatFound{}
	}
	_, pe := args(code, d[1]-1)
	colon := bytes.IndexByte(code[pe:min(len(code), pe+200)], ':')
	if colon < 0 {
		return splatFound{}
	}
	end := min(pyBlockEndWithin(code, d[0], pe+colon+1, maxSplatMethodBytes), len(code))
	ret := regexp.MustCompile(`\breturn\s*\{`)
	for _, r := range ret.FindAllIndex(code[d[0]:end], 16) {
		open := d[0] + r[1] - 1
		da, db := args(code, open)
		if db <= da || db > end {
			continue
		}
		k := pyDictKnobAny.FindSubmatchIndex(f.raw[da:db])
		if k == nil || code[da+k[2]] == ' ' {
			continue
		}
		val := string(f.raw[da+k[2] : da+k[3]])
		line := f.lines().at(da + k[0])
		where := fmt.Sprintf("in the dict %s() returns at %s:%d, passed as **", name, f.rel, line)
		if n, ok := atoiBounded(val); ok {
			return splatFound{n: n, setting: fmt.Sprintf("max_retries: %d (%s)", n, where), ok: true}
		}
		if rs, ok := f.resolveAt(val, line); ok {
			return splatFound{n: rs.n, setting: fmt.Sprintf("max_retries: %s (%s; %s)", val, where, rs.text(f.rel)), low: rs.defs > 1, ok: true}
		}
		return splatFound{}
	}
	return splatFound{}
}
