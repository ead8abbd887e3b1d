#!/usr/bin/env bash
# Claude Code transcripts: burnrate report vs ccusage on the same ≥100 MB
# projects directory, in one run. Needs node and npm (ccusage is installed
# into a temporary directory); run from the repository root.
set -euo pipefail
MB=${MB:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./bench/claudegen -out "$work/claude" -mb "$MB"
go build -o "$work/burnrate" .
(cd "$work" && npm install --silent --no-audit --no-fund ccusage@18.0.11 >/dev/null)
lines=$(cat $(find "$work/claude/projects" -name '*.jsonl') | wc -l)
bytes=$(du -sb "$work/claude/projects" | cut -f1)
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $s" | bc; }
best() { local b=999999; for _ in 1 2 3; do local x=$(t "$@"); b=$(echo "if ($x < $b) $x else $b" | bc); done; echo "$b"; }
br=$(CLAUDE_CONFIG_DIR="$work/claude" best "$work/burnrate" report --format json --claude --cost-mode calculate)
cc=$(CLAUDE_CONFIG_DIR="$work/claude" best "$work/node_modules/.bin/ccusage" session --json --offline --mode calculate)
printf 'transcripts: %d lines, %d MB\n' "$lines" $((bytes >> 20))
printf 'burnrate report --claude: %.2f s (%.0f lines/s)\n' "$br" "$(echo "$lines / $br" | bc -l)"
printf 'ccusage session --json --offline: %.2f s\n' "$cc"
printf 'burnrate is %.1fx faster\n' "$(echo "$cc / $br" | bc -l)"
