#!/usr/bin/env bash
# Debian's chromium for the web console's browser tests (driven by playwright-core; no browser download).
#
#   chromium.sh install   apt-get install chromium if /usr/bin/chromium is missing (apt-get update first if needed)
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

cmd_install() {
  if [[ -x /usr/bin/chromium ]]; then
    log "chromium already installed ($(/usr/bin/chromium --version 2>/dev/null || echo unknown version))"
    return 0
  fi
  if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    log "apt-get update ..."
    as_root apt-get update -qq >&2
  fi
  log "apt-get install -y chromium ..."
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2 ||
    { log "apt-get install chromium failed"; exit 1; }
  log "installed $(/usr/bin/chromium --version)"
}

case "${1:-}" in
  install) cmd_install ;;
  *)
    sed -n '2,4p' "$0" >&2
    exit 2
    ;;
esac
