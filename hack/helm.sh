#!/usr/bin/env bash
# Installs (once per version) the Helm CLI that the chart tests of test/helm run, built from the
# Go module proxy into bin/ (git-ignored), and prints the path of the binary.
#
# TCS_HELM set by the user wins when it names an executable: nothing is built. Helm is a tool,
# like controller-gen: it is built outside the module, so go.mod neither reads nor gains it.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
TARGET="$BIN/helm-${HELM_VERSION}"

log() { echo "hack/helm: $*" >&2; }

if [[ -n "${TCS_HELM:-}" && -x "${TCS_HELM}" ]]; then
  echo "$TCS_HELM"
  exit 0
fi
if [[ -x "$TARGET" ]]; then
  echo "$TARGET"
  exit 0
fi

mkdir -p "$BIN"
exec 9>"$TARGET.lock"
log "waiting for the build lock"
flock 9
if [[ -x "$TARGET" ]]; then
  echo "$TARGET"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-helm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
log "building helm ${HELM_VERSION} (about 2 minutes the first time)"
# Build outside the module so that its go.mod is neither read nor changed.
(cd "$WORK" && GOBIN="$WORK" GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 \
  go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}")
mv -f "$WORK/helm" "$TARGET.tmp"
mv -f "$TARGET.tmp" "$TARGET"
echo "$TARGET"
