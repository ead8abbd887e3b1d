package audit

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Python task queues: Celery tasks and RQ jobs.

var (
	pyAutoretry      = regexp.MustCompile(`\bautoretry_for\s*=`)
	pyBindTrue       = regexp.MustCompile(`\bbind\s*=\s*True\b`)
	pySelfRetry      = regexp.MustCompile(`\bself\.retry\s*\(`)
	pyTaskClass      = regexp.MustCompile(`(?m)^class\s+(\w+)\s*\(([^)]*Task\b[^)]*)\)\s*:`)
	pyTopLevel       = regexp.MustCompile(`(?m)^(?:class|def|@)\b`)
	pyRetryKwargs    = regexp.MustCompile(`['"]max_retries['"]\s*:\s*(\d+|None)`)
	pyTaskDeco       = regexp.MustCompile(`(?m)^[ \t]*@\s*(?:[\w]+\.)?(?:task|shared_task)\b\s*(\()?`)
	pyMaxRetriesNone = regexp.MustCompile(`\bmax_retries\s*=\s*None\b`)
	pyRQMax          = knobRe("max")
)

// celery: a task retries when autoretry_for is set or it calls
// self.retry(); max_retries defaults to 3 (4 attempts), None is forever.
func celery(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "celery") {
		// The app imported from the project's own module (from
		// app.celery import celery_app): @celery_app.task(autoretry_for=…)
		// is Celery's own shape, read without the import (issue 37,
		// round 6: private-gpt's two ingestion tasks).
		return celeryDecorators(f, true)
	}
	return append(celeryClasses(f), celeryDecorators(f, false)...)
}

// celeryClasses: a task class with autoretry_for and max_retries as class
// attributes (the shape Celery's docs and many projects use for a base
// task).
func celeryClasses(f *file) []Layer {
	code, raw, ln := f.blanked(), f.raw, f.lines()
	var out []Layer
	for _, m := range pyTaskClass.FindAllIndex(code, maxCandidates) {
		end := min(len(code), m[1]+maxBodyBytes)
		if nx := pyTopLevel.FindIndex(code[m[1]:end]); nx != nil {
			end = m[1] + nx[0]
		}
		body := code[m[1]:end]
		if !pyAutoretry.Match(body) {
			continue
		}
		l := newLayer("celery", f.rel, ln.at(m[0]), "python", ConfidenceMedium)
		celeryMax(&l, raw[m[1]:end], body)
		out = append(out, l)
	}
	return out
}

// celeryDecorators: @task(autoretry_for=…) or @task(bind=True) calling
// self.retry(), max_retries in the decorator or the self.retry call.
func celeryDecorators(f *file, autoOnly bool) []Layer {
	code, raw, ln := f.blanked(), f.raw, f.lines()
	var out []Layer
	decos := pyTaskDeco.FindAllSubmatchIndex(code, maxCandidates)
	for i, m := range decos {
		var region, rawRegion []byte
		if m[2] >= 0 {
			a, b := args(code, m[3]-1)
			region, rawRegion = code[a:b], raw[a:b]
		}
		end := min(len(code), m[1]+maxBodyBytes)
		if i+1 < len(decos) {
			end = min(end, decos[i+1][0])
		}
		body, rawBody := code[m[1]:end], raw[m[1]:end]
		auto := region != nil && pyAutoretry.Match(region)
		selfRetry := region != nil && pyBindTrue.Match(region) && pySelfRetry.Match(body)
		if !auto && !selfRetry || autoOnly && (!auto || !bytes.Contains(code[m[0]:m[1]], []byte(".task"))) {
			continue
		}
		l := newLayer("celery", f.rel, ln.at(m[0]), "python", ConfidenceMedium)
		knobIn, rawIn := region, rawRegion
		if _, ok, _, _ := intKnob(pyMaxRetries, region); !ok && !pyRetryKwargs.Match(rawRegion) && selfRetry {
			// self.retry(exc=e, max_retries=N) in the task's body
			if sm := pySelfRetry.FindIndex(body); sm != nil {
				a, b := args(body, sm[1]-1)
				knobIn, rawIn = body[a:b], rawBody[a:b]
			}
		}
		celeryMax(&l, rawIn, knobIn)
		out = append(out, l)
	}
	return out
}

// maxBodyBytes bounds how much of a task's body is read for self.retry()
// and its class attributes.
const maxBodyBytes = 64 << 10

// celeryMax reads max_retries from code (max_retries=N, max_retries = None)
// or from a retry_kwargs dict in the raw source ({"max_retries": N}).
func celeryMax(l *Layer, raw, code []byte) {
	if mm := pyMaxRetriesNone.FindIndex(code); mm != nil {
		l.setUnbounded(snippet(code, mm[0]))
		return
	}
	if setKnob(l, pyMaxRetries, code) {
		return
	}
	if rm := pyRetryKwargs.FindSubmatch(raw); rm != nil {
		if string(rm[1]) == "None" {
			l.setUnbounded("retry_kwargs " + string(rm[0]))
		} else {
			n, _ := strconv.Atoi(string(rm[1]))
			l.set(n, "retry_kwargs "+string(rm[0]))
		}
	}
}

// rq: Retry(max=N) of rq.
func rq(f *file) []Layer {
	var out []Layer
	for _, n := range pyNames(f.pyImports(), "rq", "Retry") {
		if n != "Retry" && !strings.HasSuffix(n, ".Retry") {
			continue
		}
		for _, o := range pyCalls(f.blanked(), n) {
			out = append(out, pyCallLayer(f, "rq", o, pyRQMax))
		}
	}
	return out
}
