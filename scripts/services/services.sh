#!/usr/bin/env bash
# npm run services [-- --stop] [-- NAME...]: provisions (cached under $BATON_CACHE_DIR) and starts the
# real engines on 127.0.0.1; --stop stops only what these scripts started.
# NAMES: redis dapr cassandra elasticsearch s3proxy helm buildah conductor (default: these, what the tests use);
# postgres and restate (the bench's peers), cassandra-cluster and kubernetes only when named.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=all
source "$here/lib.sh"

action=start
names=()
for arg in "$@"; do
  case "$arg" in
    --stop) action=stop ;;
    --provision-only) action=provision ;;
    -*) die "unknown option $arg" ;;
    *) names+=("$arg") ;;
  esac
done
((${#names[@]})) || names=(redis dapr helm buildah cassandra elasticsearch s3proxy conductor)

started=$SECONDS
for name in "${names[@]}"; do
  [[ -f "$here/$name.sh" ]] || die "unknown service $name"
  t=$SECONDS
  case "$action" in
    start) bash "$here/$name.sh" provision && bash "$here/$name.sh" start ;;
    provision) bash "$here/$name.sh" provision ;;
    stop) bash "$here/$name.sh" stop ;;
  esac
  log "$name: $action done in $((SECONDS - t)) s"
done
log "all: $action done in $((SECONDS - started)) s; state in $BATON_RUN_DIR"
