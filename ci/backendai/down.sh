#!/bin/bash
# Stop what up.sh started, by its pid files only. Keeps data, venv, images and dockerd by
# default, so the next up.sh is a warm start (about 20 s).
#   down.sh              stop all services
#   down.sh agent ...    stop only the named ones (agent storage-proxy manager etcd redis postgres dockerd)
#   PURGE_KERNELS=1      also remove leftover kernel containers (label ai.backend.kernel-id)
#   PURGE_STATE=1        also delete $BAI_STATE (DB, etcd, venv, configs, vfolders): next up.sh starts from scratch
#   PURGE_DOCKER=1       also remove the job image, the rootfs image and the krunner volumes, and
#                        stop the dockerd that up.sh started (with PURGE_STATE=1: a cold start)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
. "$HERE/env.sh"
STATE=$BAI_STATE
ALL="agent storage-proxy manager etcd redis postgres"
SERVICES=${*:-$ALL}
# what each server's /proc/PID/cmdline shows (Backend.AI's servers retitle themselves "backend.ai: <name>")
declare -A MATCH=([agent]='backend.ai: agent|ai.backend.agent' [storage-proxy]='backend.ai: storage-proxy|ai.backend.storage' [manager]='backend.ai: manager|ai.backend.manager'
                  [etcd]=etcd [redis]=redis-server [dockerd]=dockerd)
stop_pid() { # name
  local pidf=$STATE/run/$1.pid pid
  [ -f "$pidf" ] || { echo "$1: not running (no pid file)"; return 0; }
  pid=$(cat "$pidf")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "${MATCH[$1]}"; then
    # up.sh started each service as a session/process-group leader: signal the whole group (server + workers)
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 -- "-$pid" 2>/dev/null; then echo "$1: SIGKILL group $pid"; kill -KILL -- "-$pid"; fi
    echo "$1: stopped (pid $pid)"
  else
    echo "$1: not running"
  fi
  rm -f "$pidf"; }
for s in $SERVICES; do
  case $s in
    postgres)
      PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
      if [ -n "$PGBIN" ] && [ -f "$STATE/pgdata/postmaster.pid" ] && su postgres -c "$PGBIN/pg_ctl -D $STATE/pgdata status" >/dev/null 2>&1; then
        su postgres -c "$PGBIN/pg_ctl -D $STATE/pgdata -m fast -w stop" >/dev/null && echo "postgres: stopped"
      else echo "postgres: not running"; fi
      rm -f "$STATE/run/postgres.pid" ;;
    agent|storage-proxy|manager|etcd|redis|dockerd) stop_pid "$s" ;;
    *) echo "down.sh: unknown service $s" >&2; exit 2 ;;
  esac
done
have_docker() { command -v docker >/dev/null && docker info >/dev/null 2>&1; }
# the agent leaves its socket-relay helper container running by design; remove it (name prefix is the agent's)
if [[ " $SERVICES " == *" agent "* ]] && have_docker; then
  for c in $(docker ps -aq --filter name=backendai-socket-relay.); do docker rm -f "$c" >/dev/null && echo "removed socket-relay container $c"; done
  if [ "${PURGE_KERNELS:-0}" = 1 ] || [ "${PURGE_DOCKER:-0}" = 1 ]; then
    for c in $(docker ps -aq --filter label=ai.backend.kernel-id); do docker rm -f "$c" >/dev/null && echo "removed kernel container $c"; done
  fi
fi
if [ "${PURGE_DOCKER:-0}" = 1 ] && have_docker; then
  docker rmi -f "$BAI_IMAGE" bai-bookworm-rootfs:12 >/dev/null 2>&1 && echo "removed images $BAI_IMAGE bai-bookworm-rootfs:12"
  for v in $(docker volume ls -q --filter name=backendai-krunner.); do docker volume rm -f "$v" >/dev/null && echo "removed volume $v"; done
  docker image prune -f >/dev/null 2>&1 || true
  stop_pid dockerd
fi
if [ "${PURGE_STATE:-0}" = 1 ] && [ "$SERVICES" = "$ALL" ]; then
  rm -rf "$STATE" && echo "purged $STATE"
fi
exit 0
