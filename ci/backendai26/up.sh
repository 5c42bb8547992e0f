#!/bin/bash
# Bring up a REAL Backend.AI 26.9.6 stack (API v9) on 127.0.0.1 for bai-slurm's integration tests,
# next to (and independent of) the 23.09 stack of ../backendai/: own ports, own state dir, own
# PostgreSQL/Redis/etcd and OWN dockerd (own data/exec root, socket and bridge bai26br0, no iptables
# management), so neither agent sees the other's containers. The job image is the 23.09 stack's
# (../backendai/image/Dockerfile), built into this dockerd.
#
#   ci/backendai26/up.sh        bring it up (or check it is up); print endpoint and keys
#   ci/backendai26/up.sh -q     quiet: print nothing unless it fails (then the log's tail)
#   . ci/backendai26/env.sh     export BACKEND_ENDPOINT, keys, image for clients and tests
#   ci/backendai26/down.sh      stop it (PURGE_STATE=1: also delete all state)
#
# Idempotent: when everything runs and the agent is ALIVE it returns in a second or two; otherwise
# it skips finished steps and starts only what is not running. Needs Debian 12 (amd64), root and the
# Debian and PyPI package mirrors. Python 3.13 (which the 26.9 wheels need; bookworm has none) is
# Debian trixie's, unpacked beside the stack (get-python.sh: ~30 s; no build).
# Env (BAI26_*: the 23.09 scripts' BAI_* may be set in the same shell):
#   BAI26_STATE (/tmp/bai-stack-26)  BAI26_VERSION (26.9.6)  BAI26_PYTHON (a python3.13; default: get-python.sh)
#   BAI26_VENV ($BAI26_STATE/venv)   BAI26_IMAGE (local/stable/bai-batch:bookworm)
#   BAI26_KERNEL_UID/GID (1000/1000; -1 = root)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
FILES=$HERE/files
QUIET=0
case ${1:-} in -q|--quiet) QUIET=1 ;; "") ;; *) echo "usage: $0 [-q|--quiet]" >&2; exit 2 ;; esac
STATE=${BAI26_STATE:-/tmp/bai-stack-26}
VER=${BAI26_VERSION:-26.9.6}
VENV=${BAI26_VENV:-$STATE/venv}
IMG=${BAI26_IMAGE:-local/stable/bai-batch:bookworm}
PYTHON=${BAI26_PYTHON:-}
# ports (all 127.0.0.1); the 23.09 stack uses 8081 8100 8111 8120 8320 6001 6007 6021 6022 40128 30000-31000
PG_PORT=8200 REDIS_PORT=8211 ETCD_PORT=8220 ETCD_PEER=8420 MGR_PORT=8091 MGR_INTERNAL=18091
AGENT_RPC=6101 AGENT_SVC=6103 AGENT_SOCK=6107 AGENT_WATCHER=6109 AGENT_METADATA=40228
SP_CLIENT=6121 SP_MANAGER=6122 SP_INTERNAL=16123 PORT_LO=32000 PORT_HI=33000
MGR_AIOMON_TERM=38191 MGR_AIOMON_WEB=39191 AGENT_AIOMON_TERM=38291 AGENT_AIOMON_WEB=39291 SP_AIOMON_TERM=38391 SP_AIOMON_WEB=39391
# own dockerd: bridge + address pool for per-session networks (must not clash with anything on the host)
DOCKER_BRIDGE=bai26br0 DOCKER_BIP=10.225.0.1/24 DOCKER_POOL=10.225.0.0/16
AK=AKIAIOSFODNN7EXAMPLE
SK='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
BAI_KERNEL_UID=${BAI26_KERNEL_UID:-1000} BAI_KERNEL_GID=${BAI26_KERNEL_GID:-1000}
[ "$(id -u)" = 0 ] || { echo "up.sh: must run as root (it installs packages and runs dockerd)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$STATE"/{logs,run,dl}; chmod 755 "$STATE"
if [ $QUIET = 1 ]; then   # everything to the log; on failure show its tail
  REPORT_FD=3; exec 3>&2 >"$STATE/logs/up.log" 2>&1
  trap 'rc=$?; if [ $rc != 0 ]; then echo "ci/backendai26/up.sh failed (exit $rc); last lines of $STATE/logs/up.log:" >&3; tail -40 "$STATE/logs/up.log" >&3; fi' EXIT
fi
T0=$(date +%s); TP=$T0
phase() { local now; now=$(date +%s); printf '%-28s %4ss (total %4ss)\n' "$1" $((now-TP)) $((now-T0)) | tee -a "$STATE/timings.txt"; TP=$now; }
echo "=== up.sh $(date -u +%FT%TZ) version $VER" >> "$STATE/timings.txt"
# alive PIDFILE [NAME]: the recorded process runs (and, with NAME, its command line mentions NAME,
# so a pid reused after a reboot or a killed session is not mistaken for our server)
alive() {
  local pid; [ -f "$1" ] || return 1; pid=$(cat "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  [ -z "${2:-}" ] || tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "$2"; }
M_MGR='backend.ai: manager|ai.backend.manager' M_SP='backend.ai: storage-proxy|ai.backend.storage' M_AGENT='backend.ai: agent|ai.backend.agent'
export DOCKER_HOST=unix://$STATE/docker/docker.sock
agent_alive() {
  BACKEND_ENDPOINT=http://127.0.0.1:$MGR_PORT BACKEND_ACCESS_KEY=$AK BACKEND_SECRET_KEY=$SK "$VENV/bin/python" "$HERE/bai_req.py" \
    POST /admin/gql '{"query":"{ agent_list(limit:10, offset:0, status:\"ALIVE\") { total_count items { id status addr scaling_group available_slots } } }"}' 2>/dev/null \
    | grep -q '"status": "ALIVE"'; }
services_running() {
  [ -f "$STATE/pgdata/postmaster.pid" ] && alive "$STATE/run/redis.pid" redis-server && alive "$STATE/run/etcd.pid" etcd \
    && alive "$STATE/run/manager.pid" "$M_MGR" && alive "$STATE/run/storage-proxy.pid" "$M_SP" \
    && alive "$STATE/run/agent.pid" "$M_AGENT" && alive "$STATE/run/dockerd.pid" dockerd; }
banner() {
  [ $QUIET = 1 ] && return 0
  cat <<EOM
Backend.AI $VER stack is up.
  BACKEND_ENDPOINT=http://127.0.0.1:$MGR_PORT
  superadmin: $AK / $SK   (user keypair: . $HERE/env.sh)
  image: $IMG   scaling group: default   storage host: local:volume1   DOCKER_HOST=$DOCKER_HOST
EOM
}
# ---------------------------------------------------------------- 0. fast path: already up
if [ -x "$VENV/bin/python" ] && services_running && agent_alive; then
  "$HERE/host-bridge.sh"; echo "stack already up"; banner; exit 0
fi
. "$HERE/../backendai/servers.sh"
report_gone "manager:$M_MGR" "storage-proxy:$M_SP" "agent:$M_AGENT" redis:redis-server etcd:etcd dockerd:dockerd
wait_port() { # host port timeout
  for _ in $(seq 1 "$3"); do (exec 3<>/dev/tcp/$1/$2) 2>/dev/null && return 0; sleep 1; done
  echo "timeout waiting for $1:$2" >&2; return 1; }
start_bg() { # name pidfile cwd cmd... : start detached in a new session; the exec'd server's PID (= PGID) is recorded
  local name=$1 pidf=$2 cwd=$3 match; shift 3
  case $name in manager) match=$M_MGR ;; storage-proxy) match=$M_SP ;; agent) match=$M_AGENT ;;
                redis) match=redis-server ;; *) match=$name ;; esac
  if alive "$pidf" "$match"; then echo "$name already running (pid $(cat "$pidf"))"; return 0; fi
  rm -f "$pidf"
  # (the log of the server's previous run is kept beside, for whoever asks why it stopped)
  [ ! -s "$STATE/logs/$name.out" ] || mv -f "$STATE/logs/$name.out" "$STATE/logs/$name.out.1"
  (cd "$cwd" && setsid bash -c 'echo $$ > "$0"; exec "$@"' "$pidf" "$@" >"$STATE/logs/$name.out" 2>&1 < /dev/null &)
  for _ in $(seq 1 50); do [ -s "$pidf" ] && break; sleep 0.1; done
  echo "$name started (pid $(cat "$pidf"))"; }

