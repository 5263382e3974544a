#!/usr/bin/env bash
# Redis from Debian. Tests start their own redis-server on a free port; this only provisions the binary.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=redis
source "$here/lib.sh"

case "${1:-}" in
  provision) need_cmd redis-server redis-server ;;
  start) write_env redis "BATON_REDIS_SERVER_BIN=$(command -v redis-server)" ;;
  stop) rm -f "$BATON_RUN_DIR/redis.env" ;;
  *) die "usage: redis.sh provision|start|stop" ;;
esac
