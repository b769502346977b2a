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
log=$(mktemp)
set +e
npx tap 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# tap closes with "# { total: N, pass: P, fail: F }"; say it plainly too.
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -n 1)
rm -f "$log"
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$status"
