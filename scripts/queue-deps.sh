#!/usr/bin/env bash
# Makes sure Debian's redis-server and postgresql binaries are present for queue mode (`npm run queue`, the
# queue-mode tests and benches). Idempotent: exits 0 at once when both are installed. Installs them with apt
# when missing and running as root, with service starts blocked (the queue-mode scripts run their own
# throwaway Postgres cluster and Redis on free ports; nothing is left running or enabled by this script).
# Otherwise prints one line saying what to install and exits 1.
set -euo pipefail

have_postgres() { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }
have_redis() { command -v redis-server >/dev/null 2>&1; }

if have_postgres && have_redis; then
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "queue mode needs Debian's redis-server and postgresql: run 'sudo apt-get install -y redis-server postgresql' and try again" >&2
  exit 1
fi

# Debian starts a package's service on install; a policy-rc.d answering 101 forbids that (our own file only,
# removed afterwards; an existing one is left alone).
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod +x "$policy"
  own_policy=1
fi
trap '[ "$own_policy" = 1 ] && rm -f "$policy"' EXIT

echo "Installing redis-server and postgresql with apt (queue mode) ..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server postgresql >/dev/null

if ! have_postgres || ! have_redis; then
  echo "apt-get did not install redis-server and postgresql; install them by hand" >&2
  exit 1
fi
