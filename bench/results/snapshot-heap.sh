#!/usr/bin/env bash
# The heap a snapshot build holds, side by side: for each round and each checkout of ROOTS
# ("name=path ..."), a fresh server (JVM options HEAP, -Xmx4g by default) with KEYS string keys
# (DEBUG POPULATE) takes a `redis-cli --rdb` snapshot; while it is built, a class histogram (a full
# GC: live objects only) every SAMPLE seconds. Prints the live heap before, the largest while it was
# built, and the difference per key (the file itself, in the heap too, is part of it in both).
#   ROOTS="base=/tmp/wk/base33 new=$PWD" KEYS=1000000 ROUNDS=2 bench/results/snapshot-heap.sh [PORT]
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
port=${1:-7720}; work=$(mktemp -d); keys=${KEYS:-1000000}
source "$here/start-server.sh"
pid=
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
live() { jcmd "$pid" GC.class_histogram 2>/dev/null | awk '/^Total/ {print $3}'; }
for round in $(seq "${ROUNDS:-2}"); do
  for spec in ${ROOTS:-new=$root}; do
    name=${spec%%=*}; dir=${spec#*=}
    export JAVA_TOOL_OPTIONS="${HEAP:--Xmx4g}"
    start_server "$dir" "$port" "$work/data" --enable-debug-command yes || exit 1
    unset JAVA_TOOL_OPTIONS
    redis-cli -p "$port" DEBUG POPULATE "$keys" >/dev/null
    before=$(live); peak=0; samples=0
    t0=$(date +%s.%N)
    redis-cli -p "$port" --rdb "$work/dump.rdb" >"$work/cli.log" 2>&1 & cli=$!
    while kill -0 "$cli" 2>/dev/null; do
      sleep "${SAMPLE:-0.3}"
      v=$(live); samples=$((samples + 1))
      [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
    done
    wait "$cli"; ok=$(grep -c "Transfer finished with success" "$work/cli.log")
    t1=$(date +%s.%N)
    echo "round $round $name: keys=$keys live_before_mb=$((before >> 20)) peak_during_mb=$((peak >> 20))" \
      "extra_bytes_per_key=$(( (peak - before) / keys )) samples=$samples build_s=$(echo "$t1 - $t0" | bc) ok=$ok"
    kill "$pid"; wait "$pid" 2>/dev/null
  done
done
