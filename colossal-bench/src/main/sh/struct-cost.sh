#!/usr/bin/env bash
# Instructions per struct write (StructBench.structEncode: 7 fields and an 8-byte symbol), counted by
# valgrind's callgrind on the thread that writes (--separate-threads: JIT and GC threads excluded), so
# the figure holds on a busy machine. The benchmark method is inlined into the loop, as JMH does.
# CASE=colossalDecode (or colossalEncode, colossalRoundTrip, foryEncode, foryDecode, foryRoundTrip)
# counts a MediaContent operation of CodecsBench instead (Fory's flags are added for it).
# Needs valgrind and colossal-bench/target/benchmarks.jar.
#   colossal-bench/src/main/sh/struct-cost.sh        (about a minute; GC=G1 to use G1's barriers)
#   CASE=colossalDecode WARMUP=300000 COUNT=100000 colossal-bench/src/main/sh/struct-cost.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar="${JAR:-$here/../../../target/benchmarks.jar}"
command -v valgrind >/dev/null || { echo "struct-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$jar" ] || { echo "struct-cost: $jar missing; run ./colossal build" >&2; exit 1; }
which=${CASE:-struct}
flags="-XX:CompileCommand=inline,dev.colossal.bench.codecs.StructBench::structEncode"
if [ "$which" != struct ]; then
  flags="-XX:CompileCommand=inline,dev.colossal.bench.codecs.CodecsBench::$which \
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
fi
. "$here/callgrind-cost.sh"
count=${COUNT:-1000000}
ir=$(JVM_FLAGS="$flags ${JVM_FLAGS:-}" \
  cost_per_call "$count" dev.colossal.bench.codecs.StructCostMain "${WARMUP:-3000000}" "$count" "$which")
echo "$ir instructions per operation ($which)"
