#!/usr/bin/env bash
# The distributed profile on one machine: one redis-server, one placement, one scheduler and N Baton
# replicas each beside its own daprd, every one on a free 127.0.0.1 port, with the Cassandra and
# Elasticsearch that `npm run services` started (a keyspace and index prefix of this run's own).
# Returns once every replica serves and its daprd hosts WorkflowActor; scripts/distributed/down.sh stops it.
#   BATON_DISTRIBUTED_REPLICAS (2)  BATON_DISTRIBUTED_DIR (~/.cache/baton/distributed: pids, logs, cluster.env)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROBE=(node "$ROOT/scripts/distributed/cluster-probe.js")
RUN_DIR="${BATON_RUN_DIR:-${BATON_CACHE_DIR:-$HOME/.cache/baton}/run}"
STATE="${BATON_DISTRIBUTED_DIR:-${BATON_CACHE_DIR:-$HOME/.cache/baton}/distributed}"
REPLICAS="${BATON_DISTRIBUTED_REPLICAS:-2}"

log() { printf '[distributed] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ "$REPLICAS" =~ ^[1-9][0-9]?$ ]] || die "BATON_DISTRIBUTED_REPLICAS must be 1-99, not '$REPLICAS'"
[[ -e "$STATE/cluster.env" ]] && die "a cluster already runs (state in $STATE); stop it first: npm run distributed:stop"

# The engines and binaries `npm run services` recorded.
for service in cassandra elasticsearch dapr; do
  [[ -f "$RUN_DIR/$service.env" ]] || die "$RUN_DIR/$service.env is missing: run 'npm run services' first"
  set -a; source "$RUN_DIR/$service.env"; set +a
done
if [[ -f "$RUN_DIR/redis.env" ]]; then set -a; source "$RUN_DIR/redis.env"; set +a; fi
REDIS_BIN="${BATON_REDIS_SERVER_BIN:-redis-server}"
command -v "$REDIS_BIN" >/dev/null || die "redis-server is missing (Debian: apt-get install redis-server)"

# The server only: the console (npm run build) is served when it was built, and is not needed to try the profile.
log "building the server (incremental)"
(cd "$ROOT" && npm run build:server --silent)

mkdir -p "$STATE/pids" "$STATE/logs"
# Anything that fails from here on is undone, processes and data.
trap 'log "start failed; tearing down (logs were in $STATE/logs)"; tail -n 20 "$STATE"/logs/*.log >&2 || true; bash "$ROOT/scripts/distributed/down.sh" >&2 || true' ERR

RUN="$(node -e 'process.stdout.write(require("crypto").randomBytes(4).toString("hex"))')"
secret() { node -e 'process.stdout.write(require("crypto").randomBytes(16).toString("hex"))'; }
KEYSPACE="baton_dist_$RUN"
INDEX_PREFIX="baton-dist-$RUN"
APP_TOKEN="$(secret)"
DAPR_TOKEN="$(secret)"
ADMIN_KEY_SECRET="$(secret)"
# Written first, so down.sh finds the run's keyspace and prefix even when the start fails halfway.
cat >"$STATE/cluster.env" <<ENV
BATON_DISTRIBUTED_KEYSPACE=$KEYSPACE
BATON_DISTRIBUTED_INDEX_PREFIX=$INDEX_PREFIX
BATON_ADMIN_KEY_ID=admin
BATON_ADMIN_KEY_SECRET=$ADMIN_KEY_SECRET
ENV

# start NAME CMD...: in a session of its own (it outlives this shell), output to logs/NAME.log, pid in pids/NAME.pid.
start() {
  local name="$1"; shift
  setsid "$@" >"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/$name.pid"
}

read -r REDIS_PORT PLACEMENT_PORT RAFT_PORT PLACEMENT_HEALTH SCHEDULER_PORT ETCD_CLIENT ETCD_PEER SCHEDULER_HEALTH < <("${PROBE[@]}" ports 8)

start 0-redis "$REDIS_BIN" --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no
# placement and scheduler both default to health port 8080 and metrics 9090, the scheduler's etcd to 2379/2380: all set here.
start 1-placement "$BATON_PLACEMENT_BIN" --port "$PLACEMENT_PORT" --listen-address 127.0.0.1 \
  --healthz-port "$PLACEMENT_HEALTH" --healthz-listen-address 127.0.0.1 --enable-metrics=false \
  --initial-cluster "dapr-placement-0=127.0.0.1:$RAFT_PORT" --log-level warn
mkdir -p "$STATE/etcd"
start 2-scheduler "$BATON_SCHEDULER_BIN" --port "$SCHEDULER_PORT" --listen-address 127.0.0.1 \
  --healthz-port "$SCHEDULER_HEALTH" --healthz-listen-address 127.0.0.1 --enable-metrics=false \
  --etcd-data-dir "$STATE/etcd" --etcd-client-port "$ETCD_CLIENT" --etcd-client-listen-address 127.0.0.1 \
  --etcd-initial-cluster "dapr-scheduler-server-0=http://127.0.0.1:$ETCD_PEER" --id dapr-scheduler-server-0 --log-level warn
"${PROBE[@]}" wait-http "http://127.0.0.1:$PLACEMENT_HEALTH/healthz" 60
"${PROBE[@]}" wait-http "http://127.0.0.1:$SCHEDULER_HEALTH/healthz" 90
log "redis-server :$REDIS_PORT, placement :$PLACEMENT_PORT and scheduler :$SCHEDULER_PORT are up"

URLS=()
for i in $(seq 1 "$REPLICAS"); do
  read -r APP_PORT HTTP_PORT GRPC_PORT INTERNAL_PORT PUBLIC_PORT < <("${PROBE[@]}" ports 5)
  # daprd resolves the components' Redis address through its env secret store (components/secretstore.yaml).
  start "3-daprd-$i" env BATON_DAPR_REDIS_HOST="127.0.0.1:$REDIS_PORT" BATON_DAPR_REDIS_PASSWORD= \
    APP_API_TOKEN="$APP_TOKEN" DAPR_API_TOKEN="$DAPR_TOKEN" \
    "$BATON_DAPRD_BIN" --mode standalone --app-id baton --app-port "$APP_PORT" --app-protocol http --app-channel-address 127.0.0.1 \
    --dapr-http-port "$HTTP_PORT" --dapr-grpc-port "$GRPC_PORT" --dapr-internal-grpc-port "$INTERNAL_PORT" \
    --dapr-public-port "$PUBLIC_PORT" --dapr-listen-addresses 127.0.0.1 --dapr-public-listen-address 127.0.0.1 \
    --dapr-internal-grpc-listen-address 127.0.0.1 --enable-metrics=false \
    --placement-host-address "127.0.0.1:$PLACEMENT_PORT" --scheduler-host-address "127.0.0.1:$SCHEDULER_PORT" \
    --resources-path "$ROOT/components" --config "$ROOT/components/configuration.yaml" \
    --enable-app-health-check --app-health-check-path /healthz --app-health-probe-interval 1 \
    --app-health-probe-timeout 1000 --app-health-threshold 3 --log-level warn
  start "4-baton-$i" env PORT="$APP_PORT" BATON_BIND=127.0.0.1 BATON_PROFILE=distributed \
    DAPR_HTTP_PORT="$HTTP_PORT" DAPR_API_TOKEN="$DAPR_TOKEN" APP_API_TOKEN="$APP_TOKEN" \
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT" BATON_REDIS_KEY_PREFIX="baton-$RUN:" \
    CASSANDRA_CONTACT_POINTS="$CASSANDRA_CONTACT_POINTS" CASSANDRA_LOCAL_DC="${CASSANDRA_LOCAL_DC:-datacenter1}" \
    CASSANDRA_KEYSPACE="$KEYSPACE" CASSANDRA_REPLICATION="${CASSANDRA_LOCAL_DC:-datacenter1}:1" BATON_CASSANDRA_MIGRATE=true \
    ELASTICSEARCH_URL="$ELASTICSEARCH_URL" ELASTICSEARCH_INDEX_PREFIX="$INDEX_PREFIX" \
    BATON_ADMIN_KEY_ID=admin BATON_ADMIN_KEY_SECRET="$ADMIN_KEY_SECRET" \
    node "$ROOT/dist/main.js"
  # Ready: Baton answers /health, and its daprd shows placement has WorkflowActor hosted here.
  "${PROBE[@]}" wait-http "http://127.0.0.1:$APP_PORT/health" 180
  "${PROBE[@]}" wait-actors "$HTTP_PORT" "$DAPR_TOKEN" 120
  URLS+=("http://127.0.0.1:$APP_PORT")
  echo "BATON_URL_$i=http://127.0.0.1:$APP_PORT" >>"$STATE/cluster.env"
  log "replica $i serves on http://127.0.0.1:$APP_PORT (daprd HTTP :$HTTP_PORT)"
done
trap - ERR

cat <<OUT
Baton (distributed, $REPLICAS replicas) serves on ${URLS[*]}
  admin key: id 'admin', secret '$ADMIN_KEY_SECRET' (POST /api/token {"keyId","keySecret"} -> X-Authorization token)
  keyspace $KEYSPACE, index prefix $INDEX_PREFIX; logs and pids in $STATE
  stop and drop the run's data: npm run distributed:stop
OUT
