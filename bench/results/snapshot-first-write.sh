#!/usr/bin/env bash
# The first write to a big value during a snapshot, side by side: for each round and each checkout
# of ROOTS ("name=path ..."), a fresh server and snapshot-first-write.py (a list of ELEMENTS
# elements, KEYS small keys, a slowed redis-cli --rdb, LPUSHes and SETs timed).
#   ROOTS="base=/tmp/wk/base33 new=$PWD" ROUNDS=2 ELEMENTS=1000000 bench/results/snapshot-first-write.sh [PORT]
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
port=${1:-7730}; work=$(mktemp -d)
source "$here/start-server.sh"
pid=
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for round in $(seq "${ROUNDS:-2}"); do
  for spec in ${ROOTS:-new=$root}; do
    start_server "${spec#*=}" "$port" "$work/data" --enable-debug-command yes || exit 1
    echo "round $round ${spec%%=*}: $(python3 "$here/snapshot-first-write.py" "$port" "${ELEMENTS:-1000000}" "${KEYS:-200000}" 2>&1 | tail -1)"
    kill "$pid"; wait "$pid" 2>/dev/null
  done
done