# ---------------------------------------------------------------- 1. apt packages
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  for i in $(seq 1 30); do   # wait if apt/dpkg is locked (other installs running)
    if apt-get install -y --no-install-recommends "${missing[@]}"; then return 0; fi
    [ "$i" = 1 ] && apt-get update || true; sleep 10
  done; return 1; }
# keep package postinst scripts from starting system-wide postgres/redis/etcd/docker services (we run our own)
POLICY_RC=/usr/sbin/policy-rc.d; OWN_POLICY=0
if [ ! -e $POLICY_RC ]; then printf '#!/bin/sh\nexit 101\n' > $POLICY_RC; chmod +x $POLICY_RC; OWN_POLICY=1; fi
trap '[ $OWN_POLICY = 1 ] && rm -f $POLICY_RC' EXIT
apt_install postgresql redis-server etcd-server etcd-client debootstrap ca-certificates docker.io iptables iproute2 unzip
[ $OWN_POLICY = 1 ] && rm -f $POLICY_RC && OWN_POLICY=0
phase apt

# ---------------------------------------------------------------- 2. Python 3.13 + venv with the 26.9 wheels
if [ -z "$PYTHON" ]; then
  "$HERE/get-python.sh" "$STATE/python3.13" > "$STATE/logs/get-python.log" 2>&1 || { tail -30 "$STATE/logs/get-python.log"; exit 1; }
  PYTHON=$STATE/python3.13/usr/bin/python3.13
