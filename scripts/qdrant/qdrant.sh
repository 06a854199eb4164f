#!/usr/bin/env bash
# Real Qdrant 1.18 for tests: the server binary shipped beside the repository in ../shared/qdrant.
#
#   qdrant.sh install                       unpack the binary into build/qdrant/bin (checked against SHA256SUMS)
#   qdrant.sh start [--port N] [--data DIR] [--cluster [--p2p-port N] [--bootstrap URI]]
#                                           start in the background; prints http://127.0.0.1:PORT on stdout
#   qdrant.sh stop                          SIGTERM, wait, then SIGKILL; removes a storage directory it created
#   qdrant.sh status                        exit 0 and print "running pid=N http://..." or exit 3
#   qdrant.sh url                           print the running instance's URL (exit 3 if not running)
#   qdrant.sh cluster start N               N nodes of one cluster under QDRANT_RUN_DIR/node-1..N (the first
#                                           bootstraps it); prints their URLs, comma-separated (QDRANT_URL's form)
#   qdrant.sh cluster stop                  stops every node and deletes their storage
#   qdrant.sh node stop|kill|start I        stops node I (SIGTERM, or SIGKILL with kill) or starts it again on
#                                           its ports and storage: it rejoins the cluster by itself
#
# --port 0 (the default) picks a free port (the gRPC port is another free one). Without --data the storage
# lives in a new temporary directory that `stop` deletes. --cluster starts a node of a cluster (peer-to-peer
# port --p2p-port, free by default); --bootstrap names the peer URI of a node already in the cluster.
# Environment: QDRANT_SHARED (the folder with the .xz, default ../shared/qdrant beside the repository),
# QDRANT_RUN_DIR (pid/log/url files, default build/qdrant), QDRANT_START_TIMEOUT (30 s).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"
SHARED="${QDRANT_SHARED:-$ROOT/../shared/qdrant}"
ARCHIVE_NAME=qdrant-1.18.3-linux-x86_64.xz
BIN_DIR="$ROOT/build/qdrant/bin"
BIN="$BIN_DIR/qdrant"
NAME=qdrant.sh
PROCESS="$BIN"
COMMANDS="install start stop status url cluster node"
run_files "${QDRANT_RUN_DIR:-$ROOT/build/qdrant}" qdrant
TMPFILE="$RUN_DIR/storage-dir"

cmd_install() {
  mkdir -p "$BIN_DIR"
  exec 9>"$BIN_DIR/.install.lock"
  flock 9
  install_shipped "$SHARED/$ARCHIVE_NAME" "$BIN" 'qdrant (unpacked)' binary QDRANT_SHARED
  flock -u 9
}

# Qdrant (pid $1) answers GET /readyz on port $2 (0), not yet (1), or it has exited or could not bind a port (2: a
# cluster node whose REST port was taken runs on without it).
ready() {
  kill -0 "$1" 2>/dev/null || return 2
  ! grep -qi 'address already in use' "$LOG" 2>/dev/null || return 2
  http_ok "$2" /readyz
}

