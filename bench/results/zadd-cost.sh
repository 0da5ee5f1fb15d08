#!/usr/bin/env bash
# Server CPU per request (user+sys of the server process from /proc, 10 ms ticks) of the sorted-set
# writes BullMQ, Sidekiq and leaderboards live on, in this checkout's `colossal serve`, a base
# checkout's and redis-server, each under the same redis-benchmark runs (-c 8 -P 16):
#   zadd-fresh   ZADD of new random members into a set that starts empty (it grows to ~REQS)
#   zadd-big     ZADD of new random members into the set `big`, filled first to N members
#   zadd-upd     ZADD of a new random score to an existing member of `big` (members m:0..N-1)
#   zscore       ZSCORE of an existing member of `big`
#   zrangebyscore ZRANGEBYSCORE big <random> +inf LIMIT 0 10
#   zrem         ZREM of a random member m:0..N-1 of `big` (the misses grow as the round goes on)
#   zpopmin      ZPOPMIN big
# Rounds rotate the servers' order; `big` is refilled to N before each round.
#   BASE=/tmp/wk/zadd-base N=200000 ROUNDS=2 PORTS_FROM=7900 bench/results/zadd-cost.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${N:-200000}
REQS=${REQS:-200000}
ROUNDS=${ROUNDS:-2}
TESTS=${TESTS:-"zadd-fresh zadd-big zadd-upd zscore zrangebyscore zrem zpopmin"}
port=${PORTS_FROM:-7900}
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/start-server.sh"
serve new "$ROOT"
[ -n "${BASE:-}" ] && serve base "$BASE"
serve redis-server redis
n=${#PIDS[@]}
echo "servers: ${NAMES[*]} pids ${PIDS[*]} ports ${PORTS[*]}" >&2
# ZADD big i m:i for i < N, a hundred members a command, through redis-cli --pipe
python3 - "$work/fill" "$N" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], 'wb') as f:
    for lo in range(0, n, 100):
        args = [b'ZADD', b'big']
        for i in range(lo, min(n, lo + 100)):
            args += [b'%d' % i, b'm:%012d' % i]
        f.write(b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(a), a) for a in args))
PY
fill() { redis-cli -p "$1" del big >/dev/null; redis-cli -p "$1" --pipe <"$work/fill" >/dev/null; }
bench() { redis-benchmark -p "$1" -c 8 -P 16 -n "$2" "${@:3}" >/dev/null 2>&1; }
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
# JIT warm-up of the JVMs on the same commands, on a set of its own
for ((k = 0; k < n - 1; k++)); do
  p=${PORTS[$k]}
  bench "$p" 300000 -r 100000000 zadd warm __rand_int__ m:__rand_int__
  bench "$p" 100000 -r 100000000 zadd warm __rand_int__ m:__rand_int__
  bench "$p" 100000 -r 100000000 zscore warm m:__rand_int__
  bench "$p" 50000 -r 100000000 zrangebyscore warm __rand_int__ +inf limit 0 10
  bench "$p" 100000 -r 100000000 zrem warm m:__rand_int__
  bench "$p" 100000 zpopmin warm
  redis-cli -p "$p" del warm >/dev/null
done
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; REQS=$REQS; $("$JAVA" -version 2>&1 | head -1)"
echo "round server test requests wall_s cpu_ms us_per_request"
for ((round = 1; round <= ROUNDS; round++)); do
  for ((j = 0; j < n; j++)); do
    k=$(((j + round - 1) % n))
    p=${PORTS[$k]}; pid=${PIDS[$k]}; name=${NAMES[$k]}
    fill "$p"
    redis-cli -p "$p" del fresh >/dev/null
    for t in $TESTS; do
      case $t in
        zadd-fresh) args=(-r 100000000 zadd fresh __rand_int__ m:__rand_int__) ;;
        zadd-big) args=(-r 100000000 zadd big __rand_int__ n:__rand_int__) ;;
        zadd-upd) args=(-r "$N" zadd big __rand_int__ m:__rand_int__) ;;
        zscore) args=(-r "$N" zscore big m:__rand_int__) ;;
        zrangebyscore) args=(-r "$N" zrangebyscore big __rand_int__ +inf limit 0 10) ;;
        zrem) args=(-r "$N" zrem big m:__rand_int__) ;;
        zpopmin) args=(zpopmin big) ;;
      esac
      c0=$(cpu "$pid"); t0=$(date +%s.%N)
      bench "$p" "$REQS" "${args[@]}"
      t1=$(date +%s.%N); c1=$(cpu "$pid")
      echo "$round $name $t $REQS $(echo "$t1 - $t0" | bc | cut -c1-6) $(((c1 - c0) * 10)) $(echo "scale=2; ($c1 - $c0) * 10000 / $REQS" | bc)"
    done
    echo "$round $name ZCARD big = $(redis-cli -p "$p" zcard big), fresh = $(redis-cli -p "$p" zcard fresh)"
  done
done
