#!/usr/bin/env bash
# Installs (once per version and machine) a Go program from the Go module proxy into a cache
# outside the clone (so fresh clones reuse it), links it into bin/, and prints the path of the
# link:
#
#   hack/gotool.sh NAME VERSION PACKAGE [OVERRIDE]
#
# NAME is the binary go install makes of PACKAGE@VERSION; OVERRIDE, when it names an
# executable, wins and nothing is built (the TCS_… variable of the calling script).
set -euo pipefail

NAME="$1" VERSION="$2" PACKAGE="$3" OVERRIDE="${4:-}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
TARGET="$BIN/${NAME}-${VERSION}"
CACHE_DIR="${TCS_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tcs}"
CACHED="$CACHE_DIR/${NAME}-${VERSION}"

log() { echo "hack/gotool: $NAME: $*" >&2; }

if [[ -n "$OVERRIDE" && -x "$OVERRIDE" ]]; then
  echo "$OVERRIDE"
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

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-${NAME}.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
log "building ${PACKAGE}@${VERSION} (a few minutes the first time)"
# Build outside the module so that its go.mod is neither read nor changed.
(cd "$WORK" && GOBIN="$WORK" GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 \
  go install "${PACKAGE}@${VERSION}")
mv -f "$WORK/$NAME" "$CACHED.tmp"
mv -f "$CACHED.tmp" "$CACHED"
link