cmd_start() {
  local port=0 data="" cluster="" p2p_port=0 bootstrap="" arg
  read_options "port data p2p-port bootstrap" "$@"
  for arg in "${REST[@]}"; do
    [[ "$arg" == --cluster ]] || die "unknown argument: $arg"
    cluster=true
  done
  local p2p="$p2p_port"
  [[ "$p2p" =~ ^[0-9]+$ ]] || die "bad peer-to-peer port: $p2p"
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  report_running && return 0
  local pid
  cmd_install
  mkdir -p "$RUN_DIR"
  rm -f "$PIDFILE" "$URLFILE" "$TMPFILE"
  if [[ -z "$data" ]]; then
    data="$(mktemp -d "${TMPDIR:-/tmp}/kgrag-qdrant-XXXXXX")"
    echo "$data" >"$TMPFILE"
  fi
  mkdir -p "$data"
  data="$(cd "$data" && pwd)"
  local attempt p grpc timeout="${QDRANT_START_TIMEOUT:-30}"
  for attempt in 1 2 3; do
    p="$port"
    ((p != 0)) || p="$(free_port)"
    grpc="$(free_port)"
    local peer="$p2p" args=()
    if [[ -n "$cluster" ]]; then
      ((peer != 0)) || peer="$(free_port)"
      args=(--uri "http://127.0.0.1:$peer")
      [[ -z "$bootstrap" ]] || args+=(--bootstrap "$bootstrap")
      echo "$p $peer" >"$RUN_DIR/ports"
    fi
    # setsid: own session, so a Ctrl-C in the calling terminal / test runner does not reach the server.
    (cd "$data" && QDRANT__SERVICE__HOST=127.0.0.1 QDRANT__SERVICE__HTTP_PORT="$p" QDRANT__SERVICE__GRPC_PORT="$grpc" \
      QDRANT__STORAGE__STORAGE_PATH="$data/storage" QDRANT__STORAGE__SNAPSHOTS_PATH="$data/snapshots" \
      QDRANT__TELEMETRY_DISABLED=true QDRANT__LOG_LEVEL=WARN QDRANT__CLUSTER__ENABLED="${cluster:-false}" \
      QDRANT__CLUSTER__P2P__PORT="$peer" exec setsid "$BIN" "${args[@]}" >"$LOG" 2>&1 </dev/null) &
    pid=$!
    echo "$pid" >"$PIDFILE"
    if poll "$timeout" 0.1 ready "$pid" "$p"; then
      ready_at "http://127.0.0.1:$p" "ready (pid $pid, storage $data, log $LOG)"
      return 0
    fi
    # A port taken between free_port and the bind: Qdrant logs it, and a cluster node may keep running without its
    # REST server, so it is stopped and the next attempt takes other ports (those given with --port are kept: give up).
    if ((port != 0)) || ! grep -qi 'address already in use' "$LOG" 2>/dev/null; then break; fi
    kill -KILL "$pid" 2>/dev/null || true
    log "port $p or $grpc was taken; retrying with other free ports"
  done
  give_up
}

cmd_stop() {
  stop_running 10 ask_term kill_stuck
  if [[ -s "$TMPFILE" ]]; then
    rm -rf "$(cat "$TMPFILE")"
  fi
  rm -f "$PIDFILE" "$URLFILE" "$TMPFILE"
}

# A cluster's nodes live under the cluster's run directory, one folder each (its pid, log, ports and storage).
node_dir() { echo "$RUN_DIR/node-$1"; }
on_node() { local dir; dir="$(node_dir "$1")"; shift; QDRANT_RUN_DIR="$dir" "$SCRIPT_DIR/qdrant.sh" "$@"; }

cmd_cluster() {
  case "${1:-}" in
    start)
      local n="${2:?cluster start needs a node count}" i urls=() first_peer=""
      [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "bad node count: $n"
      cmd_install
      for ((i = 1; i <= n; i++)); do
        rm -rf "$(node_dir "$i")"
        mkdir -p "$(node_dir "$i")/data"
        if [[ -z "$first_peer" ]]; then
          urls+=("$(on_node "$i" start --data "$(node_dir "$i")/data" --cluster)")
          first_peer="http://127.0.0.1:$(cut -d' ' -f2 "$(node_dir 1)/ports")"
        else
          urls+=("$(on_node "$i" start --data "$(node_dir "$i")/data" --cluster --bootstrap "$first_peer")")
        fi
      done
      local IFS=,
      echo "${urls[*]}"
      ;;
    stop)
      local dir
      for dir in "$RUN_DIR"/node-*; do
        [[ -d "$dir" ]] || continue
        QDRANT_RUN_DIR="$dir" "$SCRIPT_DIR/qdrant.sh" stop || true
        rm -rf "$dir"
      done
      ;;
    *) die "usage: qdrant.sh cluster start N | cluster stop" ;;
  esac
}

cmd_node() {
  local what="${1:-}" i="${2:-}"
  [[ "$i" =~ ^[1-9][0-9]*$ && -f "$(node_dir "$i")/ports" ]] || die "no node '$i' in $RUN_DIR"
  case "$what" in
    stop) on_node "$i" stop ;;
    kill)
      local pid
      pid="$(cat "$(node_dir "$i")/qdrant.pid" 2>/dev/null || true)"
      [[ -z "$pid" ]] || kill -KILL "$pid" 2>/dev/null || true
      log "killed node $i (pid ${pid:-none})"
      ;;
    start)
      local port peer
      read -r port peer <"$(node_dir "$i")/ports"
      on_node "$i" start --data "$(node_dir "$i")/data" --cluster --port "$port" --p2p-port "$peer"
      ;;
    *) die "usage: qdrant.sh node stop|kill|start I" ;;
  esac
}

run_command "$@"
