#!/usr/bin/env bash
# GEOSEARCH on big GEO sets in this checkout's `colossal serve`, a base checkout's and redis-server:
# server CPU (user+sys of the server process from /proc, 10 ms ticks) per request of
#   GEOSEARCH KEY FROMLONLAT 11.35 44.5 BYRADIUS R km [COUNT 10 ASC]
# for R = 1 and 5, on two sets of N random points each: "city" (lon 11.2..11.5, lat 44.4..44.6,
# about 24 x 22 km: 1 km finds ~6,000 points, 5 km ~150,000) and "world" (lon -180..180, lat
# -85..85, uniform in degrees: a few points at most). Requests from redis-benchmark (-c 10);
# the base reads the whole set each request, so it gets BASE_REQS requests a test.
#   BASE=/tmp/wk/geo-base N=1000000 ROUNDS=2 PORTS_FROM=7880 bench/results/geosearch-cost.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
N=${N:-1000000}
ROUNDS=${ROUNDS:-2}
BASE_REQS=${BASE_REQS:-6}
port=${PORTS_FROM:-7880}
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/start-server.sh"
# GEOADD commands of N seeded random points p0.. in RESP, 100 points a command
fill() { # key seed lonmin lonmax latmin latmax
  python3 - "$N" "$@" <<'EOF'
import random, sys
n, key, seed = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
x0, x1, y0, y1 = map(float, sys.argv[4:8])
rnd = random.Random(seed)
out = sys.stdout
def bulk(s):
    return "$%d\r\n%s\r\n" % (len(s), s)
for start in range(0, n, 100):
    k = min(100, n - start)
    parts = ["*%d\r\n" % (2 + 3 * k), bulk("GEOADD"), bulk(key)]
    for i in range(start, start + k):
        parts += [bulk("%.6f" % rnd.uniform(x0, x1)), bulk("%.6f" % rnd.uniform(y0, y1)), bulk("p%d" % i)]
    out.write("".join(parts))
EOF
}
serve new "$ROOT"
[ -n "${BASE:-}" ] && serve base "$BASE"
serve redis-server redis
n=${#PIDS[@]}
fill city 1 11.2 11.5 44.4 44.6 >"$work/city.resp"
fill world 2 -180 180 -85 85 >"$work/world.resp"
for p in "${PORTS[@]}"; do
  redis-cli -p "$p" --pipe <"$work/city.resp" >/dev/null
  redis-cli -p "$p" --pipe <"$work/world.resp" >/dev/null
  echo "port $p: ZCARD city = $(redis-cli -p "$p" zcard city), world = $(redis-cli -p "$p" zcard world), encoding $(redis-cli -p "$p" object encoding city)"
done
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
# test name, key, radius (km), COUNT 10 ASC or not, requests for new and redis-server
TESTS=("city-1km-count10 city 1 c 2000" "city-1km-all city 1 - 400" "city-5km-count10 city 5 c 50" "city-5km-all city 5 - 20"
  "world-1km-count10 world 1 c 20000" "world-1km-all world 1 - 20000" "world-5km-count10 world 5 c 20000" "world-5km-all world 5 - 20000")
query() { # key radius c|-
  echo GEOSEARCH "$1" FROMLONLAT 11.35 44.5 BYRADIUS "$2" km
  [ "$3" = c ] && echo COUNT 10 ASC
  return 0
}
for p in "${PORTS[@]}"; do # replies the same everywhere, and JIT warm-up
  for t in "${TESTS[@]}"; do
    read -r name key r c reqs <<<"$t"
    echo "port $p $name: $(redis-cli -p "$p" $(query "$key" "$r" "$c") | md5sum | cut -c1-8) $(redis-cli -p "$p" $(query "$key" "$r" "$c") | wc -l) lines"
  done
done
for ((k = 0; k < n - 1; k++)); do
  for t in "${TESTS[@]}"; do
    read -r name key r c reqs <<<"$t"
    [ "${NAMES[$k]}" = base ] && reqs=2
    redis-benchmark -p "${PORTS[$k]}" -n "$reqs" -c 10 -q $(query "$key" "$r" "$c") >/dev/null
  done
done
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N; $("$JAVA" -version 2>&1 | head -1)"
echo "round server test requests wall_s cpu_ms cpu_us_per_request"
for ((round = 1; round <= ROUNDS; round++)); do
  for t in "${TESTS[@]}"; do
    read -r name key r c reqs0 <<<"$t"
    for ((j = 0; j < n; j++)); do
      k=$(((j + round - 1) % n))
      p=${PORTS[$k]}; pid=${PIDS[$k]}; server=${NAMES[$k]}
      reqs=$reqs0; [ "$server" = base ] && reqs=$BASE_REQS
      c0=$(cpu "$pid"); t0=$(date +%s.%N)
      redis-benchmark -p "$p" -n "$reqs" -c 10 -q $(query "$key" "$r" "$c") >/dev/null
      t1=$(date +%s.%N); c1=$(cpu "$pid")
      echo "$round $server $name $reqs $(echo "$t1 - $t0" | bc | sed 's/^\./0./') $(((c1 - c0) * 10)) $(((c1 - c0) * 10000 / reqs))"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
