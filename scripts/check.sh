#!/usr/bin/env bash
# Sets up and runs the whole test suite: dependencies, Debian's chromium (when root), the bundle, typecheck, tap.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
if ! command -v pdftoppm >/dev/null && [ "$(id -u)" = "0" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null || true
fi
npm ci --no-audit --no-fund
npm run --silent build
npx tsc -p .
npx tap
