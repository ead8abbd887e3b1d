#!/usr/bin/env bash
# Installs what the lab's apps need (docs/lab.md): the npm packages pinned by
# package-lock.json (npm ci), and from Debian redis-server and the Python
# app's packages. Fails, never skips, when something cannot be installed.
set -euo pipefail
cd "$(dirname "$0")"
command -v node >/dev/null && command -v npm >/dev/null || { echo "lab: node and npm are needed (Debian: apt-get install nodejs npm)" >&2; exit 1; }
need=()
command -v redis-server >/dev/null || need+=(redis-server)
for m in httpx tenacity structlog; do
	/usr/bin/python3 -c "import $m" 2>/dev/null || need+=("python3-$m")
done
if ((${#need[@]})); then
	test "$(id -u)" = 0 || { echo "lab: missing ${need[*]}: run as root or apt-get install -y ${need[*]}" >&2; exit 1; }
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
npm ci --no-audit --no-fund --loglevel=error
