# Shared by the server scripts under scripts/ (neo4j, redis, qdrant, models, haproxy; sourced, not run).
# The caller sets NAME (log prefix), PROCESS (pattern its server's command line contains),
# PIDFILE and URLFILE before calling these.

log() { echo "$NAME: $*" >&2; }
die() { log "$*"; exit 1; }

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
