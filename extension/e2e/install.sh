#!/usr/bin/env bash
# Installs what the extension's end-to-end test needs on a Debian machine, once, into
# $E2E_CACHE (default ~/.cache/interleave-e2e): Debian's Chromium, code-server from the npm
# registry (install-code-server.sh: no download but npm and Debian), and playwright-core.
# Idempotent: a second run finds everything and returns at once.
set -euo pipefail
cd "$(dirname "$0")"
CACHE=${E2E_CACHE:-$HOME/.cache/interleave-e2e}
mkdir -p "$CACHE"
if ! command -v chromium >/dev/null 2>&1; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
if [ ! -x "$CACHE/code-server/node_modules/.bin/code-server" ]; then
	VERSION=4.100.3 PREFIX="$CACHE/code-server" bash ./install-code-server.sh
fi
if [ ! -d "$CACHE/playwright/node_modules/playwright-core" ]; then
	mkdir -p "$CACHE/playwright"
	(cd "$CACHE/playwright" && [ -f package.json ] || echo '{"name":"e2e-host","private":true}' > package.json)
	(cd "$CACHE/playwright" && npm install --no-audit --no-fund playwright-core@1.64.1)
fi
echo "e2e tools in $CACHE"
