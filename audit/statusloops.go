package audit

import (
	"bytes"
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

// Retry loops that test a response's status code rather than catch an
// error (issue 37, round 9) —
//
//	for retry in range(retry_max):
//	    resp = client.call(model=m, input=batch)
//	    if resp.status_code == 200:
//	        break
//	    if retry < retry_max - 1:
//	        time.sleep(wait)
//	    else:
//	        raise ModelError(...)
//
// a counted loop, its counter named for retries or attempts, with no try
// (pyHandLoops reads those), that compares a status with a three-digit
// code, leaves on success and sleeps before the next pass. A poll compares
// a state ("done", "running"), not a code: not read as one.

// pyStatusCode: a status compared with an HTTP code (status_code == 200,
// resp.status >= 500, status not in [408, 429]).
var pyStatusCode = regexp.MustCompile(`\bstatus(?:_code)?\s*(?:==|!=|>=|<=|<|>|in|not\s+in)\s*[\[(]?\s*[1-5][0-9][0-9]\b`)

func pyStatusRetryLoops(f *file) []Layer {
	code := f.blanked()
	if !bytes.Contains(code, []byte("status")) {
		return nil
	}
	var out []Layer
	for _, m := range scanAt(code, "for", pyRangeLoop, 200) {
		if !atLineStart(code, m[0]) || !retryCounterName(string(code[m[2]:m[3]])) {
			continue
		}
		end := min(pyBlockEndWithin(code, m[0], m[1], maxCountedLoopBytes), len(code))
		body := code[m[1]:end]
		// It gives up somewhere (a raise on a 4xx or on the last pass): a
		// poll that waits for a 200 and never raises is a readiness wait.
		if pyTry.Match(body) || !pySleep.Match(body) || !pyStatusCode.Match(body) || !pyLeaves(body) || !pyRaise.Match(body) {
			continue
		}
		start := 0
		if m[4] >= 0 {
			start, _ = atoiBounded(string(code[m[4]:m[5]]))
		}
		offset := -start
		if m[8] >= 0 {
			offset++
		}
		if l, ok := loopLayer(f, m[0], string(code[m[6]:m[7]]), offset, strings.TrimSpace(string(code[m[0]:m[1]])), "python",
			"a loop that sends again while the response's status is not a success, sleeping between: read it to confirm it retries the call"); ok {
			if bytes.Contains(body, []byte("429")) || bytes.Contains(body, []byte("500")) {
				l.Retries4xx = false // it names the codes it tries again on, or gives up on a 4xx
			}
			out = append(out, l)
		}
	}
	return out
}

// pyIncrementsAfter: the statement after the if at `at` (whose block ends
// at end) increments name at the if's own indent, and the if lies in an
// except block — a handler that gives up once the count reaches its bound,
// else counts the failure and goes on (`if retries >= self._max_retries:
// raise` then `retries += 1`, issue 37 round 9).
func pyIncrementsAfter(f *file, at, end int, name string) bool {
	code := f.blanked()
	ind := indentAt(code, at)
	i := end
	for i < len(code) && (code[i] == '\n' || code[i] == ' ' || code[i] == '\t') {
		i++
	}
	ls := lineStartBefore(code, i)
	if i >= len(code) || i-ls != ind {
		return false
	}
	le := bytes.IndexByte(code[ls:], '\n')
	if le < 0 {
		le = len(code) - ls
	}
	line := code[ls : ls+le]
	if !pyIncrement.Match(line) || string(bytes.TrimSpace(line[:bytes.IndexByte(line, '+')])) != name {
		return false
	}
	hs, _ := f.handlers()
	for _, h := range hs {
		if h.at < at && at < h.end {
			return true
		}
	}
	return false
}

// jsTryAwaitsThenLeaves: the loop's block opens with a try that awaits a
// call and then leaves the loop (`try { await blob.save(…); break; }`,
// or `return await …`): success ends the loop, so a pass after the first
// is only ever a failure's — a retry, whatever its counter is called
// (issue 37, round 9: `for (let i = 0; i < 3; i++)` around a storage
// save). body is the loop's block in blanked code.
func jsTryAwaitsThenLeaves(body []byte) bool {
	if len(body) > maxCountedLoopBytes {
		return false
	}
	t := bytes.TrimSpace(body)
	if !bytes.HasPrefix(t, []byte("try")) {
		return false
	}
	open := bytes.IndexByte(t, '{')
	if open < 0 || len(bytes.TrimSpace(t[3:open])) > 0 {
		return false
	}
	a, b := args(t, open)
	if b <= a || b >= len(t) {
		return false
	}
	block := bytes.TrimSpace(t[a:b])
	if !bytes.Contains(block, []byte("await")) {
		return false
	}
	block = bytes.TrimSpace(bytes.TrimSuffix(block, []byte(";")))
	if bytes.HasSuffix(block, []byte("break")) {
		return true
	}
	// The last statement returns (what it awaited, or a result once the
	// awaited call is done: `await blob.save(…); log(…); return key;`).
	j := bytes.LastIndexAny(block, ";}")
	last := bytes.TrimSpace(block[j+1:])
	return bytes.HasPrefix(last, []byte("return")) && (len(last) == 6 || !isIdentByte(last[6]))
}

// goReturnedDefault: e calls a function or method of this file that takes
// nothing and ends by returning an integer literal — the default a getter
// gives when its field is unset (`func (r *Retry) maxRetries() int { if
// r.MaxRetries > 0 { return r.MaxRetries }; return 3 }`, issue 37 round
// 9): that literal, the function's name and the return's line.
func goReturnedDefault(g *goFile, e ast.Expr) (int, string, int, bool) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return 0, "", 0, false
	}
	name, method := "", false
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		name = fn.Name
	case *ast.SelectorExpr:
		name, method = fn.Sel.Name, true
	default:
		return 0, "", 0, false
	}
	for _, d := range g.ast.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Body == nil || (fd.Recv != nil) != method || fd.Type.Params.NumFields() != 0 || len(fd.Body.List) == 0 {
			continue
		}
		rs, ok := fd.Body.List[len(fd.Body.List)-1].(*ast.ReturnStmt)
		if !ok || len(rs.Results) != 1 {
			continue
		}
		if v, ok := g.literal(rs.Results[0]); ok {
			return v, name, g.line(rs), true
		}
	}
	return 0, "", 0, false
}

