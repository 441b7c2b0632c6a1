#!/usr/bin/env bash
# Installs Debian's chromium, the browser the dashboard tests (test/e2e, chromedp) drive, when it
# is missing, and prints the path of the binary.
#
# TCS_CHROMIUM set by the user wins when it names an executable: nothing is installed.
set -euo pipefail

log() { echo "hack/chromium: $*" >&2; }

if [[ -n "${TCS_CHROMIUM:-}" && -x "${TCS_CHROMIUM}" ]]; then
  echo "$TCS_CHROMIUM"
  exit 0
fi
find_chromium() {
  local b
  for b in chromium chromium-browser; do
    if command -v "$b" 2>/dev/null; then return 0; fi
  done
  return 1
}
if find_chromium; then
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    log "chromium is not on PATH and installing it needs root (or sudo)"
    exit 1
  fi
  SUDO=(sudo)
fi

# Serialize concurrent runs (make -j).
exec 9>"${TMPDIR:-/tmp}/tcs-chromium-install.lock"
log "waiting for the install lock"
flock 9
if find_chromium; then
  exit 0
fi

log "installing chromium with apt-get"
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
if ! find_chromium; then
  log "apt-get installed chromium but it is not on PATH"
  exit 1
fi
