#!/usr/bin/env bash
# s3proxy from Maven Central (org.gaul:s3proxy, the jar-with-dependencies): an S3-compatible server in
# one jar on Java 17, here on jclouds' filesystem backend. Chosen over MinIO (no build: one download,
# no Go toolchain) and SeaweedFS (no master/volume/filer trio): Baton's object store needs only
# put/get/delete/list and presigned links, which s3proxy serves with real AWS v4 signatures.
#   provision: mvn dependency:copy of the jar into $BATON_CACHE_DIR/s3proxy-<version>/
#   start:     one server on 127.0.0.1 with a fixed local identity, objects under $BATON_RUN_DIR/s3proxy/,
#              the bucket made, writes s3proxy.env (BATON_S3_*)
#   stop:      stops the server started here (its objects stay)
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=s3proxy
source "$here/lib.sh"

S3PROXY_VERSION="${BATON_S3PROXY_VERSION:-3.0.0}"
S3PROXY_PORT="${BATON_S3PROXY_PORT:-9070}"
S3PROXY_HEAP="${BATON_S3PROXY_HEAP:-256m}"
BUCKET="${BATON_S3PROXY_BUCKET:-baton}"
# A local, loopback-only server: a fixed identity that is no secret of anyone's.
IDENTITY=baton-local
CREDENTIAL=baton-local-credential
ARTIFACT="org.gaul:s3proxy:$S3PROXY_VERSION:jar:jar-with-dependencies"
dest="$BATON_CACHE_DIR/s3proxy-$S3PROXY_VERSION"
jar="$dest/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
run="$BATON_RUN_DIR/s3proxy"
pidfile="$BATON_RUN_DIR/s3proxy.pid"
url="http://127.0.0.1:$S3PROXY_PORT"

provision() {
  if [[ -s "$jar" ]]; then
    log "s3proxy $S3PROXY_VERSION cached in $dest"
    return
  fi
  need_cmd mvn maven
  mkdir -p "$dest"
  log "fetching $ARTIFACT from Maven Central (~40 MB, or the local Maven repository)"
  mvn -B -q dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$dest" >"$dest/mvn.log" 2>&1 ||
    { cat "$dest/mvn.log" >&2; die "mvn dependency:copy -Dartifact=$ARTIFACT failed"; }
  [[ -s "$jar" ]] || die "mvn left no $jar"
  log "cached $jar"
}

write_env_file() {
  write_env s3proxy \
    "BATON_S3_ENDPOINT=$url" \
    "BATON_S3_BUCKET=$BUCKET" \
    "BATON_S3_REGION=us-east-1" \
    "BATON_S3_ACCESS_KEY_ID=$IDENTITY" \
    "BATON_S3_SECRET_ACCESS_KEY=$CREDENTIAL"
}

start() {
  [[ -s "$jar" ]] || die "s3proxy $S3PROXY_VERSION is not provisioned: run scripts/services/s3proxy.sh provision"
  if pid_alive "$pidfile"; then
    log "already running (pid $(cat "$pidfile")) on $url"
    write_env_file
    return
  fi
  rm -f "$pidfile"
  port_open "$S3PROXY_PORT" && die "port $S3PROXY_PORT is taken by a process these scripts did not start (set BATON_S3PROXY_PORT)"
  need_cmd java openjdk-17-jre-headless
  need_cmd curl curl
  # With the filesystem backend a bucket is a directory of the base directory: made before the start.
  mkdir -p "$run/data/$BUCKET"
  cat >"$run/s3proxy.conf" <<CONF
# Written by scripts/services/s3proxy.sh on every start.
s3proxy.endpoint=$url
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$IDENTITY
s3proxy.credential=$CREDENTIAL
jclouds.provider=filesystem
jclouds.filesystem.basedir=$run/data
CONF
  local t=$SECONDS
  log "starting s3proxy $S3PROXY_VERSION on $url (bucket $BUCKET, objects in $run/data)"
  # setsid: shared by later runs, so it must not die with the process group of the run that started it.
  setsid java "-Xmx$S3PROXY_HEAP" -jar "$jar" --properties "$run/s3proxy.conf" >"$run/s3proxy.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local deadline=$((SECONDS + 60))
  # Anonymous requests are refused (403) once the server answers: any HTTP status means it is up.
  until [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/$BUCKET" 2>/dev/null)" =~ ^[1-5][0-9][0-9]$ ]]; do
    pid_alive "$pidfile" || { tail -n 40 "$run/s3proxy.log" >&2 || true; die "s3proxy exited during start (log in $run/s3proxy.log)"; }
    ((SECONDS < deadline)) || die "s3proxy did not answer within 60 s (log in $run/s3proxy.log)"
    sleep 0.5
  done
  write_env_file
  log "ready in $((SECONDS - t)) s (pid $(cat "$pidfile"))"
}

stop() {
  rm -f "$BATON_RUN_DIR/s3proxy.env"
  pid_alive "$pidfile" && log "stopping pid $(cat "$pidfile")"
  stop_pid "$pidfile" 20
}

case "${1:-}" in
  provision) provision ;;
  start) start ;;
  stop) stop ;;
  *) die "usage: s3proxy.sh provision|start|stop" ;;
esac
