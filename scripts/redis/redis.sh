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
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
RUN_DIR="${REDIS_RUN_DIR:-$ROOT/build/redis}"
PIDFILE="$RUN_DIR/redis.pid"
LOG="$RUN_DIR/redis.log"
URLFILE="$RUN_DIR/url"
NAME=redis.sh
PROCESS=redis-server
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"

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
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) port="${2:?--port needs a value}"; shift 2 ;;
      --port=*) port="${1#*=}"; shift ;;
      *) die "unknown argument: $1" ;;
    esac
  done
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    log "already running (pid $pid); not starting another"
    cat "$URLFILE"
    return 0
  fi
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
    local t0=$SECONDS
    while ((SECONDS - t0 < timeout)); do
      if [[ "$(redis-cli -h 127.0.0.1 -p "$p" ping 2>/dev/null)" == PONG ]]; then
        echo "redis://127.0.0.1:$p" >"$URLFILE"
        log "ready (pid $(cat "$PIDFILE" 2>/dev/null), log $LOG)"
        echo "redis://127.0.0.1:$p"
        return 0
      fi
      # Daemonized startup failures (port taken, ...) only show up in the log.
      if grep -q 'Address already in use\|Failed listening' "$LOG" 2>/dev/null; then break; fi
      sleep 0.1
    done
    if ((port != 0)) || ! grep -q 'Address already in use' "$LOG" 2>/dev/null; then break; fi
    log "port $p was taken; retrying with another free port"
  done
  log "not ready; last lines of $LOG:"
  tail -n 20 "$LOG" >&2 || true
  cmd_stop >/dev/null 2>&1 || true
  exit 1
}

cmd_stop() {
  local pid port=""
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    log "not running"
    rm -f "$PIDFILE" "$URLFILE"
    return 0
  fi
  [[ -s "$URLFILE" ]] && port="$(sed 's/.*://' "$URLFILE")"
  if [[ -n "$port" ]]; then
    redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  else
    kill -TERM "$pid" 2>/dev/null || true
  fi
  local t0=$SECONDS
  while kill -0 "$pid" 2>/dev/null && ((SECONDS - t0 < 10)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    sleep 1
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE" "$URLFILE"
  log "stopped (pid $pid)"
}

sub="${1:-}"
[[ $# -gt 0 ]] && shift
case "$sub" in
  install) cmd_install ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) cmd_url ;;
  *)
    sed -n '2,11p' "$0" >&2
    exit 2
    ;;
esac
