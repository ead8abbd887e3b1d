package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Python's retry decorators and wrappers: tenacity, backoff, retrying.

var (
	pyStopAttempt    = regexp.MustCompile(`\bstop_after_attempt\s*[=(]\s*([0-9_]+|[A-Za-z_][\w.]*)(?:\s*\+\s*([0-9]{1,3})\b)?`)
	pyStopAny        = regexp.MustCompile(`\bstop\s*=`)
	pyMaxTries       = knobRe("max_tries")
	pyMaxTime        = regexp.MustCompile(`\bmax_time\s*=`)
	pyStopMaxAttempt = knobRe("stop_max_attempt_number")
	pyStopMaxDelay   = regexp.MustCompile(`\bstop_max_delay\s*=`)
)

// tenacity: @retry bare is forever; @retry(...) and Retrying(...) stop
// where stop_after_attempt says, and never when no stop is given.
func tenacity(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, n := range pyNames(f.pyImports(), "tenacity", "retry", "Retrying", "AsyncRetrying") {
		re := regexp.MustCompile(`(?:^|[^\w.])(@\s*)?` + regexp.QuoteMeta(n) + `\b(\s*\()?`)
		for _, m := range re.FindAllSubmatchIndex(code, maxCandidates) {
			if m[0] < len(code) && code[m[0]] != '@' && !isIdentByte(code[m[0]]) {
				m[0]++ // the character before the name (a newline before a decorator at column 0) is not the use's line
			}
			deco, call := m[2] >= 0, m[4] >= 0
			isRetry := strings.HasSuffix(n, "retry") && !strings.HasSuffix(n, "Retrying")
			if !call && !(deco && isRetry) {
				continue // a mention, not a use
			}
			if !call && deco {
				// @retry bare
				l := newLayer("tenacity", f.rel, f.lines().at(m[0]), "python", ConfidenceHigh)
				l.Setting = "@retry (no stop: retries forever)"
				out = append(out, l)
				continue
			}
			a, b := args(code, m[5]-1)
			if isRetry && !deco && !pyStopAny.Match(code[a:b]) {
				// retry(...) called as a function is a decorator built at
				// run time — `retry(stop=stop_after_attempt(3))(fn)`, a
				// method returning one — when it is given a stop (issue
				// 37, round 6: OpenHands' LLM retry); without one it is
				// too often another name's.
				continue
			}
			out = append(out, tenacityCall(f, m[0], code[a:b]))
		}
	}
	return out
}

// tenacityCall is @retry(…) or Retrying(…) at offset at, its arguments
// region.
func tenacityCall(f *file, at int, region []byte) Layer {
	l := newLayer("tenacity", f.rel, f.lines().at(at), "python", ConfidenceMedium)
	if sm := pyStopAttempt.FindSubmatchIndex(region); sm != nil {
		// stop_after_attempt(self.retry_attempts + 1): the value plus
		// what is added to it (issue 37, round 9).
		plus, plusText := 0, ""
		if sm[4] >= 0 {
			plus, _ = strconv.Atoi(string(region[sm[4]:sm[5]]))
			plusText = " + " + string(region[sm[4]:sm[5]])
		}
		if v, err := strconv.Atoi(strings.ReplaceAll(string(region[sm[2]:sm[3]]), "_", "")); err == nil {
			l.setAttempts(v+plus, "stop_after_attempt("+strconv.Itoa(v)+plusText+")")
		} else {
			// stop_after_attempt(retry_config.max_attempts): a name this
			// file or another gives a value (a dataclass field's default,
			// a module constant) is that count; one nobody defines leaves
			// the default standing in.
			expr := string(region[sm[2]:sm[3]])
			l.setUnknown(snippet(region, sm[0]))
			if r, ok := f.resolve(expr); ok {
				conf := ConfidenceMedium
				if r.defs > 1 {
					conf = ConfidenceLow
				}
				l.setAttempts(r.n+plus, "stop_after_attempt("+expr+plusText+") ("+r.text(f.rel)+")")
				l.Confidence, l.Note = conf, ""
			} else if isName(expr) && plus == 0 {
				l.Setting = "stop_after_attempt(" + expr + ")"
				l.valueName, l.valueExpr = lastSegment(expr), expr
			}
		}
	} else if sm := pyStopAny.FindIndex(region); sm != nil {
		l.Configured = true
		l.Setting = snippet(region, sm[0])
		l.Note = "stopped by a condition other than an attempt count (stop_after_delay?): attempts not bounded by count"
		if dm := pyStopDelay.FindSubmatchIndex(region); dm != nil {
			tenacityDeadline(&l, region, string(region[dm[2]:dm[3]]))
		} else if !strings.Contains(l.Setting, "stop_never") {
			tenacityOwnStop(f, &l, region[sm[1]:])
		}
	}
	if tenacityRetriesSome(region) {
		l.Retries4xx = false
	}
	return l
}

