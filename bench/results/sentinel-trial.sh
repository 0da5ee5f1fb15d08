#!/usr/bin/env bash
# A failover under writes, as an application behind Redis Sentinel lives it: a master, a replica of
# the same kind (priority 10), a redis-server replica (priority 100), three sentinels (quorum 2,
# down-after 2 s), and redis-py's Sentinel client writing SET w:N N one after the other for 25 s.
# 5 s in, the master is killed with SIGKILL; the client retries each write until it is
# acknowledged. After the run: how long writes failed, whether every acknowledged write is on the
# new master (replication is asynchronous, so the last ones before the kill can be lost, on Redis
# too), then the old master is started again on its data and must become a replica holding them.
# `mixed`: a redis-server master whose priority-10 replica is a Colossal, which is then promoted and
# which the old redis-server master follows when it is back.
#   bench/results/sentinel-trial.sh colossal|redis|mixed [PORT]  (ports PORT..PORT+2, sentinels PORT+20000..)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KIND=${1:?colossal, redis or mixed}
P=${2:-7300}
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
CP="$ROOT/colossal-server/target/colossal-server.jar:$ROOT/colossal-server/target/lib/*"
work=$(mktemp -d)
PIDS=()
trap 'kill -9 "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
up() { for _ in $(seq 300); do redis-cli -p "$1" ping >/dev/null 2>&1 && return; sleep 0.1; done; echo "no PONG on $1" >&2; exit 1; }
server() { # name port [redis-server args...]: starts one of KIND, or redis-server when told
  local name=$1 port=$2; shift 2
  local colossal=$([ "$KIND" = colossal ] || { [ "$KIND" = mixed ] && [ "$name" = replica ]; } && echo yes)
  if [ -n "$colossal" ] && [ "${1:-}" != redis ]; then
    "$JAVA" -cp "$CP" dev.colossal.cli.Main serve --port "$port" --http-port -1 --data "$work/$name" >"$work/$name.log" 2>&1 &
  else
    [ "${1:-}" = redis ] && shift
    mkdir -p "$work/$name"; redis-server --port "$port" --dir "$work/$name" --save '' "$@" >"$work/$name.log" 2>&1 &
  fi
  PIDS+=($!); eval "pid_$name=$!"; up "$port"
}
server master $P; echo "work: $work" >&2
server replica $((P + 2))
[ "$(redis-cli -p $((P + 2)) config set replica-priority 10)" = OK ] || { echo "replica-priority refused: an old build?" >&2; exit 1; }
redis-cli -p $((P + 2)) replicaof 127.0.0.1 $P >/dev/null
server theirs $((P + 1)) redis --replicaof 127.0.0.1 $P --replica-priority 100
for i in 0 1 2; do
  printf 'port %s\nbind 127.0.0.1\ndir %s\nsentinel monitor mymaster 127.0.0.1 %s 2\nsentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 10000\n' \
    $((P + 20000 + i)) "$work" $P > "$work/s$i.conf"
  redis-server "$work/s$i.conf" --sentinel > "$work/s$i.log" 2>&1 & PIDS+=($!)
done
sleep 6
python3 - "$P" "$work/writes" <<'PY' &
import sys, time, redis
from redis.sentinel import Sentinel
p = int(sys.argv[1])
s = Sentinel([('127.0.0.1', p + 20000 + i) for i in range(3)], socket_timeout=0.5)
m = s.master_for('mymaster', socket_timeout=0.5)
acked, errors, first_err, last_err = 0, 0, None, None
end = time.time() + 25
n = 0
while time.time() < end:
    try:
        m.set('w:%d' % n, n)
        acked = n = n + 1
    except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError) as e:
        errors += 1
        now = time.time()
        first_err = first_err or now
        last_err = now
        time.sleep(0.05)
open(sys.argv[2], 'w').write('%d %d %.2f\n' % (acked, errors, (last_err - first_err) if first_err else 0))
PY
writer=$!
sleep 5
kill -9 "$pid_master"; killed=$(date +%s.%N)
wait $writer
read -r acked errors window < "$work/writes"
addr=$(redis-cli -p $((P + 20000)) sentinel get-master-addr-by-name mymaster | tail -1)
present=$(redis-cli -p "$addr" dbsize)
lost=$(python3 -c "
import redis, sys
r = redis.Redis(port=$addr)
n = $acked
got = set()
with r.pipeline(transaction=False) as p:
    for i in range(0, n, 1000):
        for k in range(i, min(n, i + 1000)): p.exists('w:%d' % k)
        got.update(k for k, e in zip(range(i, min(n, i + 1000)), p.execute()) if e)
missing = [k for k in range(n) if k not in got]
print('%d lost%s' % (len(missing), (': w:' + ', w:'.join(map(str, missing[:10]))) if missing else ''))
")
server master $P; echo "work: $work" >&2
for _ in $(seq 90); do redis-cli -p $P info replication | grep -q "master_link_status:up" && break; sleep 1; done
back=$(redis-cli -p $P dbsize)
echo "date: $(date -u '+%F %T') UTC; kind: $KIND; $("$JAVA" -version 2>&1 | head -1); $(redis-server --version | cut -d' ' -f1-3); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "acknowledged writes: $acked; failed tries: $errors over ${window}s; new master: port $addr (was $P); keys there: $present; acknowledged but not there: $lost"
case "$lost$addr" in "0 lost$((P + 2))") ;; *) KEEP=1; echo "not as expected: the servers' and sentinels' logs stay in $work" ;; esac
echo "old master back: $(redis-cli -p $P info replication | grep -E '^(role|master_port|master_link_status)' | tr -d '\r' | tr '\n' ' ')keys: $back"
