#!/usr/bin/env bash
# Real Neo4j 5.26 LTS (community, embedded) for tests on machines without Docker.
# See scripts/neo4j/README.md.
#
#   neo4j.sh build                           build/neo4j/lib from Maven Central (skipped when up to date)
#   neo4j.sh start [--port N] [--data DIR]   start in the background; prints bolt://127.0.0.1:PORT on stdout
#   neo4j.sh run   [--port N] [--data DIR]   run in the foreground (Ctrl-C stops it)
#   neo4j.sh stop                            SIGTERM, wait, then SIGKILL
#   neo4j.sh status                          exit 0 and print "running pid=N bolt://..." or exit 3
#   neo4j.sh url                             print the running instance's URL (exit 3 if not running)
#   neo4j.sh verify                          run scripts/neo4j/verify.cjs against the running instance
#   neo4j.sh wipe  [--data DIR]              delete the data directory (refuses while running)
#
# --port 0 (the default) picks a free port. Default data directory: build/neo4j/data.
# Environment: NEO4J_HEAP (default 1g), NEO4J_PAGECACHE (64m), NEO4J_JAVA_OPTS (extra JVM flags),
# NEO4J_JIT (c1 = default, fast start; full = C1+C2 for benchmarks), NEO4J_CONF (a neo4j.conf-style file of
# further settings; file URLs for LOAD CSV stay disabled whatever it says),
# NEO4J_START_TIMEOUT (120 s), NEO4J_STOP_TIMEOUT (60 s), NEO4J_RUN_DIR (pid/log/url files,
# default build/neo4j), JAVA (java), MVN (mvn).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"
BUILD="$ROOT/build/neo4j"
LIB="$BUILD/lib"
STAMP="$LIB/.built"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"
MAIN=kgrag.neo4j.Launcher
NAME=neo4j.sh
PROCESS="$MAIN"
COMMANDS="build start run stop status url verify wipe"
run_files "${NEO4J_RUN_DIR:-$BUILD}" neo4j

needs_build() {
  [[ -f "$STAMP" ]] || return 0
  [[ -n "$(find "$SCRIPT_DIR/pom.xml" "$SCRIPT_DIR/src" -newer "$STAMP" -print -quit)" ]]
}

cmd_build() {
  mkdir -p "$BUILD"
  # Serialise concurrent builds (several shells may run `start` at once).
  exec 9>"$BUILD/.build.lock"
  flock 9
  if ! needs_build; then
    log "build is up to date ($LIB)"
    flock -u 9
    return 0
  fi
  command -v "$MVN" >/dev/null || die "maven ($MVN) not found"
  log "building launcher + copying dependencies into $LIB (Maven) ..."
  local t0=$SECONDS tmp="$LIB.new.$$" old="$LIB.old.$$"
  rm -rf "$tmp"
  # Build into a fresh directory and swap it in, so a version bump leaves no stale jars and
  # instances already running from the old directory keep their (open) jars.
  if ! "$MVN" -B -Dstyle.color=never -Dneo4j.lib.dir="$tmp" -f "$SCRIPT_DIR/pom.xml" package >"$BUILD/maven.log" 2>&1; then
    tail -n 40 "$BUILD/maven.log" >&2
    rm -rf "$tmp"
    die "maven build failed (full log: $BUILD/maven.log)"
  fi
  touch "$tmp/.built"
  [[ -d "$LIB" ]] && mv "$LIB" "$old"
  mv "$tmp" "$LIB"
  rm -rf "$old"
  flock -u 9
  log "built in $((SECONDS - t0)) s"
}

PORT=0
DATA="$BUILD/data"
parse_args() {
  local port="$PORT" data="$DATA"
  read_options "port data" "$@"
  no_rest
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  mkdir -p "$data"
  PORT="$port"
  DATA="$(cd "$data" && pwd)"
}