// tenacityOwnStop: stop= a condition of the project's own — a function
// (`stop=repair_stop_after_attempt`, whose body returns
// `stop_after_attempt(3 if … else 0)`): bounded by the largest
// stop_after_attempt count the function's body writes (round 7: MetaGPT's
// JSON repair called unbounded, critical). A stop of any other kind
// (stop_if_should_exit(): only at shutdown) stays as it was.
func tenacityOwnStop(f *file, l *Layer, after []byte) {
	name := pyStopName.Find(after)
	best := 0
	if name != nil {
		code := f.blanked()
		if d := regexp.MustCompile(`(?m)^[ \t]*def\s+` + regexp.QuoteMeta(string(name)) + `\s*\(`).FindIndex(code); d != nil {
			ind := d[0] + lineIndent(code, d[0])
			body := code[d[0]:min(len(code), pyBlockEndWithin(code, ind, d[1], maxReaskFuncBytes))]
			for _, m := range pyStopAttempt.FindAllSubmatch(body, 16) {
				if v, ok := atoiBounded(string(m[1])); ok && v > best {
					best = v
				}
			}
			for _, m := range pyStopLiterals.FindAllSubmatch(body, 16) {
				if v, ok := atoiBounded(string(m[1])); ok && v > best && pyStopAttempt.Match(body) {
					best = v // stop_after_attempt(3 if x else 0): its largest count
				}
			}
		}
	}
	if best > 0 {
		l.setAttempts(best, l.Setting+" (its stop_after_attempt("+strconv.Itoa(best)+"), the largest it writes)")
		l.Confidence = ConfidenceLow
		l.Note = "stopped by a function of the project's own: the largest count it writes is shown"
	}
}

var (
	pyStopName     = regexp.MustCompile(`^\s*[A-Za-z_][\w.]*`)
	pyStopLiterals = regexp.MustCompile(`stop_after_attempt\s*\(\s*([0-9]+)\s+if\b`)
)

var (
	pyStopDelay = regexp.MustCompile(`\bstop_after_delay\s*\(\s*([^()]*(?:\([^()]*\))?[^()]*)\)`)
	pyWaitFixed = regexp.MustCompile(`\bwait_fixed\s*\(\s*([0-9][0-9_.]*)\s*\)`)
	pyRetryKw   = regexp.MustCompile(`^\s*retry\s*=`)
	pyRetryType = regexp.MustCompile(`\bretry_if_exception_type\s*\(([^()]*)\)`)
	pyRetryPred = regexp.MustCompile(`\bretry_if_(?:exception|result|exception_message|exception_cause_type)\s*\(`)
	pyRetryNot  = regexp.MustCompile(`\bretry_if_not_exception_type\b`)
	pyAnyExc    = regexp.MustCompile(`(?:^|[^\w.])(?:Exception|BaseException)\b`)
)

