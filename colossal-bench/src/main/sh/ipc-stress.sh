#!/usr/bin/env bash
# jcstress ordering tests of the ipc rings and the shared chunk pool (dev.colossal.bench.ipc.stress):
#   colossal-bench/src/main/sh/ipc-stress.sh [MODE [TEST_REGEX]]     MODE: sanity | quick (default) | default | tough
# A ring message must be seen whole or not at all and exactly once (one-to-one, by copy and in
# place; many-to-one with two producers); a pool chunk is never held twice and its next
# holder sees what the last one wrote. Needs a built colossal-bench/target/benchmarks.jar
# (./colossal build). quick took 6 minutes on the loaded 2-CPU machine (every test in
# 14 configurations: interpreter, C1, C2, and C2 with its scheduling randomisers). Exit code 0 only if
# no test failed or errored; the report is in colossal-bench/target/jcstress/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
JAR="${JAR:-$ROOT/colossal-bench/target/benchmarks.jar}"
MODE=${1:-quick}
TESTS=${2:-dev.colossal.bench.ipc.stress}
[ -f "$JAR" ] || { echo "ipc-stress: $JAR missing; run ./colossal build" >&2; exit 1; }
out="$ROOT/colossal-bench/target/jcstress"
rm -rf "$out/results"
mkdir -p "$out"
cd "$out"
# jcstress pins threads through JNA, which loads a native library: allow it (bench only, not Colossal;
# jcstress passes the flag on to the JVMs it forks).
"$JAVA" --enable-native-access=ALL-UNNAMED -cp "$JAR" org.openjdk.jcstress.Main -t "$TESTS" -m "$MODE" \
  -r "$out/results" 2>&1 | tee "$out/output.txt" \
  | grep -vE '^\((ETA|Sampling|JVMs|CPUs|Results)|^$'
grep -q 'Failed tests: No matches' "$out/output.txt" && grep -q 'Error tests: No matches' "$out/output.txt" \
  && ! grep -q 'All remaining tests: 0 ' "$out/output.txt" || { echo "ipc-stress: FAILED (see $out/results/index.html)" >&2; exit 1; }
echo "ipc-stress: all passed ($MODE; report $out/results/index.html)"
