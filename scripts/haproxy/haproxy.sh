#!/usr/bin/env bash
# Real HAProxy (Debian's haproxy) in front of several service instances, for tests on machines without Docker.
#
#   haproxy.sh install                              apt-get install haproxy if it is missing (apt-get update first if needed)
#   haproxy.sh start --server HOST:PORT ... [--port N]
#                                                   round robin over the servers, each health-checked on GET /ready;
#                                                   daemonized on 127.0.0.1; prints http://127.0.0.1:PORT on stdout
#   haproxy.sh stop                                 SIGUSR1 (soft stop), then SIGTERM / SIGKILL if needed
#   haproxy.sh status                               exit 0 and print "running pid=N http://..." or exit 3
#   haproxy.sh url                                  print the running balancer's URL (exit 3 if not running)
#
# --port 0 (the default) picks a free port. A server is taken out after 2 failed checks 1 s apart and back after
# one that passes; a request refused or dropped unanswered by a server goes to another one. With no server up,
# the balancer answers 503 with Retry-After and a problem document, as the service does.
# Environment: HAPROXY_RUN_DIR (pid/log/url/config files, default build/haproxy), HAPROXY_START_TIMEOUT (20 s).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"
NAME=haproxy.sh
PROCESS=haproxy
COMMANDS="install start stop status url"
run_files "${HAPROXY_RUN_DIR:-$ROOT/build/haproxy}" haproxy
CONFIG="$RUN_DIR/haproxy.cfg"

haproxy_bin() { command -v haproxy || { [[ -x /usr/sbin/haproxy ]] && echo /usr/sbin/haproxy; } || true; }

cmd_install() {
  if [[ -n "$(haproxy_bin)" ]]; then
    log "haproxy already installed ($("$(haproxy_bin)" -v | head -n 1))"
    return 0
  fi
  apt_install haproxy
  log "installed $("$(haproxy_bin)" -v | head -n 1)"
}

# The configuration: HTTP mode, round robin, checks on /ready; long timeouts for event streams. A request that
# found no connection, or whose instance closed it without answering (killed), is tried once more on another
# instance (L7 retries, requests of up to a buffer); whatever the balancer answers itself (no instance up, an
# instance gone mid-answer, a timeout) is a 503 problem with Retry-After, never a bare 502 or 504.
write_config() {
  local port="$1"
  shift
  local i=0 server code
  local problem='{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"no instance of the service could answer; retry shortly"}'
  for code in 502 503 504; do
    printf 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s' \
      "${#problem}" "$problem" >"$RUN_DIR/$code.http"
  done
  cat >"$CONFIG" <<CFG
global
  maxconn 4096

defaults
  mode http
  option forwardfor
  option redispatch
  retries 2
  retry-on conn-failure empty-response
  timeout connect 2s
  timeout client 10m
  timeout server 10m
  timeout tunnel 1h
  timeout http-request 30s
  timeout check 2s
  errorfile 502 $RUN_DIR/502.http
  errorfile 503 $RUN_DIR/503.http
  errorfile 504 $RUN_DIR/504.http

frontend api
  bind 127.0.0.1:$port
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /ready
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
CFG
  for server in "$@"; do
    i=$((i + 1))
    echo "  server instance$i $server check" >>"$CONFIG"
  done
}

cmd_start() {
  local port=0 server=()
  read_options "port server" "$@"
  no_rest
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  ((${#server[@]} > 0)) || die "no --server given"
  local s
  for s in "${server[@]}"; do [[ "$s" =~ ^[A-Za-z0-9.-]+:[0-9]+$ ]] || die "bad server (HOST:PORT): $s"; done
  report_running && return 0
  [[ -n "$(haproxy_bin)" ]] || cmd_install
  mkdir -p "$RUN_DIR"
  rm -f "$PIDFILE" "$URLFILE"
  # A port picked here can be taken by another process before haproxy binds it: pick again, up to three times.
  local tries=1 chosen=$((port == 0))
  while :; do
    ((chosen == 0)) || port="$(free_port)"
    write_config "$port" "${server[@]}"
    "$(haproxy_bin)" -c -q -f "$CONFIG" >&2 || die "the configuration $CONFIG is not valid"
    : >"$LOG"
    # -D daemonizes; its own log (warnings: servers going down and up) goes to stdout, kept in $LOG.
    "$(haproxy_bin)" -D -p "$PIDFILE" -f "$CONFIG" >>"$LOG" 2>&1 && break
    ((chosen == 1 && tries < 3)) || die "haproxy failed to start on port $port: $(tail -n 5 "$LOG" | tr '\n' ' ')"
    tries=$((tries + 1))
  done
  poll "${HAPROXY_START_TIMEOUT:-20}" 0.1 listening "$port" || give_up
  ready_at "http://127.0.0.1:$port" "ready (pid $(running_pid), ${#server[@]} servers, config $CONFIG)"
}

listening() { port_open "$1" && [[ -n "$(running_pid)" ]]; }

ask_soft_stop() { kill -USR1 "$1" 2>/dev/null || true; }

cmd_stop() { stop_running 5 ask_soft_stop force_stop; }

run_command "$@"
