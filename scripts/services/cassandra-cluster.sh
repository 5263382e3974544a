#!/usr/bin/env bash
# Apache Cassandra as users run it: three nodes on 127.0.0.1, 127.0.0.2, 127.0.0.3 (loopback aliases, as
# Cassandra's own cluster tools use), beside the one-node service of cassandra.sh (other ports, so both
# coexist). Same cached cassandra-all and cassandra.yaml template as cassandra.sh; each node its own JVM.
#   provision        as cassandra.sh provision (the jars are shared)
#   start            start every node, wait until each answers CQL and sees the other two
#   stop             stop every node this script started
#   kill-node N      kill -9 of node N (1-3): for the fault tests
#   start-node N     start node N again on its data and wait until it answers CQL
#   ready            wait until every node answers CQL and sees the others up
# Settings: BATON_CASSANDRA_CLUSTER_PORT (CQL, 9142), BATON_CASSANDRA_CLUSTER_STORAGE_PORT (7100),
# BATON_CASSANDRA_CLUSTER_HEAP (640M per node), BATON_CASSANDRA_JAVA.
# Records CASSANDRA_CLUSTER_CONTACT_POINTS in $BATON_RUN_DIR/cassandra-cluster.env (read by the real-engine tests).
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=cassandra-cluster
source "$here/lib.sh"
source "$here/cassandra/node.sh"

run="$BATON_RUN_DIR/cassandra-cluster"
port="${BATON_CASSANDRA_CLUSTER_PORT:-9142}"
storage_port="${BATON_CASSANDRA_CLUSTER_STORAGE_PORT:-7100}"
heap="${BATON_CASSANDRA_CLUSTER_HEAP:-640M}"
NODES=(1 2 3)
# The three JVMs share a small machine with the replicas under test; measured on 2 cores (docs/cassandra.md):
# - C1 only: no C2 compiler threads competing with the nodes and replicas while a node starts;
# - unsafesystem: a schema change does not flush the system tables on every node (the migrations' ~40 DDL
#   statements); the changes are still in the commit log, which a kill -9 does not lose;
# - skip_sync: no fsync; a kill -9 (the fault tested) loses nothing the page cache holds, only a power cut would.
NODE_JVM_OPTS=(-XX:TieredStopAtLevel=1 -Dcassandra.unsafesystem=true -Dcassandra.skip_sync=true)
# Evenly spaced Murmur3 tokens, one per node (num_tokens 1).
TOKENS=(-9223372036854775808 -3074457345618258603 3074457345618258602)

addr() { echo "127.0.0.$1"; }
pidfile() { echo "$run/node$1.pid"; }
contact_points() { local n out=(); for n in "${NODES[@]}"; do out+=("$(addr "$n"):$port"); done; (IFS=,; echo "${out[*]}"); }
# Every node a seed: a node restarting while others are down must find one live seed for its shadow round.
seeds() { local n out=(); for n in "${NODES[@]}"; do out+=("$(addr "$n"):$storage_port"); done; (IFS=,; echo "${out[*]}"); }
open_on() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# launch N: starts node N's JVM on its data directory (created on first start) without waiting.
launch() {
  local n="$1" a java
  a="$(addr "$n")"
  pid_alive "$(pidfile "$n")" && { log "node $n already running (pid $(cat "$(pidfile "$n")"))"; return 0; }
  open_on "$a" "$port" && die "$a:$port is already taken by a process this script did not start (set BATON_CASSANDRA_CLUSTER_PORT)"
  open_on "$a" "$storage_port" && die "$a:$storage_port is already taken (set BATON_CASSANDRA_CLUSTER_STORAGE_PORT)"
  java="$(find_java)" || die "Cassandra $CASSANDRA_VERSION needs Java 11 or 17 (Debian package openjdk-17-jre-headless)"
  launch_node "$run/node$n" "$a" "$port" "$storage_port" "$(seeds)" "${TOKENS[$((n - 1))]}" baton-test-cluster "$heap" "$java" "$(pidfile "$n")"
  log "node $n: started pid $! on $a (CQL $port, storage $storage_port)"
}

# await N SECONDS: until node N's CQL port opens (fails at once when its JVM exits).
await() {
  local n="$1" a deadline=$((SECONDS + $2))
  a="$(addr "$n")"
  until open_on "$a" "$port"; do
    pid_alive "$(pidfile "$n")" || { tail -n 40 "$run/node$n/logs/stdout.log" >&2; rm -f "$(pidfile "$n")"; die "node $n exited during start (log: $run/node$n/logs/)"; }
    ((SECONDS < deadline)) || die "node $n: CQL port did not open in time (log: $run/node$n/logs/)"
    sleep 0.5
  done
}

start() {
  [[ -f "$cassandra_home/.complete" ]] || die "not provisioned: run scripts/services/cassandra-cluster.sh provision"
  mkdir -p "$run"
  local t=$SECONDS limit="${BATON_CASSANDRA_START_TIMEOUT:-300}" n
  # All at once: every node is a seed with a fixed token and no bootstrap, so none waits for another.
  for n in "${NODES[@]}"; do launch "$n"; done
  for n in "${NODES[@]}"; do await "$n" $((limit - (SECONDS - t))); done
  node "$here/cassandra/cluster-ready.js" "$(contact_points)" $((limit - (SECONDS - t))) ||
    die "the three nodes did not all answer CQL (logs: $run/node*/logs/)"
  write_env cassandra-cluster "CASSANDRA_CLUSTER_CONTACT_POINTS=$(contact_points)" CASSANDRA_CLUSTER_LOCAL_DC=datacenter1
  log "three nodes serving CQL on $(contact_points) after $((SECONDS - t)) s"
}

stop() {
  local n
  for n in "${NODES[@]}"; do stop_pid "$(pidfile "$n")" 60 & done
  wait
  rm -f "$BATON_RUN_DIR/cassandra-cluster.env"
}

node_arg() {
  [[ "${1:-}" =~ ^[123]$ ]] || die "node number 1, 2 or 3 expected"
  echo "$1"
}

case "${1:-}" in
  provision) bash "$here/cassandra.sh" provision ;;
  start) start ;;
  stop) stop ;;
  kill-node)
    n="$(node_arg "${2:-}")"
    if pid_alive "$(pidfile "$n")"; then kill -KILL "$(cat "$(pidfile "$n")")"; fi
    rm -f "$(pidfile "$n")"
    ;;
  start-node)
    n="$(node_arg "${2:-}")"
    t=$SECONDS
    launch "$n"
    await "$n" "${BATON_CASSANDRA_START_TIMEOUT:-300}"
    log "node $n serving CQL after $((SECONDS - t)) s"
    ;;
  ready)
    node "$here/cassandra/cluster-ready.js" "$(contact_points)" "${BATON_CASSANDRA_START_TIMEOUT:-300}" ||
      die "the three nodes do not all see each other up"
    ;;
  *) die "usage: cassandra-cluster.sh provision|start|stop|kill-node N|start-node N|ready" ;;
esac
