package audit

import (
	"go/ast"
	"go/token"
	"regexp"
)

// goTriesAtOnce: a Go counted loop that tries again without sleeping —
//
//	for attempt := 1; attempt <= maxAttempts; attempt++ {
//		if out, err := ask(…); err == nil {
//			return out, nil
//		}
//	}
//
// — is a retry when its counter or its bound is named for attempts or
// retries and a try's success leaves the loop (`if err == nil { return }`)
// or its failure goes on (`if err != nil { continue }`). A loop counting
// items or pages is named for them, not for tries; a status poll is told
// apart by goPollLoop.
func goTriesAtOnce(fs *ast.ForStmt, bound string) bool {
	named := retryCounterName(bound)
	if as, ok := fs.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
		if id, ok := as.Lhs[0].(*ast.Ident); ok && retryCounterName(id.Name) {
			named = true
		}
	}
	if !named {
		return false
	}
	retries := false
	ast.Inspect(fs.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.IfStmt:
			e, op := goErrCond(s.Cond)
			switch {
			case e && op == token.EQL && goLeaves(s.Body):
				retries = true
			case e && op == token.NEQ && goContinues(s.Body):
				retries = true
			}
		}
		return !retries
	})
	return retries
}

// goContinues: the block's last statement is a continue.
func goContinues(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	bs, ok := b.List[len(b.List)-1].(*ast.BranchStmt)
	return ok && bs.Tok == token.CONTINUE
}

// goRetryableStatus: a test of a response's status against one a client
// retries — a 429, a 5xx (`>= 500`, 502, 503, 504, 529), or their
// net/http names. A loop that re-sends when it holds (or leaves when it
// does not: `if resp.StatusCode != 429 { return resp, nil }`) is a retry
// of the request, not a poll of a job's status, which compares fields of
// its own (`status.Done`).
var goRetryableStatus = regexp.MustCompile(`(?i)\bstatus(?:_?code)?\b\s*(?:==|!=|>=|>)\s*(?:429|5[0-9][0-9]|http\.Status(?:TooManyRequests|ServiceUnavailable|BadGateway|GatewayTimeout|InternalServerError))\b|\bhttp\.Status(?:TooManyRequests|ServiceUnavailable|BadGateway|GatewayTimeout)\b`)

// goRetriesOnStatus: body tests a response status against a retryable one
// (not inside a nested function or loop of its own).
func goRetriesOnStatus(g *goFile, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.IfStmt:
			if goRetryableStatus.MatchString(g.text(s.Cond)) {
				found = true
			}
		case *ast.CaseClause:
			for _, e := range s.List {
				if goRetryableStatus.MatchString("status == " + g.text(e)) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
