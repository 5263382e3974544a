#!/usr/bin/env bash
# Restate's server binary for the bench's Restate peer, from the npm package the Restate project
# publishes it in (@restatedev/restate-server-<os>-<arch>, ~210 MB, so it is not a devDependency that
# every `npm ci` would fetch). Nothing runs here: the bench starts its own restate-server from what
# `start` records (RESTATE_SERVER_BIN); the service it calls is written with @restatedev/restate-sdk.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=restate
source "$here/lib.sh"

RESTATE_VERSION=1.7.12
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64) platform=linux-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  *) die "no restate-server package for $(uname -s)-$(uname -m)" ;;
esac
dir="$BATON_CACHE_DIR/restate-$RESTATE_VERSION"
bin="$dir/restate-server"

case "${1:-}" in
  provision)
    [[ -x "$bin" ]] && exit 0
    need_cmd npm npm
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    log "fetching @restatedev/restate-server-$platform@$RESTATE_VERSION from the npm registry"
    (cd "$work" && npm pack --silent "@restatedev/restate-server-$platform@$RESTATE_VERSION" >/dev/null) ||
      die "npm pack @restatedev/restate-server-$platform@$RESTATE_VERSION failed"
    tar -xzf "$work"/restatedev-restate-server-"$platform"-"$RESTATE_VERSION".tgz -C "$work" package/bin/restate-server
    mkdir -p "$dir"
    install -m 0755 "$work/package/bin/restate-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
    ;;
  start)
    [[ -x "$bin" ]] || die "not provisioned: run scripts/services/restate.sh provision"
    write_env restate "RESTATE_SERVER_BIN=$bin" "RESTATE_VERSION=$RESTATE_VERSION"
    ;;
  stop) rm -f "$BATON_RUN_DIR/restate.env" ;;
  *) die "usage: restate.sh provision|start|stop" ;;
esac
