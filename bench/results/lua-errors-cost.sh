#!/usr/bin/env bash
# EVALSHA "return 1" server CPU per request, BASE against NEW checkout, in alternating rounds:
# each round starts a fresh server, loads the script, warms it (one run of N, not counted), then
# measures utime+stime from /proc/PID/stat (10 ms ticks) around one
# redis-benchmark -c 8 -P 16 -n N evalsha SHA 0 (N the 6th argument, 200000 if not given).
# usage: lua-errors-cost.sh BASE_ROOT NEW_ROOT ROUNDS PORT WORKDIR [N]
set -u
base=$1 new=$2 rounds=$3 port=$4 work=$5 n=${6:-200000}
. "$(dirname "$0")/start-server.sh"
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
one() { # name root
  start_server "$2" "$port" "$work/$1" || exit 1
  local sha; sha=$(redis-cli -p "$port" script load "return 1")
  redis-benchmark -p "$port" -c 8 -P 16 -n $n evalsha "$sha" 0 >/dev/null
  local c0 c1; c0=$(cpu "$pid")
  redis-benchmark -p "$port" -c 8 -P 16 -n $n evalsha "$sha" 0 >/dev/null
  c1=$(cpu "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null
  echo "$1 cpu_ns_per_req=$(( (c1 - c0) * 10000000 / n )) ticks=$((c1 - c0))"
}
# odd rounds base first, even rounds new first: whichever runs second is not always the same build
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then one base "$base"; one new "$new"; else one new "$new"; one base "$base"; fi
done
