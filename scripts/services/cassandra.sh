#!/usr/bin/env bash
# Apache Cassandra, one node on 127.0.0.1: cassandra-all and its dependencies resolved from Maven
# Central by Maven (the local repository ~/.m2 is reused), run as its own JVM with a generated
# cassandra.yaml tuned for a fast-starting test node.
#   provision  resolve the jars into $BATON_CACHE_DIR/cassandra-<version>/lib (once)
#   start      run the node, data and logs in $BATON_RUN_DIR/cassandra/, wait until CQL answers
#   stop       stop the node this script started
# Settings: BATON_CASSANDRA_PORT (CQL, 9042), BATON_CASSANDRA_STORAGE_PORT (7000),
# BATON_CASSANDRA_HEAP (1G), BATON_CASSANDRA_JAVA (a Java 11 or 17 `java`; found when unset).
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=cassandra
source "$here/lib.sh"
source "$here/cassandra/node.sh"

run="$BATON_RUN_DIR/cassandra"
pidfile="$BATON_RUN_DIR/cassandra.pid"
port="${BATON_CASSANDRA_PORT:-9042}"
storage_port="${BATON_CASSANDRA_STORAGE_PORT:-7000}"
heap="${BATON_CASSANDRA_HEAP:-1G}"

provision() {
  if ! find_java >/dev/null; then
    log "no Java 11 or 17 found: installing Debian package openjdk-17-jre-headless"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; } ||
      die "Cassandra $CASSANDRA_VERSION needs Java 11 or 17 (Debian package openjdk-17-jre-headless)"
  fi
  [[ -f "$cassandra_home/.complete" ]] && return 0
  need_cmd mvn maven
  local tmp
  tmp="$(mktemp -d "$BATON_CACHE_DIR/.cassandra-$CASSANDRA_VERSION.XXXXXX")"
  sed "s/@VERSION@/$CASSANDRA_VERSION/" "$here/cassandra/pom.xml" >"$tmp/pom.xml"
  log "resolving org.apache.cassandra:cassandra-all:$CASSANDRA_VERSION and its dependencies from Maven Central"
  mvn -q -B -f "$tmp/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib" >"$tmp/mvn.log" 2>&1 ||
    { cat "$tmp/mvn.log" >&2; rm -rf "$tmp"; die "Maven could not resolve cassandra-all $CASSANDRA_VERSION"; }
  touch "$tmp/.complete"
  # Another provision may have finished first: keep its copy.
  if [[ -d "$cassandra_home" ]]; then rm -rf "$tmp"; else mv "$tmp" "$cassandra_home"; fi
}

start() {
  if pid_alive "$pidfile"; then
    log "already running (pid $(cat "$pidfile"))"
    write_env cassandra "CASSANDRA_CONTACT_POINTS=127.0.0.1:$port" CASSANDRA_LOCAL_DC=datacenter1
    return 0
  fi
  [[ -f "$cassandra_home/.complete" ]] || die "not provisioned: run scripts/services/cassandra.sh provision"
  port_open "$port" && die "127.0.0.1:$port is already taken by a process this script did not start (set BATON_CASSANDRA_PORT)"
  port_open "$storage_port" && die "127.0.0.1:$storage_port is already taken (set BATON_CASSANDRA_STORAGE_PORT)"
  local java
  java="$(find_java)" || die "Cassandra $CASSANDRA_VERSION needs Java 11 or 17 (Debian package openjdk-17-jre-headless)"
  local t=$SECONDS
  # A fresh stdout.log per start: it holds only this start's reason when the JVM dies early.
  mkdir -p "$run/logs" && : >"$run/logs/stdout.log"
  launch_node "$run" 127.0.0.1 "$port" "$storage_port" "127.0.0.1:$storage_port" 0 baton-test "$heap" "$java" "$pidfile"
  log "started pid $! (java $(java_major "$java")), waiting for CQL on 127.0.0.1:$port"
  local deadline=$((SECONDS + ${BATON_CASSANDRA_START_TIMEOUT:-240}))
  until port_open "$port"; do
    pid_alive "$pidfile" || { tail -n 40 "$run/logs/stdout.log" >&2; rm -f "$pidfile"; die "Cassandra exited during start (log: $run/logs/)"; }
    ((SECONDS < deadline)) || { stop_pid "$pidfile" 10; die "CQL port $port did not open in time (log: $run/logs/)"; }
    sleep 0.5
  done
  # An open port is not yet a working node: run a real query.
  node "$here/cassandra/cql-ready.js" "127.0.0.1:$port" $((deadline - SECONDS)) ||
    { stop_pid "$pidfile" 10; die "CQL did not answer queries (log: $run/logs/)"; }
  write_env cassandra "CASSANDRA_CONTACT_POINTS=127.0.0.1:$port" CASSANDRA_LOCAL_DC=datacenter1
  log "serving CQL on 127.0.0.1:$port after $((SECONDS - t)) s"
}

stop() {
  # Cassandra drains on SIGTERM (flushes memtables), which takes a few seconds.
  stop_pid "$pidfile" 60
  rm -f "$BATON_RUN_DIR/cassandra.env"
}

case "${1:-}" in
  provision) provision ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: cassandra.sh provision|start|stop" ;;
esac
