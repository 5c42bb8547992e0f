# The servers of a test stack that an earlier up.sh started, checked before it starts
# anything: sourced by ci/backendai/up.sh and ci/backendai26/up.sh once they have defined
# STATE, REPORT_FD (the caller's stderr, even with -q), alive, wait_port and agent_alive.
# What is found gone or hung is said there with its log's end, then started again by up.sh
# (scripts/test.sh brings each stack up again before its suite: CI once found the 26.9
# manager's port refusing 30 minutes after it came up; the 23.09 agent stops sending
# heartbeats after hours of use).

say_with_log() { # name message
  { echo "up.sh: the stack's $1 $2; the end of its log:"
    tail -15 "$STATE/logs/$1.out" 2>/dev/null | sed 's/^/    /'; } >&"${REPORT_FD:-2}"; }

# report_gone NAME:MATCH...: each server whose pid file is there but whose process is not
report_gone() {
  local s n
  for s in "$@"; do
    n=${s%%:*}
    if [ -f "$STATE/run/$n.pid" ] && ! alive "$STATE/run/$n.pid" "${s#*:}"; then
      say_with_log "$n" "(pid $(cat "$STATE/run/$n.pid")) is not running"
    fi
  done; }

stop_group() { # name: stop the recorded server's process group, forget its pid
  local pid; pid=$(cat "$STATE/run/$1.pid")
  say_with_log "$1" "(pid $pid) runs but does not answer; restarting it"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$STATE/run/$1.pid"; }

# stop_hung MANAGER_MATCH AGENT_MATCH MANAGER_PORT: a manager that runs but does not take
# connections, or (the manager answering) an agent that runs but is not ALIVE within a minute
stop_hung() {
  alive "$STATE/run/manager.pid" "$1" || return 0
  if ! wait_port 127.0.0.1 "$3" 20; then
    stop_group manager
  elif alive "$STATE/run/agent.pid" "$2"; then
    local until=$((SECONDS + 60))
    while [ $SECONDS -lt $until ]; do agent_alive >/dev/null && return 0; sleep 2; done
    stop_group agent
  fi; }
