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
flags=(-XX:CompileCommand=inline,dev.colossal.bench.codecs.StructBench::structEncode)
if [ "$which" != struct ]; then
  flags=(-XX:CompileCommand=inline,dev.colossal.bench.codecs.CodecsBench::"$which"
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
fi
work=$(mktemp -d)
trap 'exec 3>&-; rm -rf "$work"' EXIT
mkfifo "$work/go"
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/cg.%p" --smc-check=all-non-file \
  "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" -XX:+Use"${GC:-Serial}"GC -XX:-UsePerfData \
  -XX:CompileCommand=quiet "${flags[@]}" \
  -cp "$jar" dev.colossal.bench.codecs.StructCostMain "${WARMUP:-3000000}" "${COUNT:-1000000}" "$which" \
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
# the writing thread is the one with the most instructions
ir=$(for f in "$work"/cg.$pid*; do sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f"; done | sort -n | tail -n 1)
awk -v ir="$ir" -v n="${COUNT:-1000000}" -v c="$which" 'BEGIN { printf "%.1f instructions per operation (%s)\n", ir / n, c }'
