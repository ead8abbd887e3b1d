package audit

import (
	"bytes"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// A task that enqueues itself again from its own error handler —
//
//	@app.task
//	def summarize(doc_id, attempt=0):
//	    try:
//	        run_summary(doc_id)
//	    except Exception:
//	        summarize.apply_async((doc_id,), countdown=15)
//
//	except Exception:                       # in Agent.step, which the task
//	    worker.run_step.apply_async(…)      # run_step (another file) calls
//
//	new Worker("jobs", async (job) => {
//	  try { … } catch (err) { await queue.add(job.name, job.data, { delay: 5000 }); }
//	});
//
// — is a retry layer the queue's own options do not show: Celery's
// `apply_async`/`delay` (or `self.apply_async` in a bound task), RQ's
// `enqueue` of the function itself, BullMQ's `add` of the job's own name in
// its processor's catch. With no count it never stops while the error
// lasts (unbounded, critical); passing a count on (`attempt + 1`) against
// a guard (`if attempt >= 3: raise`), it is bounded by that guard. The
// task enqueued may be another function's name when that task calls the
// function the handler is in (SuperAGI's shape in round 6): the root's
// Python files are read for a task of that name calling it
// (resolveReenqueues); none, and it is no layer. Not layers: a handler
// that enqueues a different task (a cleanup, a notification), a count
// with no guard this function shows, a processor that adds another job.

var (
	pyEnqueueSelf  = regexp.MustCompile(`\b([A-Za-z_][\w.]*)\s*\.\s*(?:apply_async|delay)\s*\(|\.enqueue\s*\(\s*([A-Za-z_][\w.]*)\s*[,)]`)
	pyTaskDecoLine = regexp.MustCompile(`^[ \t]*@[\w.]*(?:task|shared_task|job)\b`)
	pyDefName      = regexp.MustCompile(`^[ \t]*(?:async\s+)?def\s+(\w+)\s*\(`)
	pyTaskDefHead  = regexp.MustCompile(`^def\s+(\w+)\s*\(`)
	jsAddSelf      = regexp.MustCompile(`\.add\s*\(\s*([A-Za-z_$][\w$]*)\s*\.\s*name\b`)
)

// pyDefAround is the def whose block holds the line at at (indented ind):
// its offset and name.
func pyDefAround(code []byte, at, ind int) (defAt int, name string, ok bool) {
	pyEachHeader(code, max(0, at-maxReaskFuncBytes), at, ind, func(start int, line []byte) bool {
		if m := pyDefName.FindSubmatch(line); m != nil {
			defAt, name, ok = start, string(m[1]), true
		}
		return ok
	})
	return defAt, name, ok
}

// pyIsTask: the def at defAt is decorated as a task (@app.task,
// @shared_task, @celery.task(bind=True), @job).
func pyIsTask(code []byte, defAt int) bool {
	for end, n := defAt, 0; end > 0 && n < 8; n++ {
		start := lineStartBefore(code, end-1)
		line := code[start:end]
		end = start
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] != '@' && t[0] != ')' && !bytes.HasSuffix(t, []byte(",")) && !bytes.HasSuffix(t, []byte("(")) {
			return false
		}
		if pyTaskDecoLine.Match(line) {
			return true
		}
	}
	return false
}

const reenqueueNote = "a task that enqueues itself again from its own error handler: read it to confirm what limits it"

