#!/usr/bin/env bash
# Runs an official SDK's own integration suite against a fresh Baton (dist/main.js) on loopback.
#
#   scripts/sdk-suites/run.sh js     <javascript-sdk checkout, dependencies installed>
#   scripts/sdk-suites/run.sh python <python-sdk checkout>      (SDK_PYTHON: a python with conductor-python, pytest, pytest-asyncio)
#
# Baton gets a free 127.0.0.1 port, a fresh data dir, auth on with a generated admin key the SDK signs in
# with (SDK_SUITES_AUTH=off to run without), HTTP tasks allowed to 127.0.0.1 only. HTTP tasks of the suites
# call a stand-in httpbin on 127.0.0.1:8081 (scripts/sdk-suites/httpbin.js); the Python suite's fixed
# off-machine URLs are rewritten to it in a temporary copy. Nothing is fetched; nothing leaves loopback.
# Extra arguments go to jest / pytest. Output: the runner's own, and its log under $SDK_SUITES_OUT (/tmp).
set -euo pipefail

kind="${1:?usage: run.sh js|python <sdk checkout> [runner args]}"
sdk="$(cd "${2:?usage: run.sh js|python <sdk checkout> [runner args]}" && pwd)"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${SDK_SUITES_OUT:-/tmp}"
work="$(mktemp -d "${TMPDIR:-/tmp}/baton-sdk-suite-XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

[[ -f "$root/dist/main.js" ]] || { echo "build Baton first: npm run build:server" >&2; exit 2; }
if (exec 3<>/dev/tcp/127.0.0.1/8081) 2>/dev/null; then echo "127.0.0.1:8081 is taken; the suites' httpbin must listen there" >&2; exit 2; fi

port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
url="http://127.0.0.1:$port"
key_id="sdk-suites-admin"
key_secret="$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")"
auth="${SDK_SUITES_AUTH:-on}"

node "$root/scripts/sdk-suites/httpbin.js" 8081 & pids+=($!)
PORT="$port" BATON_BIND=127.0.0.1 BATON_DATA_DIR="$work/data" BATON_HTTP_TASK_ALLOW=127.0.0.1 BATON_HTTP_TASK_ALLOW_ONLY=true BATON_AUTH="$auth" \
  BATON_ADMIN_KEY_ID="$key_id" BATON_ADMIN_KEY_SECRET="$key_secret" LOG_LEVEL=warn \
  node "$root/dist/main.js" >"$out/baton-sdk-suite-$kind.server.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do curl -sf "$url/health" >/dev/null && break; sleep 0.2; done
curl -sf "$url/health" >/dev/null || { echo "Baton did not start; see $out/baton-sdk-suite-$kind.server.log" >&2; exit 1; }

unset CONDUCTOR_SERVER_URL CONDUCTOR_AUTH_KEY CONDUCTOR_AUTH_SECRET
if [[ "$auth" == on ]]; then export CONDUCTOR_AUTH_KEY="$key_id" CONDUCTOR_AUTH_SECRET="$key_secret"; fi
log="$out/baton-sdk-suite-$kind.log"
echo "Baton at $url (auth $auth); log $log"

case "$kind" in
  js)
    # The OSS job's settings with the Orkes-only gates open (the SDK's CONDUCTOR_OSS_UNGATE switch).
    cd "$sdk"
    CONDUCTOR_SERVER_URL="$url" CONDUCTOR_SERVER_TYPE=oss CONDUCTOR_OSS_UNGATE=1 ORKES_BACKEND_VERSION=5 \
      HTTPBIN_SERVICE_HOSTNAME=127.0.0.1 CONDUCTOR_TEST_SERVICE_URI=http://127.0.0.1:8081/api-docs CONDUCTOR_REQUEST_TIMEOUT_MS=120000 \
      npx jest --force-exit --ci --runInBand --testTimeout=120000 --testMatch='**/src/integration-tests/*.test.[jt]s?(x)' "$@" 2>&1 | tee "$log"
    ;;
  python)
    # A copy whose HTTP tasks call the stand-in instead of http://httpbin:8081 and orkes-api-tester.orkesconductor.com.
    cp -r "$sdk" "$work/sdk"
    grep -rlE 'httpbin:8081|orkes-api-tester\.orkesconductor\.com' "$work/sdk/tests" | xargs -r sed -i -E \
      -e 's#http://httpbin:8081#http://127.0.0.1:8081#g' -e 's#https://orkes-api-tester\.orkesconductor\.com#http://127.0.0.1:8081#g'
    cd "$work/sdk"
    # The SDK's own runner, every bucket; it leaves out the AI/agent tests (they need an LLM-enabled server).
    CONDUCTOR_SERVER_URL="$url/api" PATH="$(dirname "${SDK_PYTHON:-$(command -v python3)}"):$PATH" \
      ./scripts/run_integration_tests.sh --bucket=all -p no:cacheprovider -q -rfE --tb=short "$@" 2>&1 | tee "$log"
    ;;
  *) echo "unknown suite $kind (js or python)" >&2; exit 2 ;;
esac