java_cmd() {
  local heap="${NEO4J_HEAP:-1g}" jit=()
  # C1-only JIT by default: ~20-40% faster start and first queries on 2 cores, slightly lower peak
  # throughput. NEO4J_JIT=full restores the normal tiered C1+C2 compiler (use it for benchmarks).
  [[ "${NEO4J_JIT:-c1}" == full ]] || jit=(-XX:TieredStopAtLevel=1)
  # shellcheck disable=SC2206
  local extra=(${NEO4J_JAVA_OPTS:-})
  JAVA_ARGS=(
    "$JAVA" "-Xms256m" "-Xmx$heap" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+ExitOnOutOfMemoryError "${jit[@]}"
    # the flags Neo4j's own launcher passes on Java 17 (Netty / page cache use of NIO internals)
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true
    -Djdk.nio.maxCachedBufferSize=1024 -Dlog4j2.disable.jmx=true
    "${extra[@]}"
    -cp "$LIB/*" "$MAIN" --port "$PORT" --data "$DATA" --pagecache "${NEO4J_PAGECACHE:-64m}"
  )
  # Settings every instance gets, then NEO4J_CONF's (which may not re-enable them: the last value wins, so
  # ours come after). LOAD CSV may not read the server's files (the service refuses LOAD CSV too).
  local conf="$RUN_DIR/launcher.conf"
  mkdir -p "$RUN_DIR"
  {
    [[ -z "${NEO4J_CONF:-}" ]] || cat "$NEO4J_CONF"
    echo
    echo "dbms.security.allow_csv_import_from_file_urls=false"
  } >"$conf"
  JAVA_ARGS+=(--conf "$conf")
}

cmd_start() {
  parse_args "$@"
  report_running && return 0
  local pid
  cmd_build
  mkdir -p "$RUN_DIR"
  rm -f "$URLFILE" "$PIDFILE"
  java_cmd
  log "starting (data $DATA, log $LOG) ..."
  # setsid: own session, so a Ctrl-C in the calling terminal / test runner does not reach the server.
  setsid "${JAVA_ARGS[@]}" >"$LOG" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PIDFILE"
  local timeout="${NEO4J_START_TIMEOUT:-120}" t0=$SECONDS
  if poll "$timeout" 0.5 bolt_ready "$pid"; then
    ready_at "$BOLT_URL" "ready in $((SECONDS - t0)) s (pid $pid)"
    return 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    log "process $pid exited during startup; last lines of $LOG:"
    tail -n 40 "$LOG" >&2 || true
    rm -f "$PIDFILE"
    exit 1
  fi
  log "not ready after ${timeout} s; last lines of $LOG:"
  tail -n 40 "$LOG" >&2 || true
  cmd_stop || true
  exit 1
}

# The launcher (pid $1) has said where it listens (BOLT_URL) and the port is open (0), not yet (1), or it has
# exited (2).
bolt_ready() {
  kill -0 "$1" 2>/dev/null || return 2
  BOLT_URL="$(grep -m1 -o '^NEO4J_READY bolt://[0-9.]*:[0-9]*' "$LOG" 2>/dev/null | cut -d' ' -f2 || true)"
  [[ -n "$BOLT_URL" ]] && port_open "${BOLT_URL##*:}"
}

cmd_run() {
  parse_args "$@"
  [[ -z "$(running_pid)" ]] || die "already running in the background (pid $(running_pid)); stop it first"
  cmd_build
  java_cmd
  exec "${JAVA_ARGS[@]}"
}

cmd_stop() { stop_running "${NEO4J_STOP_TIMEOUT:-60}" ask_term kill_stuck timed; }

cmd_verify() {
  local url
  url="$(cmd_url)"
  node "$SCRIPT_DIR/verify.cjs" "$url"
}

cmd_wipe() {
  parse_args "$@"
  [[ -z "$(running_pid)" ]] || die "running; stop it first"
  rm -rf "$DATA"
  log "removed $DATA"
}

run_command "$@"