// tenacityDeadline: stop=stop_after_delay(N) is a deadline — the layer
// ends N seconds after its first attempt however fast each one fails, so
// it is bounded, only not by a count (issue 37, round 6: readiness waits
// with stop_after_delay(120) were called unbounded, critical). With a
// literal wait_fixed(W) the count is 1 + N/W; without one, at least two
// attempts is all that is known, at low confidence.
func tenacityDeadline(l *Layer, region []byte, delay string) {
	l.Unbounded = false
	l.Setting = "stop_after_delay(" + strings.TrimSpace(delay) + ")"
	d, derr := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(delay), "_", ""), 64)
	if wm := pyWaitFixed.FindSubmatch(region); wm != nil && derr == nil {
		if w, err := strconv.ParseFloat(strings.ReplaceAll(string(wm[1]), "_", ""), 64); err == nil && w > 0 && d >= 0 && d/w < 1e6 {
			l.Attempts = 1 + int(d/w)
			l.Note = "bounded by a deadline, not a count: about " + strconv.Itoa(l.Attempts) + " attempts at wait_fixed(" + string(wm[1]) + ") within " + strings.TrimSpace(delay) + " s"
			return
		}
	}
	l.Attempts = 2
	l.Confidence = ConfidenceLow
	l.Note = "bounded by a deadline (stop_after_delay), not a count: at least 2 attempts; how many more depends on how fast each one fails"
}

// tenacityRetriesSome: the decorator's retry= predicate limits it to some
// errors — retry_if_exception_type(RateLimitError) | …(Timeout), or a
// retry_if_exception(pred) the code decides — so it does not retry every
// error, a 400 included (issue 37, round 6: such a tenacity was called a
// critical retry of every error). retry_if_exception_type() with no type,
// or with Exception/BaseException, and retry_if_not_exception_type still
// retry (almost) every error.
func tenacityRetriesSome(region []byte) bool {
	for _, arg := range splitTop(region) {
		if !pyRetryKw.Match(arg) {
			continue
		}
		if pyRetryNot.Match(arg) {
			return false
		}
		some := false
		for _, m := range pyRetryType.FindAllSubmatch(arg, -1) {
			if len(bytes.TrimSpace(m[1])) == 0 || pyAnyExc.Match(m[1]) {
				return false // retry_if_exception_type() is every Exception
			}
			some = true
		}
		return some || pyRetryPred.Match(arg)
	}
	return false
}

// backoff: @backoff.on_exception(…, max_tries=N); max_time alone bounds
// it in time.
func backoff(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, o := range pyCallsOf(f, "backoff", "on_exception", "on_predicate") {
		a, b := args(code, o)
		if backoffRetriesOnlyLocal(code[a:b]) {
			continue // a file's or git's retry, not a call's (localerrors.go)
		}
		if backoffNeverRetries(f, a, b) {
			continue // an SDK's exceptions around requests: never raised, never retried (notlayers.go)
		}
		l := pyCallLayer(f, "backoff", o, pyMaxTries)
		if !l.Configured && pyMaxTime.Match(code[a:b]) {
			backoffDeadline(&l, code[a:b]) // bounded in time (notlayers.go)
		}
		if backoffRetriesOnlyTransient(code[a:b]) {
			l.Retries4xx = false
		}
		out = append(out, l)
	}
	return out
}

// retrying: @retry without a stop never stops.
func retrying(f *file) []Layer {
	code := f.blanked()
	var out []Layer
	for _, n := range pyNames(f.pyImports(), "retrying", "retry") {
		re := regexp.MustCompile(`(?:^|[^\w.])@\s*` + regexp.QuoteMeta(n) + `\b(\s*\()?`)
		for _, m := range re.FindAllSubmatchIndex(code, maxCandidates) {
			l := newLayer("retrying", f.rel, f.lines().at(m[0]), "python", ConfidenceHigh)
			if m[2] < 0 {
				l.Setting = "@retry (no stop: retries forever)"
				out = append(out, l)
				continue
			}
			l.Confidence = ConfidenceMedium
			a, b := args(code, m[3]-1)
			if !setKnob(&l, pyStopMaxAttempt, code[a:b]) {
				if sm := pyStopMaxDelay.FindIndex(code[a:b]); sm != nil {
					l.Configured, l.Setting = true, snippet(code[a:b], sm[0])
					l.Note = "stopped by elapsed time (stop_max_delay), not by a count of attempts"
				}
			}
			out = append(out, l)
		}
	}
	return out
}
