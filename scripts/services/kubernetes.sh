#!/usr/bin/env bash
# A single-node Kubernetes built from source: kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet, kube-proxy and kubectl from k8s.io/kubernetes, etcd from go.etcd.io/etcd/server/v3, CoreDNS,
# and Dapr's Kubernetes control plane (operator, sidecar injector, sentry). The Go module proxy is
# the only way in, so everything is built here and cached by version under $BATON_CACHE_DIR.
# Not in `npm run services`' default list: name it (`npm run services -- kubernetes`).
here="$(cd "$(dirname "$0")" && pwd)"
SERVICE=kubernetes
source "$here/lib.sh"

K8S_VERSION="${BATON_K8S_VERSION:-1.37.2}"
COREDNS_VERSION="${BATON_COREDNS_VERSION:-1.14.7}"
DAPR_VERSION="${BATON_DAPR_VERSION:-1.18.2}"
KUBE_ROUTER_VERSION="${BATON_KUBE_ROUTER_VERSION:-2.1.0}"
k8s_dir="$BATON_CACHE_DIR/kubernetes-$K8S_VERSION"
coredns_dir="$BATON_CACHE_DIR/coredns-$COREDNS_VERSION"
dapr_cp_dir="$BATON_CACHE_DIR/dapr-control-plane-$DAPR_VERSION"
kube_router_dir="$BATON_CACHE_DIR/kube-router-$KUBE_ROUTER_VERSION"
# The machine is shared: builds run niced, with few parallel compiles (raise on a dedicated machine).
build_jobs="${BATON_K8S_BUILD_JOBS:-1}"
K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl etcd)

# module_dir MODULE@VERSION: downloads the module into Go's module cache and prints where it was unpacked.
module_dir() {
  local json dir
  json="$(go mod download -json "$1")" || die "go mod download $1 failed"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")"
  [[ -d "$dir" ]] || die "go mod download $1 named no directory"
  printf '%s\n' "$dir"
}

niced_go() { nice -n 10 env CGO_ENABLED=0 GOFLAGS="-buildvcs=false -p=$build_jobs" go "$@"; }

all_built() {
  local b
  for b in "${K8S_BINARIES[@]}"; do [[ -x "$k8s_dir/bin/$b" ]] || return 1; done
}

