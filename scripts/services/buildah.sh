#!/usr/bin/env bash
# buildah from Debian: builds images from the repository's Dockerfile without a Docker daemon
# (test/real/dockerfile-context.test.ts, and the local cluster's images). Nothing runs.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=buildah
source "$here/lib.sh"

case "${1:-}" in
  provision) need_cmd buildah buildah ;;
  start) write_env buildah "BATON_BUILDAH_BIN=$(command -v buildah)" ;;
  stop) rm -f "$BATON_RUN_DIR/buildah.env" ;;
  *) die "usage: buildah.sh provision|start|stop" ;;
esac
