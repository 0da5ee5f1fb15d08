#!/usr/bin/env bash
# ZSCAN and ZRANDMEMBER on one big sorted set (N members member:i scoring i) in this checkout's
# `colossal serve`, a base checkout's and redis-server: wall time and server CPU (user+sys of the
# server process from /proc, 10 ms ticks) of
#   zscan10    a whole ZSCAN with COUNT 10, from cursor 0 until the cursor is 0 again
#   zscan1000  the same with COUNT 1000
#   zrand10    ZRANDMEMBER big 10 from redis-benchmark's 50 clients, RAND_N requests
# Each scan starts after a write to the set (ZADD then ZREM of one member), so that a scan that
# keeps something between calls pays for building it in every round.
# The base's steps read the whole set each call: it runs at most BASE_CALLS calls of a scan and
# BASE_RAND requests, and its figures are per call.
#   BASE=/tmp/wk/zscan-base N=1000000 ROUNDS=2 PORTS_FROM=7850 bench/results/zscan-cost.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${N:-1000000}
ROUNDS=${ROUNDS:-2}
BASE_CALLS=${BASE_CALLS:-5}
RAND_N=${RAND_N:-20000}
BASE_RAND=${BASE_RAND:-20}
port=${PORTS_FROM:-7850}
DRIVER="$ROOT/bench/results/zscan-driver.py"
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/start-server.sh"
serve new "$ROOT"
[ -n "${BASE:-}" ] && serve base "$BASE"
serve redis-server redis
n=${#PIDS[@]}
for p in "${PORTS[@]}"; do
  python3 "$DRIVER" fill "$p" big "$N"
  echo "port $p: ZCARD big = $(redis-cli -p "$p" zcard big)"
done
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
# JIT warm-up of the JVMs on the same commands
for ((k = 0; k < n - 1; k++)); do
  calls=0; [ "${NAMES[$k]}" = base ] && calls=2
  python3 "$DRIVER" zscan "${PORTS[$k]}" big 1000 "$calls" >/dev/null
  python3 "$DRIVER" zscan "${PORTS[$k]}" big 10 "$( [ $calls = 0 ] && echo 20000 || echo 2)" >/dev/null
  redis-benchmark -p "${PORTS[$k]}" -n "$( [ $calls = 0 ] && echo 20000 || echo 5)" -c 50 -q ZRANDMEMBER big 10 >/dev/null
done
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; $("$JAVA" -version 2>&1 | head -1)"
echo "round server test calls members wall_s cpu_ms cpu_us_per_call"
for ((round = 1; round <= ROUNDS; round++)); do
  for ((j = 0; j < n; j++)); do
    k=$(((j + round - 1) % n))
    p=${PORTS[$k]}; pid=${PIDS[$k]}; name=${NAMES[$k]}
    most=0; [ "$name" = base ] && most=$BASE_CALLS
    for count in 10 1000; do
      redis-cli -p "$p" zadd big -1 extra >/dev/null; redis-cli -p "$p" zrem big extra >/dev/null
      c0=$(cpu "$pid")
      read -r calls members wall < <(python3 "$DRIVER" zscan "$p" big "$count" "$most")
      c1=$(cpu "$pid")
      echo "$round $name zscan$count $calls $members $wall $(((c1 - c0) * 10)) $(((c1 - c0) * 10000 / calls))"
    done
    reqs=$RAND_N; [ "$name" = base ] && reqs=$BASE_RAND
    c0=$(cpu "$pid"); t0=$(date +%s.%N)
    redis-benchmark -p "$p" -n "$reqs" -c 50 -q ZRANDMEMBER big 10 >/dev/null
    t1=$(date +%s.%N); c1=$(cpu "$pid")
    echo "$round $name zrand10 $reqs $((reqs * 10)) $(echo "$t1 - $t0" | bc | sed 's/^\./0./') $(((c1 - c0) * 10)) $(((c1 - c0) * 10000 / reqs))"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
