# Sourced by cassandra.sh and cassandra-cluster.sh (after lib.sh, with $here set): the Cassandra version,
# the Java that runs it, and one node's configuration and JVM.

# 5.0 is the newest line that supports Java 17 (4.1 supports 8 and 11 only).
CASSANDRA_VERSION=5.0.9
cassandra_home="$BATON_CACHE_DIR/cassandra-$CASSANDRA_VERSION"

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

# launch_node DIR ADDRESS CQL_PORT STORAGE_PORT SEEDS TOKEN CLUSTER HEAP JAVA PIDFILE: writes the node's
# configuration into DIR (created on first start) and starts its JVM without waiting; stdout.log is appended to.
# NODE_JVM_OPTS (an array, optional): more JVM options, after those of jvm.options.
launch_node() {
  local dir="$1" address="$2" cql_port="$3" storage="$4" seeds="$5" token="$6" cluster="$7" heap="$8" java="$9" pidfile="${10}" jamm opts=()
  jamm="$(ls "$cassandra_home"/lib/jamm-*.jar | head -1)"
  mkdir -p "$dir"/{conf,data,commitlog,saved_caches,hints,cdc_raw,triggers,logs}
  sed -e "s|@RUN@|$dir|g" -e "s|@PORT@|$cql_port|g" -e "s|@STORAGE_PORT@|$storage|g" -e "s|@ADDRESS@|$address|g" \
    -e "s|@SEEDS@|$seeds|g" -e "s|@TOKEN@|$token|g" -e "s|@CLUSTER@|$cluster|g" \
    "$here/cassandra/cassandra.yaml" >"$dir/conf/cassandra.yaml"
  sed -e "s|@RUN@|$dir|g" "$here/cassandra/logback.xml" >"$dir/conf/logback.xml"
  mapfile -t opts < <(grep -v -e '^#' -e '^\s*$' "$here/cassandra/jvm.options")
  # cassandra-foreground keeps stdout/stderr open (the daemon closes them otherwise), so a JVM that
  # dies early leaves its reason in stdout.log. setsid: a node is shared by later runs, so it must
  # not die with the process group (or session) of the run that started it, nor hold its descriptors
  # (the lock of a `flock LOCK cmd` caller would stay taken as long as the node runs).
  (
    for fd in /proc/"$BASHPID"/fd/*; do fd="${fd##*/}"; if ((fd > 2)); then eval "exec $fd>&-"; fi; done
    exec setsid nohup "$java" -Xms"$heap" -Xmx"$heap" "${opts[@]}" ${NODE_JVM_OPTS[@]+"${NODE_JVM_OPTS[@]}"} \
    -javaagent:"$jamm" \
    -Dcassandra-foreground=yes \
    -Dcassandra.config="file://$dir/conf/cassandra.yaml" \
    -Dcassandra.storagedir="$dir" \
    -Dcassandra.logdir="$dir/logs" \
    -Dcassandra.triggers_dir="$dir/triggers" \
    -Dlogback.configurationFile="$dir/conf/logback.xml" \
    -cp "$cassandra_home/lib/*" org.apache.cassandra.service.CassandraDaemon \
    >>"$dir/logs/stdout.log" 2>&1 </dev/null
  ) &
  echo $! >"$pidfile"
}
