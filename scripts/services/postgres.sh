#!/usr/bin/env bash
# PostgreSQL's server binaries from Debian's postgresql package, for the bench's Conductor-on-PostgreSQL
# peer. Nothing runs here: the bench creates its own cluster (initdb in a temp dir, a free 127.0.0.1
# port) from what `start` records (POSTGRES_BIN_DIR) and removes it afterwards.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=postgres
source "$here/lib.sh"

# bin_dir: the newest /usr/lib/postgresql/<major>/bin holding initdb and postgres.
bin_dir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x "$d/initdb" && -x "$d/postgres" && -x "$d/pg_isready" ]] && { printf '%s\n' "$d"; return 0; }
  done
  return 1
}

case "${1:-}" in
  provision)
    bin_dir >/dev/null && exit 0
    log "installing Debian package postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq postgresql >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; } ||
      die "Debian package postgresql could not be installed"
    bin_dir >/dev/null || die "postgresql installed but no /usr/lib/postgresql/*/bin with initdb and postgres"
    ;;
  start)
    dir="$(bin_dir)" || die "not provisioned: run scripts/services/postgres.sh provision"
    write_env postgres "POSTGRES_BIN_DIR=$dir"
    ;;
  stop) rm -f "$BATON_RUN_DIR/postgres.env" ;;
  *) die "usage: postgres.sh provision|start|stop" ;;
esac