# One wrapper module requiring k8s.io/kubernetes: its go.mod points the staging modules (k8s.io/api,
# client-go, ...) at ./staging, which a dependent cannot use, so each is pinned to its published
# v0.<minor>.<patch> with a replace. One `go build` of every command compiles shared packages once.
provision_k8s() {
  if all_built; then log "kubernetes $K8S_VERSION cached in $k8s_dir"; return; fi
  need_cmd go golang-go
  local work src staging minor ldflags t=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "downloading k8s.io/kubernetes@v$K8S_VERSION from the Go module proxy"
  (cd "$work" && go mod init baton-k8s-build >/dev/null 2>&1)
  src="$(cd "$work" && module_dir "k8s.io/kubernetes@v$K8S_VERSION")"
  staging="v0.${K8S_VERSION#1.}"
  minor="${K8S_VERSION#1.}"; minor="${minor%%.*}"
  {
    printf 'module baton-k8s-build\n\ngo %s\n\nrequire k8s.io/kubernetes v%s\n\n' \
      "$(sed -n 's/^go //p' "$src/go.mod")" "$K8S_VERSION"
    sed -n 's|^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*|replace \1 => \1 '"$staging"'|p' "$src/go.mod"
  } >"$work/go.mod"
  grep -q '^replace k8s.io/client-go ' "$work/go.mod" || die "no staging replaces found in k8s.io/kubernetes@v$K8S_VERSION's go.mod"
  # The blank imports only let `go mod tidy` record every command's dependencies.
  cat >"$work/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
EOF
  (cd "$work" && go mod tidy) || die "resolving the modules of k8s.io/kubernetes@v$K8S_VERSION failed"
  log "modules resolved in $((SECONDS - t)) s; building ${K8S_BINARIES[*]} (cold: see docs/kubernetes.md)"
  # What Kubernetes' release build stamps: without it servers report v0.0.0 and helm's kubeVersion checks fail.
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=v$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  mkdir -p "$work/bin"
  (cd "$work" && niced_go build -trimpath -ldflags "$ldflags" -o "$work/bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy \
    k8s.io/kubernetes/cmd/kubectl go.etcd.io/etcd/server/v3) ||
    die "building kubernetes $K8S_VERSION failed"
  # go names the etcd server binary after its module path's last element before /v3.
  mv "$work/bin/server" "$work/bin/etcd"
  rm -rf "$k8s_dir.tmp" && mkdir -p "$k8s_dir.tmp" && mv "$work/bin" "$k8s_dir.tmp/bin" &&
    cp "$work/go.mod" "$work/go.sum" "$k8s_dir.tmp/" && rm -rf "$k8s_dir" && mv "$k8s_dir.tmp" "$k8s_dir"
  log "built kubernetes $K8S_VERSION into $k8s_dir/bin in $((SECONDS - t)) s"
}

# A build's bin/ replaces the cache directory only once it is complete: an interrupted build leaves no half cache.
install_built() {
  rm -rf "$2.tmp" && mkdir -p "$2.tmp" && mv "$1" "$2.tmp/bin" && rm -rf "$2" && mv "$2.tmp" "$2"
}

# CoreDNS builds on its own: its go.mod pins other client-go and cloud SDK versions than Kubernetes'.
provision_coredns() {
  if [[ -x "$coredns_dir/bin/coredns" ]]; then log "coredns $COREDNS_VERSION cached"; return; fi
  local work src t=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building coredns $COREDNS_VERSION (the cluster DNS) from the Go module proxy; cold: see docs/kubernetes.md"
  (cd "$work" && go mod init baton-coredns-build >/dev/null 2>&1)
  src="$(cd "$work" && module_dir "github.com/coredns/coredns@v$COREDNS_VERSION")"
  mkdir -p "$work/bin"
  (cd "$src" && niced_go build -trimpath -ldflags "-s -w" -o "$work/bin/coredns" .) ||
    die "building coredns $COREDNS_VERSION failed"
  install_built "$work/bin" "$coredns_dir"
  log "built coredns $COREDNS_VERSION in $((SECONDS - t)) s"
}

# Dapr's Kubernetes control plane, from the same module and flags as daprd (scripts/services/dapr.sh),
# so the packages daprd's build compiled come from Go's build cache.
provision_dapr_control_plane() {
  if [[ -x "$dapr_cp_dir/bin/operator" && -x "$dapr_cp_dir/bin/injector" && -x "$dapr_cp_dir/bin/sentry" ]]; then
    log "dapr control plane $DAPR_VERSION cached"; return
  fi
  local work src t=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building Dapr's operator, injector and sentry $DAPR_VERSION from the Go module proxy; cold: see docs/kubernetes.md"
  (cd "$work" && go mod init baton-dapr-build >/dev/null 2>&1)
  src="$(cd "$work" && module_dir "github.com/dapr/dapr@v$DAPR_VERSION")"
  mkdir -p "$work/bin"
  (cd "$src" && nice -n 10 env GOFLAGS="-buildvcs=false -p=$build_jobs" go build -trimpath -tags stablecomponents \
    -ldflags "-X github.com/dapr/dapr/pkg/buildinfo.version=$DAPR_VERSION" -o "$work/bin/" \
    ./cmd/operator ./cmd/injector ./cmd/sentry) || die "building Dapr's control plane $DAPR_VERSION failed"
  install_built "$work/bin" "$dapr_cp_dir"
  log "built dapr operator, injector, sentry $DAPR_VERSION in $((SECONDS - t)) s"
}

# kube-router, for its network-policy controller only: the bridge CNI ignores NetworkPolicies.
# v2.1.0 is the only v2 version the Go module proxy lists.
provision_kube_router() {
  if [[ -x "$kube_router_dir/bin/kube-router" ]]; then log "kube-router $KUBE_ROUTER_VERSION cached"; return; fi
  local work src t=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building kube-router $KUBE_ROUTER_VERSION (NetworkPolicy enforcement) from the Go module proxy; cold: about 17 min on a shared 2-core machine"
  (cd "$work" && go mod init baton-kube-router-build >/dev/null 2>&1)
  src="$(cd "$work" && module_dir "github.com/cloudnativelabs/kube-router/v2@v$KUBE_ROUTER_VERSION")"
  mkdir -p "$work/bin"
  (cd "$src" && nice -n 10 env GOFLAGS="-buildvcs=false -p=$build_jobs" go build -o "$work/bin/kube-router" ./cmd/kube-router) ||
    die "building kube-router $KUBE_ROUTER_VERSION failed"
  install_built "$work/bin" "$kube_router_dir"
  log "built kube-router $KUBE_ROUTER_VERSION in $((SECONDS - t)) s"
}

# ---- the cluster ----------------------------------------------------------------------------------
# Pods and Services live in 198.18.0.0/15, the range reserved for benchmarking (RFC 2544): no real
# network uses it, and a drop rule keeps anything from it leaving the bridge, so nothing is routed off
# the machine. The node's own address is the bridge's, so pods reach the apiserver and kubelet there.
POD_CIDR=198.18.0.0/16
SERVICE_CIDR=198.19.0.0/16
NODE_IP=198.18.0.1
API_SERVICE_IP=198.19.0.1
DNS_SERVICE_IP=198.19.0.10
BRIDGE=baton0
NODE_NAME=baton-node
PAUSE_IMAGE=registry.k8s.io/pause:3.10.2
ETCD_PORT="${BATON_K8S_ETCD_PORT:-32379}"
API_PORT=6443
FW_CHAIN=BATON-K8S-FWD
# Pods reach the Cassandra and Elasticsearch that `npm run services` runs on loopback through the node
# address: a DNAT from the bridge to 127.0.0.1 (route_localnet on the bridge only).
ENGINES_CHAIN=BATON-K8S-ENGINES
HOST_ENGINE_PORTS=(9042 9200)
run="$BATON_RUN_DIR/kubernetes"
pki="$run/pki"
bin="$k8s_dir/bin"

kubectl() { "$bin/kubectl" --kubeconfig "$run/admin.kubeconfig" "$@"; }

# start_bg NAME CMD...: runs CMD detached, its log in $run/logs/NAME.log, its pid in $run/NAME.pid.
start_bg() {
  local name="$1"; shift
  pid_alive "$run/$name.pid" && { log "$name already running"; return 0; }
  setsid "$@" >>"$run/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$run/$name.pid"
}

# wait_until SECONDS WHAT CMD...: retries CMD until it succeeds.
wait_until() {
  local deadline=$((SECONDS + $1)) what="$2"; shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out waiting for $what (logs in $run/logs)"
    sleep 1
  done
}

# cert NAME CN [O] [SANS]: a key and certificate signed by the cluster CA (client and server usage).
cert() {
  local name="$1" cn="$2" org="${3:-}" sans="${4:-}" subj="/CN=$2"
  [[ -f "$pki/$name.crt" ]] && return 0
  [[ -n "$org" ]] && subj="/O=$org$subj"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$pki/$name.key" -subj "$subj" -out "$pki/$name.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=serverAuth,clientAuth"
    [[ -n "$sans" ]] && echo "subjectAltName=$sans"
  } >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 365 \
    -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}

