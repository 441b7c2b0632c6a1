#!/usr/bin/env bash
# Installs Debian's SCOWL word lists (wamerican, wamerican-huge, wbritish-huge) when missing:
# the correction engine's tests check that the lists derived from them
# (internal/text/correction/data/modern_names_near_people.txt, words_near_bible_names.txt)
# are current, and skip without them.
set -euo pipefail

log() { echo "hack/dicts: $*" >&2; }

files=(/usr/share/dict/american-english /usr/share/dict/american-english-huge /usr/share/dict/british-english-huge)
missing() {
  for f in "${files[@]}"; do
    [[ -e "$f" ]] || return 0
  done
  return 1
}
missing || exit 0

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    log "the word lists are missing and installing them needs root (or sudo)"
    exit 1
  fi
  SUDO=(sudo)
fi

# Serialize concurrent runs (make -j): two installs would both run apt-get update.
exec 9>"${TMPDIR:-/tmp}/tcs-dicts-install.lock"
flock 9
missing || exit 0
log "installing wamerican, wamerican-huge and wbritish-huge with apt-get"
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wamerican wamerican-huge wbritish-huge >&2
if missing; then
  log "apt-get installed the word lists but a file is missing: ${files[*]}"
  exit 1
fi
