#!/usr/bin/env bash
# Installs Debian's PostgreSQL server, which the tests of internal/platform/results run against, when it
# is missing, and prints the directory of its initdb and postgres binaries.
#
# TCS_POSTGRES_BIN set by the user wins when it names a directory with initdb and postgres:
# nothing is installed. The package's system service is neither enabled nor started: the tests
# initialize their own cluster in a temporary directory and start it on a free loopback port
# (as the postgres system user, which the package creates, when they run as root).
set -euo pipefail

log() { echo "hack/postgres: $*" >&2; }

# bindir prints the newest /usr/lib/postgresql/<major>/bin that has initdb and postgres.
bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -n -r); do
    if [[ -x "$d/initdb" && -x "$d/postgres" ]]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

if [[ -n "${TCS_POSTGRES_BIN:-}" && -x "${TCS_POSTGRES_BIN}/initdb" && -x "${TCS_POSTGRES_BIN}/postgres" ]]; then
  echo "$TCS_POSTGRES_BIN"
  exit 0
fi
if dir="$(bindir)"; then
  echo "$dir"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    log "PostgreSQL is not installed and installing it needs root (or sudo)"
    exit 1
  fi
  SUDO=(sudo)
fi

# Serialize concurrent runs (make -j): apt holds its own locks, but two installs would both
# run apt-get update.
exec 9>"${TMPDIR:-/tmp}/tcs-postgres-install.lock"
log "waiting for the install lock"
flock 9
if dir="$(bindir)"; then
  echo "$dir"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# policy-rc.d exit 101 keeps invoke-rc.d from starting the service during the install; it is
# removed afterwards only when this script created it.
POLICY=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e "$POLICY" ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$POLICY" >/dev/null
  "${SUDO[@]}" chmod 755 "$POLICY"
  created_policy=1
fi
cleanup() { if [[ "$created_policy" -eq 1 ]]; then "${SUDO[@]}" rm -f "$POLICY"; fi; }
trap cleanup EXIT

log "installing postgresql with apt-get"
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
# Debian's maintainer scripts enable the unit on install; undo that (systemctl disable works
# offline, without a running systemd) and stop it where systemd runs.
if command -v systemctl >/dev/null; then
  if [[ -d /run/systemd/system ]]; then
    "${SUDO[@]}" systemctl disable --now postgresql.service >/dev/null 2>&1 || true
  else
    "${SUDO[@]}" systemctl disable postgresql.service >/dev/null 2>&1 || true
  fi
fi

if ! dir="$(bindir)"; then
  log "apt-get installed postgresql but /usr/lib/postgresql/*/bin has no initdb and postgres"
  exit 1
fi
echo "$dir"
