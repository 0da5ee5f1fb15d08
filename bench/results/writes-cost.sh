#!/usr/bin/env bash
# Server CPU per request of stream, hash and list writes (and, named, small commands of the general
# command path: incr hset sadd zadd exists ttl hget; and scan, eval-get, get-long, which copy keys or
# replies out of native memory) in this checkout's `colossal serve`, up to two
# other checkouts' (BASE=, MAIN=) and redis-server, side by side: user+sys of the server process from
# /proc/PID/stat (10 ms ticks) around one redis-benchmark run each, -c 8 -P 16, the servers' order
# rotating each round. Each server starts afresh; the JVMs get two unmeasured runs of every test first.
#   BASE=/tmp/wk/xadd-base ROUNDS=3 PORTS_FROM=7920 bench/results/writes-cost.sh [TEST...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
port=${PORTS_FROM:-7920}
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/start-server.sh"
# name|setup (redis-cli args run once before each run, ';'-separated)|redis-benchmark args
ALL=(
  "xadd||xadd s * f v"
  "xadd-maxlen||xadd s2 MAXLEN ~ 1000 * f v"
  "xadd-5f||xadd s3 * event added jobId 12345 name myjob prev waiting ts 1700000000000"
  "xadd-maxlen-exact||xadd s4 MAXLEN 1000 * f v"
  "hset-new10||hset h:__rand_int__ f1 v1 f2 v2 f3 v3 f4 v4 f5 v5 f6 v6 f7 v7 f8 v8 f9 v9 f10 v10"
  "hset-new5||hset h5:__rand_int__ f1 v1 f2 v2 f3 v3 f4 v4 f5 v5"
  "hset-one|hset hx a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8|hset hx f__rand_int__ v"
  "hset-same|hset hy a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8|hset hy c v"
  "lpush||lpush l v"
  "rpush||rpush l2 v"
  "lpop||lpop l"
  "rpop||rpop l"
  "lmove||lmove l lm right left"
  "incr||incr cnt"
  "hset|hset hs a 1 b 2 c 3|hset hs b v"
  "sadd|sadd ss a b c|sadd ss b"
  "zadd|zadd zs 1 a 2 b 3 c|zadd zs 5 b"
  "exists|set k v|exists k"
  "ttl|set k v|ttl k"
  "hget|hset hs a 1 b 2 c 3|hget hs a"
  "scan|mset k0 v k1 v k2 v k3 v k4 v k5 v k6 v k7 v k8 v k9 v k10 v k11 v k12 v k13 v k14 v k15 v k16 v k17 v k18 v k19 v k20 v k21 v k22 v k23 v k24 v k25 v k26 v k27 v k28 v k29 v k30 v k31 v k32 v k33 v k34 v k35 v k36 v k37 v k38 v k39 v k40 v k41 v k42 v k43 v k44 v k45 v k46 v k47 v k48 v k49 v|scan 0 count 50"
  "eval-get|set k v|eval return(redis.call('get',KEYS[1])) 1 k"
  "get-long|set kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk v|get kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
)
TESTS=("$@"); [ ${#TESTS[@]} -gt 0 ] || TESTS=(xadd xadd-maxlen xadd-5f hset-new10 hset-new5 hset-one hset-same lpush rpush lpop)
spec() { for t in "${ALL[@]}"; do [ "${t%%|*}" = "$1" ] && { echo "$t"; return; }; done; echo "no test $1" >&2; exit 1; }
serve new "$ROOT"
[ -n "${BASE:-}" ] && serve base "$BASE"
[ -n "${MAIN:-}" ] && serve main "$MAIN"
serve redis-server redis
n=${#PIDS[@]}
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
run() { # k test: one measured run, prints cpu us per request
  local s; s=$(spec "$2"); IFS='|' read -r name setup args <<<"$s"
  local p=${PORTS[$1]} pid=${PIDS[$1]}
  if [ -n "$setup" ]; then IFS=';' read -ra cmds <<<"$setup"; for c in "${cmds[@]}"; do redis-cli -p "$p" $c >/dev/null; done; fi
  local r=""; [[ "$args" == *__rand_int__* ]] && r="-r 100000"
  local c0 c1; c0=$(cpu "$pid")
  set -f; redis-benchmark -p "$p" -c 8 -P 16 -n "$N" $r -q $args >/dev/null 2>&1; set +f
  c1=$(cpu "$pid")
  awk -v c=$((c1 - c0)) -v n="$N" 'BEGIN { printf "%.3f", c * 1e4 / n }'
}
rounds "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; $("$JAVA" -version 2>&1 | head -1); $(redis-server --version | cut -d' ' -f1-3)
round test ${NAMES[*]} (us of server CPU per request)"
