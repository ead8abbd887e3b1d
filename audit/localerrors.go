package audit

import (
	"bytes"
	"regexp"
	"strings"
)

// Retries of the local machine, not of a call: a loop or a decorator that
// tries again only when a file is locked, a path is missing or a git
// command fails sends no request again —
//
//	for attempt in range(max_retries):
//	    try:
//	        with open(path, "w") as f: f.write(content)
//	        return
//	    except PermissionError:       # Windows holds the file: wait
//	        time.sleep(delay)
//
//	@backoff.on_exception(backoff.expo, GitCommandError, max_tries=2)
//
// — so it is no layer of a call path (aider's file write and sweep's git
// review in round 5, each a false layer). Read from the errors named: every
// handler that lets the loop go on (or the decorator's exception argument)
// names only errors of the file system, of a child process or of git. An
// OSError or an Exception may be a connection's: those stay layers.

// localErrors are the exceptions that only the local machine raises.
var localErrors = map[string]bool{
	"PermissionError": true, "FileExistsError": true, "FileNotFoundError": true, "IsADirectoryError": true,
	"NotADirectoryError": true, "BlockingIOError": true, "ChildProcessError": true,
	"GitCommandError": true, "git.GitCommandError": true, "git.exc.GitCommandError": true,
	"sqlite3.OperationalError": true,
}

var pyErrorName = regexp.MustCompile(`[A-Za-z_][\w.]*`)

// namesOnlyLocalErrors: the exception expression (`PermissionError`, `(A,
// B)`, `except (A, B) as e`) names at least one error and only local ones.
func namesOnlyLocalErrors(expr []byte) bool {
	expr = bytes.TrimSpace(expr)
	if i := bytes.Index(expr, []byte(" as ")); i >= 0 {
		expr = expr[:i]
	}
	names := pyErrorName.FindAll(expr, 16)
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		if !localErrors[string(n)] {
			return false
		}
	}
	return true
}

// pyRetriesOnlyLocal: the excepts in code[a:b] that let the loop go on
// (none leaves at its own level) name only local errors, and there is one.
func pyRetriesOnlyLocal(f *file, a, b int) bool {
	code := f.blanked()
	hs, _ := f.handlers()
	goesOn := 0
	for _, h := range hs {
		if h.at < a || h.at >= b || pyHandlerExits(code, h, "") {
			continue
		}
		if !namesOnlyLocalErrors(h.clause) {
			return false
		}
		goesOn++
	}
	return goesOn > 0
}

// backoffRetriesOnlyLocal: backoff.on_exception's exception argument (its
// second) names only local errors.
func backoffRetriesOnlyLocal(args []byte) bool {
	parts := topLevelArgs(args)
	if len(parts) < 2 || strings.Contains(string(parts[1]), "=") {
		return false
	}
	return namesOnlyLocalErrors(parts[1])
}
