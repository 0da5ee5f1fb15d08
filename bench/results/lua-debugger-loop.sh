#!/usr/bin/env bash
# Server CPU of a Lua loop run through EVALSHA, BASE against NEW checkout, in alternating rounds:
# the line hook's cost is paid per instruction, so a script of millions of instructions shows
# what EVALSHA "return 1" (two instructions) cannot. Each round starts a fresh server, loads
#   local s = 0 for i = 1, ITER do s = s + i end return s
# runs it once to warm up (not counted), then measures utime+stime from /proc/PID/stat (10 ms
# ticks) around CALLS sequential redis-cli EVALSHA calls.
# usage: lua-debugger-loop.sh BASE_ROOT NEW_ROOT ROUNDS PORT WORKDIR [ITER] [CALLS]
set -u
base=$1 new=$2 rounds=$3 port=$4 work=$5 iter=${6:-1000000} calls=${7:-20}
. "$(dirname "$0")/start-server.sh"
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
one() { # name root
  start_server "$2" "$port" "$work/$1" || exit 1
  local sha; sha=$(redis-cli -p "$port" script load "local s = 0 for i = 1, $iter do s = s + i end return s")
  for _ in 1 2 3; do redis-cli -p "$port" evalsha "$sha" 0 >/dev/null; done
  local c0 c1; c0=$(cpu "$pid")
  for _ in $(seq "$calls"); do redis-cli -p "$port" evalsha "$sha" 0 >/dev/null; done
  c1=$(cpu "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null
  echo "$1 cpu_ms_per_call=$(( (c1 - c0) * 10 / calls )) ticks=$((c1 - c0))"
}
# odd rounds base first, even rounds new first: whichever runs second is not always the same build
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then one base "$base"; one new "$new"; else one new "$new"; one base "$base"; fi
done
