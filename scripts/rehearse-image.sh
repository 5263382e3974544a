#!/usr/bin/env bash
# Rehearses the Dockerfile without a Docker engine: runs the build stage's commands on the same
# files in a scratch directory, copies only what the runtime stage copies, then starts that tree
# the way the image does (NODE_ENV=production, node dist/main.js), probes it with the image's
# HEALTHCHECK command, runs one workflow, and stops it with SIGTERM as Kubernetes would.
# It proves the runtime needs no devDependency and no file outside the copied set; it does not
# prove the base image (Node 22 here would be whatever `node` is on this machine).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=

echo "build stage in $work/build"
mkdir -p "$work/build"
cp package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json "$work/build/"
cp -r src "$work/build/src"
cp -r ui "$work/build/ui"
mkdir -p "$work/build/scripts" && cp -r scripts/build "$work/build/scripts/build"
(cd "$work/build" && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent && npm prune --omit=dev --loglevel=error && rm -f dist/.tsbuildinfo)

echo "runtime stage in $work/app"
mkdir -p "$work/app" "$work/data"
cp "$work/build/package.json" "$work/app/"
cp -r "$work/build/node_modules" "$work/build/dist" "$work/app/"
cp -r "$root/migrations" "$work/app/migrations"
if [ -d "$work/app/node_modules/typescript" ] || [ -d "$work/app/node_modules/jest" ]; then
  echo "FAIL: devDependencies survived npm prune --omit=dev" >&2
  exit 1
fi

port=$((20000 + RANDOM % 20000))
(cd "$work/app" && NODE_ENV=production PORT=$port BATON_BIND=0.0.0.0 BATON_ADMIN_KEY_ID=rehearsal BATON_ADMIN_KEY_SECRET=rehearsal-secret-0123456789 BATON_DATA_DIR="$work/data" LOG_LEVEL=warn exec node dist/main.js) &
pid=$!

# The image's HEALTHCHECK, verbatim, retried while the server starts.
healthy=0
for _ in $(seq 1 100); do
  if PORT=$port node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
    healthy=1
    break
  fi
  sleep 0.2
done
[ "$healthy" = 1 ] || { echo "FAIL: HEALTHCHECK never passed" >&2; exit 1; }
echo "HEALTHCHECK passed"

base="http://127.0.0.1:$port"
node - "$base" <<'EOF'
const base = process.argv[2];
let token;
const call = async (method, path, body) => {
  const headers = { 'content-type': 'application/json', ...(token ? { 'x-authorization': token } : {}) };
  const r = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok && r.status !== 204) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? (r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) : undefined;
};
(async () => {
  // The image listens beyond loopback, so auth is on: sign in with the admin key it was given.
  ({ token } = await call('POST', '/api/token', { keyId: 'rehearsal', keySecret: 'rehearsal-secret-0123456789' }));
  await call('POST', '/api/metadata/workflowdef', { name: 'rehearsal', version: 1, schemaVersion: 2, tasks: [{ name: 'rehearsal_task', taskReferenceName: 't' }] });
  const id = await call('POST', '/api/workflow', { name: 'rehearsal', input: { n: 1 } });
  let task;
  for (let i = 0; i < 50 && !task; i++) [task] = await call('GET', '/api/tasks/poll/batch/rehearsal_task?count=1&timeout=200');
  if (!task) throw new Error('no task handed out');
  await call('POST', '/api/tasks', { workflowInstanceId: id, taskId: task.taskId, status: 'COMPLETED', outputData: { ok: true } });
  for (let i = 0; i < 50; i++) {
    const wf = await call('GET', `/api/workflow/${id}`);
    if (wf.status === 'COMPLETED') return console.log(`workflow ${id} COMPLETED`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('workflow did not complete');
})().catch((e) => {
  console.error(`FAIL: ${e.message}`);
  process.exit(1);
});
EOF

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" = 0 ] || { echo "FAIL: exit status $status after SIGTERM" >&2; exit 1; }
pid=
echo "SIGTERM: clean exit; the runtime tree is $(du -sh "$work/app" | cut -f1)"
echo "image rehearsal passed"