kubeconfig() { # NAME CERT: a kubeconfig for the client certificate CERT
  local f="$run/$1.kubeconfig"
  cat >"$f" <<KC
apiVersion: v1
kind: Config
clusters:
- name: baton
  cluster: {certificate-authority: $pki/ca.crt, server: "https://$NODE_IP:$API_PORT"}
users:
- name: $1
  user: {client-certificate: $pki/$2.crt, client-key: $pki/$2.key}
contexts:
- name: baton
  context: {cluster: baton, user: $1}
current-context: baton
KC
}

make_pki() {
  mkdir -p "$pki"
  if [[ ! -f "$pki/ca.crt" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj "/CN=baton-kubernetes-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
      -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  fi
  cert apiserver kube-apiserver "" "IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert admin kubernetes-admin system:masters
  cert controller-manager system:kube-controller-manager
  cert scheduler system:kube-scheduler
  cert kube-proxy system:kube-proxy
  cert kube-router kube-router
  cert kubelet "system:node:$NODE_NAME" system:nodes "IP:$NODE_IP,DNS:$NODE_NAME"
  kubeconfig admin admin
  kubeconfig controller-manager controller-manager
  kubeconfig scheduler scheduler
  kubeconfig kube-proxy kube-proxy
  kubeconfig kube-router kube-router
  kubeconfig kubelet kubelet
}

start_control_plane() {
  start_bg etcd "$bin/etcd" --name baton --data-dir "$run/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "baton=http://127.0.0.1:$((ETCD_PORT + 1))" --log-level warn
  wait_for_port "$ETCD_PORT" 60 || die "etcd did not listen on 127.0.0.1:$ETCD_PORT (log: $run/logs/etcd.log)"
  start_bg kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port "$API_PORT" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" --client-ca-file "$pki/ca.crt" \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range "$SERVICE_CIDR" --authorization-mode Node,RBAC \
    --enable-admission-plugins NodeRestriction --allow-privileged=true --profiling=false
  wait_until 120 "kube-apiserver" kubectl get --raw /readyz
  start_bg kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$run/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$run/controller-manager.kubeconfig" --authorization-kubeconfig "$run/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/sa.key" \
    --use-service-account-credentials --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" --cluster-cidr "$POD_CIDR" --allocate-node-cidrs=false --leader-elect=false
  start_bg kube-scheduler "$bin/kube-scheduler" --kubeconfig "$run/scheduler.kubeconfig" \
    --authentication-kubeconfig "$run/scheduler.kubeconfig" --authorization-kubeconfig "$run/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false
}

# A bridge for the pods, traffic between it and any other interface dropped, and the two kernel
# switches Services need (forwarding, iptables on bridged traffic); their old values are restored by stop.
setup_network() {
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  ip addr show dev "$BRIDGE" | grep -q "inet $NODE_IP/" || ip addr add "$NODE_IP/16" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  if ! iptables -n -L "$FW_CHAIN" >/dev/null 2>&1; then
    iptables -N "$FW_CHAIN"
    iptables -A "$FW_CHAIN" -i "$BRIDGE" ! -o "$BRIDGE" -j DROP
    iptables -A "$FW_CHAIN" ! -i "$BRIDGE" -o "$BRIDGE" -j DROP
    iptables -I FORWARD 1 -j "$FW_CHAIN"
  fi
  if [[ ! -f "$run/sysctl.saved" ]]; then
    printf '%s %s\n' net.ipv4.ip_forward "$(sysctl -n net.ipv4.ip_forward)" \
      net.bridge.bridge-nf-call-iptables "$(sysctl -n net.bridge.bridge-nf-call-iptables)" >"$run/sysctl.saved"
  fi
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  sysctl -qw "net.ipv4.conf.$BRIDGE.route_localnet=1"
  if ! iptables -t nat -n -L "$ENGINES_CHAIN" >/dev/null 2>&1; then
    iptables -t nat -N "$ENGINES_CHAIN"
    local port
    for port in "${HOST_ENGINE_PORTS[@]}"; do
      iptables -t nat -A "$ENGINES_CHAIN" -p tcp --dport "$port" -j DNAT --to-destination "127.0.0.1:$port"
    done
    iptables -t nat -I PREROUTING 1 -i "$BRIDGE" -d "$NODE_IP" -j "$ENGINES_CHAIN"
  fi
  mkdir -p "$run/cni/net.d" "$run/cni/ipam"
  cat >"$run/cni/net.d/10-baton.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "baton", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$run/cni/ipam",
            "ranges": [[{"subnet": "$POD_CIDR", "rangeStart": "198.18.1.0", "gateway": "$NODE_IP"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}}]}
JSON
}

containerd_sock() { echo "$run/containerd/containerd.sock"; }
ctr_() { ctr --address "$(containerd_sock)" -n k8s.io "$@"; }

start_containerd() {
  mkdir -p "$run/containerd"
  cat >"$run/containerd/config.toml" <<TOML
version = 2
root = "$run/containerd/root"
state = "$run/containerd/state"
[grpc]
  address = "$(containerd_sock)"
[ttrpc]
  address = "$(containerd_sock).ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Machines whose root lacks CAP_SYS_RESOURCE (containers, CI sandboxes) cannot lower a process's
  # oom_score_adj; the kubelet asks -998 for every sandbox, and runc fails the pod without this clamp.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$run/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$run/containerd/runc"
TOML
  start_bg containerd containerd --config "$run/containerd/config.toml"
  wait_until 60 containerd test -S "$(containerd_sock)"
  wait_until 60 containerd ctr --address "$(containerd_sock)" version
}

# The sandbox image, from Kubernetes' own pause.c (in the k8s.io/kubernetes module), imported into containerd.
import_pause_image() {
  ctr_ images ls -q | grep -qx "$PAUSE_IMAGE" && return 0
  need_cmd gcc gcc
  need_cmd buildah buildah
  local src work c
  work="$(mktemp -d)"
  src="$(cd "$work" && go mod init pause >/dev/null 2>&1 && module_dir "k8s.io/kubernetes@v$K8S_VERSION")"
  gcc -Os -Wall -static -DVERSION="v${PAUSE_IMAGE##*:}-baton" -o "$work/pause" "$src/build/pause/linux/pause.c" ||
    die "compiling pause.c failed"
  c="$(buildah from scratch)"
  buildah copy "$c" "$work/pause" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$c"
  buildah commit -q "$c" "$PAUSE_IMAGE" >/dev/null
  buildah rm "$c" >/dev/null
  import_image "$PAUSE_IMAGE"
  rm -rf "$work"
}

# import_image NAME: copies an image from buildah's store into containerd's k8s.io namespace.
import_image() {
  local tar
  tar="$(mktemp -u).tar"
  buildah push -q "$1" "docker-archive:$tar:$1" >/dev/null || die "exporting $1 from buildah failed"
  ctr_ images import "$tar" >/dev/null || die "importing $1 into containerd failed"
  rm -f "$tar"
}

start_node() {
  mkdir -p "$run/kubelet"
  cat >"$run/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
cgroupDriver: cgroupfs
failCgroupV1: false
containerRuntimeEndpoint: unix://$(containerd_sock)
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: cluster.local
# Pods get only the cluster DNS: the host's resolvers are off the machine.
resolvConf: ""
failSwapOn: false
# No registry is reachable, so locally imported images must never be garbage-collected or evicted for.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
YAML
  start_bg kubelet "$bin/kubelet" --config "$run/kubelet.yaml" --kubeconfig "$run/kubelet.kubeconfig" \
    --root-dir "$run/kubelet" --hostname-override "$NODE_NAME" --node-ip "$NODE_IP"
  start_bg kube-proxy "$bin/kube-proxy" --kubeconfig "$run/kube-proxy.kubeconfig" --proxy-mode nftables \
    --cluster-cidr "$POD_CIDR" --hostname-override "$NODE_NAME" --nodeport-addresses "$NODE_IP/32" \
    --healthz-bind-address 127.0.0.1:10256 --metrics-bind-address 127.0.0.1:10249 --conntrack-max-per-core 0
  wait_until 120 "node $NODE_NAME Ready (kubelet log: $run/logs/kubelet.log)" \
    kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s
}

# image_from_binary NAME BINARY: a one-file image (the binary as /<name of binary>, its entrypoint), into containerd.
image_from_binary() {
  ctr_ images ls -q | grep -qx "$1" && return 0
  local c
  c="$(buildah from scratch)"
  buildah copy "$c" "$2" "/$(basename "$2")" >/dev/null
  buildah config --entrypoint "[\"/$(basename "$2")\"]" "$c"
  buildah commit -q "$c" "$1" >/dev/null
  buildah rm "$c" >/dev/null
  import_image "$1"
}

# NetworkPolicies enforced by kube-router's policy controller in the host's iptables (filter table, on
# bridged traffic); its router, service proxy and CNI stay off (the bridge CNI and kube-proxy serve those).
# The node's own traffic to pods (kubelet probes, the tests on the host) is let through by kube-router.
KUBE_ROUTER_CHAINS='KUBE-ROUTER-|KUBE-NWPLCY-|KUBE-POD-FW-'
start_network_policies() {
  [[ -x "$kube_router_dir/bin/kube-router" ]] || die "kube-router $KUBE_ROUTER_VERSION is not built: run scripts/services/kubernetes.sh provision"
  need_cmd ipset ipset
  kubectl apply -f - >/dev/null <<YAML || die "creating kube-router's RBAC failed"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: baton-kube-router}
rules:
- {apiGroups: [""], resources: [namespaces, pods, services, nodes, endpoints], verbs: [get, list, watch]}
- {apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [get, list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: baton-kube-router}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: baton-kube-router}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: kube-router}
YAML
  start_bg kube-router "$kube_router_dir/bin/kube-router" --kubeconfig "$run/kube-router.kubeconfig" \
    --run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false \
    --hostname-override "$NODE_NAME" --service-cluster-ip-range "$SERVICE_CIDR" --health-port 0 --metrics-port 0
  wait_until 60 "kube-router's policy chains (log: $run/logs/kube-router.log)" iptables -n -L KUBE-ROUTER-FORWARD
}

