#!/usr/bin/env bash
# Installs (once per version and machine) mailpit, the SMTP server (with an HTTP API to read what
# it received) that the email tests run against, into a cache outside the clone (so fresh clones
# reuse it), links it into bin/, and prints the path of the link.
#
# TCS_MAILPIT set by the user wins when it names an executable: nothing is built.
set -euo pipefail

MAILPIT_VERSION="${MAILPIT_VERSION:-v1.27.11}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
TARGET="$BIN/mailpit-${MAILPIT_VERSION}"
CACHE_DIR="${TCS_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tcs}"
CACHED="$CACHE_DIR/mailpit-${MAILPIT_VERSION}"

log() { echo "hack/mailpit: $*" >&2; }

if [[ -n "${TCS_MAILPIT:-}" && -x "${TCS_MAILPIT}" ]]; then
  echo "$TCS_MAILPIT"
  exit 0
fi
if [[ -x "$TARGET" ]]; then
  echo "$TARGET"
  exit 0
fi
mkdir -p "$BIN" "$CACHE_DIR"
link() {
  ln -sfn "$CACHED" "$TARGET.tmp" && mv -Tf "$TARGET.tmp" "$TARGET"
  echo "$TARGET"
}
if [[ -x "$CACHED" ]]; then link; exit 0; fi

exec 9>"$CACHED.lock"
log "waiting for the build lock"
flock 9
if [[ -x "$CACHED" ]]; then link; exit 0; fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-mailpit.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
log "building mailpit ${MAILPIT_VERSION} (about 3 minutes the first time)"
# Build outside the module so that its go.mod is neither read nor changed.
(cd "$WORK" && GOBIN="$WORK" GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 \
  go install "github.com/axllent/mailpit@${MAILPIT_VERSION}")
mv -f "$WORK/mailpit" "$CACHED.tmp"
mv -f "$CACHED.tmp" "$CACHED"
link
