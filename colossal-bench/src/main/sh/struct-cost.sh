#!/usr/bin/env bash
# Instructions per struct write (StructBench.structEncode: 7 fields and an 8-byte symbol), counted by
# valgrind's callgrind on the thread that writes (--separate-threads: JIT and GC threads excluded), so
# the figure holds on a busy machine. The benchmark method is inlined into the loop, as JMH does.
# Needs valgrind and colossal-bench/target/benchmarks.jar.
#   colossal-bench/src/main/sh/struct-cost.sh        (about a minute; GC=G1 to use G1's barriers)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar="$here/../../../target/benchmarks.jar"
command -v valgrind >/dev/null || { echo "struct-cost: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$jar" ] || { echo "struct-cost: $jar missing; run ./colossal build" >&2; exit 1; }
. "$here/callgrind-cost.sh"
count=${COUNT:-1000000}
ir=$(JVM_FLAGS="-XX:CompileCommand=inline,dev.colossal.bench.codecs.StructBench::structEncode ${JVM_FLAGS:-}" \
  cost_per_call "$count" dev.colossal.bench.codecs.StructCostMain "${WARMUP:-3000000}" "$count")
echo "$ir instructions per struct write"
