#!/usr/bin/env bash
# Makes sure of what `npm test` (`setup.sh test`), `npm start` (`setup.sh start`) and `npm run demo:take`
# (`setup.sh take`) need beyond node_modules, so the README's two commands work on a fresh machine.
# package.json calls it first in those scripts: .npmrc turns npm's pre/post scripts off.
#
# - Debian packages: when one is missing it is installed with apt-get if running as root; otherwise
#   the script stops at once with one line saying what to install.
# - n8n 2.41.1 (on Node 24) and 1.123.81 (on Node 20): scripts/install-n8n.sh, cached under
#   ~/.cache/littlepay-n8n (LITTLEPAY_N8N_CACHE), so later runs take a second.
#
# One function per dependency; a new need gets its own need_* function, called in the list at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

N8N_1_VERSION=1.123.81
CACHE="${LITTLEPAY_N8N_CACHE:-$HOME/.cache/littlepay-n8n}"

MISSING_PACKAGES=()
MISSING_FOR=()

# want_package PACKAGE WHAT-NEEDS-IT CHECK...: notes PACKAGE as missing when the CHECK command fails.
want_package() {
  local package="$1" purpose="$2"
  shift 2
  if ! "$@" >/dev/null 2>&1; then
    MISSING_PACKAGES+=("$package")
    MISSING_FOR+=("$package ($purpose)")
  fi
}

# Runs the given need_* functions and lists what they found missing in MISSING_FOR_TEXT.
find_missing_packages() {
  MISSING_PACKAGES=()
  MISSING_FOR=()
  local need
  for need in "$@"; do "$need"; done
  MISSING_FOR_TEXT="$(printf '%s, ' "${MISSING_FOR[@]}")"
  MISSING_FOR_TEXT="${MISSING_FOR_TEXT%, }"
}

# ensure_packages NEED...: installs the Debian packages the need_* functions find missing (root), or
# stops with one line naming them (not root); then checks again.
ensure_packages() {
  find_missing_packages "$@"
  [ "${#MISSING_PACKAGES[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "setup: missing $MISSING_FOR_TEXT; install with: sudo apt-get install -y ${MISSING_PACKAGES[*]}" >&2
    exit 1
  fi
  echo "setup: installing $MISSING_FOR_TEXT with apt-get ..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${MISSING_PACKAGES[@]}" >/dev/null
  find_missing_packages "$@"
  if [ "${#MISSING_PACKAGES[@]}" -ne 0 ]; then
    echo "setup: still missing after apt-get install: $MISSING_FOR_TEXT" >&2
    exit 1
  fi
}

# Whether a command is on PATH and executable (bash's `command -v` also reports non-executable files).
have() {
  local path
  path="$(command -v "$1")" && [ -x "$path" ]
}

n8n_installed() {
  [ -f "$CACHE/n8n-$1/.complete" ]
}

# The browser tests drive Debian's Chromium at /usr/bin/chromium, never a downloaded browser.
need_chromium() {
  want_package chromium "the browser tests" test -x /usr/bin/chromium
}

# `npm run demo:take` encodes Chromium's screencast frames into its video with Debian's ffmpeg (never a
# downloaded codec); the test of the take records no video, so `npm test` does not need it.
need_ffmpeg() {
  want_package ffmpeg "encoding the take's video" have ffmpeg
}

# install-n8n.sh compiles n8n's sqlite3 driver; only needed until both n8n versions are cached.
need_build_tools() {
  if n8n_installed 2.41.1 && n8n_installed "$N8N_1_VERSION"; then return 0; fi
  want_package python3 "building n8n's sqlite3 driver" have python3
  want_package make "building n8n's sqlite3 driver" have make
  want_package g++ "building n8n's sqlite3 driver" have g++
}

# The queue-mode suite runs n8n with its own throwaway Redis and PostgreSQL: scripts/queue-deps.sh
# installs Debian's packages when missing (as root, without starting their system services) or says
# what to install.
need_queue_mode_services() {
  bash scripts/queue-deps.sh
}

# n8n 2.41.1 and Node 24 for the demo and the real-n8n suites.
need_n8n_2() {
  bash scripts/install-n8n.sh >/dev/null
}

# n8n 1.123.81 on this machine's Node for the 1.x compatibility suite (installed here, not inside a
# test's timeout).
need_n8n_1() {
  LITTLEPAY_N8N_VERSION="$N8N_1_VERSION" bash scripts/install-n8n.sh >/dev/null
}

case "${1:-test}" in
  test)
    ensure_packages need_chromium need_build_tools
    need_queue_mode_services
    need_n8n_2
    need_n8n_1
    echo "setup: ready for npm test (chromium, n8n 2.41.1, n8n $N8N_1_VERSION, redis-server, postgresql)" >&2
    ;;
  start)
    ensure_packages need_build_tools
    need_n8n_2
    echo "setup: ready for npm start (n8n 2.41.1)" >&2
    ;;
  take)
    ensure_packages need_chromium need_ffmpeg need_build_tools
    need_n8n_2
    echo "setup: ready for npm run demo:take (chromium, ffmpeg, n8n 2.41.1)" >&2
    ;;
  *)
    echo "usage: scripts/setup.sh [test|start|take]" >&2
    exit 2
    ;;
esac