// goAsksRetryable: the loop's block leaves when a function named for the
// question says an error is not one to retry (`if !isRetryable(err,
// statuses) { return nil, err }`): the loop chooses what it retries, so it
// is not read as retrying a 400 (issue 37, round 9).
func goAsksRetryable(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			u, ok := s.Cond.(*ast.UnaryExpr)
			if !ok || u.Op != token.NOT {
				return true
			}
			c, ok := u.X.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			name = strings.ToLower(name)
			if !strings.Contains(name, "retryable") && !strings.Contains(name, "shouldretry") && !strings.Contains(name, "transient") {
				return true
			}
			for _, st := range s.Body.List {
				if _, ok := st.(*ast.ReturnStmt); ok {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// pySkipsByClass: a handler raises at once for the errors it names by
// class (`if e.__class__.__name__ in self._exceptions_to_skip: raise`,
// `if isinstance(e, (BadRequestError, AuthError)): raise`, `if type(e) in
// FATAL: raise`): it chooses what it retries, so it is not read as
// retrying a 400 (issue 37, round 9).
var pySkipsByClass = regexp.MustCompile(`(?m)^[ \t]*if\s[^\n]*(?:__class__|\btype\(\s*\w+\s*\)|\bisinstance\(\s*\w+\s*,)[^\n]*:[ \t]*\n[ \t]+raise\b`)

// pyHandlerSkipsByClass: the handler holding offset at skips errors by class.
func pyHandlerSkipsByClass(f *file, at int) bool {
	hs, _ := f.handlers()
	for _, h := range hs {
		if h.at < at && at < h.end {
			return pySkipsByClass.Match(h.body)
		}
	}
	return false
}

// overCollection: a loop bound that is a collection's size (items.length,
// list.size): the loop walks the items, one try each, not a count of
// tries of one call.
func overCollection(bound string) bool {
	return strings.HasSuffix(bound, ".length") || strings.HasSuffix(bound, ".size") || strings.HasSuffix(bound, ".count")
}
