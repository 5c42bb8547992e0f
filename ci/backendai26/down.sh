#!/bin/bash
# Stop what up.sh started, by PID files only (never by name). Leaves data, venv, Python and images in place.
#   down.sh            stop all services incl. the stack's own dockerd
#   down.sh agent ...  stop only the named services (agent storage-proxy manager etcd redis postgres dockerd)
#   PURGE_KERNELS=1    first remove leftover kernel containers (label ai.backend.kernel-id) from OUR dockerd
#   PURGE_STATE=1      also delete the state dir (DB, etcd, venv, built Python, docker data) and our bridge/iptables rule
set -uo pipefail
STATE=${BAI26_STATE:-/tmp/bai-stack-26}
DOCKER_BRIDGE=bai26br0 DOCKER_POOL=10.225.0.0/16
ALL="agent storage-proxy manager etcd redis postgres dockerd"
SERVICES=${*:-$ALL}
export DOCKER_HOST=unix://$STATE/docker/docker.sock
declare -A MATCH=([agent]='backend.ai: agent|ai.backend.agent' [storage-proxy]='backend.ai: storage-proxy|ai.backend.storage'
                  [manager]='backend.ai: manager|ai.backend.manager' [redis]=redis-server)
stop_pid() { # name
  local pidf=$STATE/run/$1.pid pid
  [ -f "$pidf" ] || { echo "$1: no pid file"; return 0; }
  pid=$(cat "$pidf")
  # only the process up.sh started (a pid reused after a reboot is somebody else's)
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "${MATCH[$1]:-$1}"; then
    # up.sh started each service as a session/process-group leader: signal the whole group (server + workers)
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 -- "-$pid" 2>/dev/null; then echo "$1: SIGKILL group $pid"; kill -KILL -- "-$pid"; fi
    echo "$1: stopped (pid $pid)"
  else
    echo "$1: not running"
  fi
  rm -f "$pidf"; }
for s in $SERVICES; do
  case $s in
    postgres)
      PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
      if [ -f "$STATE/pgdata/postmaster.pid" ]; then
        su postgres -c "$PGBIN/pg_ctl -D $STATE/pgdata -m fast -w stop" && echo "postgres: stopped"
      else echo "postgres: not running"; fi
      rm -f "$STATE/run/postgres.pid" ;;
    dockerd)
      if docker info >/dev/null 2>&1; then
        # the agent leaves helper containers (socket relay) running by design; all containers here are ours
        if [ "${PURGE_KERNELS:-0}" = 1 ] || [ "${PURGE_STATE:-0}" = 1 ]; then
          for c in $(docker ps -aq 2>/dev/null); do docker rm -f "$c" >/dev/null && echo "removed container $c"; done
        else
          for c in $(docker ps -aq --filter name=backendai-socket-relay. 2>/dev/null); do docker rm -f "$c" >/dev/null && echo "removed socket-relay container $c"; done
        fi
      fi
      stop_pid dockerd
      # dockerd leaves its netns bind mount (exec-root/netns/default) and possibly overlay mounts behind
      awk -v d="$STATE/docker/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done ;;
    agent)
      stop_pid agent
      if [ "${PURGE_KERNELS:-0}" = 1 ] && docker info >/dev/null 2>&1; then
        for c in $(docker ps -aq --filter label=ai.backend.kernel-id 2>/dev/null); do docker rm -f "$c" >/dev/null && echo "removed kernel container $c"; done
      fi ;;
    *) stop_pid "$s" ;;
  esac
done
if [ "${PURGE_STATE:-0}" = 1 ] && [ "$SERVICES" = "$ALL" ]; then
  iptables -D FORWARD -s "$DOCKER_POOL" -d "$DOCKER_POOL" -m comment --comment bai-stack-26 -j ACCEPT 2>/dev/null && echo "removed iptables rule"
  ip link del "$DOCKER_BRIDGE" 2>/dev/null && echo "removed bridge $DOCKER_BRIDGE"
  if [ "${KEEP_PYTHON:-0}" = 1 ] && [ -x "$STATE/python3.13/usr/bin/python3.13" ]; then
    mv "$STATE/python3.13" "$STATE.python3.13.keep"; rm -rf "$STATE"; mkdir -p "$STATE"; mv "$STATE.python3.13.keep" "$STATE/python3.13"
    echo "purged $STATE (kept python3.13)"
  else
    rm -rf "$STATE" && echo "purged $STATE"
  fi
fi
