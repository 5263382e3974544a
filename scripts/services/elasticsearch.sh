#!/usr/bin/env bash
# Elasticsearch from Maven Central: Elastic's minimal real distribution
# (org.elasticsearch.distribution.integ-test-zip:elasticsearch, packaging zip), the server with only
# the transport, x-pack core/security and apm modules: no reindex (delete_by_query), ingest-geoip,
# painless or ML. Baton's adapter uses only core APIs, so it runs on this and on a full cluster.
# The version follows the @elastic/elasticsearch client in package.json.
#   provision: download and unpack into $BATON_CACHE_DIR/elasticsearch-<version>/
#   start:     one node on 127.0.0.1 as the unprivileged user baton-es (ES refuses root), data and
#              logs in $BATON_RUN_DIR/elasticsearch/, waits for yellow, writes elasticsearch.env
#   stop:      stops the node started here
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=elasticsearch
source "$here/lib.sh"

ES_VERSION="${BATON_ELASTICSEARCH_VERSION:-8.19.2}"
ES_PORT="${BATON_ELASTICSEARCH_PORT:-9200}"
ES_HEAP="${BATON_ELASTICSEARCH_HEAP:-512m}"
ES_USER="${BATON_ELASTICSEARCH_USER:-baton-es}"
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip"
dest="$BATON_CACHE_DIR/elasticsearch-$ES_VERSION"
run="$BATON_RUN_DIR/elasticsearch"
pidfile="$BATON_RUN_DIR/elasticsearch.pid"
url="http://127.0.0.1:$ES_PORT"

# ES 8.19 runs on Java 17 or later: ES_JAVA_HOME when set, else the JDK of `java` on the PATH.
java_home() {
  if [[ -n "${ES_JAVA_HOME:-}" ]]; then
    [[ -x "$ES_JAVA_HOME/bin/java" ]] || die "ES_JAVA_HOME=$ES_JAVA_HOME has no bin/java"
    printf '%s\n' "$ES_JAVA_HOME"
    return
  fi
  need_cmd java openjdk-17-jre-headless
  local java
  java="$(readlink -f "$(command -v java)")"
  dirname "$(dirname "$java")"
}

provision() {
  if [[ -x "$dest/bin/elasticsearch" && -d "$dest/modules" ]]; then
    log "Elasticsearch $ES_VERSION cached in $dest"
    return
  fi
  need_cmd mvn maven
  need_cmd unzip unzip
  local work
  work="$(mktemp -d "$BATON_CACHE_DIR/.elasticsearch-$ES_VERSION.XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  log "downloading $ARTIFACT from Maven Central (~97 MB)"
  mvn -B -q dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$work" >"$work/mvn.log" 2>&1 ||
    { cat "$work/mvn.log" >&2; die "mvn dependency:copy -Dartifact=$ARTIFACT failed"; }
  unzip -q "$work/elasticsearch-$ES_VERSION.zip" -d "$work" || die "unpacking the Elasticsearch zip failed"
  [[ -x "$work/elasticsearch-$ES_VERSION/bin/elasticsearch" ]] || die "the zip has no elasticsearch-$ES_VERSION/bin/elasticsearch"
  rm -rf "$dest"
  mv "$work/elasticsearch-$ES_VERSION" "$dest"
  log "unpacked into $dest"
}

ensure_user() {
  id "$ES_USER" >/dev/null 2>&1 && return
  need_cmd useradd passwd
  log "creating system user $ES_USER (Elasticsearch refuses to run as root)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER"
}

# The node runs as $ES_USER but reads $dest and writes $run, both under root's home by default
# (mode 700): grant that one user traversal (x only) of each directory on the way it cannot pass,
# from the root down, so directories it could already read keep their permissions for it.
grant_traversal() {
  local target dir path parts
  for target in "$@"; do
    path=""
    IFS=/ read -ra parts <<<"${target#/}"
    for dir in "${parts[@]}"; do
      path="$path/$dir"
      runuser -u "$ES_USER" -- test -x "$path" 2>/dev/null && continue
      need_cmd setfacl acl
      log "granting $ES_USER traversal of $path (ACL u:$ES_USER:x)"
      setfacl -m "u:$ES_USER:x" "$path"
    done
  done
}