# The chains the node's components leave in the host's iptables: kube-router's (its own --cleanup-config
# panics without ip_vs) and the kubelet's (KUBE-FIREWALL, its canaries), in IPv4 and IPv6, then kube-router's ipsets.
KUBE_HOST_CHAINS="$KUBE_ROUTER_CHAINS|KUBE-FIREWALL|KUBE-KUBELET-CANARY|KUBE-IPTABLES-HINT"
remove_kube_chains() {
  local family table rules chains set
  for family in iptables ip6tables; do
    for table in filter nat mangle raw; do
      rules="$("$family-save" -t "$table" 2>/dev/null)" || continue
      chains="$(grep -oE "^:($KUBE_HOST_CHAINS)[^ ]*" <<<"$rules" | cut -c2- || true)"
      [[ -n "$chains" ]] || continue
      {
        echo "*$table"
        # Jumps into these chains from the built-in ones go first, then the chains themselves.
        grep -E "^-A [A-Z]+ .*-j ($KUBE_HOST_CHAINS)" <<<"$rules" | sed 's/^-A /-D /' || true
        sed 's/^/-F /' <<<"$chains"
        sed 's/^/-X /' <<<"$chains"
        echo COMMIT
      } | "$family-restore" --noflush || log "removing the Kubernetes chains of $family's $table table failed"
    done
  done
  for set in $(ipset list -n 2>/dev/null | grep -E '^(inet6:)?(KUBE-|kube-router-)' || true); do
    ipset destroy "$set" 2>/dev/null || log "ipset $set could not be destroyed"
  done
}

