#!/usr/bin/env bash
# The heap a snapshot build holds, side by side: for each round and each checkout of ROOTS
# ("name=path ..."), a fresh server (JVM options HEAP, -Xmx4g by default) with KEYS string keys
# (DEBUG POPULATE) takes a `redis-cli --rdb` snapshot; while it is built, a class histogram (a full
# GC: live objects only) every SAMPLE seconds. Prints the live heap before, the largest while it was
# built, and the difference per key (the file itself, in the heap too, is part of it in both).
# The histograms' full GCs slow the build (most where the heap holds more objects): SAMPLE=0 takes
# none, for the build's time alone (and the server's CPU time meanwhile, from /proc). MODE=replica has a redis-server replica sync in full instead (ok=
# its DBSIZE once its link is up).
#   ROOTS="base=/tmp/wk/base33 new=$PWD" KEYS=1000000 ROUNDS=2 bench/results/snapshot-heap.sh [PORT]
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
port=${1:-7720}; work=$(mktemp -d); keys=${KEYS:-1000000}
source "$here/start-server.sh"
pid=
cli=
trap 'kill $pid $cli 2>/dev/null; rm -rf "$work"' EXIT
# the server's CPU time so far (user + system), in ms
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$pid/stat"; }
building() { redis-cli -p "$port" INFO persistence | grep -q rdb_bgsave_in_progress:1; }
# the live heap's total bytes; the histogram of the largest so far is kept in $work/peak.txt
live() {
  jcmd "$pid" GC.class_histogram >"$work/histo.txt" 2>/dev/null
  local total; total=$(awk '/^Total/ {print $3}' "$work/histo.txt")
  [ -n "$total" ] && [ "$total" -gt "$peak" ] && cp "$work/histo.txt" "$work/peak.txt"
  echo "$total"
}
for round in $(seq "${ROUNDS:-2}"); do
  for spec in ${ROOTS:-new=$root}; do
    name=${spec%%=*}; dir=${spec#*=}
    export JAVA_TOOL_OPTIONS="${HEAP:--Xmx4g}"
    start_server "$dir" "$port" "$work/data" --enable-debug-command yes || exit 1
    unset JAVA_TOOL_OPTIONS
    redis-cli -p "$port" DEBUG POPULATE "$keys" >/dev/null
    peak=0; before=$(live); peak=0; samples=0
    t0=$(date +%s.%N); c0=$(cpu_ms)
    if [ "${MODE:-rdb}" = replica ]; then
      redis-server --port $((port + 1)) --save "" --dir "$work" --replicaof 127.0.0.1 "$port" >"$work/cli.log" 2>&1 & cli=$!
      until building; do sleep 0.05; done
    else
      redis-cli -p "$port" --rdb "$work/dump.rdb" >"$work/cli.log" 2>&1 & cli=$!
    fi
    while [ "${SAMPLE:-0.3}" != 0 ] && kill -0 "$cli" 2>/dev/null && { [ "${MODE:-rdb}" != replica ] || building; }; do
      sleep "${SAMPLE:-0.3}"
      v=$(live); samples=$((samples + 1))
      [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
    done
    if [ "${MODE:-rdb}" = replica ]; then
      until redis-cli -p $((port + 1)) INFO replication | grep -q master_link_status:up; do sleep 0.05; done
      ok=$(redis-cli -p $((port + 1)) DBSIZE); kill "$cli"; wait "$cli" 2>/dev/null
    else
      wait "$cli"; ok=$(grep -c "Transfer finished with success" "$work/cli.log")
    fi
    t1=$(date +%s.%N); c1=$(cpu_ms)
    if [ "${SAMPLE:-0.3}" = 0 ]; then
      echo "round $round $name: keys=$keys build_s=$(echo "$t1 - $t0" | bc) server_cpu_ms=$((c1 - c0)) ok=$ok"
    else
      echo "round $round $name: keys=$keys live_before_mb=$((before >> 20)) peak_during_mb=$((peak >> 20))" \
        "extra_bytes_per_key=$(( (peak - before) / keys )) samples=$samples build_s=$(echo "$t1 - $t0" | bc) ok=$ok"
      echo "  largest at the peak (MB, class):" $(awk 'NR > 3 && NR <= 8 && $3 ~ /^[0-9]+$/ {printf "%d %s; ", $3 / 1048576, $4}' "$work/peak.txt")
    fi
    kill "$pid"; wait "$pid" 2>/dev/null
  done
done
