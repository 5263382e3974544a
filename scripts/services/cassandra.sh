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

# 5.0 is the newest line that supports Java 17 (4.1 supports 8 and 11 only).
CASSANDRA_VERSION=5.0.9
home="$BATON_CACHE_DIR/cassandra-$CASSANDRA_VERSION"
run="$BATON_RUN_DIR/cassandra"
pidfile="$BATON_RUN_DIR/cassandra.pid"
port="${BATON_CASSANDRA_PORT:-9042}"
storage_port="${BATON_CASSANDRA_STORAGE_PORT:-7000}"
heap="${BATON_CASSANDRA_HEAP:-1G}"

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -1; }

# Cassandra 5.0 runs on Java 11 or 17 only (a newer JVM is refused at start).
find_java() {
  local c
  for c in "${BATON_CASSANDRA_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" \
    /usr/lib/jvm/java-17-openjdk-*/bin/java /usr/lib/jvm/java-11-openjdk-*/bin/java /usr/lib/jvm/*/bin/java; do
    [[ -n "$c" && -x "$c" ]] || continue
    case "$(java_major "$c")" in 11 | 17) echo "$c"; return 0 ;; esac
  done
  return 1
}

provision() {
  if ! find_java >/dev/null; then
    log "no Java 11 or 17 found: installing Debian package openjdk-17-jre-headless"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null; } ||
      die "Cassandra $CASSANDRA_VERSION needs Java 11 or 17 (Debian package openjdk-17-jre-headless)"
  fi
  [[ -f "$home/.complete" ]] && return 0
  need_cmd mvn maven
  local tmp
  tmp="$(mktemp -d "$BATON_CACHE_DIR/.cassandra-$CASSANDRA_VERSION.XXXXXX")"
  sed "s/@VERSION@/$CASSANDRA_VERSION/" "$here/cassandra/pom.xml" >"$tmp/pom.xml"
  log "resolving org.apache.cassandra:cassandra-all:$CASSANDRA_VERSION and its dependencies from Maven Central"
  mvn -q -B -f "$tmp/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib" >"$tmp/mvn.log" 2>&1 ||
    { cat "$tmp/mvn.log" >&2; rm -rf "$tmp"; die "Maven could not resolve cassandra-all $CASSANDRA_VERSION"; }
  touch "$tmp/.complete"
  # Another provision may have finished first: keep its copy.
  if [[ -d "$home" ]]; then rm -rf "$tmp"; else mv "$tmp" "$home"; fi
}

start() {
  if pid_alive "$pidfile"; then
    log "already running (pid $(cat "$pidfile"))"
    write_env cassandra "CASSANDRA_CONTACT_POINTS=127.0.0.1:$port" CASSANDRA_LOCAL_DC=datacenter1
    return 0
  fi
  [[ -f "$home/.complete" ]] || die "not provisioned: run scripts/services/cassandra.sh provision"
  port_open "$port" && die "127.0.0.1:$port is already taken by a process this script did not start (set BATON_CASSANDRA_PORT)"
  port_open "$storage_port" && die "127.0.0.1:$storage_port is already taken (set BATON_CASSANDRA_STORAGE_PORT)"
  local java jamm
  java="$(find_java)" || die "Cassandra $CASSANDRA_VERSION needs Java 11 or 17 (Debian package openjdk-17-jre-headless)"
  jamm="$(ls "$home"/lib/jamm-*.jar | head -1)"
  mkdir -p "$run"/{conf,data,commitlog,saved_caches,hints,cdc_raw,triggers,logs}
  sed -e "s|@RUN@|$run|g" -e "s|@PORT@|$port|g" -e "s|@STORAGE_PORT@|$storage_port|g" -e "s|@ADDRESS@|127.0.0.1|g" \
    -e "s|@SEEDS@|127.0.0.1:$storage_port|g" -e "s|@TOKEN@|0|g" -e "s|@CLUSTER@|baton-test|g" \
    "$here/cassandra/cassandra.yaml" >"$run/conf/cassandra.yaml"
  sed -e "s|@RUN@|$run|g" "$here/cassandra/logback.xml" >"$run/conf/logback.xml"
  local opts=()
  mapfile -t opts < <(grep -v -e '^#' -e '^\s*$' "$here/cassandra/jvm.options")
  local t=$SECONDS
  # cassandra-foreground keeps stdout/stderr open (the daemon closes them otherwise), so a JVM that
  # dies early leaves its reason in stdout.log. setsid: the node is shared by later runs, so it must
  # not die with the process group (or session) of the run that started it.
  setsid nohup "$java" -Xms"$heap" -Xmx"$heap" "${opts[@]}" \
    -javaagent:"$jamm" \
    -Dcassandra-foreground=yes \
    -Dcassandra.config="file://$run/conf/cassandra.yaml" \
    -Dcassandra.storagedir="$run" \
    -Dcassandra.logdir="$run/logs" \
    -Dcassandra.triggers_dir="$run/triggers" \
    -Dlogback.configurationFile="$run/conf/logback.xml" \
    -cp "$home/lib/*" org.apache.cassandra.service.CassandraDaemon \
    >"$run/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
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
