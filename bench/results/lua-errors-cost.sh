#!/usr/bin/env bash
# EVALSHA server CPU, BASE against NEW checkout, in alternating rounds; each round starts a fresh
# server and measures utime+stime from /proc/PID/stat (10 ms ticks):
# - by default, of "return 1" per request: the script warmed by one run of
#   redis-benchmark -c 8 -P 16 -n N evalsha SHA 0 (N the 6th argument, 200000 if not given), then one
#   such run measured;
# - with LOOP=ITER, of "local s = 0 for i = 1, ITER do s = s + i end return s" per call, CALLS (the 6th
#   argument, 20) sequential redis-cli calls after 3 unmeasured ones: a cost paid per Lua instruction
#   (the debugger's line hook) shows there, and not in a script of two instructions.
# usage: [LOOP=ITER] lua-errors-cost.sh BASE_ROOT NEW_ROOT ROUNDS PORT WORKDIR [N|CALLS]
set -u
base=$1 new=$2 rounds=$3 port=$4 work=$5
loop=${LOOP:-}
n=${6:-$([ -n "$loop" ] && echo 20 || echo 200000)}
. "$(dirname "$0")/start-server.sh"
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
run() { # sha: one warm-up or measured run
  if [ -n "$loop" ]; then
    for _ in $(seq "$n"); do redis-cli -p "$port" evalsha "$1" 0 >/dev/null; done
  else
    redis-benchmark -p "$port" -c 8 -P 16 -n "$n" evalsha "$1" 0 >/dev/null
  fi
}
one() { # name root
  start_server "$2" "$port" "$work/$1" || exit 1
  local sha
  if [ -n "$loop" ]; then
    sha=$(redis-cli -p "$port" script load "local s = 0 for i = 1, $loop do s = s + i end return s")
    for _ in 1 2 3; do redis-cli -p "$port" evalsha "$sha" 0 >/dev/null; done
  else
    sha=$(redis-cli -p "$port" script load "return 1")
    run "$sha"
  fi
  local c0 c1; c0=$(cpu "$pid")
  run "$sha"
  c1=$(cpu "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null
  if [ -n "$loop" ]; then
    echo "$1 cpu_ms_per_call=$(( (c1 - c0) * 10 / n )) ticks=$((c1 - c0))"
  else
    echo "$1 cpu_ns_per_req=$(( (c1 - c0) * 10000000 / n )) ticks=$((c1 - c0))"
  fi
}
# odd rounds base first, even rounds new first: whichever runs second is not always the same build
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then one base "$base"; one new "$new"; else one new "$new"; one base "$base"; fi
done
