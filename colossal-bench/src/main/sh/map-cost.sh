#!/usr/bin/env bash
# Instructions per map get or put (MapBench's Colossal store: random int keys, 100-byte values, raw API),
# counted by valgrind's callgrind on the thread that calls, so the figure holds on a busy machine. The
# benchmark methods are inlined into the loop, as JMH does. Needs valgrind and benchmarks.jar.
#   OP=get colossal-bench/src/main/sh/map-cost.sh   (a few minutes; OP=put, ENTRIES=131072, GC=G1,
#   STORE=colossal-unverified, VALUE_SIZE=2048, JAR=another/benchmarks.jar to count a saved build, KEEP=DIR for
#   callgrind-methods.py)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar="${JAR:-$here/../../../target/benchmarks.jar}"
command -v valgrind >/dev/null || { echo "map-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$jar" ] || { echo "map-cost: $jar missing; run ./colossal build" >&2; exit 1; }
. "$here/callgrind-cost.sh"
count=${COUNT:-1000000}
ir=$(JVM_FLAGS="-XX:CompileCommand=inline,dev.colossal.bench.map.MapBench::* ${JVM_FLAGS:-}" cost_per_call "$count" \
  dev.colossal.bench.map.MapCostMain "${OP:-get}" "${ENTRIES:-131072}" "${WARMUP:-3000000}" "$count" "${STORE:-colossal}" "${VALUE_SIZE:-100}")
echo "$ir instructions per ${OP:-get}"