write_config() {
  local conf="$run/config"
  mkdir -p "$conf" "$run/data" "$run/logs" "$run/tmp"
  cp "$dest/config/log4j2.properties" "$conf/"
  # jvm.options names heap dumps, the gc log and crash files relative to ES_HOME (the launcher's
  # working directory), which this user cannot write: point them into the run dir.
  sed -e "s|HeapDumpPath=data|HeapDumpPath=$run/data|" -e "s|file=logs/|file=$run/logs/|" -e "s|ErrorFile=logs/|ErrorFile=$run/logs/|" \
    "$dest/config/jvm.options" >"$conf/jvm.options"
  cat >"$conf/elasticsearch.yml" <<EOF
# Written by scripts/services/elasticsearch.sh on every start.
cluster.name: baton-local
node.name: baton-local-1
discovery.type: single-node
network.host: 127.0.0.1
http.port: $ES_PORT
transport.port: $((ES_PORT + 100))
path.data: $run/data
path.logs: $run/logs
# A development node on loopback: no TLS, no users (the zip has the security module, on by default).
xpack.security.enabled: false
# A nearly full disk must not make indices read-only (flood stage) or stop shard allocation.
cluster.routing.allocation.disk.threshold_enabled: false
# ingest.geoip.downloader.enabled is not set on purpose: the zip has no ingest-geoip module (an
# unknown setting stops the node) and so downloads nothing; neither are there ML models to fetch.
EOF
}

start() {
  [[ -x "$dest/bin/elasticsearch" ]] || die "Elasticsearch $ES_VERSION is not provisioned: run scripts/services/elasticsearch.sh provision"
  if pid_alive "$pidfile"; then
    log "already running (pid $(cat "$pidfile")) on $url"
    write_env elasticsearch "ELASTICSEARCH_URL=$url"
    return
  fi
  rm -f "$pidfile"
  port_open "$ES_PORT" && die "port $ES_PORT is taken by a process these scripts did not start (set BATON_ELASTICSEARCH_PORT)"
  need_cmd curl curl
  local jh
  jh="$(java_home)"
  ensure_user
  write_config
  chown -R "$ES_USER:" "$run"
  grant_traversal "$dest/bin" "$run"
  local t=$SECONDS
  log "starting Elasticsearch $ES_VERSION on $url (java $jh, heap $ES_HEAP, user $ES_USER)"
  # -d: the launcher returns once the node has started (or failed); -p: the node's own pid. setsid: the
  # node is shared by later runs, so it must not die with the process group of the run that started it.
  setsid runuser -u "$ES_USER" -- env -i PATH=/usr/bin:/bin HOME="$run" \
    ES_JAVA_HOME="$jh" ES_PATH_CONF="$run/config" ES_TMPDIR="$run/tmp" \
    ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" \
    "$dest/bin/elasticsearch" -d -p "$run/elasticsearch.pid" >"$run/launcher.log" 2>&1 ||
    { tail -n 40 "$run/launcher.log" "$run/logs/baton-local.log" >&2 2>/dev/null || true; die "Elasticsearch did not start (logs in $run/logs)"; }
  [[ -s "$run/elasticsearch.pid" ]] || die "Elasticsearch started without writing its pid file"
  cp "$run/elasticsearch.pid" "$pidfile"
  local deadline=$((SECONDS + 180))
  until curl -fsS "$url/_cluster/health?wait_for_status=yellow&timeout=5s" >/dev/null 2>&1; do
    pid_alive "$pidfile" || { tail -n 40 "$run/logs/baton-local.log" >&2 || true; die "Elasticsearch exited during start (logs in $run/logs)"; }
    ((SECONDS < deadline)) || die "Elasticsearch did not reach yellow within 180 s (logs in $run/logs)"
    sleep 1
  done
  # The official client refuses a server that does not name itself Elasticsearch. (Not `GET /`: its
  # handler is the rest-root module, which this zip lacks, so client.info() and ping() answer 405.)
  local headers
  headers="$(curl -fsS -D - -o /dev/null "$url/_cluster/health")" || die "$url/_cluster/health does not answer"
  grep -qi '^x-elastic-product: *Elasticsearch' <<<"$headers" || die "$url does not answer with X-Elastic-Product: Elasticsearch"
  write_env elasticsearch "ELASTICSEARCH_URL=$url"
  log "ready in $((SECONDS - t)) s (pid $(cat "$pidfile"))"
}

stop() {
  rm -f "$BATON_RUN_DIR/elasticsearch.env"
  pid_alive "$pidfile" && log "stopping pid $(cat "$pidfile")"
  stop_pid "$pidfile" 30
}

case "${1:-}" in
  provision) provision ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: elasticsearch.sh provision|start|stop" ;;
esac
