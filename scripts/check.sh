#!/usr/bin/env bash
# Sets up and runs the whole test suite: dependencies, Debian's chromium (when root), the bundle, typecheck, tap.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
# Tools only the tests use, from Debian: pdftoppm (PDF checks), haproxy (the fleet's router, test/fleet) and jq
# (the docs' shell examples pick fields out of answers with it; test/integration/doc-examples.test.ts runs them).
if [ "$(id -u)" = "0" ]; then
  test_tools=()
  command -v pdftoppm >/dev/null || test_tools+=(poppler-utils)
  [ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null || test_tools+=(haproxy)
  command -v jq >/dev/null || test_tools+=(jq)
  if [ ${#test_tools[@]} -gt 0 ]; then
    # With no package lists yet (a fresh machine whose Chromium was already there), fetch them once and retry.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${test_tools[@]}" >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${test_tools[@]}" >/dev/null; } || true
  fi
fi
npm ci --no-audit --no-fund
npm run --silent build
npm run --silent build:client
npx tsc -p .

# The daemon must run on every supported Node, not only the machine's. So the parts that differ between Nodes
# (the HTTP server the daemon picks, MCP, the live view, CDP sessions and the clients that drive them, the CLI)
# run a second time on Node 24, from npm's node-linux-<arch> package like every other dependency. It goes into
# .cache/ (never node_modules/.bin, where it would shadow the machine's node for every npm script). A machine
# already on Node 24 or later needs no second pass.
OTHER_NODE_MAJOR=24
OTHER_NODE_FILES=(test/on-node-http/*.test.ts test/integration/server/send-stream-node.test.ts
  test/integration/cdp-clients.test.ts test/integration/mcp-conformance.test.ts
  test/integration/mcp-toolsets.test.ts test/integration/client-package.test.ts test/cli/cli.test.ts)
other_node=""
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt "$OTHER_NODE_MAJOR" ]; then
  pkg="node-linux-$(node -p process.arch)@$OTHER_NODE_MAJOR"
  npm install --no-save --no-audit --no-fund --prefix .cache/node-$OTHER_NODE_MAJOR "$pkg" >/dev/null
  other_node="$PWD/.cache/node-$OTHER_NODE_MAJOR/node_modules/node-linux-$(node -p process.arch)/bin"
  echo "Node $("$other_node/node" -v) for the second pass, from $pkg."
fi

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
    unshare -n bash -c "$netns_setup && $(declare -p other_node OTHER_NODE_MAJOR OTHER_NODE_FILES; declare -f both_passes) && both_passes"
  else
    echo "Note: running the tests in the host's network (a private namespace needs root, unshare and ip from iproute2)."
    both_passes
  fi
}
# The whole suite on the machine's Node, then (when there is one) the second pass on the other Node. Both run
# to the end; the status is the first failure's.
both_passes() {
  npx tap
  local first=$?
  if [ -n "$other_node" ]; then
    echo "Second pass on Node $OTHER_NODE_MAJOR: ${OTHER_NODE_FILES[*]}"
    BROWSERD_TEST_NODE_MAJOR=$OTHER_NODE_MAJOR PATH="$other_node:$PATH" node node_modules/.bin/tap "${OTHER_NODE_FILES[@]}"
    local second=$?
    [ "$first" = 0 ] && first=$second
  fi
  return "$first"
}
log=$(mktemp)
set +e
run_suite 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# tap closes each pass with "# { total: N, pass: P, fail: F }"; say their sum plainly too.
summary=$(grep -E '^# \{ total: [0-9]+' "$log")
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
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary" | awk '{ n += $1 } END { print n + 0 }')
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary" | awk '{ n += $1 } END { print n + 0 }')
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$status"
