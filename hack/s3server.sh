#!/usr/bin/env bash
# Installs (once per version and machine) versitygw, the S3-compatible server that the tests
# of internal/blob run against, into a cache outside the clone (so fresh clones reuse it),
# links it into bin/, and prints the path of the link.
#
# TCS_S3SERVER set by the user wins when it names an executable: nothing is built.
set -euo pipefail

VERSITYGW_VERSION="${VERSITYGW_VERSION:-v1.8.0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
TARGET="$BIN/versitygw-${VERSITYGW_VERSION}"
CACHE_DIR="${TCS_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tcs}"
CACHED="$CACHE_DIR/versitygw-${VERSITYGW_VERSION}"

log() { echo "hack/s3server: $*" >&2; }

if [[ -n "${TCS_S3SERVER:-}" && -x "${TCS_S3SERVER}" ]]; then
  echo "$TCS_S3SERVER"
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

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-s3server.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
log "building versitygw ${VERSITYGW_VERSION} (about 2 minutes the first time)"
# Build outside the module so that its go.mod is neither read nor changed.
(cd "$WORK" && GOBIN="$WORK" GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 \
  go install "github.com/versity/versitygw/cmd/versitygw@${VERSITYGW_VERSION}")
mv -f "$WORK/versitygw" "$CACHED.tmp"
mv -f "$CACHED.tmp" "$CACHED"
link
