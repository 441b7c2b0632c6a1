#!/usr/bin/env bash
# Installs Debian's redis-server, the server that the tests of internal/platform/ratelimit run
# against, when it is not on PATH, and prints the path of the binary.
#
# TCS_REDIS_SERVER set by the user wins when it names an executable: nothing is installed.
# The package's system service is neither enabled nor started: the tests start their own
# server on a free loopback port.
set -euo pipefail

log() { echo "hack/redis: $*" >&2; }

if [[ -n "${TCS_REDIS_SERVER:-}" && -x "${TCS_REDIS_SERVER}" ]]; then
  echo "$TCS_REDIS_SERVER"
  exit 0
fi
if bin="$(command -v redis-server)"; then
  echo "$bin"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    log "redis-server is not on PATH and installing it needs root (or sudo)"
    exit 1
  fi
  SUDO=(sudo)
fi

# Serialize concurrent runs (make -j): apt holds its own locks, but two installs would
# both run apt-get update.
exec 9>"${TMPDIR:-/tmp}/tcs-redis-install.lock"
log "waiting for the install lock"
flock 9
if bin="$(command -v redis-server)"; then
  echo "$bin"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# policy-rc.d exit 101 keeps invoke-rc.d from starting the service during the install;
# it is removed afterwards only when this script created it.
POLICY=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e "$POLICY" ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$POLICY" >/dev/null
  "${SUDO[@]}" chmod 755 "$POLICY"
  created_policy=1
fi
cleanup() { if [[ "$created_policy" -eq 1 ]]; then "${SUDO[@]}" rm -f "$POLICY"; fi; }
trap cleanup EXIT

log "installing redis-server with apt-get"
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >&2
# Debian's maintainer scripts enable the unit on install; undo that (systemctl disable
# works offline, without a running systemd) and stop it where systemd runs.
if command -v systemctl >/dev/null; then
  if [[ -d /run/systemd/system ]]; then
    "${SUDO[@]}" systemctl disable --now redis-server.service >/dev/null 2>&1 || true
  else
    "${SUDO[@]}" systemctl disable redis-server.service >/dev/null 2>&1 || true
  fi
fi

if ! bin="$(command -v redis-server)"; then
  log "apt-get installed redis-server but it is not on PATH"
  exit 1
fi
echo "$bin"
