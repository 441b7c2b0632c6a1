#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kubectl) from the Go module
# proxy once per version, caches it where setup-envtest keeps its binaries, and links
# it into bin/k8s/. Prints the directory that holds the three binaries.
#
# KUBEBUILDER_ASSETS set by the user wins: when it holds the binaries nothing is built.
set -euo pipefail

ETCD_VERSION="${ETCD_VERSION:-3.5.35}"
K8S_VERSION="${K8S_VERSION:-1.37.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARCH="$(go env GOOS)-$(go env GOARCH)"
DATA_HOME="${XDG_DATA_HOME:-$HOME/.local/share}"
CACHE="${ENVTEST_CACHE_DIR:-$DATA_HOME/kubebuilder-envtest/k8s/${K8S_VERSION}-${ARCH}}"
LINK="$ROOT/bin/k8s/${K8S_VERSION}-${ARCH}"
BINARIES=(etcd kube-apiserver kubectl)

log() { echo "hack/envtest: $*" >&2; }

complete() {
  local dir="$1" b
  for b in "${BINARIES[@]}"; do [[ -x "$dir/$b" ]] || return 1; done
}

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]] && complete "$KUBEBUILDER_ASSETS"; then
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

link() {
  mkdir -p "$(dirname "$LINK")"
  ln -sfn "$CACHE" "$LINK.tmp" && mv -Tf "$LINK.tmp" "$LINK"
  echo "$LINK"
}

if complete "$CACHE"; then link; exit 0; fi

mkdir -p "$CACHE"
exec 9>"$CACHE.lock"
log "waiting for the build lock $CACHE.lock"
flock 9
if complete "$CACHE"; then link; exit 0; fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tcs-envtest.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0

if [[ ! -x "$CACHE/etcd" ]]; then
  log "building etcd v${ETCD_VERSION} (about 2 minutes the first time)"
  mkdir -p "$WORK/etcd"
  cd "$WORK/etcd"
  go mod init tcs.dev/envtest-etcd >/dev/null 2>&1
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >tools.go
  go get "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}" >/dev/null
  go mod tidy >/dev/null
  go build -trimpath -o "$CACHE/etcd.tmp" go.etcd.io/etcd/server/v3
  mv -f "$CACHE/etcd.tmp" "$CACHE/etcd"
fi

if [[ ! -x "$CACHE/kube-apiserver" || ! -x "$CACHE/kubectl" ]]; then
  log "building kube-apiserver and kubectl v${K8S_VERSION} (about 10 minutes and 3 GB of memory the first time)"
  mkdir -p "$WORK/k8s"
  cd "$WORK/k8s"
  go mod init tcs.dev/envtest-k8s >/dev/null 2>&1
  go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" >"$WORK/k8s.json"
  KMOD="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p' "$WORK/k8s.json")"
  [[ -f "$KMOD" ]] || { log "cannot find the go.mod of k8s.io/kubernetes@v${K8S_VERSION}"; exit 1; }
  STAGING_VERSION="v0.${K8S_VERSION#1.}"
  {
    echo "require k8s.io/kubernetes v${K8S_VERSION}"
    # Every staging module k8s.io/kubernetes replaces with ./staging/... comes from the proxy instead.
    grep -E '^[[:space:]]*k8s.io/[^ ]+ => ./staging/' "$KMOD" |
      awk -v v="$STAGING_VERSION" '{print "replace " $1 " => " $1 " " v}'
  } >>go.mod
  printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/cmd/kubectl"\n)\n' >tools.go
  go mod tidy >/dev/null
  VPKG=k8s.io/component-base/version
  MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
  LDFLAGS="-s -w -X $VPKG.gitVersion=v${K8S_VERSION} -X $VPKG.gitMajor=1 -X $VPKG.gitMinor=${MINOR}"
  go build -trimpath -ldflags "$LDFLAGS" -o "$CACHE/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv -f "$CACHE/kube-apiserver.tmp" "$CACHE/kube-apiserver"
  go build -trimpath -ldflags "$LDFLAGS" -o "$CACHE/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl
  mv -f "$CACHE/kubectl.tmp" "$CACHE/kubectl"
fi

complete "$CACHE" || { log "build finished without all of ${BINARIES[*]} in $CACHE"; exit 1; }
link
