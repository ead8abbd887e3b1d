package audit

import (
	"bytes"
	"regexp"
	"slices"
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

// Work of the local machine alone: a try whose every call reads or writes
// a file, takes a lock, or shapes text sends no request when it is tried
// again — camel's registry read and atomic write (`for attempt in
// range(max_retries): try: path.read_text()`), pi-mono's lock file
// (`for (let attempt = 1; attempt <= maxAttempts; attempt++) { try { return
// lockfile.lockSync(path) } catch …`), each a false critical in round 7.
// A name off this list (a client's method, get, post, send, a helper of
// the project's own) keeps the loop a layer: the list only removes.
var localCalls = map[string]bool{
	// files and paths
	"open": true, "close": true, "read": true, "write": true, "read_text": true, "write_text": true,
	"read_bytes": true, "write_bytes": true, "exists": true, "is_file": true, "is_dir": true, "isfile": true,
	"isdir": true, "mkdir": true, "makedirs": true, "rmdir": true, "unlink": true, "remove": true,
	"rename": true, "replace": true, "with_suffix": true, "with_name": true, "touch": true, "stat": true,
	"chmod": true, "copy": true, "copyfile": true, "copy2": true, "move": true, "rmtree": true,
	"listdir": true, "iterdir": true, "glob": true, "resolve": true, "fsync": true, "flush": true,
	"seek": true, "truncate": true, "getsize": true, "getmtime": true, "Path": true, "fileno": true,
	"readFileSync": true, "writeFileSync": true, "existsSync": true, "mkdirSync": true, "renameSync": true,
	"unlinkSync": true, "rmSync": true, "statSync": true, "openSync": true, "closeSync": true,
	"appendFileSync": true, "readFile": true, "writeFile": true, "appendFile": true, "copyFile": true,
	"rm": true, "readdir": true, "readdirSync": true, "chmodSync": true, "fsyncSync": true,
	// locks
	"lock": true, "unlock": true, "lockSync": true, "unlockSync": true, "flock": true, "lockf": true,
	// text and values
	"strip": true, "split": true, "join": true, "encode": true, "decode": true, "splitlines": true,
	"loads": true, "dumps": true, "parse": true, "stringify": true, "String": true, "Number": true,
	"str": true, "int": true, "float": true, "len": true, "dict": true, "list": true, "isinstance": true,
	"append": true, "push": true, "now": true, "time": true, "monotonic": true,
}

// doesOnlyLocalWork: code holds at least one call, and every call is of
// localCalls (by its last name: path.read_text, fs.renameSync).
func doesOnlyLocalWork(code []byte) bool {
	n := 0
	for _, m := range calleeRe.FindAllSubmatch(code, 64) {
		name := string(m[1])
		if i := strings.LastIndexAny(name, ". \t\n"); i >= 0 {
			name = name[i+1:]
		}
		if pyKeywords[name] {
			continue // if (…), while (…), return (…): not calls
		}
		if !localCalls[name] {
			return false
		}
		n++
	}
	return n > 0
}

var pyKeywords = map[string]bool{"if": true, "elif": true, "while": true, "for": true, "return": true, "and": true, "or": true, "not": true, "in": true, "with": true, "await": true, "typeof": true, "switch": true, "catch": true, "function": true, "new": true, "yield": true}

// pyTriesOnlyLocalWork: every try in code[a:b] with an except does only
// local work, and there is one.
func pyTriesOnlyLocalWork(f *file, a, b int) bool {
	code := f.blanked()
	hs, _ := f.handlers()
	n := 0
	for _, h := range hs {
		if h.at < a || h.at >= b || h.tryAt < a {
			continue
		}
		if !doesOnlyLocalWork(code[h.tryAt+len("try:") : h.at]) {
			return false
		}
		n++
	}
	return n > 0
}

// jsTriesOnlyLocalWork: every try in code[a:b] with a catch does only
// local work, and there is one.
func jsTriesOnlyLocalWork(f *file, a, b int) bool {
	code := f.blanked()
	cs, _ := f.catches()
	n := 0
	for _, c := range cs {
		if c.at < a || c.bodyB > b {
			continue
		}
		if !doesOnlyLocalWork(code[c.tryA:c.tryB]) {
			return false
		}
		n++
	}
	return n > 0
}

// Errors that are not a client's error: a loop that goes on only for
// errors of a kind that names no status — a connection lost, a context
// window exceeded and compacted before the next try — does not send a 400
// again as it was (letta's summarize-and-retry in round 7, read as
// retrying every error: a false critical). An except of Exception that
// raises unless `isinstance(e, SomeError)` goes on only for SomeError.

// broadErrors name any status, a 400 included.
var broadErrors = map[string]bool{
	"Exception": true, "BaseException": true, "APIStatusError": true, "BadRequestError": true,
	"HTTPError": true, "HTTPStatusError": true, "RequestException": true, "APIError": true,
	"ClientError": true, "ClientResponseError": true, "OSError": true, "IOError": true,
	"RuntimeError": true, "ValueError": true, "LLMError": true, "ResponseError": true,
}

var pyIsInstance = regexp.MustCompile(`\bisinstance\s*\(\s*\w+\s*,\s*(\([^()]*\)|[A-Za-z_][\w.]*)\s*\)`)

// pyGoesOnOnlyForSpecific: every except in code[a:b] that lets the loop go
// on names (or, catching everything, tests with isinstance before going
// on and raises otherwise) only errors outside broadErrors; and one does.
func pyGoesOnOnlyForSpecific(f *file, a, b int) bool {
	code := f.blanked()
	hs, _ := f.handlers()
	n := 0
	for _, h := range hs {
		if h.at < a || h.at >= b || pyHandlerExits(code, h, "") {
			continue
		}
		names := pyErrorName.FindAll(bytes.TrimSpace(cutAs(h.clause)), 16)
		if len(names) == 0 || broadErrors[lastSegment(string(names[0]))] && len(names) == 1 {
			m := pyIsInstance.FindSubmatch(h.body)
			if m == nil || !bytes.Contains(h.body, []byte("raise")) {
				return false
			}
			names = pyErrorName.FindAll(m[1], 16)
		}
		for _, nm := range names {
			if broadErrors[lastSegment(string(nm))] {
				return false
			}
		}
		n++
	}
	return n > 0
}

// cutAs is an except clause without its `as name`.
func cutAs(clause []byte) []byte {
	if i := bytes.Index(clause, []byte(" as ")); i >= 0 {
		return clause[:i]
	}
	return clause
}

// pyTriesInInnerLoops: every try in the loop headed at head (its block
// code[a:b]) sits in a loop nested inside it — `for opt_round in
// range(self.max_rounds):` around `while retry_count < max_retries: try:`
// — so the retrying loop is the inner one, not this (MetaGPT's optimizer
// rounds, a false layer in round 7); and there is a try.
func pyTriesInInnerLoops(f *file, head, a, b int) bool {
	code := f.blanked()
	hs, _ := f.handlers()
	n := 0
	for _, h := range hs {
		if h.tryAt < a || h.tryAt >= b {
			continue
		}
		if at, ok := pyLoopAround(code, h.tryAt, indentAt(code, h.tryAt)); !ok || at == head {
			return false
		}
		n++
	}
	return n > 0
}

// loopStoreModules: a file that imports one of these (a database, a
// cache) and no HTTP or LLM client retries the store, not a
// call path (letta's five deadlock retries and its session factory: false
// layers in round 7). A raw socket is not on the list: a server's file
// imports one beside its model loop (open-interpreter's async core).
var loopStoreModules = append(slices.Clone(triesStoreModules), "asyncpg", "aiosqlite", "sqlite3", "sqlmodel", "clickhouse_connect")

// pyTalksOnlyToStore: f imports a store and no API client.
func pyTalksOnlyToStore(f *file) bool {
	imps := f.pyImports()
	return importsAny(imps, loopStoreModules) && !importsAny(imps, triesAPIModules)
}
