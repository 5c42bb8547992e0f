#!/bin/bash
# Bring up a REAL Backend.AI 23.09.10 stack on 127.0.0.1 for bai-slurm's integration tests:
# PostgreSQL, Redis, etcd, manager, storage-proxy and a Docker agent that runs batch sessions
# in containers of the job image (image/Dockerfile, built from Debian packages by build-image.sh).
#
#   ci/backendai/up.sh         bring it up (or check it is up); print endpoint and keys
#   ci/backendai/up.sh -q      quiet: print nothing unless it fails (then the log's tail)
#   . ci/backendai/env.sh      export BACKEND_ENDPOINT, keys, image for clients and tests
#   ci/backendai/down.sh       stop it (PURGE_STATE=1: also delete all state)
#
# Idempotent: when everything already runs and the agent is ALIVE it returns in about a second;
# otherwise it skips finished steps (packages, venv, image, schema) and starts only what is not
# running. Needs Debian 12, root, Python 3.11, and the Debian and PyPI package mirrors; installs
# docker.io and starts dockerd itself when no Docker engine runs (there is no init system here).
#
# Environment:
#   BAI_STATE         runtime dir: data, venv, configs, logs, pid files   (/tmp/bai-stack)
#   BAI_VENV          Python venv for the Backend.AI packages              ($BAI_STATE/venv)
#   PYTHON            interpreter for the venv                             (python3.11)
#   BAI_IMAGE         job image name, registered as a local image          (local/bai-batch:bookworm)
#   BAI_LAUNCHER_BIN  a bai-slurm binary to bake into the image as /opt/bai-slurm/bin/bai-slurm
#                     (a static musl build runs in any image; a glibc build runs in this one)
#   BAI_KERNEL_UID/GID  uid/gid the jobs run as                            (1000/1000; -1 = root)
#   BAI_EXTRA_IMAGES  more local Docker images to register
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
FILES=$HERE/files
QUIET=0
case ${1:-} in -q|--quiet) QUIET=1 ;; "") ;; *) echo "usage: $0 [-q|--quiet]" >&2; exit 2 ;; esac
# shellcheck source=env.sh
. "$HERE/env.sh"                           # ports, keys, image name, BAI_STATE
STATE=$BAI_STATE
VENV=${BAI_VENV:-$STATE/venv}
PY=${PYTHON:-python3.11}
IMG=$BAI_IMAGE
PG_PORT=8100 REDIS_PORT=8111 ETCD_PORT=8120 ETCD_PEER=8320 MGR_PORT=8081
AGENT_RPC=6001 AGENT_SOCK=6007 SP_CLIENT=6021 SP_MANAGER=6022
BAI_KERNEL_UID=${BAI_KERNEL_UID:-1000} BAI_KERNEL_GID=${BAI_KERNEL_GID:-1000}
export DEBIAN_FRONTEND=noninteractive
[ "$(id -u)" = 0 ] || { echo "up.sh: must run as root (it installs packages and runs dockerd)" >&2; exit 1; }
mkdir -p "$STATE"/{logs,run}; chmod 755 "$STATE"

if [ $QUIET = 1 ]; then   # everything to the log; on failure show its tail
  REPORT_FD=3; exec 3>&2 >"$STATE/logs/up.log" 2>&1
  trap 'rc=$?; if [ $rc != 0 ]; then echo "ci/backendai/up.sh failed (exit $rc); last lines of $STATE/logs/up.log:" >&3; tail -40 "$STATE/logs/up.log" >&3; fi' EXIT
fi