fi
phase "python3.13"
PKGS="backend.ai-manager==$VER backend.ai-agent==$VER backend.ai-storage-proxy==$VER backend.ai-client==$VER"
CONSTRAINTS=(); [ -f "$FILES/constraints-$VER.txt" ] && CONSTRAINTS=(-c "$FILES/constraints-$VER.txt")
if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(*(m.version(f"backend.ai-{p}") for p in ("manager","agent","storage-proxy","client")))' 2>/dev/null)" != "$VER $VER $VER $VER" ]; then
  # Debian's ensurepip looks for its wheel under /usr/share/python-wheels (the host's, bookworm's):
  # make the venv without pip and install the pip wheel that came with this interpreter
  rm -rf "$VENV"; "$PYTHON" -m venv --without-pip "$VENV"
  PIPWHL=$(ls "$(dirname "$(dirname "$PYTHON")")"/share/python-wheels/pip-*.whl 2>/dev/null | head -1 || true)
  if [ -n "$PIPWHL" ]; then "$VENV/bin/python" "$PIPWHL/pip" install -q --no-index "$PIPWHL"; else "$VENV/bin/python" -m ensurepip -q; fi
  "$VENV/bin/pip" install -q "${CONSTRAINTS[@]}" $PKGS > "$STATE/logs/pip.log" 2>&1 || { tail -30 "$STATE/logs/pip.log"; exit 1; }
fi
phase pip
# the release's own install fixtures (domain/users/keypairs/resource group/RBAC graph) ship in the backend.ai-install wheel
FIX=$STATE/fixtures-$VER
if [ ! -f "$FIX/example-users.json" ]; then
  "$VENV/bin/pip" download -q --no-deps -d "$STATE/dl" "backend.ai-install==$VER"
  rm -rf "$STATE/dl/x"; "$VENV/bin/python" -m zipfile -e "$STATE"/dl/backend_ai_install-"$VER"-*.whl "$STATE/dl/x"
  rm -rf "$FIX"; mv "$STATE/dl/x/ai/backend/install/fixtures" "$FIX"; rm -rf "$STATE/dl/x"
fi
phase fixtures-download

# ---------------------------------------------------------------- 3. own dockerd
DK=$STATE/docker; mkdir -p "$DK"
if ! ip link show "$DOCKER_BRIDGE" >/dev/null 2>&1; then
  ip link add name "$DOCKER_BRIDGE" type bridge; ip addr add "$DOCKER_BIP" dev "$DOCKER_BRIDGE"
