#!/usr/bin/env bash
# Debian's chromium is the only browser browserd uses; nothing downloads a browser of its own. The filter lists
# block_ads reads (EasyList, EasyPrivacy) come the same way, from Debian's webext-ublock-origin-chromium, so a
# system upgrade updates them and nothing downloads a list.
set -euo pipefail
chrome="${BROWSERD_CHROME:-/usr/bin/chromium}"
lists_pkg=webext-ublock-origin-chromium
# Where Debian's package puts the list (a test of this script points it elsewhere).
lists="${BROWSERD_LISTS_PROBE:-/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt}"

missing=()
[ -x "$chrome" ] || missing+=(chromium poppler-utils)
[ -f "$lists" ] || missing+=("$lists_pkg")
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

if [ "$(id -u)" = "0" ]; then
  # Chromium is required: failing to install it stops the start. The filter lists are optional: failing to
  # fetch them (no network, no package source) is said and the start goes on without block_ads.
  apt-get update -qq || echo "apt-get update failed; trying the package lists already on this machine." >&2
  if [ ! -x "$chrome" ]; then
    echo "Installing from Debian: chromium poppler-utils (poppler-utils is used by the PDF tests)..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium poppler-utils >/dev/null
  fi
  if [ ! -f "$lists" ]; then
    echo "Installing from Debian: $lists_pkg (the ad-blocking filter lists; optional)..."
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$lists_pkg" >/dev/null; then
      echo "Could not install $lists_pkg: browserd runs without it, and block_ads says it is unavailable and why." >&2
    fi
  fi
  exit 0
fi
if [ ! -f "$lists" ]; then
  # Not fatal: the daemon runs without it, and block_ads says it is unavailable and why.
  echo "The ad-blocking filter lists are missing ($lists). Ask an admin to run: sudo apt-get install $lists_pkg   (block_ads stays unavailable until then)" >&2
fi
if [ ! -x "$chrome" ]; then
  echo "Chromium is missing at $chrome. Ask an admin to run: sudo apt-get install chromium   (or set BROWSERD_CHROME)" >&2
  exit 1
fi