// pyReenqueues finds the Python tasks enqueued again from their own except.
func pyReenqueues(f *file) []Layer {
	if !f.contains("except") || !f.contains("apply_async") && !f.contains(".delay(") && !f.contains("enqueue(") {
		return nil
	}
	code := f.blanked()
	hs, _ := f.handlers()
	var out []Layer
	// The module's `name = other` bindings, read once (only when a handler
	// needs them), the last binding of a name in force.
	var mod map[string]string
	// The names the file binds an apply_async or delay to, read once: a
	// handler is read for a call of one only when its body names one.
	aliasReads := 0
	var bound [][]byte
	boundRead := false
	callsBound := func(body []byte) bool {
		if !boundRead {
			boundRead = true
			for _, d := range pyMethodAliasBind.FindAllSubmatch(code, maxCandidates) {
				bound = append(bound, append(append([]byte(nil), d[1]...), '(')) // a copy: d[1] is a slice of code
			}
		}
		for _, n := range bound {
			if bytes.Contains(body, n) {
				return true
			}
		}
		return false
	}
	modAliases := func() map[string]string {
		if mod == nil {
			mod = map[string]string{}
			for _, d := range pyNameAlias.FindAllSubmatch(code, 4*maxCandidates) {
				if len(d[1]) == 0 { // column 0: module level
					mod[string(d[2])] = string(d[3])
				}
			}
		}
		return mod
	}
	for _, h := range hs {
		if len(out) >= maxCandidates {
			break
		}
		bodyAt := h.end - len(h.body)
		m := pyEnqueueSelf.FindSubmatchIndex(h.body)
		// A handler with no enqueue written out is read for a call of a
		// bound apply_async/delay only in a file that binds one, and at
		// most maxCandidates times: a file of thousands of handlers costs
		// no def walk each.
		if m == nil && (aliasReads >= maxCandidates || !callsBound(h.body)) {
			continue
		}
		defAt, fnName, ok := pyDefAround(code, h.at, h.indent)
		if !ok {
			continue
		}
		di := defAt + lineIndent(code, defAt)
		fn := code[defAt:min(len(code), pyBlockEndWithin(code, di, di, maxReaskFuncBytes))]
		var aliasCall []int // resend(…) where resend = summarize.apply_async
		if m == nil {
			aliasReads++
			if aliasCall = pyMethodAliasCall(h.body, fn, modAliases(), fnName); aliasCall == nil {
				continue
			}
		}
		target := fnName
		switch {
		case aliasCall != nil:
		case m[2] >= 0:
			target = string(h.body[m[2]:m[3]])
		default:
			target = string(h.body[m[4]:m[5]])
		}
		// again = digest; again.apply_async(…): a name bound to the task
		// itself, in the function or at module level, is the task (R6-3).
		if !strings.Contains(target, ".") && target != fnName && target != "self" {
			if v := pyAliasOf(target, fn, modAliases()); v == fnName || v == "self" {
				target = v
			}
		}
		task := lastSegment(target)
		if target == "self" {
			task = fnName // a bound task's self.apply_async
		}
		// Where the call is, its arguments, the def's block and params.
		var at, open int
		if aliasCall != nil {
			at, open = bodyAt+aliasCall[0], bodyAt+aliasCall[1]-1
		} else {
			at, open = bodyAt+m[0], bodyAt+m[1]-1
			if m[2] < 0 {
				open = at + bytes.IndexByte(code[at:], '(')
			}
		}
		a, b := args(code, open)
		po := bytes.IndexByte(fn, '(')
		pa, pb := args(code, defAt+po)
		l, ok := reenqueueLayer(f, at, task, code[a:b], fn, code[pa:pb], "python")
		if !ok {
			continue
		}
		// Another task's name, or this one's name reached through a module
		// (`tasks.summarize.delay(…)` in a view also called summarize):
		// a layer only if that task, in some file of the root, calls this
		// function (resolveReenqueues). A bare name (summarize.delay in
		// def summarize, q.enqueue(process) in def process) is itself.
		if task != fnName || strings.Contains(target, ".") && target != "self" && !pyIsTask(code, defAt) {
			l.reenqueueTask, l.reenqueueFrom = task, fnName
		}
		out = append(out, l)
	}
	return out
}

