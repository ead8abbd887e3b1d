package audit

import (
	"bytes"
	"regexp"
)

// Workflow engines' step retries: the engine runs a failed step again,
// every call inside it with it —
//
//	RETRY = ConstantDelayRetryPolicy(delay=5, maximum_attempts=MAX_TRIES)
//	@step(retry_policy=RETRY)                          # LlamaIndex workflows
//	@task(retries=3, retry_delay_seconds=10)           # Prefect
//	@hatchet.task(retries=2)                           # Hatchet
//	workflow.execute_activity(…, retry_policy=POLICY)  # Temporal (temporal.go)
//
// — one layer at the decorator. A policy may be a name bound at module
// level (RETRY above): its call is read there. LlamaIndex's
// ConstantDelayRetryPolicy is 3 attempts unless maximum_attempts says
// otherwise; Prefect's and Hatchet's retries default to none, so a step
// without them is no layer. Not layers: a @step with no retry_policy (run
// once), a @task of another library (Celery's has its own row; a file
// that imports no Prefect or Hatchet is not read for them).

var (
	pyStepDeco       = regexp.MustCompile(`(?m)^[ \t]*@(?:[A-Za-z_]\w*\.)?step\s*\(`)
	pyRetryPolicyKw  = regexp.MustCompile(`\bretry_policy\s*=\s*([A-Za-z_][\w.]*)\s*(\()?`)
	pyPrefectDeco    = regexp.MustCompile(`(?m)^[ \t]*@(?:prefect\.)?(?:task|flow)\s*\(`)
	stopAfterAttempt = regexp.MustCompile(`\bstop_after_attempt\s*\(\s*([0-9]+|[A-Za-z_][\w.]*)\s*\)`)
	pyHatchetDeco    = regexp.MustCompile(`(?m)^[ \t]*@[A-Za-z_]\w*\.(?:task|durable_task|step)\s*\(`)
)

// policyCall is the argument text of the retry policy named in region
// (retry_policy=Policy(…) inline, or retry_policy=NAME with NAME = Policy(…)
// at the start of a line of the file), with the policy's class name.
func policyCall(code []byte, ra, rb int, seen map[string]policyAt) (class string, a, b int, ok bool) {
	region := code[ra:rb]
	m := pyRetryPolicyKw.FindSubmatchIndex(region)
	if m == nil {
		return "", 0, 0, false
	}
	name := string(region[m[2]:m[3]])
	if m[4] >= 0 {
		a, b = args(code, ra+m[5]-1) // inline: Policy(…) in the arguments
		return lastSegment(name), a, b, true
	}
	// The file's module-level `NAME = Call(` bindings are read once, in
	// one pass, and every decorator looks its name up there: a file of
	// a thousand decorators naming a thousand policies costs one read.
	if _, read := seen[""]; !read {
		seen[""] = policyAt{} // the key no name has: the file was read
		for _, d := range pyModuleCallAssign.FindAllSubmatchIndex(code, 4*maxCandidates) {
			// The last module-level binding is the one in force when the
			// decorators run (R6-9): a later one replaces an earlier.
			n := string(code[d[2]:d[3]])
			pa, pb := args(code, d[1]-1)
			seen[n] = policyAt{lastSegment(string(code[d[4]:d[5]])), pa, pb, true}
		}
	}
	p := seen[name]
	return p.class, p.a, p.b, p.ok
}

var pyModuleCallAssign = regexp.MustCompile(`(?m)^([A-Za-z_]\w*)[ \t]*(?::[ \t]*[\w.\[\]]+[ \t]*)?=[ \t]*([A-Za-z_][\w.]*)[ \t]*\(`)

// policyAt is a policy name's binding as policyCall found it.
type policyAt struct {
	class string
	a, b  int
	ok    bool
}

// llamaIndexSteps: @step(retry_policy=…) in a file importing LlamaIndex's
// workflows (llama_index.core.workflow, or the workflows package).
func llamaIndexSteps(f *file) []Layer {
	if !f.contains("retry_policy") || !importsPrefix(f.pyImports(), "llama_index.core.workflow") && !importsPrefix(f.pyImports(), "workflows") {
		return nil
	}
	code := f.blanked()
	var out []Layer
	seen := map[string]policyAt{}
	for _, m := range pyStepDeco.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		class, pa, pb, ok := policyCall(code, a, b, seen)
		if !ok {
			continue
		}
		l := newLayer("llamaindex-workflow-step", f.rel, f.lines().at(m[0]), "python", ConfidenceMedium)
		switch {
		case setKnob(&l, pyMaxAttempts, code[pa:pb]):
		case class == "ExponentialBackoffRetryPolicy":
			l.setAttempts(5, "ExponentialBackoffRetryPolicy() (maximum_attempts not set: 5)")
			l.Configured = false
		case class == "retry_policy":
			// retry_policy(stop=stop_after_attempt(N)); 3 without a stop.
			if k := stopAfterAttempt.FindSubmatchIndex(code[pa:pb]); k != nil {
				l.setUnknown("stop_after_attempt(" + string(code[pa+k[2]:pa+k[3]]) + ")")
				if n, ok := atoiBounded(string(code[pa+k[2] : pa+k[3]])); ok {
					l.setAttempts(n, "retry_policy(stop=stop_after_attempt("+string(code[pa+k[2]:pa+k[3]])+"))")
					l.Confidence = ConfidenceMedium
				}
			}
		case class != "ConstantDelayRetryPolicy":
			l.setUnknown("retry_policy=" + class + "(…)")
			l.Confidence = ConfidenceLow
			l.Note = "a retry policy of the repository's own: read its next() for the attempts"
		}
		out = append(out, l)
	}
	return out
}

// prefectTasks: @task(retries=N) or @flow(retries=N) in a file importing
// prefect; none written is no retry.
func prefectTasks(f *file) []Layer {
	return decoratorRetries(f, "prefect", "prefect", pyPrefectDeco)
}

// hatchetTasks: @hatchet.task(retries=N), @workflow.task(…) and the older
// @hatchet.step(…) in a file importing hatchet_sdk; none written is no
// retry.
func hatchetTasks(f *file) []Layer {
	return decoratorRetries(f, "hatchet_sdk", "hatchet", pyHatchetDeco)
}

func decoratorRetries(f *file, module, id string, deco *regexp.Regexp) []Layer {
	if !f.contains("retries") || !importsPrefix(f.pyImports(), module) {
		return nil
	}
	code := f.blanked()
	var out []Layer
	for _, m := range deco.FindAllIndex(code, maxCandidates) {
		a, b := args(code, m[1]-1)
		if topLevelKw(code[a:b], "retries") < 0 {
			continue
		}
		l := newLayer(id, f.rel, f.lines().at(m[0]), "python", ConfidenceHigh)
		setKnob(&l, pyRetries, code[a+topLevelKw(code[a:b], "retries"):b])
		out = append(out, l)
	}
	return out
}

// topLevelKw is the offset in region of the keyword argument kw= at depth
// 0 (not inside a nested call's arguments), -1 when absent.
func topLevelKw(region []byte, kw string) int {
	depth := 0
	for i := 0; i < len(region); i++ {
		switch region[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		default:
			if depth == 0 && bytes.HasPrefix(region[i:], []byte(kw)) && (i == 0 || !isIdentByte(region[i-1])) {
				rest := bytes.TrimLeft(region[i+len(kw):], " \t")
				if len(rest) > 0 && rest[0] == '=' && (len(rest) < 2 || rest[1] != '=') {
					return i
				}
			}
		}
	}
	return -1
}
