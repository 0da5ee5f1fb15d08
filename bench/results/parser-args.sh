#!/usr/bin/env bash
# Thread CPU per request of the request parser alone (RequestParser.parse + args, no socket, no
# handler) for this checkout and any others given, each in a fresh JVM, alternating, ROUNDS (4)
# rounds: ParserBench.java (beside this script, in the server's package) cuts 16 pipelined
# INCR/HSET/SADD/EXISTS/TTL/HGET/LPUSH requests out of a native buffer N (2,000,000) times each.
#   ROUNDS=4 N=2000000 bench/results/parser-args.sh /tmp/wk/base32
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}; export PATH=$JAVA_HOME/bin:$PATH
ROUNDS=${ROUNDS:-4}
N=${N:-2000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ROOTS=("$ROOT" "$@")
for ((k = 0; k < ${#ROOTS[@]}; k++)); do
  cp="${ROOTS[$k]}/colossal-server/target/colossal-server.jar:${ROOTS[$k]}/colossal-server/target/lib/*"
  mkdir -p "$work/$k"; javac -d "$work/$k" -cp "$cp" "$ROOT/bench/results/ParserBench.java"
done
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; $(java -version 2>&1 | head -1)"
for ((round = 1; round <= ROUNDS; round++)); do
  for ((k = 0; k < ${#ROOTS[@]}; k++)); do
    cp="$work/$k:${ROOTS[$k]}/colossal-server/target/colossal-server.jar:${ROOTS[$k]}/colossal-server/target/lib/*"
    echo "$round ${ROOTS[$k]} $(java -cp "$cp" dev.colossal.server.ParserBench "$N" 2>/dev/null | tail -1)"
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