// pyNameAlias: a line binding a name to another name or attribute
// (again = digest, resend = summarize.apply_async), its indent in group 1.
var pyMethodAliasBind = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*[A-Za-z_][\w.]*\.(?:apply_async|delay)[ \t]*$`)

var pyNameAlias = regexp.MustCompile(`(?m)^([ \t]*)([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_][\w.]*)[ \t]*$`)

// pyAliasOf is what name is bound to in fn (its last binding there), else
// at module level; "" when neither binds it.
func pyAliasOf(name string, fn []byte, mod map[string]string) string {
	v := ""
	for _, d := range pyNameAlias.FindAllSubmatch(fn, maxCandidates) {
		if string(d[2]) == name {
			v = string(d[3])
		}
	}
	if v == "" {
		v = mod[name]
	}
	return v
}

// pyMethodAliasCall is the span, in body, of a call of a name bound to the
// task's own apply_async or delay (resend = summarize.apply_async, in fn or
// at module level) up to its opening parenthesis; nil when none.
func pyMethodAliasCall(body, fn []byte, mod map[string]string, fnName string) []int {
	binds := map[string]string{}
	for k, v := range mod {
		binds[k] = v
	}
	for _, d := range pyNameAlias.FindAllSubmatch(fn, maxCandidates) {
		binds[string(d[2])] = string(d[3])
	}
	for _, name := range slices.Sorted(maps.Keys(binds)) { // the same call each run
		recv, meth, ok := strings.Cut(binds[name], ".")
		if !ok || meth != "apply_async" && meth != "delay" {
			continue
		}
		if recv != fnName && recv != "self" && pyAliasOf(recv, fn, mod) != fnName {
			continue
		}
		if loc := regexp.MustCompile(`(?:^|[^\w.])` + regexp.QuoteMeta(name) + `\s*\(`).FindIndex(body); loc != nil {
			if body[loc[0]] != name[0] {
				loc[0]++
			}
			return loc
		}
	}
	return nil
}

// reenqueueLayer is the layer of a task enqueued again at at, its call's
// arguments args: unbounded with no count, else bounded by the count's
// guard in fn.
func reenqueueLayer(f *file, at int, task string, args, fn, params []byte, group string) (Layer, bool) {
	setting := task + " enqueued again from its own error handler"
	var l Layer
	if m := passedCount.FindSubmatch(args); m != nil {
		var ok bool
		if l, ok = countedRepeat(f, at, m, fn, params, setting, group, reenqueueNote); !ok {
			return Layer{}, false
		}
	} else {
		if countsRetries(fn) || bytes.Contains(fn, []byte("request.retries")) {
			return Layer{}, false // counted elsewhere: bounded by a guard not read here
		}
		l = handRolled(f.rel, f.lines().at(at), 0, "", group, reenqueueNote)
		l.setUnbounded(setting + " (no count)")
	}
	l.Kind, l.Library = KindQueue, "task enqueued again (hand-rolled)"
	return l, true
}

// jsReenqueues finds BullMQ processors that add their own job again from
// their catch: `.add(job.name, …)` where job is the processor's parameter.
func jsReenqueues(f *file) []Layer {
	if !f.contains("catch") || !f.contains(".add(") || !f.contains("Worker") {
		return nil
	}
	code := f.blanked()
	cs, _ := f.catches()
	var out []Layer
	for _, c := range cs {
		if len(out) >= maxCandidates {
			break
		}
		body := code[c.bodyA:c.bodyB]
		m := jsAddSelf.FindSubmatchIndex(body)
		if m == nil {
			continue
		}
		job := string(body[m[2]:m[3]])
		// The processor: the nearest `new Worker(` before the catch whose
		// arguments hold it, its function taking job as its parameter.
		w := bytes.LastIndex(code[max(0, c.at-maxReaskFuncBytes):c.at], []byte("new Worker"))
		if w < 0 {
			continue
		}
		w += max(0, c.at-maxReaskFuncBytes)
		op := bytes.IndexByte(code[w:], '(')
		if op < 0 {
			continue
		}
		a, b := args(code, w+op)
		if b < c.bodyB || !regexp.MustCompile(`\(\s*`+regexp.QuoteMeta(job)+`\s*(?::\s*[\w<>, ]+)?\)\s*=>|\bfunction\s*\w*\s*\(\s*`+regexp.QuoteMeta(job)+`\b|\basync\s+`+regexp.QuoteMeta(job)+`\s*=>`).Match(code[a:b]) {
			continue
		}
		at := c.bodyA + m[0]
		ca, cb := args(code, at+bytes.IndexByte(code[at:], '('))
		if l, ok := reenqueueLayer(f, at, job+".name", code[ca:cb], code[a:b], nil, "javascript"); ok {
			out = append(out, l)
		}
	}
	return out
}

// resolveReenqueues keeps a task enqueued again under another task's name
// only when that task, in one of the root's Python files, is a task whose
// body calls the function the handler is in; the rest are dropped. Files
// are read once, and only when such a layer exists.
func (s *rootScan) resolveReenqueues(src []pendingFile) {
	want := map[string]bool{}
	for _, l := range s.layers {
		if l.reenqueueTask != "" {
			want[l.reenqueueTask] = true
		}
	}
	if len(want) == 0 {
		return
	}
	calls := map[string]map[string]bool{} // task → functions its body calls, for the tasks wanted
	parsed := 0
	for _, p := range src {
		if parsed >= maxConfigFiles {
			break // a tree of thousands of files defining the name: the first files, in walk order
		}
		if p.kind != fkPython {
			continue
		}
		b, err := read(p.abs, s.opt.MaxFileBytes)
		if err != nil || isBinary(b) {
			continue
		}
		var named []string
		for t := range want {
			if bytes.Contains(b, []byte("def "+t)) {
				named = append(named, t)
			}
		}
		if len(named) == 0 {
			continue
		}
		parsed++
		code := blank(b, pySyntax)
		for _, m := range scanAt(code, "def", pyTaskDefHead, 200) {
			name := string(code[m[2]:m[3]])
			if !want[name] || !pyIsTask(code, lineStartBefore(code, m[0])) {
				continue
			}
			// The body after the head: the def's own name is no call of it.
			_, pe := args(code, m[1]-1)
			ba := min(pe+1, len(code))
			body := code[ba:max(ba, min(len(code), pyBlockEndWithin(code, m[0], m[1], maxReaskFuncBytes)))]
			if calls[name] == nil {
				calls[name] = map[string]bool{}
			}
			for _, c := range calleeRe.FindAllSubmatch(body, 256) {
				calls[name][lastSegment(string(bytes.Join(bytes.Fields(c[1]), nil)))] = true
			}
		}
	}
	kept := s.layers[:0]
	for _, l := range s.layers {
		if l.reenqueueTask != "" {
			if !calls[l.reenqueueTask][l.reenqueueFrom] {
				continue
			}
			l.Setting += " (the task " + l.reenqueueTask + " calls " + l.reenqueueFrom + ")"
			l.reenqueueTask, l.reenqueueFrom = "", ""
		}
		kept = append(kept, l)
	}
	s.layers = kept
}