fi
ip link set "$DOCKER_BRIDGE" up
# bridged traffic between our containers must pass the host FORWARD chain (br_netfilter + policy DROP set by
# another dockerd); our dockerd does not manage iptables, so allow exactly our own address pool
if command -v iptables >/dev/null && ! iptables -C FORWARD -s "$DOCKER_POOL" -d "$DOCKER_POOL" -m comment --comment bai-stack-26 -j ACCEPT 2>/dev/null; then
  iptables -I FORWARD -s "$DOCKER_POOL" -d "$DOCKER_POOL" -m comment --comment bai-stack-26 -j ACCEPT || true
fi
if ! docker info >/dev/null 2>&1; then
  # moby 20.10 (daemon_unix.go, initNetworkController): a dockerd started with a default address
  # pool that finds its previous "bridge" network deletes the interface named docker0, which is
  # the HOST dockerd's bridge and not ours; with both stacks starting at once, the host dockerd
  # then fails ("Failed to set link up for docker0: no such device"). Our network store holds
  # nothing worth keeping across a restart (leftover containers are removed below), so it goes.
  rm -f "$DK/root/network/files/local-kv.db"
  start_bg dockerd "$STATE/run/dockerd.pid" "$DK" dockerd --data-root "$DK/root" --exec-root "$DK/exec" \
    --host "$DOCKER_HOST" --pidfile "$DK/dockerd.pid" --bridge "$DOCKER_BRIDGE" \
    --default-address-pool "base=$DOCKER_POOL,size=24" --iptables=false --ip-masq=false --ip-forward=false
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "own dockerd did not start; see $STATE/logs/dockerd.out" >&2; tail -20 "$STATE/logs/dockerd.out" >&2; exit 1; }
fi
# the host dockerd's docker0 (the 23.09 stack's containers) must survive ours
"$HERE/host-bridge.sh"
phase dockerd

