#!/usr/bin/env bash
# Instructions per map get or put (MapBench's Colossal store: random int keys, 100-byte values, raw API),
# counted by valgrind's callgrind on the thread that calls (--separate-threads: JIT and GC threads
# excluded), so the figure holds on a busy machine. The benchmark method is inlined into the loop, as
# JMH does. Needs valgrind and colossal-bench/target/benchmarks.jar.
#   OP=get colossal-bench/src/main/sh/map-cost.sh   (a few minutes; OP=put, ENTRIES=131072, GC=G1,
#   JAR=another/benchmarks.jar to count a saved build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar="${JAR:-$here/../../../target/benchmarks.jar}"
command -v valgrind >/dev/null || { echo "map-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$jar" ] || { echo "map-cost: $jar missing; run ./colossal build" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/map-cost.XXXXXX")
trap 'exec 3>&-; rm -rf "$work"' EXIT
mkfifo "$work/go"
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/cg.%p" --smc-check=all-non-file \
  "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -XX:+Use"${GC:-Serial}"GC -XX:-UsePerfData \
  -XX:CompileCommand=quiet -XX:CompileCommand=inline,dev.colossal.bench.map.MapBench::* \
  -cp "$jar" dev.colossal.bench.map.MapCostMain "${OP:-get}" "${ENTRIES:-131072}" "${WARMUP:-3000000}" "${COUNT:-1000000}" \
  <"$work/go" >"$work/out" 2>"$work/err" &
pid=$!
exec 3>"$work/go"
stage() { until grep -q "$1" "$work/out"; do sleep 0.2; kill -0 $pid 2>/dev/null || { cat "$work/err" >&2; exit 1; }; done; }
stage WARM
sleep "${SETTLE:-10}"   # let the JIT finish its queue
callgrind_control -z $pid >/dev/null 2>&1
echo go >&3
stage DONE
callgrind_control -d $pid >/dev/null 2>&1
echo go >&3
wait $pid
# the calling thread is the one with the most instructions
ir=$(for f in "$work"/cg.$pid*; do sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f"; done | sort -n | tail -n 1)
awk -v ir="$ir" -v n="${COUNT:-1000000}" 'BEGIN { printf "%.1f instructions per map operation\n", ir / n }'
