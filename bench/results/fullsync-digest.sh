#!/usr/bin/env bash
# A full sync at scale under writes, checked end to end: a Colossal master (this checkout) with
# KEYS string keys, a big hash, a big list and a big set; redis-benchmark writing SET/INCR/LPUSH/
# HSET/SADD throughout while a redis-server replica syncs in full; then the writes stop, the
# replica catches up, and DEBUG DIGEST (Redis's SHA-1 of the whole data set) must match.
# REPLICA=colossal makes the replica a Colossal of this checkout too.
# VALUE sets the string values' bytes (redis-benchmark -d, 3 by default) and WRITERS the writers'
# redis-benchmark options (-P 16 by default); a snapshot past 256 MB under fewer writes, in a small heap:
#   COLOSSAL_JAVA_OPTS=-Xmx256m KEYS=3000000 VALUE=100 WRITERS="-c 2 -P 1" bench/results/fullsync-digest.sh 7360
#   KEYS=1000000 [REPLICA=colossal] bench/results/fullsync-digest.sh [PORT]   (ports PORT, PORT+1)
set -u
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
port=${1:-7710}; work=$(mktemp -d); keys=${KEYS:-1000000}
source "$here/start-server.sh"
trap 'kill $pid $rpid $bpid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
rpid=; bpid=
start_server "$root" "$port" "$work/master" --enable-debug-command yes || exit 1
redis-benchmark -p "$port" -t set -r "$keys" -n "$keys" -d "${VALUE:-3}" -P 64 -q >/dev/null
redis-benchmark -p "$port" -t hset,lpush,sadd -r 100000 -n 100000 -P 64 -q >/dev/null
echo "master: $(redis-cli -p "$port" DBSIZE) keys, $(redis-cli -p "$port" HLEN myhash) hash fields, $(redis-cli -p "$port" LLEN mylist) list elements"
read -r -a writers <<<"${WRITERS:--P 16}"
redis-benchmark -p "$port" -t set,incr,lpush,hset,sadd -r "$keys" -d "${VALUE:-3}" -n 100000000 "${writers[@]}" -q >/dev/null 2>&1 & bpid=$!
sleep 2
t0=$(date +%s.%N)
if [ "${REPLICA:-redis}" = colossal ]; then
  java -cp "$root/colossal-server/target/colossal-server.jar:$root/colossal-server/target/lib/*" dev.colossal.cli.Main serve \
    --port $((port + 1)) --http-port -1 --data "$work/replica" --enable-debug-command yes --replicaof 127.0.0.1 "$port" \
    >"$work/replica.log" 2>&1 & rpid=$!
else
  redis-server --port $((port + 1)) --save "" --enable-debug-command yes --dir "$work" --replicaof 127.0.0.1 "$port" >"$work/replica.log" 2>&1 & rpid=$!
fi
until redis-cli -p $((port + 1)) INFO replication 2>/dev/null | grep -q "master_link_status:up"; do sleep 0.05; done
t1=$(date +%s.%N)
sleep 3
kill "$bpid"; wait "$bpid" 2>/dev/null; bpid=
for _ in $(seq 200); do
  m=$(redis-cli -p "$port" INFO replication | tr -d '\r' | sed -n 's/^master_repl_offset://p')
  r=$(redis-cli -p $((port + 1)) INFO replication | tr -d '\r' | sed -n 's/^slave_repl_offset://p')
  [ "$m" = "$r" ] && break; sleep 0.1
done
dm=$(redis-cli -p "$port" DEBUG DIGEST); dr=$(redis-cli -p $((port + 1)) DEBUG DIGEST)
echo "sync took $(echo "$t1 - $t0" | bc) s; offsets master $m replica $r; keys master $(redis-cli -p "$port" DBSIZE) replica $(redis-cli -p $((port + 1)) DBSIZE)"
echo "digest master  $dm"
echo "digest replica $dr"
[ "$dm" = "$dr" ] && echo "EQUAL" || { echo "DIFFERENT"; exit 1; }
