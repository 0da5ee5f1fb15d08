#!/usr/bin/env bash
# Instructions per MediaContent encode and decode by kind of field, ours and Fory's (CodecPartsMain:
# the ten strings, the ints/longs/boolean, the three enums, an empty record for the fixed cost of a
# call, and the whole), counted by valgrind's callgrind on the calling thread, case after case.
# Needs valgrind and benchmarks.jar. About 10-20 minutes on a loaded 2-core machine.
#   colossal-bench/src/main/sh/codec-parts.sh   (WARMUP=100000 COUNT=30000, JAR=another/benchmarks.jar,
#   JVM_FLAGS=-Dfory.compatible=true, KEEP=DIR then callgrind-methods.py DIR/cg.PID.K-NN COUNT)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jar="${JAR:-$here/../../../target/benchmarks.jar}"
command -v valgrind >/dev/null || { echo "codec-parts: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$jar" ] || { echo "codec-parts: $jar missing; run ./colossal build" >&2; exit 1; }
. "$here/callgrind-cost.sh"
count=${COUNT:-30000}
JVM_FLAGS="-Xms1g -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow ${JVM_FLAGS:-}" \
  STAGES=20 cost_per_call "$count" dev.colossal.bench.codecs.CodecPartsMain "${WARMUP:-100000}" "$count"
