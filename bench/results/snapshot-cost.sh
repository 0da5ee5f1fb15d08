#!/bin/bash
# snapshot-cost.sh ROUNDS [strings]: the cost of an RDB snapshot (`redis-cli --rdb`, SyncCommands on the event
# loop) on builds side by side, each loaded with the same dataset (snapshot-cost-data.py). ROOTS names the
# checkouts (built: colossal-server/target/colossal-server.jar and lib/), as NAME=DIR words; default base
# (/tmp/wk/base32) against this checkout. Per round, each build in turn: wall ms of `redis-cli --rdb` and the
# server's CPU ms (utime+stime of the JVM, /proc/PID/stat) around it, after 3 warm-up snapshots each.
# Ports 7500 on. Files and data under $WORK (default /tmp/snapshot-cost).
set -u
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}; export PATH=$JAVA_HOME/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/snapshot-cost}; mkdir -p "$WORK"
ROOTS=${ROOTS:-"base=/tmp/wk/base32 new=$(cd "$here/../.." && pwd)"}
python3 "$here/snapshot-cost-data.py" ${2:-} > "$WORK/data.resp"
tick=$(getconf CLK_TCK)
names=(); ports=(); pids=(); port=7500
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
for nd in $ROOTS; do
  name=${nd%%=*}; root=${nd#*=}; data=$WORK/d-$name
  rm -rf "$data"; mkdir -p "$data"
  java -cp "$root/colossal-server/target/colossal-server.jar:$root/colossal-server/target/lib/*" \
    dev.colossal.cli.Main serve --port $port --http-port -1 --data "$data" >"$data.log" 2>&1 & pids+=($!)
  for _ in $(seq 100); do redis-cli -p $port ping >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p $port --pipe < "$WORK/data.resp" | tail -1
  echo "$name ($root) on $port: dbsize $(redis-cli -p $port dbsize)"
  names+=($name); ports+=($port); port=$((port + 1))
done
cpu() { awk '{print $14 + $15}' /proc/$1/stat; }
one() { # i: one snapshot of build i
  local f=$WORK/x-${names[$1]}.rdb a b t0 t1
  rm -f "$f"   # redis-cli --rdb does not truncate: a shorter file would keep an old tail
  a=$(cpu ${pids[$1]}); t0=$(date +%s%N)
  redis-cli -p ${ports[$1]} --rdb "$f" >/dev/null 2>&1 || echo "redis-cli --rdb failed on ${ports[$1]}"
  t1=$(date +%s%N); b=$(cpu ${pids[$1]})
  echo "${names[$1]} wall_ms=$(( (t1 - t0) / 1000000 )) cpu_ms=$(( (b - a) * 1000 / tick )) size=$(stat -c %s "$f")"
}
for w in 1 2 3; do for i in "${!names[@]}"; do one $i >/dev/null; done; done
for r in $(seq ${1:-5}); do
  echo "round $r load $(cut -d' ' -f1 /proc/loadavg)"
  for i in "${!names[@]}"; do one $i; done
done