# CoreDNS as the cluster DNS, answering only for cluster.local: there is no upstream to forward to.
start_dns() {
  local image="registry.k8s.io/coredns/coredns:v$COREDNS_VERSION"
  image_from_binary "$image" "$coredns_dir/bin/coredns"
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  Corefile: |
    .:53 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      containers:
      - name: coredns
        image: $image
        imagePullPolicy: Never
        args: [-conf, /etc/coredns/Corefile]
        volumeMounts: [{name: config, mountPath: /etc/coredns, readOnly: true}]
        ports:
        - {name: dns, containerPort: 53, protocol: UDP}
        - {name: dns-tcp, containerPort: 53, protocol: TCP}
        livenessProbe: {httpGet: {path: /health, port: 8080}}
        readinessProbe: {httpGet: {path: /ready, port: 8181}}
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $DNS_SERVICE_IP
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, protocol: UDP}
  - {name: dns-tcp, port: 53, protocol: TCP}
YAML
  wait_until 180 "CoreDNS ready" kubectl -n kube-system rollout status deployment/coredns --timeout=5s
}

# Dapr with its own Helm chart (from the same module daprd is built from), mTLS on as in production,
# its images the locally assembled ones. The scheduler's StatefulSet claims volumes and this cluster has
# no provisioner, so each claim gets a hostPath PersistentVolume under the run directory.
install_dapr() {
  local helm="$BATON_CACHE_DIR/helm-3.22.0/bin/helm" chart i t=$SECONDS
  [[ -x "$helm" ]] || die "helm is not provisioned: npm run services -- helm"
  chart="$(module_dir "github.com/dapr/dapr@v$DAPR_VERSION")/charts/dapr"
  bash "$here/kubernetes-images.sh" dapr || die "Dapr's images could not be assembled"
  for i in 0 1 2; do
    mkdir -p "$run/volumes/dapr-scheduler-$i" && chmod 0777 "$run/volumes/dapr-scheduler-$i"
    kubectl apply -f - >/dev/null <<YAML || die "creating the scheduler's volume $i failed"
apiVersion: v1
kind: PersistentVolume
metadata: {name: dapr-scheduler-$i}
spec:
  capacity: {storage: 16Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  hostPath: {path: $run/volumes/dapr-scheduler-$i, type: Directory}
  claimRef: {namespace: dapr-system, name: dapr-scheduler-data-dir-dapr-scheduler-server-$i}
YAML
  done
  KUBECONFIG="$run/admin.kubeconfig" "$helm" upgrade --install dapr "$chart" --namespace dapr-system --create-namespace \
    --set global.registry=ghcr.io/dapr --set global.tag="$DAPR_VERSION" --set global.imagePullPolicy=Never \
    --set global.mtls.enabled=true --wait --timeout 10m >"$run/logs/helm-dapr.log" 2>&1 ||
    die "helm install of Dapr failed: $(tail -3 "$run/logs/helm-dapr.log") (log: $run/logs/helm-dapr.log)"
  log "Dapr $DAPR_VERSION installed with its Helm chart in $((SECONDS - t)) s"
}

start_cluster() {
  all_built || die "kubernetes $K8S_VERSION is not built: run scripts/services/kubernetes.sh provision"
  need_cmd containerd containerd
  need_cmd runc runc
  [[ -x /usr/lib/cni/bridge ]] || need_cmd /usr/lib/cni/bridge containernetworking-plugins
  need_cmd nft nftables
  need_cmd conntrack conntrack
  need_cmd buildah buildah
  local t=$SECONDS
  # A run that ended without --stop (its session or CI run ended mid-way) leaves its etcd behind, and a
  # cluster started on it inherits that run's half-done Helm release ("another operation is in progress").
  if [[ -d "$run" ]] && ! { pid_alive "$run/etcd.pid" && pid_alive "$run/kube-apiserver.pid"; }; then
    log "clearing what a run that was not stopped left in $run"
    stop_cluster
  fi
  mkdir -p "$run/logs"
  make_pki
  setup_network
  start_control_plane
  log "control plane up in $((SECONDS - t)) s"
  start_containerd
  import_pause_image
  start_node
  log "node $NODE_NAME Ready in $((SECONDS - t)) s"
  start_network_policies
  log "NetworkPolicies enforced (kube-router $KUBE_ROUTER_VERSION) in $((SECONDS - t)) s"
  start_dns
  log "cluster DNS ready in $((SECONDS - t)) s"
  # Pods run the Dockerfile's base image with imagePullPolicy Never: assembled once, imported each start.
  bash "$here/kubernetes-images.sh" node-base || die "the node base image could not be imported"
  bash "$here/kubernetes-images.sh" redis || die "the Redis image could not be imported"
  install_dapr
  write_env kubernetes "BATON_KUBECONFIG=$run/admin.kubeconfig" "BATON_KUBECTL_BIN=$bin/kubectl" \
    "BATON_K8S_VERSION=$K8S_VERSION" "BATON_K8S_CONTAINERD_SOCK=$(containerd_sock)"
}

# Everything start made, in reverse: pods (so the kubelet removes their sandboxes and network
# namespaces through CNI), the processes, leftover containers and namespaces, mounts, rules, the bridge.
stop_cluster() {
  rm -f "$BATON_RUN_DIR/kubernetes.env"
  [[ -d "$run" ]] || return 0
  if pid_alive "$run/kubelet.pid" && pid_alive "$run/kube-apiserver.pid"; then
    stop_pid "$run/kube-controller-manager.pid"
    stop_pid "$run/kube-scheduler.pid"
    kubectl delete pods --all -A --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
    local deadline=$((SECONDS + 60))
    while ((SECONDS < deadline)) && [[ -n "$(ctr_ tasks ls -q 2>/dev/null)" ]]; do sleep 1; done
  fi
  stop_pid "$run/kubelet.pid"
  stop_pid "$run/kube-router.pid"
  stop_pid "$run/kube-proxy.pid"
  stop_pid "$run/kube-controller-manager.pid"
  stop_pid "$run/kube-scheduler.pid"
  stop_pid "$run/kube-apiserver.pid"
  stop_pid "$run/etcd.pid"
  local netns=() id ns pid
  if pid_alive "$run/containerd.pid"; then
    for id in $(ctr_ containers ls -q 2>/dev/null); do
      ns="$(ctr_ containers info "$id" 2>/dev/null | sed -n 's|.*"path": "\(/var/run/netns/cni-[^"]*\)".*|\1|p' | head -1)"
      [[ -n "$ns" ]] && netns+=("$ns")
      ctr_ tasks kill -s KILL "$id" >/dev/null 2>&1 || true
      ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true
      ctr_ containers delete "$id" >/dev/null 2>&1 || true
    done
  fi
  stop_pid "$run/containerd.pid"
  # Shims outlive containerd by design; only ours name our socket.
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $(containerd_sock)" || true); do kill -KILL "$pid" 2>/dev/null || true; done
  for ns in "${netns[@]}"; do umount "$ns" 2>/dev/null || true; rm -f "$ns"; done
  remove_kube_chains
  nft delete table ip kube-proxy 2>/dev/null || true
  nft delete table ip6 kube-proxy 2>/dev/null || true
  local m
  for m in $(awk -v r="$run" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do umount -l "$m" 2>/dev/null || true; done
  if iptables -t nat -n -L "$ENGINES_CHAIN" >/dev/null 2>&1; then
    iptables -t nat -D PREROUTING -i "$BRIDGE" -d "$NODE_IP" -j "$ENGINES_CHAIN" 2>/dev/null || true
    iptables -t nat -F "$ENGINES_CHAIN" && iptables -t nat -X "$ENGINES_CHAIN"
  fi
  if iptables -n -L "$FW_CHAIN" >/dev/null 2>&1; then
    iptables -D FORWARD -j "$FW_CHAIN" 2>/dev/null || true
    iptables -F "$FW_CHAIN" && iptables -X "$FW_CHAIN"
  fi
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  if [[ -f "$run/sysctl.saved" ]]; then
    while read -r key value; do sysctl -qw "$key=$value"; done <"$run/sysctl.saved"
  fi
  rm -rf "$BATON_RUN_DIR/kubernetes-logs" && mv "$run/logs" "$BATON_RUN_DIR/kubernetes-logs" 2>/dev/null || true
  rm -rf "$run"
  log "stopped; logs of the last run in $BATON_RUN_DIR/kubernetes-logs"
}

case "${1:-}" in
  provision)
    provision_k8s
    provision_dapr_control_plane
    provision_coredns
    provision_kube_router
    ;;
  start) start_cluster ;;
  stop) stop_cluster ;;
  *) die "usage: kubernetes.sh provision|start|stop" ;;
esac