# ---------------------------------------------------------------- 4. kernel image
# registry "local" (project "stable") = this dockerd: Backend.AI image local/stable/<name>:<tag> = docker image stable/<name>:<tag>
DOCKER_TAG=${IMG#local/}
# the same job image as the 23.09 stack's (../backendai/image/Dockerfile), built into our dockerd
BAI_IMAGE=$DOCKER_TAG ROOTFS=$STATE/rootfs "$HERE/../backendai/build-image.sh" > "$STATE/logs/build-image.log" 2>&1 || { tail -30 "$STATE/logs/build-image.log"; exit 1; }
phase image

# ---------------------------------------------------------------- 5. postgres / redis / etcd
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if [ ! -f "$STATE/pgdata/PG_VERSION" ]; then
  install -d -o postgres -g postgres "$STATE/pgdata" "$STATE/pgsock"
  su postgres -c "$PGBIN/initdb -D $STATE/pgdata -U postgres --auth=trust" > "$STATE/logs/initdb.log"
fi
if ! su postgres -c "$PGBIN/pg_ctl -D $STATE/pgdata status" >/dev/null 2>&1; then
  install -d -o postgres -g postgres "$STATE/pgsock" "$STATE/pglog"
  su postgres -c "$PGBIN/pg_ctl -D $STATE/pgdata -l $STATE/pglog/postgres.log -w -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $STATE/pgsock' start"
fi
head -1 "$STATE/pgdata/postmaster.pid" > "$STATE/run/postgres.pid"
start_bg redis "$STATE/run/redis.pid" "$STATE" redis-server --bind 127.0.0.1 --port $REDIS_PORT --save '' --appendonly no --protected-mode yes
start_bg etcd "$STATE/run/etcd.pid" "$STATE" etcd --name bai26 --data-dir "$STATE/etcd" \
  --listen-client-urls http://127.0.0.1:$ETCD_PORT --advertise-client-urls http://127.0.0.1:$ETCD_PORT \
  --listen-peer-urls http://127.0.0.1:$ETCD_PEER --initial-advertise-peer-urls http://127.0.0.1:$ETCD_PEER \
  --initial-cluster bai26=http://127.0.0.1:$ETCD_PEER
wait_port 127.0.0.1 $PG_PORT 30; wait_port 127.0.0.1 $REDIS_PORT 30; wait_port 127.0.0.1 $ETCD_PORT 30
PSQL="psql -h 127.0.0.1 -p $PG_PORT -U postgres -v ON_ERROR_STOP=1 -qAt"
$PSQL -c "ALTER USER postgres PASSWORD 'develove'"
$PSQL -tc "SELECT 1 FROM pg_database WHERE datname='backend'" | grep -q 1 || $PSQL -c "CREATE DATABASE backend"
phase "pg/redis/etcd"

# ---------------------------------------------------------------- 6. configs
M=$STATE/manager; A=$STATE/agent; SPD=$STATE/storage
mkdir -p "$M/fixtures/manager" "$M/logs" "$A/logs" "$SPD/logs" "$STATE/vfroot/local/volume1" "$STATE/scratches" \
         "$A/var/lib/backend.ai" "$A/tmp/backend.ai/commit" "$STATE"/ipc/{manager,agent,storage}
echo 3 > "$STATE/vfroot/local/volume1/version.txt"
subst() { sed -e "s#@STATE@#$STATE#g;s/@PG_PORT@/$PG_PORT/g;s/@ETCD_PORT@/$ETCD_PORT/g;s/@MGR_PORT@/$MGR_PORT/g;s/@MGR_INTERNAL@/$MGR_INTERNAL/g" \
  -e "s/@AGENT_RPC@/$AGENT_RPC/g;s/@AGENT_SVC@/$AGENT_SVC/g;s/@AGENT_SOCK@/$AGENT_SOCK/g;s/@AGENT_WATCHER@/$AGENT_WATCHER/g;s/@AGENT_METADATA@/$AGENT_METADATA/g" \
  -e "s/@SP_CLIENT@/$SP_CLIENT/g;s/@SP_MANAGER@/$SP_MANAGER/g;s/@SP_INTERNAL@/$SP_INTERNAL/g;s/@PORT_LO@/$PORT_LO/g;s/@PORT_HI@/$PORT_HI/g" \
  -e "s/@MGR_AIOMON_TERM@/$MGR_AIOMON_TERM/g;s/@MGR_AIOMON_WEB@/$MGR_AIOMON_WEB/g;s/@AGENT_AIOMON_TERM@/$AGENT_AIOMON_TERM/g;s/@AGENT_AIOMON_WEB@/$AGENT_AIOMON_WEB/g" \
  -e "s/@SP_AIOMON_TERM@/$SP_AIOMON_TERM/g;s/@SP_AIOMON_WEB@/$SP_AIOMON_WEB/g" \
  -e "s/@KERNEL_UID@/$BAI_KERNEL_UID/g;s/@KERNEL_GID@/$BAI_KERNEL_GID/g;s/@SP_UID@/$BAI_KERNEL_UID/g;s/@SP_GID@/$BAI_KERNEL_GID/g" "$1"; }
subst "$FILES/manager.toml.in" > "$M/manager.toml"
subst "$FILES/alembic.ini.in" > "$M/alembic.ini"
subst "$FILES/agent.toml.in" > "$A/agent.toml"
subst "$FILES/storage-proxy.toml.in" > "$SPD/storage-proxy.toml"
if [ "$BAI_KERNEL_UID" = -1 ]; then sed -i '/^user = -1$/d;/^group = -1$/d' "$SPD/storage-proxy.toml"; fi
# etcd: the layout backend.ai-install 26.9 writes (ai/backend/install/context.py: configure_manager)
cat > "$M/etcd.volumes.json" <<JSON
{"_types": {"group": "", "user": ""}, "default_host": "local:volume1",
 "proxies": {"local": {"client_api": "http://127.0.0.1:$SP_CLIENT", "manager_api": "http://127.0.0.1:$SP_MANAGER",
                       "secret": "bai-stack-26-storage-secret", "ssl_verify": "false"}},
 "exposed_volume_info": "percentage"}
JSON
cat > "$M/etcd.config.json" <<JSON
{"api": {"allow-openapi-schema-introspection": "yes", "allow-graphql-schema-introspection": "yes"},
 "redis": {"addr": "127.0.0.1:$REDIS_PORT", "helper": {"socket_timeout": 5.0, "socket_connect_timeout": 2.0, "reconnect_poll_timeout": 0.3}}}
JSON
# vfolders must be writable by the container user: the storage-proxy drops to the same uid/gid as the kernels
# and makes them in the volume. Only the volume's own directories: what is inside the vfolders is their
# users' (a job directory keeps each Unix user's requests in 0700 places of their own; a chown -R at a
# restart once took alice's from her, and every change of her jobs failed with EACCES).
if [ "$BAI_KERNEL_UID" != -1 ]; then
  chown "$BAI_KERNEL_UID:$BAI_KERNEL_GID" "$STATE/vfroot" "$STATE/vfroot/local" "$STATE/vfroot/local/volume1"
fi
phase configs

# ---------------------------------------------------------------- 7. etcd config + DB schema + fixtures (backend.ai-install order)
MGR="$VENV/bin/backend.ai mgr"
MGRB=("$VENV/bin/python" "$FILES/mgr_batch.py")   # several mgr commands in one process (imports are slow)
"$VENV/bin/python" "$FILES/adapt_fixtures.py" "$FIX" "$M/fixtures" > "$STATE/logs/adapt-fixtures.log"
[ -f "$M/fixtures/manager/manager.key_secret" ] || KEYGEN="generate-rpc-keypair fixtures/manager manager"
# (each mgr command spends 15-60 s importing the manager: skipped when etcd already holds this config)
ETCD_STAMP=$(cat "$M/etcd.volumes.json" "$M/etcd.config.json" | sha256sum | cut -c1-16)
if [ -n "${KEYGEN:-}" ] || [ "$(cat "$STATE/run/etcd-config.stamp" 2>/dev/null)" != "$ETCD_STAMP" ]; then
  (cd "$M"
   "${MGRB[@]}" ${KEYGEN:+"$KEYGEN"} "etcd delete --prefix config" "etcd delete --prefix volumes" \
     "etcd put-json volumes etcd.volumes.json" "etcd put-json config etcd.config.json") > "$STATE/logs/bootstrap.log" 2>&1 \
     || { tail -30 "$STATE/logs/bootstrap.log"; exit 1; }
  echo "$ETCD_STAMP" > "$STATE/run/etcd-config.stamp"
fi
if [ ! -f "$STATE/run/db-bootstrapped" ]; then
  # start from an empty database (a previous run may have stopped half-way)
  $PSQL -c "DROP DATABASE IF EXISTS backend" -c "CREATE DATABASE backend"
  F=fixtures
  (cd "$M" && "${MGRB[@]}" "schema oneshot" \
     "fixture populate $F/example-users.json" "fixture populate $F/example-keypairs.json" \
     "fixture populate $F/example-resource-slot-types.json" "fixture populate $F/example-resource-presets.json" \
     "fixture populate $F/example-runtime-variants.json" "fixture populate $F/example-runtime-variant-presets.json" \
     "fixture populate $F/example-role-presets.json" "permissions provision" \
     "fixture populate $F/example-prometheus-query-preset-categories.json" "fixture populate $F/example-prometheus-query-presets.json" \
     "fixture populate $F/example-retention-policies.json" "fixture populate $F/local-container-registry.json") \
     >> "$STATE/logs/bootstrap.log" 2>&1 || { tail -30 "$STATE/logs/bootstrap.log"; echo "DB bootstrap failed; see $STATE/logs/bootstrap.log" >&2; exit 1; }
  touch "$STATE/run/db-bootstrapped"
fi
# what backend.ai-install does after the fixtures (prepare_local_vfolder_host)
PERMS='{"local:volume1": ["create-vfolder","modify-vfolder","delete-vfolder","mount-in-session","upload-file","download-file","invite-others","set-user-specific-permission"]}'
$PSQL -d backend -c "UPDATE domains SET allowed_vfolder_hosts = '$PERMS'::jsonb" -c "UPDATE groups SET allowed_vfolder_hosts = '$PERMS'::jsonb" \
      -c "UPDATE keypair_resource_policies SET allowed_vfolder_hosts = '$PERMS'::jsonb"
phase "etcd/schema/fixtures"

# ---------------------------------------------------------------- 8. register the local image (registry type "local" = scan of our dockerd)
# (skipped when the image is unchanged and registered: a rescan imports the manager, ~50 s)
IMG_ID=$(docker image inspect -f '{{.Id}}' "$DOCKER_TAG")
if [ "$(cat "$STATE/run/image-rescan.stamp" 2>/dev/null)" != "$IMG_ID" ] \
   || ! $PSQL -d backend -c "SELECT 1 FROM images WHERE name = '$IMG' AND status = 'ALIVE'" | grep -q 1; then
  (cd "$M" && "${MGRB[@]}" "image rescan local") > "$STATE/logs/image-rescan.log" 2>&1 || { tail -20 "$STATE/logs/image-rescan.log"; exit 1; }
  $PSQL -d backend -c "SELECT name, architecture, is_local, status FROM images" | tee -a "$STATE/logs/image-rescan.log"
  echo "$IMG_ID" > "$STATE/run/image-rescan.stamp"
fi
phase "image rescan"

stop_hung "$M_MGR" "$M_AGENT" $MGR_PORT

# ---------------------------------------------------------------- 9. leftovers of a stack that was killed
# When the agent is not running (a killed session, a reboot), the containers and sessions it ran
# are orphans: remove the containers and end their sessions in the DB, so that they hold no slots
# nor count against the keypair's concurrency limit (26.9 counts both from the DB).
if ! alive "$STATE/run/agent.pid" "$M_AGENT"; then
  for c in $(docker ps -aq --filter label=ai.backend.kernel-id 2>/dev/null) \
           $(docker ps -aq --filter name=backendai-socket-relay. 2>/dev/null); do
    docker rm -f "$c" >/dev/null 2>&1 && echo "removed leftover container $c"
  done
  $PSQL -d backend <<'SQL'
UPDATE kernels SET status='CANCELLED', status_info='stack-restarted', terminated_at=now()
  WHERE status NOT IN ('TERMINATED','CANCELLED','ERROR');
UPDATE sessions SET status='CANCELLED', status_info='stack-restarted', terminated_at=now()
  WHERE status NOT IN ('TERMINATED','CANCELLED','ERROR');
SQL
fi
phase cleanup

# ---------------------------------------------------------------- 10. manager, storage-proxy, agent
start_bg manager "$STATE/run/manager.pid" "$M" "$VENV/bin/python" -m ai.backend.manager.server -f "$M/manager.toml"
start_bg storage-proxy "$STATE/run/storage-proxy.pid" "$SPD" "$VENV/bin/python" -m ai.backend.storage.server -f "$SPD/storage-proxy.toml"
wait_port 127.0.0.1 $MGR_PORT 180
start_bg agent "$STATE/run/agent.pid" "$A" "$VENV/bin/python" -m ai.backend.agent.server -f "$A/agent.toml"
wait_port 127.0.0.1 $SP_MANAGER 60; wait_port 127.0.0.1 $SP_CLIENT 60
for i in $(seq 1 180); do grep -q -i "started handling RPC requests" "$STATE/logs/agent.out" && break
  alive "$STATE/run/agent.pid" || { echo "agent died" >&2; tail -30 "$STATE/logs/agent.out" >&2; exit 1; }; sleep 1; done
phase "start manager/sp/agent"

# ---------------------------------------------------------------- 11. wait until the agent is ALIVE and schedulable
for i in $(seq 1 90); do
  agent_alive && break
  [ "$i" = 90 ] && { echo "agent did not become ALIVE; see $STATE/logs/agent.out / manager.out" >&2; tail -20 "$STATE/logs/agent.out" >&2; exit 1; }
  sleep 2
done
phase "agent ALIVE"
"$HERE/host-bridge.sh"
du -sh "$STATE" 2>/dev/null | tee -a "$STATE/timings.txt"
banner
