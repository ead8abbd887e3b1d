package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

const seed000Log = "../../sample-logs/seed000-incident.jsonl"

// auditStack writes `burnrate audit --format toml code` to a file.
func auditStack(t *testing.T, code string) string {
	t.Helper()
	out, _ := run(t, "audit", "--format", "toml", code)
	if !strings.Contains(out, "[[layer]]") {
		t.Fatalf("audit %s wrote no stack:\n%s", code, out)
	}
	path := filepath.Join(t.TempDir(), "stack.toml")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func declaredReport(t *testing.T, args ...string) (*correlate.Report, error) {
	t.Helper()
	out, err := run(t, append([]string{"report", "--format", "json"}, args...)...)
	var r correlate.Report
	if jerr := json.Unmarshal([]byte(out), &r); jerr != nil {
		t.Fatalf("report %v: %v (%v)\n%.500s", args, jerr, err, out)
	}
	return &r, err
}

func finding(r *correlate.Report, kind string) *correlate.FindingReport {
	for i := range r.Findings {
		if r.Findings[i].Kind == kind {
			return &r.Findings[i]
		}
	}
	return nil
}

// TestReportStackSeed000: seed 000's log against the stack of seed 000's
// code agrees (declared 63, observed 63: no finding); against the stack of
// the fixed code (4) it shows the unexplained layers, the known ones named
// where the code sets them — by --stack and by --audit alike.
func TestReportStackSeed000(t *testing.T) {
	for _, c := range []struct {
		code     string
		declared int
		above    bool
	}{{"../../audit/testdata/seed000", 63, false}, {"../../audit/testdata/seed000-fixed", 4, true}} {
		for _, how := range [][]string{{"--stack", auditStack(t, c.code)}, {"--audit", c.code}} {
			r, err := declaredReport(t, append(how, seed000Log)...)
			if !errors.Is(err, errCritical) {
				t.Fatalf("%v: seed 000's duplicates are critical whatever the stack: %v", how, err)
			}
			dv := r.DeclaredVsObserved
			if dv == nil || dv.DeclaredAttempts == nil || *dv.DeclaredAttempts != c.declared || dv.Above != c.above {
				t.Fatalf("%v: %+v", how, dv)
			}
			if o := dv.Observed; o.PerOperation.Max != 63 || o.PerOperation.P99 != 63 || o.PerJob.Max != 63 || o.Jobs != 22 || len(dv.JobTypes) != 1 || dv.JobTypes[0].JobType != "report" {
				t.Errorf("%v: observed %+v", how, o)
			}
			if dv.Layers[0].Library != "BullMQ" || !strings.HasPrefix(dv.Layers[0].Source, "src/enqueue.ts:") {
				t.Errorf("%v: layers %+v", how, dv.Layers)
			}
			f := finding(r, "undeclared_retry_layer")
			if (f != nil) != c.above {
				t.Fatalf("%v: undeclared_retry_layer %+v, want %v", how, f, c.above)
			}
			if f == nil {
				continue
			}
			for _, want := range []string{"observed 63 calls for one operation", "declared 4 (BullMQ at src/enqueue.ts:10: 4; Anthropic TypeScript SDK at src/llm.ts:4: 1)", "×15.8 unexplained"} {
				if !strings.Contains(f.Example, want) {
					t.Errorf("%v: %q lacks %q", how, f.Example, want)
				}
			}
			if f.Severity != correlate.SeverityCritical || f.JobsTotal != 22 || dv.Observed.OverDeclared != 22 {
				t.Errorf("%v: %+v", how, f)
			}
		}
	}
	// After the fix, the fixed code's stack holds: nothing above it, exit 0.
	r, err := declaredReport(t, "--stack", auditStack(t, "../../audit/testdata/seed000-fixed"), "../../sample-logs/seed000-after-fix.jsonl")
	if err != nil || r.DeclaredVsObserved.Above || r.DeclaredVsObserved.Observed.PerOperation.Max != 3 || len(r.Findings) != 0 {
		t.Errorf("after the fix: %v %+v %+v", err, r.DeclaredVsObserved, r.Findings)
	}
}

func TestReportStackMarkdown(t *testing.T) {
	out, _ := run(t, "report", "--stack", auditStack(t, "../../audit/testdata/seed000-fixed"), seed000Log)
	for _, want := range []string{"## Declared vs observed", "| 0 | BullMQ (bullmq) | src/enqueue.ts:10 | 4 |",
		"| all | 22 | 63 / 63 | 63 / 63 | report:sess-4107 (7×3×3) | 22 |", "**Observed above declared**", "### undeclared_retry_layer — critical"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	// Without either flag, no section: the report is as before.
	out, _ = run(t, "report", seed000Log)
	if strings.Contains(out, "Declared vs observed") || strings.Contains(out, "undeclared_retry_layer") {
		t.Error("a report without --stack or --audit has no declared stack")
	}
}

// TestReportStackFileHostile: a stack file is input like any other — a
// missing, empty, oversized or special file, a hostile layer, and flags
// that cannot go together are each a usage error that names the file and
// says what to do.
func TestReportStackFileHostile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var many strings.Builder
	for range 100 {
		many.WriteString("[[layer]]\nname = \"x\"\nattempts = 2\n")
	}
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	for range 100_000 { // 1e6 layers would be 20 MB: refused by size first
		fmt.Fprint(f, "[[layer]]\nname = \"x\"\nattempts = 2\n")
	}
	f.Close()
	ok := write("ok.toml", "[[layer]]\nname = \"sdk\"\nattempts = 3\n")
	link := filepath.Join(dir, "link.toml")
	os.Symlink(ok, link)
	devLink := filepath.Join(dir, "zero.toml")
	os.Symlink("/dev/zero", devLink)
	fifo := filepath.Join(dir, "fifo.toml") // opening it must not wait for a writer
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stack", filepath.Join(dir, "missing.toml")}, "missing.toml: open"},
		{[]string{"--stack", "/dev/zero"}, "not a regular file"},
		{[]string{"--stack", devLink}, "not a regular file"},
		{[]string{"--stack", fifo}, "not a regular file"},
		{[]string{"--stack", dir}, "not a regular file"},
		{[]string{"--stack", huge}, "over the 1048576"},
		{[]string{"--stack", write("many.toml", many.String())}, "100 layers, more than the 64"},
		{[]string{"--stack", write("empty.toml", "")}, "no [[layer]] tables"},
		{[]string{"--stack", write("bad.toml", "[[layer]\nname=")}, "bad.toml"},
		{[]string{"--stack", write("key.toml", "[[layer]]\nname = \"x\"\nattempts = 2\nretries = 3\n")}, "unknown key layer.retries"},
		{[]string{"--stack", write("zero-attempts.toml", "[[layer]]\nname = \"x\"\nattempts = 0\n")}, "attempts 0: use 1..1000"},
		{[]string{"--stack", write("over.toml", "[[layer]]\nname = \"x\"\nattempts = 99999999999999\n")}, "use 1..1000"},
		{[]string{"--stack", write("wrap.toml", "[[layer]]\nname = \"x\"\nattempts = 99999999999999999999999\n")}, "wrap.toml"},
		{[]string{"--stack", write("noname.toml", "[[layer]]\nattempts = 2\n")}, "has no name"},
		{[]string{"--stack", write("to.toml", "[[layer]]\nname = \"x\"\nattempts = 2\ntimeout = \"soon\"\n")}, "invalid duration"},
		{[]string{"--stack", ok, "--audit", "../../audit/testdata/seed000"}, "give one"},
		{[]string{"--stack", ok, "--merge", "a.json", "b.json"}, "--merge reads replicas' reports"},
		{[]string{"--audit", "../../audit/testdata/seed000", "--merge", "a.json", "b.json"}, "--merge reads replicas' reports"},
		{[]string{"--audit", filepath.Join(dir, "no-such-tree")}, "--audit"},
	} {
		_, err := run(t, append(append([]string{"report"}, c.args...), seed000Log)...)
		if err == nil || errors.Is(err, errCritical) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	// A symlink to a regular file is followed, as for a config file.
	if r, _ := declaredReport(t, "--stack", link, seed000Log); r.DeclaredVsObserved == nil || !r.DeclaredVsObserved.Above {
		t.Errorf("a symlink to a stack file: %+v", r.DeclaredVsObserved)
	}
	// A hostile name and source reach the Markdown inert.
	evil := write("evil.toml", "[[layer]]\nname = \"x\\u001b]0;pwned\\u0007\"\nsource = \"a.ts:1\\u001b[2J\"\nlibrary = \"| cell |\"\nattempts = 2\n")
	out, _ := run(t, "report", "--stack", evil, seed000Log)
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "## Declared vs observed") {
		t.Errorf("a hostile layer reached the report raw:\n%q", out)
	}
	if strings.Contains(out, "| | cell |") {
		t.Error("a layer's library broke the table")
	}
	// budget --file reads through the same bounded reader.
	if _, err := run(t, "budget", "layers", "--file", "/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("budget layers --file /dev/zero: %v", err)
	}
}

