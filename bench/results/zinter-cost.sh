#!/bin/bash
# usage: bench/results/zinter-cost.sh PORT ROOT|redis N -> server CPU per ZINTER 2 small big WITHSCORES (small: 10 members, big: ~260k), per ZINTERCARD, per ZDIFF 2 small big
port=$1; root=$2; N=${3:-200}
d=/tmp/zinter-cost-$port
. "$(dirname "$0")/start-server.sh"
start_server "$root" "$port" "$d"
ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12]+f[13] }' /proc/$pid/stat; }
redis-benchmark -p $port -n 300000 -r 1000000 -P 16 -q zadd big __rand_int__ member:__rand_int__ >/dev/null
for i in $(seq 0 9); do redis-cli -p $port zadd small $i member:$((i*1000)) >/dev/null; done
out="$root zcard big $(redis-cli -p $port zcard big):"
for cmd in "ZINTER 2 small big WITHSCORES" "ZINTERCARD 2 small big" "ZDIFF 2 small big"; do
  redis-benchmark -p $port -n $((N/4)) -c 1 -q $cmd >/dev/null
  t0=$(ticks); redis-benchmark -p $port -n $N -c 1 -q $cmd >/dev/null; t1=$(ticks)
  out="$out | ${cmd%% *} $(( (t1-t0)*10000/N )) us"
done
echo "$out"
kill $pid; wait $pid 2>/dev/null; rm -rf $d $d.log
