#!/usr/bin/env bash
# Real Redis (Debian's redis-server) for tests on machines without Docker.
#
#   redis.sh install            apt-get install redis-server if it is missing (apt-get update first if needed)
#   redis.sh start [--port N]   daemonized on 127.0.0.1, no persistence; prints redis://127.0.0.1:PORT on stdout
#   redis.sh stop               SHUTDOWN NOSAVE, then SIGTERM / SIGKILL if needed
#   redis.sh status             exit 0 and print "running pid=N redis://..." or exit 3
#   redis.sh url                print the running instance's URL (exit 3 if not running)
#
# --port 0 (the default) picks a free port. `start` installs Redis first if it is missing.
# Environment: REDIS_RUN_DIR (pid/log/url files, default build/redis), REDIS_START_TIMEOUT (20 s).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"
NAME=redis.sh
PROCESS=redis-server
COMMANDS="install start stop status url"
run_files "${REDIS_RUN_DIR:-$ROOT/build/redis}" redis

cmd_install() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    log "redis-server already installed ($(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'))"
    return 0
  fi
  apt_install redis-server
  log "installed $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
}

cmd_start() {
  local port=0
  read_options port "$@"
  no_rest
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  report_running && return 0
  command -v redis-server >/dev/null || cmd_install
  mkdir -p "$RUN_DIR"
  rm -f "$PIDFILE" "$URLFILE"
  local attempt p timeout="${REDIS_START_TIMEOUT:-20}"
  for attempt in 1 2 3; do
    p="$port"
    ((p != 0)) || p="$(free_port)"
    : >"$LOG"
    # No RDB snapshots, no AOF: a throw-away cache for tests.
    redis-server --bind 127.0.0.1 --port "$p" --protected-mode yes \
      --daemonize yes --pidfile "$PIDFILE" --logfile "$LOG" --dir "$RUN_DIR" \
      --save '' --appendonly no >&2 || die "redis-server failed to start; see $LOG"
    if poll "$timeout" 0.1 pong "$p"; then
      ready_at "redis://127.0.0.1:$p" "ready (pid $(cat "$PIDFILE" 2>/dev/null), log $LOG)"
      return 0
    fi
    if ((port != 0)) || ! grep -q 'Address already in use' "$LOG" 2>/dev/null; then break; fi
    log "port $p was taken; retrying with another free port"
  done
  give_up
}

# Redis on port $1 answers PING (0), not yet (1), or its log says it failed to start (2): daemonized startup
# failures (port taken, ...) only show up there.
pong() {
  [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" != PONG ]] || return 0
  ! grep -q 'Address already in use\|Failed listening' "$LOG" 2>/dev/null || return 2
  return 1
}

# SHUTDOWN NOSAVE on the port it serves, SIGTERM when it is not known.
ask_shutdown() {
  local port=""
  [[ -s "$URLFILE" ]] && port="$(sed 's/.*://' "$URLFILE")"
  if [[ -n "$port" ]]; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  else
    kill -TERM "$1" 2>/dev/null || true
  fi
}

cmd_stop() { stop_running 10 ask_shutdown force_stop; }

run_command "$@"
