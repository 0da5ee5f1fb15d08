#!/usr/bin/env bash
# CPU per request (user+sys of the server process, /proc/PID/stat, 100 Hz ticks) of ZADD, ZINCRBY and SADD
# on a ~259k-member sorted set and set: 300k pipelined ZADDs/SADDs fill them, then N requests of each,
# 50 clients, no pipelining. FILL=700000 fills bigz to ~504k members instead. READS=1 also measures ZSCORE, ZRANK and ZRANGE bigz 0 9 on the filled set,
# then ZRANGEBYSCORE (10 from a score), ZCOUNT (of ~26k members) and ZMSCORE (of 3 members), each after a warm-up.
# JFR=1 records a JFR profile of a further ZADD and SADD run.
# PORT=n picks the port (else a free one). usage: bench/results/big-writes-cpu.sh NAME ROOT|redis  -> prints us/request CPU for zadd, zincrby, sadd on big values
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
name=$1; root=$2; N=${N:-100000}
port=${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
d=${TMPDIR:-/tmp}/big-writes-cpu-data-$name; rm -rf $d; mkdir -p $d
if [ "$root" = redis ]; then
  redis-server --port $port --save "" --appendonly no --bind 127.0.0.1 >/dev/null 2>&1 & pid=$!
else
  java -cp "$root/colossal-server/target/colossal-server.jar:$root/colossal-server/target/lib/*" dev.colossal.cli.Main serve --port $port --http-port -1 --data $d > $d.log 2>&1 & pid=$!
fi
echo $pid > ${TMPDIR:-/tmp}/big-writes-cpu-$name.pid
for i in $(seq 150); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.2; done
ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12]+f[13] }' /proc/$pid/stat; }
redis-benchmark -p $port -n ${FILL:-300000} -r 1000000 -P 16 -q zadd bigz __rand_int__ member:__rand_int__ >/dev/null
redis-benchmark -p $port -n 300000 -r 1000000 -P 16 -q sadd bigs member:__rand_int__ >/dev/null
echo "$name zcard $(redis-cli -p $port zcard bigz) scard $(redis-cli -p $port scard bigs)"
run() { local t0=$(ticks); local out=$(redis-benchmark -p $port -n $N -r 1000000 -q "$@" | tr '\r' '\n' | tail -1); local t1=$(ticks)
  echo "$name $1: $(( (t1-t0)*10000000/N ))e-3 us/req ; $out"; }
run zadd bigz __rand_int__ member:__rand_int__
run zincrby bigz 1 member:__rand_int__
run sadd bigs member:__rand_int__
# a read's code is compiled before it is measured, as the writes' is by the fill (a path no write shares
# would count its JIT's CPU otherwise): N/4 of each read first, not counted
warm() { redis-benchmark -p $port -n $((N/4)) -r 1000000 -q "$@" >/dev/null; }
[ -n "$READS" ] && { warm zscore bigz member:__rand_int__; warm zrank bigz member:__rand_int__; warm zrange bigz 0 9
  warm zrangebyscore bigz 500000 +inf LIMIT 0 10; warm zcount bigz 100000 200000; warm zmscore bigz member:__rand_int__ member:__rand_int__; }
[ -n "$READS" ] && { run zscore bigz member:__rand_int__; run zrank bigz member:__rand_int__; run zrange bigz 0 9
  run zrangebyscore bigz 500000 +inf LIMIT 0 10; run zcount bigz 100000 200000
  run zmscore bigz member:__rand_int__ member:__rand_int__ member:__rand_int__; }
[ -n "$JFR" ] && { jcmd $pid JFR.start name=p filename=${TMPDIR:-/tmp}/big-writes-cpu-$name.jfr settings=profile >/dev/null; run zadd bigz __rand_int__ member:__rand_int__; run sadd bigs member:__rand_int__; jcmd $pid JFR.stop name=p >/dev/null; }
kill $pid; wait $pid 2>/dev/null; rm -rf $d
