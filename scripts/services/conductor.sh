#!/usr/bin/env bash
# Conductor OSS's own server, the boot jar from Maven Central (org.conductoross:conductor-server,
# classifier boot), and a Java 21+ to run it (it needs 21 or later; the machines carry a Temurin 25
# JDK beside the default 17). Nothing runs here: the bench and the differential suite start their
# own server from what `start` records (CONDUCTOR_JAR, CONDUCTOR_JAVA) with its default SQLite setup.
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=conductor
source "$here/lib.sh"

CONDUCTOR_VERSION=3.32.3
dir="$BATON_CACHE_DIR/conductor-$CONDUCTOR_VERSION"
jar="$dir/conductor-server-$CONDUCTOR_VERSION-boot.jar"

# find_java: prints a java binary of major version 21 or later, preferring JAVA_HOME, then /usr/lib/jvm.
find_java() {
  local candidate major
  for candidate in "${CONDUCTOR_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [[ -n "$candidate" && -x "$candidate/bin/java" ]] || continue
    major="$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
    [[ -n "$major" ]] && ((major >= 21)) && { printf '%s\n' "$candidate/bin/java"; return 0; }
  done
  return 1
}

case "${1:-}" in
  provision)
    [[ -f "$jar" ]] && exit 0
    need_cmd mvn maven
    log "fetching conductor-server $CONDUCTOR_VERSION (boot jar, ~460 MB) from Maven Central"
    mvn -q -B dependency:get -Dtransitive=false \
      "-Dartifact=org.conductoross:conductor-server:$CONDUCTOR_VERSION:jar:boot" ||
      die "mvn dependency:get org.conductoross:conductor-server:$CONDUCTOR_VERSION:jar:boot failed"
    m2="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}/org/conductoross/conductor-server/$CONDUCTOR_VERSION"
    mkdir -p "$dir"
    cp "$m2/conductor-server-$CONDUCTOR_VERSION-boot.jar" "$jar.tmp" && mv "$jar.tmp" "$jar"
    ;;
  start)
    [[ -f "$jar" ]] || die "not provisioned: run scripts/services/conductor.sh provision"
    java="$(find_java)" || die "Conductor $CONDUCTOR_VERSION needs Java 21 or later; none found in JAVA_HOME or /usr/lib/jvm"
    write_env conductor "CONDUCTOR_JAR=$jar" "CONDUCTOR_JAVA=$java" "CONDUCTOR_VERSION=$CONDUCTOR_VERSION"
    ;;
  stop) rm -f "$BATON_RUN_DIR/conductor.env" ;;
  *) die "usage: conductor.sh provision|start|stop" ;;
esac
