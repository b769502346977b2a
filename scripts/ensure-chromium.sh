#!/usr/bin/env bash
# Debian's chromium is the only browser browserd uses; nothing downloads a browser of its own.
set -euo pipefail
chrome="${BROWSERD_CHROME:-/usr/bin/chromium}"
if [ -x "$chrome" ]; then exit 0; fi
if [ "$(id -u)" = "0" ]; then
  echo "Installing Debian's chromium (and poppler-utils, used by the PDF tests)..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium poppler-utils >/dev/null
else
  echo "Chromium is missing at $chrome. Ask an admin to run: sudo apt-get install chromium   (or set BROWSERD_CHROME)" >&2
  exit 1
fi
