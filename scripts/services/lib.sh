# Shared by the service scripts: where things are cached and where running services are recorded.
# Sourced, not run. Everything listens on 127.0.0.1 only.
set -euo pipefail

BATON_CACHE_DIR="${BATON_CACHE_DIR:-$HOME/.cache/baton}"
# pid files, logs, data directories and one <service>.env file per started service
BATON_RUN_DIR="${BATON_RUN_DIR:-$BATON_CACHE_DIR/run}"
mkdir -p "$BATON_CACHE_DIR" "$BATON_RUN_DIR"

log() { printf '[services:%s] %s\n' "${SERVICE:-?}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# wait_for_port PORT SECONDS: true once 127.0.0.1:PORT accepts a connection.
wait_for_port() {
  local port="$1" deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# need_cmd CMD DEBIAN_PACKAGE: installs the package when the command is missing (root on these machines).
need_cmd() {
  command -v "$1" >/dev/null 2>&1 && return 0
  log "installing Debian package $2 for $1"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; } ||
    die "$1 is missing and Debian package $2 could not be installed"
}

# write_env NAME KEY=VALUE...: records how to reach a started service, read by the real-engine tests.
write_env() {
  local name="$1"; shift
  printf '%s\n' "$@" >"$BATON_RUN_DIR/$name.env.tmp"
  mv "$BATON_RUN_DIR/$name.env.tmp" "$BATON_RUN_DIR/$name.env"
}

# pid_alive FILE: the pid recorded in FILE runs.
pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid FILE [SECONDS]: TERM, then KILL after the grace period; only what we recorded ourselves.
stop_pid() {
  local file="$1" grace="${2:-20}" pid
  [[ -f "$file" ]] || return 0
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + grace))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}