// TestReportAuditWithoutLayers: an audit that finds no layer declares
// nothing (a wrong PATH must not read as a hidden layer): no section, no
// finding, a note on stderr.
func TestReportAuditWithoutLayers(t *testing.T) {
	r, err := declaredReport(t, "--audit", "../../audit/testdata/none", "../../sample-logs/seed000-after-fix.jsonl")
	if err != nil || r.DeclaredVsObserved != nil || finding(r, "undeclared_retry_layer") != nil {
		t.Errorf("%v %+v", err, r.DeclaredVsObserved)
	}
}

// TestReportStackExitCodes runs the real binary: a bad stack file is exit
// 2 with the file named on stderr; an operation above the stack is exit 1.
func TestReportStackExitCodes(t *testing.T) {
	bin := burnrate(t)
	dir := t.TempDir()
	stack := filepath.Join(dir, "stack.toml")
	if err := os.WriteFile(stack, []byte("[[layer]]\nname = \"queue\"\nattempts = 4\n\n[[layer]]\nname = \"sdk\"\nattempts = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Abs("../../sample-logs/seed000-after-fix.jsonl")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{[]string{"report", "--stack", filepath.Join(dir, "nope.toml"), after}, 2, "nope.toml", ""},
		{[]string{"report", "--stack", "/dev/zero", after}, 2, "--stack /dev/zero is a character device, not a regular file", ""},
		{[]string{"report", "--stack", stack, after}, 0, "", "Observed within the declared worst case (4)"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(stderr.String(), c.stderr) || !strings.Contains(stdout.String(), c.stdout) {
			t.Errorf("%v: exit %d (want %d)\nstderr: %s\nstdout: %.300s", c.args, code, c.code, stderr.String(), stdout.String())
		}
	}
	// The incident against the fixed stack: exit 1, and it is the new
	// finding that says why (with duplicates off, it is the only critical).
	cfg := filepath.Join(dir, "burnrate.toml")
	os.WriteFile(cfg, []byte("[findings]\nduplicate_completion = \"off\"\n"), 0o600)
	incident, _ := filepath.Abs(seed000Log)
	plain := exec.Command(bin, "report", "--config", cfg, incident)
	plain.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if out, err := plain.Output(); err != nil {
		t.Fatalf("without --stack and duplicates off, seed 000 has no critical finding: %v\n%.400s", err, out)
	}
	cmd := exec.Command(bin, "report", "--config", cfg, "--stack", stack, incident)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "undeclared_retry_layer — critical") {
		t.Errorf("incident against a 4-attempt stack: %v\n%.400s", err, out)
	}
}
