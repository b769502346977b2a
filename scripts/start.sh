#!/usr/bin/env bash
# Sets up and runs the service: dependencies, Debian's chromium (when root), the injected bundle, then serve.
# On an empty data dir `serve` creates a first user and prints its token and the MCP URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then npm ci --omit=dev --no-audit --no-fund; fi
npm run --silent build
exec node bin/browserd.js serve "$@"
