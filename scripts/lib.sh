# Shared by the server scripts under scripts/ (neo4j, redis, qdrant, models, haproxy; sourced, not run).
# The caller sets NAME (log prefix), PROCESS (pattern its server's command line contains) and its run files
# (run_files) before calling these.

# The repository's root.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "$NAME: $*" >&2; }
die() { log "$*"; exit 1; }

# run_files DIR BASE: the server's files in DIR: RUN_DIR, PIDFILE (BASE.pid), LOG (BASE.log), URLFILE (url).
run_files() {
  RUN_DIR="$1"
  PIDFILE="$RUN_DIR/$2.pid"
  LOG="$RUN_DIR/$2.log"
  URLFILE="$RUN_DIR/url"
}

# run_command COMMAND ARGS...: cmd_COMMAND ARGS when COMMAND is one of the script's COMMANDS, else the usage (the
# comment at the top of the script) and exit 2.
run_command() {
  local sub="${1:-}"
  shift $(($# < 1 ? 0 : 1))
  if [[ -n "$sub" && " $COMMANDS " == *" $sub "* ]]; then
    "cmd_$sub" "$@"
  else
    sed -n '2,${/^#/!q;p}' "$0" >&2
    exit 2
  fi
}

# read_options NAMES ARGS...: each `--NAME VALUE` or `--NAME=VALUE` among ARGS whose NAME is one of NAMES
# (space-separated) sets the variable NAME (dashes as underscores; the caller's local if it has one), or adds
# VALUE to it when it is an array; the other arguments go, in order, into the array REST.
read_options() {
  local names=" $1 " name value
  shift
  REST=()
  while [[ $# -gt 0 ]]; do
    name="${1%%=*}"
    name="${name#--}"
    if [[ "$1" != --* || "$names" != *" $name "* ]]; then
      REST+=("$1")
      shift
      continue
    elif [[ "$1" == *=* ]]; then
      value="${1#*=}"
      shift
    else
      value="${2:?--$name needs a value}"
      shift 2
    fi
    name="${name//-/_}"
    if [[ "$(declare -p "$name" 2>/dev/null)" == "declare -a"* ]]; then
      eval "$name+=(\"\$value\")"
    else
      printf -v "$name" '%s' "$value"
    fi
  done
}

# The arguments read_options left: none is expected.
no_rest() { ((${#REST[@]} == 0)) || die "unknown argument: ${REST[0]}"; }

# PID of the running server, or nothing. Checks the command line so a recycled pid is never trusted.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 0
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$PROCESS"; then
    echo "$pid"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# http_ok PORT PATH: GET PATH on 127.0.0.1:PORT answers 200 (bash's /dev/tcp: no curl needed).
http_ok() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
    head -n 1 <&3 | grep -q ' 200'
  ) 2>/dev/null
}

# poll TIMEOUT INTERVAL CHECK...: runs CHECK every INTERVAL seconds until it succeeds (0) or TIMEOUT seconds
# have passed or it answers 2 (no use waiting longer); fails in those two cases.
poll() {
  local timeout="$1" interval="$2" t0=$SECONDS rc
  shift 2
  while ((SECONDS - t0 < timeout)); do
    rc=0
    "$@" || rc=$?
    ((rc != 0)) || return 0
    ((rc != 2)) || return 1
    sleep "$interval"
  done
  return 1
}

# The server is already running: says so and prints its URL (for `start`); fails when it is not.
report_running() {
  local pid
  pid="$(running_pid)"
  [[ -n "$pid" ]] || return 1
  log "already running (pid $pid); not starting another"
  cat "$URLFILE"
}

# ready_at URL MESSAGE: the server answers at URL: kept in URLFILE, MESSAGE logged, URL printed.
ready_at() {
  echo "$1" >"$URLFILE"
  log "$2"
  echo "$1"
}

# The server did not come up: the end of its log, then it is stopped and the script exits 1.
give_up() {
  log "not ready; last lines of $LOG:"
  tail -n 20 "$LOG" >&2 || true
  cmd_stop >/dev/null 2>&1 || true
  exit 1
}

# wait_exit PID SECONDS: waits up to SECONDS for process PID to end; fails if it is still alive.
wait_exit() {
  local t0=$SECONDS
  while kill -0 "$1" 2>/dev/null && ((SECONDS - t0 < $2)); do sleep 0.1; done
  ! kill -0 "$1" 2>/dev/null
}

# Ends process $1 that did not stop when asked: SIGTERM, and SIGKILL a second later.
force_stop() {
  kill -TERM "$1" 2>/dev/null || true
  sleep 1
  kill -0 "$1" 2>/dev/null && kill -KILL "$1" 2>/dev/null || true
}

# kill_stuck PID SECONDS: process PID still alive SECONDS after SIGTERM: SIGKILL.
kill_stuck() {
  log "still alive after $2 s; sending SIGKILL to $1"
  kill -KILL "$1" 2>/dev/null || true
  sleep 0.5
}

ask_term() { kill -TERM "$1" 2>/dev/null || true; }

# stop_running SECONDS ASK ESCALATE [timed]: stops the running server: `ASK PID` asks it to end; still alive after
# SECONDS, `ESCALATE PID SECONDS`. Logs "not running" or "stopped (pid N)" (with "in N s" when timed); the pid
# and URL files go either way.
stop_running() {
  local grace="$1" ask="$2" escalate="$3" timed="${4:-}" pid t0=$SECONDS
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    log "not running"
    rm -f "$PIDFILE" "$URLFILE"
    return 0
  fi
  "$ask" "$pid"
  wait_exit "$pid" "$grace" || "$escalate" "$pid" "$grace"
  rm -f "$PIDFILE" "$URLFILE"
  log "stopped (pid $pid)${timed:+ in $((SECONDS - t0)) s}"
}

# A port nobody listens on, picked at random in 20000-59999.
free_port() {
  local p i
  for i in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    port_open "$p" || { echo "$p"; return 0; }
  done
  die "no free port found"
}

cmd_status() {
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    echo "running pid=$pid $(cat "$URLFILE" 2>/dev/null || echo '(starting)')"
  else
    echo "stopped"
    return 3
  fi
}

cmd_url() {
  [[ -n "$(running_pid)" && -s "$URLFILE" ]] || { log "not running"; return 3; }
  cat "$URLFILE"
}

sum_of() { sha256sum "$1" | cut -d' ' -f1; }

# sum_listed SUMS NAME: the SHA-256 that the SHA256SUMS file SUMS lists for NAME.
sum_listed() { grep " $2\$" "$1" | cut -d' ' -f1; }

# unpack_checked ARCHIVE BIN WANT WHAT: the xz file ARCHIVE (checked against the SHA256SUMS beside it) unpacked
# into the executable BIN, whose SHA-256 must be WANT (else "unpacked WHAT does not match").
unpack_checked() {
  [[ "$(sum_of "$1")" == "$(sum_listed "$(dirname "$1")/SHA256SUMS" "$(basename "$1")")" ]] ||
    die "$1 does not match SHA256SUMS"
  local tmp="$2.new.$$"
  mkdir -p "$(dirname "$2")"
  xz -dc "$1" >"$tmp"
  [[ "$(sum_of "$tmp")" == "$3" ]] || { rm -f "$tmp"; die "unpacked $4 does not match SHA256SUMS"; }
  chmod +x "$tmp"
  mv "$tmp" "$2"
}

# install_shipped ARCHIVE BIN LISTED WHAT VAR: the executable BIN, unpacked from the xz file ARCHIVE of the shared
# folder unless it already has the SHA-256 that the SHA256SUMS beside ARCHIVE lists for LISTED; WHAT names it in
# the log, VAR is the environment variable that points at the shared folder (named when ARCHIVE is missing).
install_shipped() {
  local want sums
  sums="$(dirname "$1")/SHA256SUMS"
  [[ -f "$sums" ]] || die "$sums is missing (the shared folder must sit beside the repository, or set $5)"
  want="$(sum_listed "$sums" "$3")"
  if [[ -x "$2" && "$(sum_of "$2")" == "$want" ]]; then
    log "$4 is up to date ($2)"
    return 0
  fi
  [[ -f "$1" ]] || die "$1 is missing (the shared folder must sit beside the repository, or set $5)"
  log "unpacking $(basename "$1") into $(dirname "$2") ..."
  unpack_checked "$1" "$2" "$want" "$4"
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# apt-get install of Debian packages (apt-get update first if the first has no candidate), without letting a
# package's init script start a system-wide server (policy-rc.d exit 101 = "action forbidden"; only when the
# machine has no policy-rc.d of its own).
apt_install() {
  if ! apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    log "apt-get update ..."
    as_root apt-get update -qq >&2
  fi
  local policy=/usr/sbin/policy-rc.d added=""
  if [[ ! -e "$policy" ]]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy"
    added=1
  fi
  log "apt-get install -y $* ..."
  local rc=0
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 || rc=$?
  [[ -n "$added" ]] && as_root rm -f "$policy"
  ((rc == 0)) || die "apt-get install $* failed"
}
