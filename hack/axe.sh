#!/usr/bin/env bash
# Downloads (once per version and machine) axe-core, the accessibility checker the browser tests
# (test/e2e) inject into every dashboard page, from the npm registry: the pinned tarball, its
# integrity checked against the registry's sha512. Caches axe.min.js under bin/ and prints its
# path.
#
# TCS_AXE set by the user wins when it names a readable file: nothing is downloaded.
set -euo pipefail

VERSION="${AXE_VERSION:-4.14.1}"
# The dist.integrity of axe-core@$VERSION in the registry; change it with the version.
INTEGRITY="${AXE_INTEGRITY:-sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
TARGET="$BIN/axe-core-${VERSION}.min.js"

log() { echo "hack/axe: $*" >&2; }

if [[ -n "${TCS_AXE:-}" && -r "${TCS_AXE}" ]]; then
  echo "$TCS_AXE"
  exit 0
fi
if [[ -s "$TARGET" ]]; then
  echo "$TARGET"
  exit 0
fi
mkdir -p "$BIN"
exec 9>"$TARGET.lock"
flock 9
if [[ -s "$TARGET" ]]; then
  echo "$TARGET"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-axe.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
URL="https://registry.npmjs.org/axe-core/-/axe-core-${VERSION}.tgz"
log "downloading $URL"
curl -fsSL --retry 3 -o "$WORK/axe.tgz" "$URL"
want="${INTEGRITY#sha512-}"
got="$(openssl dgst -sha512 -binary "$WORK/axe.tgz" | base64 -w0)"
if [[ "$got" != "$want" ]]; then
  log "the tarball's sha512 is $got, not the pinned $want: refusing it"
  exit 1
fi
tar -xzf "$WORK/axe.tgz" -C "$WORK" package/axe.min.js
mv -f "$WORK/package/axe.min.js" "$TARGET.tmp"
mv -f "$TARGET.tmp" "$TARGET"
echo "$TARGET"
