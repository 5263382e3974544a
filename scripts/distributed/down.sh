#!/usr/bin/env bash
# Stops what scripts/distributed/up.sh started (Baton replicas first, then their daprd, the scheduler,
# placement and redis-server: TERM, then KILL after a grace period), drops the run's Cassandra keyspace,
# deletes its Elasticsearch indices and templates by name, and fails if anything of the run is left.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROBE=(node "$ROOT/scripts/distributed/cluster-probe.js")
RUN_DIR="${BATON_RUN_DIR:-${BATON_CACHE_DIR:-$HOME/.cache/baton}/run}"
STATE="${BATON_DISTRIBUTED_DIR:-${BATON_CACHE_DIR:-$HOME/.cache/baton}/distributed}"

log() { printf '[distributed] %s\n' "$*" >&2; }

if [[ ! -d "$STATE" ]]; then log "nothing runs (no $STATE)"; exit 0; fi
for service in cassandra elasticsearch; do
  if [[ -f "$RUN_DIR/$service.env" ]]; then set -a; source "$RUN_DIR/$service.env"; set +a; fi
done

# stop_pid FILE GRACE: TERM, then KILL after GRACE seconds; only pids this run recorded.
stop_pid() {
  local file="$1" grace="$2" pid
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + grace))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

# Reverse start order: replicas before their sidecars, sidecars before placement and the scheduler.
shopt -s nullglob
pids=("$STATE"/pids/*.pid)
for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
  case "$(basename "${pids[$i]}")" in
    4-baton-*) stop_pid "${pids[$i]}" 40 ;;
    *) stop_pid "${pids[$i]}" 20 ;;
  esac
done

if [[ -f "$STATE/cluster.env" ]]; then
  set -a; source "$STATE/cluster.env"; set +a
  # drop-data fails, saying what is left, when the keyspace or an index survives its retries.
  "${PROBE[@]}" drop-data "$BATON_DISTRIBUTED_KEYSPACE" "$BATON_DISTRIBUTED_INDEX_PREFIX"
  log "dropped keyspace $BATON_DISTRIBUTED_KEYSPACE and indices $BATON_DISTRIBUTED_INDEX_PREFIX*"
fi
# Only what up.sh created: the directory may be one the user named.
rm -rf "$STATE/pids" "$STATE/logs" "$STATE/etcd"
rm -f "$STATE/cluster.env"
rmdir "$STATE" 2>/dev/null || true
log "stopped"
