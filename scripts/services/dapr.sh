#!/usr/bin/env bash
# Dapr's daprd, placement and scheduler, built from the Go module github.com/dapr/dapr at a pinned
# version (`go install` refuses that module: its go.mod has replace directives, so we build inside
# the downloaded module). Tests start their own placement, scheduler and one daprd per app from
# these binaries; `start` only records where they are.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=dapr
source "$here/lib.sh"

DAPR_VERSION="${BATON_DAPR_VERSION:-1.18.2}"
dest="$BATON_CACHE_DIR/dapr-$DAPR_VERSION"

provision() {
  if [[ -x "$dest/bin/daprd" && -x "$dest/bin/placement" && -x "$dest/bin/scheduler" ]]; then
    log "daprd $DAPR_VERSION cached in $dest"
    return
  fi
  command -v go >/dev/null 2>&1 || die "go is missing (Debian package golang-go, or Go from go.dev): needed to build daprd"
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "downloading github.com/dapr/dapr@v$DAPR_VERSION from the Go module proxy"
  (cd "$work" && go mod init baton-dapr-build >/dev/null 2>&1 && go mod download -json "github.com/dapr/dapr@v$DAPR_VERSION" >module.json) ||
    die "go mod download github.com/dapr/dapr@v$DAPR_VERSION failed"
  local src
  src="$(node -e 'const m=require(process.argv[1]); if(m.Error){console.error(m.Error);process.exit(1)} console.log(m.Dir)' "$work/module.json")"
  log "building daprd, placement, scheduler (cold: ~15-25 min on 2 cores)"
  mkdir -p "$work/bin"
  (cd "$src" && go build -trimpath -tags stablecomponents -ldflags "-X github.com/dapr/dapr/pkg/buildinfo.version=$DAPR_VERSION" -o "$work/bin/" ./cmd/daprd ./cmd/placement ./cmd/scheduler) ||
    die "building Dapr $DAPR_VERSION failed"
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp" && mv "$work/bin" "$dest.tmp/bin" && rm -rf "$dest" && mv "$dest.tmp" "$dest"
  log "built into $dest/bin"
}

case "${1:-}" in
  provision) provision ;;
  start)
    [[ -x "$dest/bin/daprd" ]] || die "daprd $DAPR_VERSION is not built: run scripts/services/dapr.sh provision"
    write_env dapr "BATON_DAPRD_BIN=$dest/bin/daprd" "BATON_PLACEMENT_BIN=$dest/bin/placement" "BATON_SCHEDULER_BIN=$dest/bin/scheduler" "BATON_DAPR_VERSION=$DAPR_VERSION"
    ;;
  stop) rm -f "$BATON_RUN_DIR/dapr.env" ;;
  *) die "usage: dapr.sh provision|start|stop" ;;
esac
