package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burnrate-dev/burnrate/alerts"
	"github.com/burnrate-dev/burnrate/internal/testutil"
)

// claudeProjects writes a projects directory of Claude Code transcripts in
// the real shape: one file per session, each response written once per
// content block, costs set by the output tokens of claude-opus-4-6 ($25
// per million). It returns the sessions over $5.
func claudeProjects(t *testing.T, dir string, costs map[string]float64) []string {
	t.Helper()
	var over []string
	for id, usd := range costs {
		proj := filepath.Join(dir, "-home-dev-"+id[:4])
		os.MkdirAll(proj, 0o755)
		var b strings.Builder
		tokens := int64(usd / 25 * 1e6)
		for i := 0; tokens > 0; i++ {
			n := min(tokens, 30_000)
			tokens -= n
			for block := range 2 { // text, then tool_use: one response
				rec := map[string]any{"type": "assistant", "sessionId": id, "cwd": "/home/dev/" + id[:4], "uuid": fmt.Sprintf("%s-%d-%d", id, i, block),
					"timestamp": time.Date(2026, 3, 10, 1, i, block, 0, time.UTC).Format(time.RFC3339Nano), "requestId": fmt.Sprintf("req_%s_%d", id, i),
					"message": map[string]any{"id": fmt.Sprintf("msg_%s_%d", id, i), "model": "claude-opus-4-6",
						"usage": map[string]any{"input_tokens": 0, "output_tokens": n, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}
				line, _ := json.Marshal(rec)
				b.Write(line)
				b.WriteByte('\n')
			}
		}
		testutil.WriteFile(t, filepath.Join(proj, id+".jsonl"), b.String())
		if usd > 5 {
			over = append(over, id)
		}
	}
	slices.Sort(over)
	return over
}

// TestReplayKillsClaudeSessionsOverTheirCeiling: replay --headless
// --job-ceiling 5 --kill-exec on a projects directory kills exactly the
// sessions over $5, once each.
func TestReplayKillsClaudeSessionsOverTheirCeiling(t *testing.T) {
	dir := t.TempDir()
	over := claudeProjects(t, dir, map[string]float64{
		"11111111-aaaa-4aaa-8aaa-000000000001": 1, "22222222-bbbb-4bbb-8bbb-000000000002": 3.2,
		"33333333-cccc-4ccc-8ccc-000000000003": 6, "44444444-dddd-4ddd-8ddd-000000000004": 4.5,
		"55555555-eeee-4eee-8eee-000000000005": 12.4, "66666666-ffff-4fff-8fff-000000000006": 7.75,
	})
	killed := filepath.Join(t.TempDir(), "killed")
	hook := filepath.Join(t.TempDir(), "kill.sh")
	testutil.WriteFile(t, hook, "#!/bin/sh\necho \"$1\" >> "+killed+"\n")
	os.Chmod(hook, 0o755)
	if _, err := run(t, "replay", "--headless", "--speed", "max", "--job-ceiling", "5", "--kill-exec", hook+" {job_id}",
		"--journal", filepath.Join(t.TempDir(), "j.jsonl"), dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(killed)
	got := strings.Fields(string(b))
	slices.Sort(got)
	if !slices.Equal(got, over) {
		t.Errorf("killed %v, want exactly %v once each", got, over)
	}
}

// TestClaudeKillSessionScript: the contrib kill recipe stops the claude
// process of one session, and only it.
func TestClaudeKillSessionScript(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("the recipe reads /proc")
	}
	target, other := "0b6f1c52-7c1e-4c55-9a53-2f9e6f2d1a01", "9d2e4a10-3b7f-4e21-8c6d-5a1b2c3d4e5f"
	fake := func(id string) *exec.Cmd {
		// A process that looks like a headless Claude Code run of id.
		// argv as Claude Code's own: argv[0] "claude", then its flags.
		c := &exec.Cmd{Path: "/bin/sh", Args: []string{"claude", "-c", "sleep 60; :", "claude", "-p", "--session-id", id}}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	victim, bystander := fake(target), fake(other)
	time.Sleep(100 * time.Millisecond)
	out, err := exec.Command("../../contrib/claude-kill-session", target).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	done := make(chan error, 1)
	go func() { done <- victim.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("the session's process is still running: %s", out)
	}
	if err := bystander.Process.Signal(syscallZero()); err != nil {
		t.Errorf("another session's process was stopped: %v", err)
	}
	for _, bad := range []string{"--all", "-9", "../x", "a;b", ""} {
		if err := exec.Command("../../contrib/claude-kill-session", bad).Run(); err == nil {
			t.Errorf("the recipe accepted %q", bad)
		}
	}
}

func syscallZero() os.Signal { return syscall.Signal(0) }

// killRecipeHarness runs inside a PID namespace of its own (unshare), so
// the recipe sees only these processes. It starts the session's two
// Claude Code processes (one named by --session-id and deaf to SIGTERM,
// one writing the transcript), a third that exits on SIGTERM and whose PID
// is then given to an unrelated process (ns_last_pid), and the decoys:
// "burnrate claude" holding the transcript, tail -f of it, and sessions
// whose IDs share all but the last characters. It prints "NAME alive" or
// "NAME dead" for each after the recipe ran.
const killRecipeHarness = `set -u
id=$1; other=$2; recipe=$3; dir=$4
t="$dir/$id.jsonl"; : > "$t"
state() { s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -d' ' -f1); [ -n "$s" ] && [ "$s" != Z ] && echo alive || echo dead; }
(exec -a claude sh -c 'trap "" TERM; while :; do sleep 1; done' claude -p --session-id "$id") & deaf=$!
(exec -a claude sh -c 'exec 3>>"$0"; while :; do sleep 1; done' "$t") & writer=$!
(exec -a claude sh -c 'while :; do sleep 1; done' claude --resume "$id") & reused=$!
(exec -a burnrate sh -c 'exec 3<"$0"; while :; do sleep 1; done' "$t" claude --session-id "$id") & decoy_burnrate=$!
tail -f "$t" > /dev/null & decoy_tail=$!
(exec -a claude sh -c 'while :; do sleep 1; done' claude -p --session-id "$other") & decoy_prefix=$!
(exec -a claude sh -c 'while :; do sleep 1; done' claude -p "--session-id=${id}0") & decoy_longer=$!
(exec -a claude sh -c 'while :; do sleep 1; done' claude -p "summarise
--session-id=$id") & decoy_newline=$!
mkdir -p "$dir/npm/bin"; printf 'while :; do sleep 1; done\n' > "$dir/npm/cli.js"; ln -s ../cli.js "$dir/npm/bin/claude"
(exec -a node sh "$dir/npm/bin/claude" --session-id "$id") & npm=$!
# Every process has exec'd (a loaded machine took longer than 0.3 s, and
# a process still a subshell was not the recipe's to find).
for p in $deaf $writer $reused $npm; do
  for try in $(seq 100); do tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q -- '--session-id\|--resume\|jsonl\|claude ' && break; sleep 0.05; done
done
sleep 0.3
CLAUDE_KILL_GRACE=3 "$recipe" "$id" > "$dir/recipe.out" 2>&1 & r=$!
# The third process exits on SIGTERM; its PID goes to an unrelated one.
wait "$reused" 2>/dev/null
stranger=""
for try in $(seq 50); do
  echo $((reused - 1)) > /proc/sys/kernel/ns_last_pid
  (exec -a unrelated sh -c 'while :; do sleep 1; done') & s=$!
  if [ "$s" = "$reused" ]; then stranger=$s; break; fi
  kill -9 "$s"; wait "$s" 2>/dev/null
done
wait "$r"; echo "recipe exit $?"
cat "$dir/recipe.out"
echo "deaf $(state $deaf)"; echo "writer $(state $writer)"
[ -n "$stranger" ] && echo "stranger-on-reused-pid $(state $stranger)" || echo "stranger-on-reused-pid not-placed"
echo "decoy_burnrate $(state $decoy_burnrate)"; echo "decoy_tail $(state $decoy_tail)"
echo "decoy_prefix $(state $decoy_prefix)"; echo "decoy_longer $(state $decoy_longer)"
echo "decoy_newline $(state $decoy_newline)"; echo "npm $(state $npm)"
kill -9 $(jobs -p) 2>/dev/null
# A plain "claude" names no session on its command line and writes its
# transcript by opening and closing it: the one Claude Code process in the
# transcript's project is the session's; two there are ambiguous (exit 3);
# a transcript still written with no process is exit 3; an old one, 0.
export HOME="$dir/home"
p1="$dir/work/app.one"; p2="$dir/work/app-two"; mkdir -p "$p1" "$p2"
enc() { printf '%s' "$1" | tr -c 'A-Za-z0-9' '-'; }
s1=11111111-1111-4111-8111-111111111111; s2=22222222-2222-4222-8222-222222222222
s3=33333333-3333-4333-8333-333333333333; s4=44444444-4444-4444-8444-444444444444
mkdir -p "$HOME/.claude/projects/$(enc "$p1")" "$HOME/.claude/projects/$(enc "$p2")"
: > "$HOME/.claude/projects/$(enc "$p1")/$s1.jsonl"; : > "$HOME/.claude/projects/$(enc "$p2")/$s2.jsonl"
: > "$HOME/.claude/projects/$(enc "$p2")/$s3.jsonl"; : > "$HOME/.claude/projects/$(enc "$p2")/$s4.jsonl"
touch -d '10 minutes ago' "$HOME/.claude/projects/$(enc "$p2")/$s4.jsonl"
(cd "$p1" && exec -a claude sh -c 'while :; do sleep 1; done') & plain=$!
(cd "$p2" && exec -a claude sh -c 'while :; do sleep 1; done') & twin_a=$!
(cd "$p2" && exec -a claude sh -c 'while :; do sleep 1; done') & twin_b=$!
sleep 0.3
CLAUDE_KILL_GRACE=2 "$recipe" "$s1" > /dev/null 2>&1; echo "plain-exit $?"
CLAUDE_KILL_GRACE=2 "$recipe" "$s2" > /dev/null 2>&1; echo "ambiguous-exit $?"
echo "plain $(state $plain)"; echo "twin_a $(state $twin_a)"; echo "twin_b $(state $twin_b)"
kill -9 $twin_a $twin_b 2>/dev/null; wait $twin_a $twin_b 2>/dev/null
CLAUDE_KILL_GRACE=2 "$recipe" "$s3" > /dev/null 2>&1; echo "fresh-no-process-exit $?"
CLAUDE_KILL_GRACE=2 "$recipe" "$s4" > /dev/null 2>&1; echo "old-no-process-exit $?"
# A session that ended (its transcript 10 minutes old) while the one plain
# claude in its project works on another: not that claude's session (a
# kill sent again after a restart killed it). A live transcript with a
# newer one beside it is ambiguous.
p3="$dir/work/app3"; mkdir -p "$p3" "$HOME/.claude/projects/$(enc "$p3")"
s5=55555555-5555-4555-8555-555555555555; s6=66666666-6666-4666-8666-666666666666
: > "$HOME/.claude/projects/$(enc "$p3")/$s5.jsonl"; touch -d '10 minutes ago' "$HOME/.claude/projects/$(enc "$p3")/$s5.jsonl"
: > "$HOME/.claude/projects/$(enc "$p3")/$s6.jsonl"
(cd "$p3" && exec -a claude sh -c 'while :; do sleep 1; done') & bystander=$!
sleep 0.3
CLAUDE_KILL_GRACE=2 "$recipe" "$s5" > /dev/null 2>&1; echo "ended-session-exit $?"
touch -d '+1 hour' "$HOME/.claude/projects/$(enc "$p3")/$s5.jsonl"
CLAUDE_KILL_GRACE=2 "$recipe" "$s5" > /dev/null 2>&1; echo "future-mtime-exit $?"
touch -d '30 seconds ago' "$HOME/.claude/projects/$(enc "$p3")/$s5.jsonl"
CLAUDE_KILL_GRACE=2 "$recipe" "$s5" > /dev/null 2>&1; echo "newer-beside-exit $?"
echo "bystander $(state $bystander)"
kill -9 $(jobs -p) 2>/dev/null
exit 0
`

// TestKillRecipeKillsOnlyTheSession: issue 29 — the recipe took any process
// whose command line held "claude" and that had the transcript open: it
// killed "burnrate claude" itself (a restart loop under systemd) and tail
// -f; a short session ID matched other sessions' command lines; and it
// SIGKILLed PIDs it picked without checking they were still the same
// processes. In a PID namespace of its own, it now stops exactly the
// session's Claude Code processes.
func TestKillRecipeKillsOnlyTheSession(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("a PID namespace needs root here (unshare -p); CI runs as root")
	}
	id := "0b6f1c52-7c1e-4c55-9a53-2f9e6f2d1a01"
	other := id[:len(id)-1] + "2" // shares every character but the last
	recipe, _ := filepath.Abs("../../contrib/claude-kill-session")
	dir := t.TempDir()
	harness := filepath.Join(dir, "harness.sh")
	testutil.WriteFile(t, harness, killRecipeHarness)
	out, err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "bash", harness, id, other, recipe, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			got[f[0]] = f[1]
		}
	}
	got["recipe"] = "" // "recipe exit N" is three fields: checked below
	for name, want := range map[string]string{"deaf": "dead", "writer": "dead", "stranger-on-reused-pid": "alive",
		"decoy_burnrate": "alive", "decoy_tail": "alive", "decoy_prefix": "alive", "decoy_longer": "alive",
		"decoy_newline": "alive", "npm": "dead", "plain": "dead", "twin_a": "alive", "twin_b": "alive",
		"plain-exit": "0", "ambiguous-exit": "3", "fresh-no-process-exit": "3", "old-no-process-exit": "0",
		"ended-session-exit": "0", "future-mtime-exit": "3", "newer-beside-exit": "3", "bystander": "alive"} {
		if got[name] != want {
			t.Errorf("%s: %s, want %s", name, got[name], want)
		}
	}
	if !strings.Contains(string(out), "recipe exit 0") {
		t.Errorf("the recipe failed:\n%s", out)
	}
	t.Logf("%s", out)
	for _, short := range []string{"e", "0b6f1c52", id[:len(id)-1], id + "0", "--all"} {
		if err := exec.Command(recipe, short).Run(); err == nil {
			t.Errorf("the recipe accepted %q as a session ID", short)
		}
	}
	// And burnrate refuses to run a session kill for anything else.
	tmpl, _ := alerts.ParseExec(recipe+" {job_id}", time.Second)
	tmpl.SessionIDs = true
	if _, err := tmpl.Argv(alerts.Alert{JobID: "e", Scope: "job", Rule: alerts.RuleJobCeiling}); err == nil || !errors.Is(err, alerts.ErrRefused) {
		t.Errorf("burnrate ran a session kill for %q: %v", "e", err)
	}
	if _, err := tmpl.Argv(alerts.Alert{JobID: id, Scope: "job", Rule: alerts.RuleJobCeiling}); err != nil {
		t.Errorf("a real session ID was refused: %v", err)
	}
}