T0=$(date +%s); TP=$T0
phase() { local now; now=$(date +%s); printf '%-28s %4ss (total %4ss)\n' "$1" $((now-TP)) $((now-T0)) | tee -a "$STATE/timings.txt"; TP=$now; }
# alive PIDFILE [NAME]: the recorded process runs (and, with NAME, its command line mentions NAME,
# so a pid reused after a reboot or a killed session is not mistaken for our server)
alive() {
  local pid; [ -f "$1" ] || return 1; pid=$(cat "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  [ -z "${2:-}" ] || tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "$2"; }
wait_port() { # host port timeout
  for _ in $(seq 1 "$3"); do (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0; sleep 1; done
  echo "timeout waiting for $1:$2" >&2; return 1; }
start_bg() { # name match pidfile cwd cmd... : start detached in its own session, record its PID
  local name=$1 match=$2 pidf=$3 cwd=$4; shift 4
  if alive "$pidf" "$match"; then echo "$name already running (pid $(cat "$pidf"))"; return 0; fi
  rm -f "$pidf"
  # (the log of the server's previous run is kept beside, for whoever asks why it stopped)
  [ ! -s "$STATE/logs/$name.out" ] || mv -f "$STATE/logs/$name.out" "$STATE/logs/$name.out.1"
  # the exec'd server keeps the PID written here, which is also its process-group id (down.sh
  # signals the group, so worker processes go too)
  (cd "$cwd" && setsid bash -c 'echo $$ > "$0"; exec "$@"' "$pidf" "$@" >"$STATE/logs/$name.out" 2>&1 < /dev/null &)
  for _ in $(seq 1 50); do [ -s "$pidf" ] && break; sleep 0.1; done
  echo "$name started (pid $(cat "$pidf"))"; }
# what each server's /proc/PID/cmdline shows (Backend.AI's servers retitle themselves "backend.ai: <name>")
M_MGR='backend.ai: manager|ai.backend.manager' M_SP='backend.ai: storage-proxy|ai.backend.storage' M_AGENT='backend.ai: agent|ai.backend.agent'
pg_running() { [ -f "$STATE/pgdata/postmaster.pid" ] && alive "$STATE/run/postgres.pid" postgres; }
services_running() {
  pg_running && alive "$STATE/run/redis.pid" redis-server && alive "$STATE/run/etcd.pid" etcd \
    && alive "$STATE/run/manager.pid" "$M_MGR" && alive "$STATE/run/storage-proxy.pid" "$M_SP" \
    && alive "$STATE/run/agent.pid" "$M_AGENT"; }
# agent_alive: the manager lists an ALIVE agent AND that agent's last heartbeat (redis db 2, hash
# agent.last_seen, written by the manager) is newer than the agent process: the DB status alone
# can be stale after a restart.
agent_alive() {
  local out seen
  out=$(BACKEND_ACCESS_KEY=$BAI_ADMIN_ACCESS_KEY BACKEND_SECRET_KEY=$BAI_ADMIN_SECRET_KEY "$VENV/bin/python" "$HERE/bai_req.py" \
        POST /admin/gql '{"query":"{ agent_list(limit:10, offset:0, status:\"ALIVE\") { total_count items { id status addr available_slots } } }"}' 2>/dev/null) || return 1
  seen=$(redis-cli -h 127.0.0.1 -p $REDIS_PORT -n 2 hvals agent.last_seen 2>/dev/null | sort -n | tail -1 | cut -d. -f1)
  echo "$out" | grep -q '"status": "ALIVE"' && [ "${seen:-0}" -ge "$(stat -c %Y "$STATE/run/agent.pid")" ] || return 1
  echo "$out" | tail -1; }
image_stamp_ok() { BAI_IMAGE=$IMG "$HERE/build-image.sh" --check >/dev/null 2>&1; }
banner() {
  [ $QUIET = 1 ] && return 0
  cat <<EOF
Backend.AI stack is up (manager 23.09.10, API v7.20230615).
  BACKEND_ENDPOINT=$BACKEND_ENDPOINT
  BACKEND_ACCESS_KEY=$BACKEND_ACCESS_KEY          (user@lablup.com, normal user)
  BACKEND_SECRET_KEY=$BACKEND_SECRET_KEY
  BAI_ADMIN_ACCESS_KEY=$BAI_ADMIN_ACCESS_KEY         (admin@lablup.com, superadmin)
  BAI_ADMIN_SECRET_KEY=$BAI_ADMIN_SECRET_KEY
  image: $IMG   scaling group: $BAI_SCALING_GROUP   storage host: local:volume1
  use: . $HERE/env.sh
EOF
}

# ---------------------------------------------------------------- 0. fast path: already up
if command -v docker >/dev/null && docker info >/dev/null 2>&1 && [ -x "$VENV/bin/python" ] \
   && services_running && image_stamp_ok && agent_alive >/dev/null; then
  echo "stack already up"; banner; exit 0
fi
. "$HERE/servers.sh"
report_gone "manager:$M_MGR" "storage-proxy:$M_SP" "agent:$M_AGENT" redis:redis-server etcd:etcd
echo "=== up.sh $(date -u +%FT%TZ)" >> "$STATE/timings.txt"

# ---------------------------------------------------------------- 1. Debian packages, dockerd
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  for i in $(seq 1 30); do   # refresh the lists once; wait while another apt/dpkg holds the lock
    if [ "$i" = 1 ]; then apt-get update -qq || true; fi
    if apt-get install -y -qq --no-install-recommends "${missing[@]}"; then return 0; fi
    sleep 10
  done; return 1; }
# keep package postinst scripts from starting system-wide postgres/redis/etcd/docker (we run our own)
POLICY_RC=/usr/sbin/policy-rc.d; OWN_POLICY=0
if [ ! -e $POLICY_RC ]; then printf '#!/bin/sh\nexit 101\n' > $POLICY_RC; chmod +x $POLICY_RC; OWN_POLICY=1; fi
cleanup_policy() { if [ $OWN_POLICY = 1 ]; then rm -f $POLICY_RC; OWN_POLICY=0; fi; }
if [ $QUIET = 1 ]; then
  trap 'rc=$?; cleanup_policy; if [ $rc != 0 ]; then echo "ci/backendai/up.sh failed (exit $rc); last lines of $STATE/logs/up.log:" >&3; tail -40 "$STATE/logs/up.log" >&3; fi' EXIT
else
  trap cleanup_policy EXIT
fi
apt_install postgresql redis-server redis-tools etcd-server etcd-client debootstrap ca-certificates iptables
# A docker CLI alone is not enough (some images ship only the client): we need the engine.
command -v dockerd >/dev/null || apt_install docker.io
$PY -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
cleanup_policy
# No init system in a container: start dockerd ourselves. Up to three tries: its docker0 can be
# deleted under it while it starts (another dockerd's start-up did that once, see
# ci/backendai26/up.sh), and it then exits at once; a second start makes the bridge again.
for try in 1 2 3; do
  docker info >/dev/null 2>&1 && break
  if ! alive "$STATE/run/dockerd.pid" dockerd; then
    rm -f /var/run/docker.pid "$STATE/run/dockerd.pid"   # stale after a killed session
    [ "$try" = 1 ] || { echo "dockerd exited while starting (try $((try - 1))): $(tail -1 "$STATE/logs/dockerd.log")"; sleep 2; }
    (setsid bash -c 'echo $$ > "$0"; exec dockerd' "$STATE/run/dockerd.pid" > "$STATE/logs/dockerd.log" 2>&1 < /dev/null &)
    for _ in $(seq 1 50); do [ -s "$STATE/run/dockerd.pid" ] && break; sleep 0.1; done
  fi
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    alive "$STATE/run/dockerd.pid" dockerd || break
    sleep 1
  done
done
docker info >/dev/null 2>&1 || { echo "dockerd did not start; see $STATE/logs/dockerd.log" >&2; tail -20 "$STATE/logs/dockerd.log" >&2; exit 1; }
phase "apt + dockerd"

# ---------------------------------------------------------------- 2. Python venv (pinned to the 23.09.10 python.lock)
# Unpinned, newer yarl breaks aiohttp 3.8 ("Host '127.0.0.1:8081' cannot contain ':'").
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import ai.backend.manager.server, ai.backend.agent.server, ai.backend.storage.server' 2>/dev/null; then
  rm -rf "$VENV"
  $PY -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip==24.0 || true
  "$VENV/bin/pip" install -q -c "$FILES/constraints-23.09.10.txt" \
    backend.ai-manager==23.9.10 backend.ai-agent==23.9.10 backend.ai-storage-proxy==23.9.10 \
    backend.ai-client==23.9.10 backend.ai-krunner-static-gnu==4.1.1
fi
# Sandboxes whose root lacks CAP_SYS_RESOURCE cannot give containers the agent's hard-coded
# nofile/memlock limits: cap them (files/patch_ulimits.py; idempotent).
if ! "$VENV/bin/python" -c 'import resource as r; r.setrlimit(r.RLIMIT_NOFILE, (1048576, 1048576))' 2>/dev/null; then
  "$VENV/bin/python" "$FILES/patch_ulimits.py"
fi
phase pip

# ---------------------------------------------------------------- 3. job image
BAI_IMAGE=$IMG ROOTFS=$STATE/rootfs "$HERE/build-image.sh"
phase image

# ---------------------------------------------------------------- 4. postgres / redis / etcd
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
start_bg redis redis-server "$STATE/run/redis.pid" "$STATE" redis-server --bind 127.0.0.1 --port $REDIS_PORT --save '' --appendonly no --protected-mode yes
start_bg etcd etcd "$STATE/run/etcd.pid" "$STATE" etcd --name bai --data-dir "$STATE/etcd" \
  --listen-client-urls http://127.0.0.1:$ETCD_PORT --advertise-client-urls http://127.0.0.1:$ETCD_PORT \
  --listen-peer-urls http://127.0.0.1:$ETCD_PEER --initial-advertise-peer-urls http://127.0.0.1:$ETCD_PEER \
  --initial-cluster bai=http://127.0.0.1:$ETCD_PEER
wait_port 127.0.0.1 $PG_PORT 30; wait_port 127.0.0.1 $REDIS_PORT 30; wait_port 127.0.0.1 $ETCD_PORT 30
PSQL="psql -h 127.0.0.1 -p $PG_PORT -U postgres -v ON_ERROR_STOP=1 -qAt"
$PSQL -c "ALTER USER postgres PASSWORD 'develove'"
$PSQL -tc "SELECT 1 FROM pg_database WHERE datname='backend'" | grep -q 1 || $PSQL -c "CREATE DATABASE backend"
phase "pg/redis/etcd"

# ---------------------------------------------------------------- 5. configs
M=$STATE/manager; A=$STATE/agent; S=$STATE/storage
mkdir -p "$M/fixtures/manager" "$M/logs" "$A/logs" "$S/logs" "$STATE/vfroot/local/volume1" "$STATE/scratches" "$A/var/lib/backend.ai" "$A/tmp/backend.ai/commit"
cp "$FILES"/manager.key "$FILES"/manager.key_secret "$M/fixtures/manager/"
sed -e "s/@PG_PORT@/$PG_PORT/;s/@ETCD_PORT@/$ETCD_PORT/;s/@MGR_PORT@/$MGR_PORT/" "$FILES/manager.toml.in" > "$M/manager.toml"
sed -e "s/@PG_PORT@/$PG_PORT/" "$FILES/alembic.ini.in" > "$M/alembic.ini"
sed -e "s#@STATE@#$STATE#g;s/@ETCD_PORT@/$ETCD_PORT/;s/@AGENT_RPC@/$AGENT_RPC/;s/@AGENT_SOCK@/$AGENT_SOCK/;s/@KERNEL_UID@/${BAI_KERNEL_UID}/;s/@KERNEL_GID@/${BAI_KERNEL_GID}/" "$FILES/agent.toml.in" > "$A/agent.toml"
sed -e "s#@STATE@#$STATE#g;s/@ETCD_PORT@/$ETCD_PORT/;s/@SP_CLIENT@/$SP_CLIENT/;s/@SP_MANAGER@/$SP_MANAGER/;s/@SP_UID@/${BAI_KERNEL_UID}/;s/@SP_GID@/${BAI_KERNEL_GID}/" "$FILES/storage-proxy.toml.in" > "$S/storage-proxy.toml"
"$VENV/bin/python" "$FILES/make_configs.py" "$FILES" "$M" $REDIS_PORT $SP_CLIENT $SP_MANAGER
cp "$FILES"/example-set-user-main-access-keys.json "$FILES"/example-resource-presets.json "$FILES"/sample.etcd.redis-helper.json "$M/"
# vfolders must be writable by the container user: the storage-proxy drops to the same uid/gid as the kernels
# and makes them in the volume. Only the volume's own directories: what is inside the vfolders is their
# users' (a job directory keeps each Unix user's requests in 0700 places of their own; a chown -R at a
# restart once took alice's from her, and every change of her jobs failed with EACCES).
if [ "$BAI_KERNEL_UID" != -1 ]; then
  chown "$BAI_KERNEL_UID:$BAI_KERNEL_GID" "$STATE/vfroot" "$STATE/vfroot/local" "$STATE/vfroot/local/volume1"
fi
phase configs

# ---------------------------------------------------------------- 6. etcd config + DB schema + fixtures
MGR="$VENV/bin/backend.ai mgr"
(cd "$M"
 $MGR etcd delete --prefix config; $MGR etcd delete --prefix volumes   # replace, not merge
 $MGR etcd put-json config etcd.config.json
 $MGR etcd put-json config/redis/redis_helper_config sample.etcd.redis-helper.json
 $MGR etcd put-json volumes volumes.json
 if ! $PSQL -d backend -c "SELECT 1 FROM keypairs LIMIT 1" >/dev/null 2>&1; then
   $MGR schema oneshot
   for f in example-users.json example-keypairs.json example-set-user-main-access-keys.json example-resource-presets.json; do
     $MGR fixture populate "$f"
   done
 fi) > "$STATE/logs/bootstrap.log" 2>&1 || { tail -30 "$STATE/logs/bootstrap.log"; exit 1; }
phase "etcd/schema/fixtures"

# ---------------------------------------------------------------- 7. register the job image (is_local=true: never pulled)
for img in "$IMG" ${BAI_EXTRA_IMAGES:-}; do "$VENV/bin/python" "$FILES/register_image.py" "$img"; done > "$STATE/image.sql"
$PSQL -d backend -f "$STATE/image.sql"
phase "image row"

stop_hung "$M_MGR" "$M_AGENT" $MGR_PORT

# ---------------------------------------------------------------- 8. leftovers of a stack that was killed
# When the agent is not running (a killed session, a reboot), containers and sessions it ran
# are orphans: remove the containers, and end their sessions in the DB, so that they hold no
# CPU slots nor count against the keypair's concurrency limit in the next test run.
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
UPDATE agents SET occupied_slots=(SELECT coalesce(jsonb_object_agg(key, '0'), '{}'::jsonb) FROM jsonb_each(available_slots));
SQL
  # per-keypair concurrency counters live in redis (db 0) in 23.09
  for k in $(redis-cli -h 127.0.0.1 -p $REDIS_PORT -n 0 --scan --pattern 'keypair.*concurrency_used.*'); do
    redis-cli -h 127.0.0.1 -p $REDIS_PORT -n 0 del "$k" >/dev/null
  done
fi
phase "cleanup"

# ---------------------------------------------------------------- 9. manager, storage-proxy, agent
start_bg manager "$M_MGR" "$STATE/run/manager.pid" "$M" "$VENV/bin/python" -m ai.backend.manager.server -f "$M/manager.toml"
start_bg storage-proxy "$M_SP" "$STATE/run/storage-proxy.pid" "$S" "$VENV/bin/python" -m ai.backend.storage.server -f "$S/storage-proxy.toml"
start_bg agent "$M_AGENT" "$STATE/run/agent.pid" "$A" "$VENV/bin/python" -m ai.backend.agent.server -f "$A/agent.toml"
wait_port 127.0.0.1 $MGR_PORT 120; wait_port 127.0.0.1 $SP_MANAGER 60; wait_port 127.0.0.1 $SP_CLIENT 60
for i in $(seq 1 120); do grep -q "started handling RPC requests" "$STATE/logs/agent.out" && break
  alive "$STATE/run/agent.pid" || { echo "agent died" >&2; tail -30 "$STATE/logs/agent.out" >&2; exit 1; }; sleep 1; done
phase "start manager/sp/agent"

# ---------------------------------------------------------------- 10. wait until the agent is ALIVE
for i in $(seq 1 90); do
  agent_alive && break
  [ "$i" = 90 ] && { echo "agent did not become ALIVE; see $STATE/logs/agent.out" >&2; tail -20 "$STATE/logs/agent.out" >&2; exit 1; }
  sleep 2
done
phase "agent ALIVE"
du -sh "$STATE" /var/lib/docker 2>/dev/null | tee -a "$STATE/timings.txt"
banner
