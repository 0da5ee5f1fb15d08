#!/usr/bin/env bash
# Server CPU of the consumer-group path in this checkout's `colossal serve`, up to two other
# checkouts' (BASE=, MAIN=) and redis-server, side by side, each server started afresh with a stream
# `s` of FILL entries (`xadd s * f v`) and a group `g` at 0:
#   readack     XREADGROUP GROUP g c COUNT 10 STREAMS s > then XACK s g of the ten IDs read, pipelined
#               16 deep (stream-groups-cost.py; the reply's IDs go back in the XACK), CALLS pairs
#   xpending    XPENDING s g (summary), the pending list holding PEL entries (-c 8 -P 16 redis-benchmark)
#   xpending-r  XPENDING s g - + 10
#   xautoclaim  XAUTOCLAIM s g c2 0 0-0 COUNT 10: the first ten pending entries change hands each call
# us of server CPU per request (per read+ack pair for readack), the servers' order rotating each
# round; two unmeasured runs of every test first.
#   BASE=/tmp/wk/base33 ROUNDS=4 PORTS_FROM=8100 [COLOSSAL_FLAGS='--busy-poll 0'] bench/results/stream-groups-cost.sh [TEST...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
CALLS=${CALLS:-40000}
FILL=${FILL:-200000}
PEL=${PEL:-1000}
port=${PORTS_FROM:-8100}
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/start-server.sh"
TESTS=("$@"); [ ${#TESTS[@]} -gt 0 ] || TESTS=(readack xpending xpending-r xautoclaim)
# COLOSSAL_FLAGS go to the Colossal servers: --busy-poll 0 stops their event loops spinning for the
# next request, CPU that a slow client (readack's Python) makes them burn between its batches
serve new "$ROOT" ${COLOSSAL_FLAGS:-}
[ -n "${BASE:-}" ] && serve base "$BASE" ${COLOSSAL_FLAGS:-}
[ -n "${MAIN:-}" ] && serve main "$MAIN" ${COLOSSAL_FLAGS:-}
serve redis-server redis
n=${#PIDS[@]}
for ((k = 0; k < n; k++)); do
  p=${PORTS[$k]}
  redis-benchmark -p "$p" -c 8 -P 16 -n "$FILL" -q xadd s '*' f v >/dev/null 2>&1
  redis-cli -p "$p" xgroup create s g 0 >/dev/null
  # a pending list of PEL entries for xpending and xautoclaim, in group h (readack's group g keeps none)
  redis-cli -p "$p" xgroup create s h 0 >/dev/null
  redis-cli -p "$p" xreadgroup group h c count "$PEL" streams s '>' >/dev/null
done
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
run() { # k test: one measured run, prints cpu us per request
  local p=${PORTS[$1]} pid=${PIDS[$1]} args
  case $2 in
    readack) python3 "$(dirname "${BASH_SOURCE[0]}")/stream-groups-cost.py" "$p" "$pid" "$CALLS"; return ;;
    xpending) args="xpending s h" ;;
    xpending-r) args="xpending s h - + 10" ;;
    xautoclaim) args="xautoclaim s h c2 0 0-0 COUNT 10" ;;
    *) echo "no test $2" >&2; exit 1 ;;
  esac
  local c0 c1; c0=$(cpu "$pid")
  set -f; redis-benchmark -p "$p" -c 8 -P 16 -n "$N" -q $args >/dev/null 2>&1; set +f
  c1=$(cpu "$pid")
  awk -v c=$((c1 - c0)) -v n="$N" 'BEGIN { printf "%.3f", c * 1e4 / n }'
}
rounds "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); FILL=$FILL CALLS=$CALLS N=$N PEL=$PEL; Colossal flags: ${COLOSSAL_FLAGS:-none}; $("$JAVA" -version 2>&1 | head -1); $(redis-server --version | cut -d' ' -f1-3)
round test ${NAMES[*]} (us of server CPU per request; readack: per read+ack pair)"
