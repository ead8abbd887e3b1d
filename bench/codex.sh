#!/usr/bin/env bash
# Codex CLI rollouts: burnrate report --codex vs @ccusage/codex on the same
# ≥100 MB sessions directory, in one run. The directory is built from the
# real rollouts in ../shared/realdata/round2/codex (each copied under a new
# session id, so none is a duplicate of another); nothing is committed.
# Needs node and npm; run from the repository root.
set -euo pipefail
MB=${MB:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=../shared/realdata/round2/codex/localpush-2026-02-23
go build -o "$work/burnrate" .
(cd "$work" && npm install --silent --no-audit --no-fund @ccusage/codex@18.0.11 >/dev/null)
n=0
while [ "$(du -sm "$work/codex" 2>/dev/null | cut -f1 || echo 0)" -lt "$MB" ]; do
  for f in "$src"/rollout-*.jsonl; do
    n=$((n + 1))
    day=$(printf '%02d' $((n % 28 + 1)))
    mkdir -p "$work/codex/sessions/2026/02/$day"
    id=$(printf '019c0000-0000-7000-8000-%012d' "$n")
    old=$(basename "$f" .jsonl | sed 's/^rollout-[0-9T-]*-//')
    sed "s/$old/$id/g" "$f" > "$work/codex/sessions/2026/02/$day/rollout-2026-02-${day}T00-00-00-$id.jsonl"
  done
done
lines=$(cat $(find "$work/codex/sessions" -name '*.jsonl') | wc -l)
bytes=$(du -sb "$work/codex/sessions" | cut -f1)
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $s" | bc; }
best() { local b=999999; for _ in 1 2 3; do local x=$(t "$@"); b=$(echo "if ($x < $b) $x else $b" | bc); done; echo "$b"; }
br=$(CODEX_HOME="$work/codex" best "$work/burnrate" report --format json --codex)
cc=$(CODEX_HOME="$work/codex" best "$work/node_modules/.bin/ccusage-codex" session --json --offline)
printf 'rollouts: %d files, %d lines, %d MB\n' "$n" "$lines" $((bytes >> 20))
printf 'burnrate report --codex: %.2f s (%.0f lines/s)\n' "$br" "$(echo "$lines / $br" | bc -l)"
printf '@ccusage/codex session --json --offline: %.2f s\n' "$cc"
printf 'burnrate is %.1fx faster\n' "$(echo "$cc / $br" | bc -l)"
