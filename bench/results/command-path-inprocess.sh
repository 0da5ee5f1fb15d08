#!/usr/bin/env bash
# Thread CPU per call of CommandTable.execute(Client, byte[][]) in one JVM, no sockets, no parser:
# the general command path with its handlers, for this checkout and any others given, each in a
# fresh JVM, the checkouts alternating, ROUNDS (4) rounds. PathBench.java (beside this script, in the
# server's package so it can reach the table) starts a server on a free port only to get its table,
# runs ECHO (the path around a handler that does nearly nothing), INCR, EXISTS, TTL, HGET, HSET,
# SADD, ZADD on keys of 3 elements, and LPUSH/RPOP in turn, N (1,000,000) calls each, three passes,
# and prints the last pass in ns per call. BENCH=ParserBench times the request parser alone instead
# (RequestParser.parse + args, no socket, no handler: 16 pipelined INCR/HSET/SADD/EXISTS/TTL/HGET/
# LPUSH requests cut out of a native buffer N times each; N=2000000 there).
#   ROUNDS=4 N=1000000 bench/results/command-path-inprocess.sh /tmp/wk/base32 /tmp/wk/cmdpath-main
#   BENCH=ParserBench ROUNDS=4 N=2000000 bench/results/command-path-inprocess.sh /tmp/wk/base32
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}; export PATH=$JAVA_HOME/bin:$PATH
ROUNDS=${ROUNDS:-4}
N=${N:-1000000}
BENCH=${BENCH:-PathBench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ROOTS=("$ROOT" "$@")
for ((k = 0; k < ${#ROOTS[@]}; k++)); do
  cp="${ROOTS[$k]}/colossal-server/target/colossal-server.jar:${ROOTS[$k]}/colossal-server/target/lib/*"
  mkdir -p "$work/$k"; javac -d "$work/$k" -cp "$cp" "$ROOT/bench/results/$BENCH.java"
done
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; $(java -version 2>&1 | head -1)"
for ((round = 1; round <= ROUNDS; round++)); do
  for ((k = 0; k < ${#ROOTS[@]}; k++)); do
    cp="$work/$k:${ROOTS[$k]}/colossal-server/target/colossal-server.jar:${ROOTS[$k]}/colossal-server/target/lib/*"
    echo "$round ${ROOTS[$k]} $(java -cp "$cp" "dev.colossal.server.$BENCH" "$N" 2>/dev/null | tail -1)"
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
