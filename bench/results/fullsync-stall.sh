#!/usr/bin/env bash
# Writes during a full sync, side by side: for each round, for each server (BASE checkout, this
# checkout, redis-server), a fresh master on PORT filled with KEYS keys, one client writing
# throughout, and a redis-server replica syncing in full (fullsync-stall.py).
# usage: BASE=/path/to/other/checkout ROUNDS=3 KEYS=300000 bench/results/fullsync-stall.sh [PORT]
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
port=${1:-7700}; work=$(mktemp -d)
source "$here/start-server.sh"
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for round in $(seq "${ROUNDS:-3}"); do
  for who in ${BASE:+"$BASE"} "$root" redis; do
    start_server "$who" "$port" "$work/data" || exit 1
    echo "round $round $who: $(python3 "$here/fullsync-stall.py" "$port" "${KEYS:-300000}" 2>&1 | tail -1)"
    kill "$pid"; wait "$pid" 2>/dev/null
  done
done
