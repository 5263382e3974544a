#!/usr/bin/env bash
# helm, built from its Go module (the Go module proxy is the only way in); from the dapr Go module
# its CRDs and the sidecar injector's annotation table; and our strict decoder of Kubernetes objects
# (test/support/k8s-schemas-strict), so test/real/helm-chart.test.ts can lint, render and check
# charts/baton offline. Nothing runs: `start` only records where they are.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=helm
source "$here/lib.sh"

HELM_VERSION=v3.22.0
# The Dapr release whose CRDs (Component, Configuration, Resiliency, Subscription) and pod annotations
# the chart is checked against.
DAPR_VERSION=v1.18.2
dir="$BATON_CACHE_DIR/helm-${HELM_VERSION#v}"
dapr="$BATON_CACHE_DIR/dapr-api-${DAPR_VERSION#v}"
strict_src="$(cd "$here/../../test/support/k8s-schemas-strict" && pwd)"
# Our own source, so the cache is keyed by its content (its go.mod pins the Kubernetes modules).
strict_key="$(cat "$strict_src/main.go" "$strict_src/go.mod" "$strict_src/go.sum" | sha256sum | cut -c1-12)"
strict="$BATON_CACHE_DIR/k8s-schemas-strict-$strict_key"

# module_dir MODULE@VERSION: downloads the module into Go's module cache and prints where it was unpacked.
module_dir() {
  local json dir
  json="$(go mod download -json "$1")" || die "go mod download $1 failed"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")"
  [[ -d "$dir" ]] || die "go mod download $1 named no directory"
  printf '%s\n' "$dir"
}

provision_helm() {
  [[ -x "$dir/bin/helm" ]] && return 0
  need_cmd go golang-go
  log "building helm $HELM_VERSION (go install; a few minutes cold)"
  local tmp="$dir.tmp.$$" src k8s ldflags
  src="$(module_dir "helm.sh/helm/v3@$HELM_VERSION")"
  # Stamp what helm's Makefile stamps into a release: the version, and the Kubernetes version its
  # client-go v0.N targets (1.N). Without them `helm version` says v3.22 and `helm lint`/`template`
  # assume Kubernetes 1.20, older than the chart's kubeVersion.
  k8s="$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$src/go.mod")"
  [[ -n "$k8s" ]] || die "no k8s.io/client-go version in $src/go.mod"
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in pkg/lint/rules pkg/chartutil; do
    ldflags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$k8s"
  done
  rm -rf "$tmp"
  mkdir -p "$tmp/bin"
  # CGO off: a static binary that does not depend on the C toolchain being present later.
  GOBIN="$tmp/bin" CGO_ENABLED=0 GOFLAGS=-buildvcs=false go install -trimpath -ldflags "$ldflags" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ||
    { rm -rf "$tmp"; die "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed"; }
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

# Upstream files kept in the cache only (never committed): the CRDs of Dapr's Helm chart and the
# injector's SidecarConfig, whose struct tags name every dapr.io/* pod annotation and its Go type.
provision_dapr_api() {
  [[ -f "$dapr/injector/sidecar.go" ]] && return 0
  need_cmd go golang-go
  local src tmp="$dapr.tmp.$$"
  src="$(module_dir "github.com/dapr/dapr@$DAPR_VERSION")"
  [[ -d "$src/charts/dapr/crds" && -f "$src/pkg/injector/patcher/sidecar.go" ]] ||
    die "the dapr module at '$src' has no charts/dapr/crds or pkg/injector/patcher/sidecar.go"
  rm -rf "$tmp"
  mkdir -p "$tmp/crds" "$tmp/injector"
  cp "$src"/charts/dapr/crds/*.yaml "$tmp/crds/"
  cp "$src/pkg/injector/patcher/sidecar.go" "$tmp/injector/"
  chmod -R u+w "$tmp" # the module cache is read-only
  rm -rf "$dapr"
  mv "$tmp" "$dapr"
}

provision_strict_decoder() {
  [[ -x "$strict/bin/k8s-schemas-strict" ]] && return 0
  need_cmd go golang-go
  log "building the strict Kubernetes decoder (k8s.io/api, once per source change)"
  local tmp="$strict.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/bin"
  (cd "$strict_src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -o "$tmp/bin/k8s-schemas-strict" .) ||
    { rm -rf "$tmp"; die "building $strict_src failed"; }
  mv "$tmp" "$strict"
}

case "${1:-}" in
  provision)
    provision_helm
    provision_dapr_api
    provision_strict_decoder
    ;;
  start)
    [[ -x "$dir/bin/helm" && -f "$dapr/injector/sidecar.go" && -x "$strict/bin/k8s-schemas-strict" ]] ||
      die "not provisioned: run scripts/services/helm.sh provision"
    "$dir/bin/helm" version --short >/dev/null || die "$dir/bin/helm does not run"
    write_env helm "BATON_HELM_BIN=$dir/bin/helm" "BATON_DAPR_CRDS_DIR=$dapr/crds" \
      "BATON_DAPR_SIDECAR_GO=$dapr/injector/sidecar.go" "BATON_K8S_STRICT_BIN=$strict/bin/k8s-schemas-strict"
    ;;
  stop) rm -f "$BATON_RUN_DIR/helm.env" ;;
  *) die "usage: helm.sh provision|start|stop" ;;
esac
