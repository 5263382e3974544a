# syntax=docker/dockerfile:1
# Baton server image: docker build -t baton:0.1.0 .
# Two stages: the first compiles TypeScript and the native better-sqlite3 addon with the full
# toolchain, the second carries only what runs (dist/, production node_modules, package.json).

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 downloads a prebuilt addon when one matches; otherwise node-gyp compiles it,
# which needs python3, make and a C++ compiler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, so source edits reuse the cached npm ci layer.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The operator console (ui/) builds into dist/ui with the rest (scripts/build/build-ui.js).
COPY ui ./ui
COPY scripts/build ./scripts/build
RUN npm run build \
 && npm prune --omit=dev \
 && rm -f dist/.tsbuildinfo

FROM ${NODE_IMAGE} AS runtime
# Reachable from outside the container, so auth is on: give the first admin key
# (BATON_ADMIN_KEY_ID / BATON_ADMIN_KEY_SECRET) or set BATON_AUTH=off on purpose.
ENV NODE_ENV=production \
    PORT=8080 \
    BATON_BIND=0.0.0.0 \
    BATON_DATA_DIR=/data
WORKDIR /app
# Owned by root and not writable by the app user: the code cannot be changed at run time.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# CQL migrations are read at run time from /app/migrations (src/store/cassandra/migrate.ts).
COPY migrations ./migrations
# The embedded profile keeps its SQLite file here; mount a volume to keep it across containers.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
# The official image's unprivileged user (uid 1000); Kubernetes pods set runAsUser: 1000 to match.
USER node
EXPOSE 8080
# Slim images have no curl: Node's built-in fetch probes the health route.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and receives SIGTERM directly; main.ts handles it with a graceful shutdown.
CMD ["node", "dist/main.js"]
