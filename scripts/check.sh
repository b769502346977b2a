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

# The suite talks only to loopback. When we can (root, unshare and ip present), it runs in a private network
# namespace so that holds by construction: loopback up, plus a veth pair that leads nowhere (an address from
# TEST-NET-1, which nothing routes) so WebRTC sees an interface to gather on. Dependencies are installed
# above, outside it, because npm ci needs the registry.
netns_setup='ip link set lo up &&
  ip link add veth0 type veth peer name veth1 &&
  ip link set veth0 up && ip link set veth1 up &&
  ip addr add 192.0.2.1/30 dev veth0'
run_suite() {
  if [ "$(id -u)" = "0" ] && command -v unshare >/dev/null && command -v ip >/dev/null \
    && unshare -n sh -c "$netns_setup" 2>/dev/null; then
    echo "Running the tests in a private network namespace (loopback and a veth pair to nowhere)."
    unshare -n bash -c "$netns_setup && exec npx tap"
  else
    echo "Note: running the tests in the host's network (a private namespace needs root, unshare and ip from iproute2)."
    npx tap
  fi
}
log=$(mktemp)
set +e
run_suite 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# tap closes with "# { total: N, pass: P, fail: F }"; say it plainly too.
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -n 1)
# A long run's failures scroll far out of sight; repeat each one here, under the file it came from, with the
# diagnostic lines tap printed beneath it, so the end of the log alone says what broke.
failures=$(awk '
  /^# Subtest: test\// { file = $3 }
  # A top-level line speaks for the whole run (a file that failed, or a timeout naming the file that expired).
  /^not ok / && !/# (TODO|SKIP|todo|skip)/ { print "run: " $0; n = 12; next }
  /^ +not ok / && !/# (TODO|SKIP|todo|skip)/ { print "in " file ": " $0; n = 12; next }
  n > 0 { print "    " $0; n-- }
' "$log" | head -n 200)
if [ -n "$failures" ]; then
  echo
  echo "Failures:"
  echo "$failures"
fi
rm -f "$log"
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$status"
