#!/bin/bash
# usage: bench/results/mset-distinct.sh PORT ROOT -> server CPU per MSET of 10 distinct random keys (-P 16), 3 rounds
port=$1; root=$2; N=300000
d=/tmp/mset-distinct-$port
. "$(dirname "$0")/start-server.sh"
start_server "$root" "$port" "$d"
ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12]+f[13] }' /proc/$pid/stat; }
args=""; for i in $(seq 10); do args="$args key:__rand_int__ vvvvvvvvvv"; done
redis-benchmark -p $port -n 200000 -r 1000000 -P 16 -q mset $args >/dev/null
out="$root:"
for r in 1 2 3; do t0=$(ticks); redis-benchmark -p $port -n $N -r 1000000 -P 16 -q mset $args >/dev/null; t1=$(ticks); out="$out $(( (t1-t0)*10000000/N ))e-3"; done
echo "$out us/MSET"
kill $pid; wait $pid 2>/dev/null; rm -rf $d $d.log
