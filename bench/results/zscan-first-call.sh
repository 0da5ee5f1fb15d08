#!/usr/bin/env bash
# What a ZSCAN of a big sorted set costs beyond its steps, on one server: the first call of a scan
# after a write (which builds the scan order of the whole set), five times, then a scan of COUNT 10
# with a ZADD of a new member before each of its first 20,000 calls (every step after the first
# works from an order older than the set). Server CPU is user+sys from /proc (10 ms ticks).
#   bench/results/zscan-first-call.sh ROOT PORT      ROOT: a checkout with a built server, or "redis"
# Not for a base before session 28: its every call reads the whole set (20,000 of them take hours).
set -euo pipefail
ROOT=$1; P=$2; D=$(mktemp -d)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
DRIVER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/zscan-driver.py"
if [ "$ROOT" = redis ]; then
  redis-server --port "$P" --save "" --appendonly no --bind 127.0.0.1 >/dev/null 2>&1 &
else
  "$JAVA" -cp "$ROOT/colossal-server/target/colossal-server.jar:$ROOT/colossal-server/target/lib/*" dev.colossal.cli.Main serve \
    --port "$P" --http-port -1 --data "$D" >"$D.log" 2>&1 &
fi
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$D" "$D.log"' EXIT
for i in $(seq 150); do redis-cli -p "$P" ping >/dev/null 2>&1 && break; sleep 0.2; done
python3 "$DRIVER" fill "$P" big 1000000
cpu() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
python3 "$DRIVER" zscan "$P" big 1000 >/dev/null   # JIT warm-up
python3 "$DRIVER" zscan "$P" big 10 20000 >/dev/null
for i in 1 2 3 4 5; do
  redis-cli -p "$P" zadd big -1 extra >/dev/null; redis-cli -p "$P" zrem big extra >/dev/null
  c0=$(cpu $PID); t0=$(date +%s%N); redis-cli -p "$P" zscan big 0 count 10 >/dev/null; t1=$(date +%s%N); c1=$(cpu $PID)
  echo "first call after a write: wall $(((t1 - t0) / 1000000)) ms, server cpu $(((c1 - c0) * 10)) ms"
done
for i in 1 2; do
  c0=$(cpu $PID); out=$(python3 "$DRIVER" zscanw "$P" big 10 20000); c1=$(cpu $PID)
  echo "COUNT 10, a ZADD of a new member before each call, 20000 calls (calls members seconds): $out; server cpu $(((c1 - c0) * 10)) ms"
done
