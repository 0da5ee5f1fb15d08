#!/usr/bin/env bash
# redis-benchmark's default test list (PING, SET, GET, INCR, the list, set, hash and sorted set tests,
# LRANGE_100..600, MSET) against `colossal serve` and redis-server, each on a fresh data set, ROUNDS (3)
# rounds in turn, the servers' order rotating; prints each test's median requests/s and the ratio.
#   colossal-bench/src/main/sh/redis-benchmark-suite.sh [redis-benchmark flags]   (default: -n 100000 -c 50)
# Needs redis-server, redis-benchmark and a built colossal-server (./colossal build).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
ROUNDS=${ROUNDS:-3}
FLAGS=("$@")
[ ${#FLAGS[@]} -gt 0 ] || FLAGS=(-n 100000 -c 50)
for tool in redis-server redis-benchmark redis-cli; do
  command -v $tool >/dev/null || { echo "redis-benchmark-suite: needs $tool (apt-get install redis-server redis-tools)" >&2; exit 1; }
done
jar="$ROOT/colossal-server/target/colossal-server.jar"
[ -f "$jar" ] || { echo "redis-benchmark-suite: $jar missing; run ./colossal build" >&2; exit 1; }
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # name -> sets pid and port
  port=$(free_port)
  if [ "$1" = colossal ]; then
    rm -rf "$work/data"
    "$JAVA" -cp "$jar:$ROOT/colossal-server/target/lib/*" dev.colossal.cli.Main serve --port "$port" --http-port -1 \
      --data "$work/data" >"$work/colossal.log" 2>&1 &
  else
    redis-server --port "$port" --save "" --appendonly no --bind 127.0.0.1 >/dev/null 2>&1 &
  fi
  pid=$!
  for i in $(seq 150); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
}
stop() { kill $pid; wait $pid 2>/dev/null || true; pid=; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); redis-benchmark ${FLAGS[*]} -q, median of $ROUNDS rounds (requests/s)"
for r in $(seq "$ROUNDS"); do
  for name in $([ $((r % 2)) = 1 ] && echo colossal redis-server || echo redis-server colossal); do
    start "$name"
    [ "$name" = colossal ] && redis-benchmark -p "$port" -q -n 20000 -c 50 >/dev/null 2>&1 # the JIT's warm-up
    redis-benchmark -p "$port" -q "${FLAGS[@]}" 2>&1 | tr '\r' '\n' | grep 'requests per second' \
      | sed -E 's/^ *([^:]+): ([0-9.]+) requests per second.*/\1|\2/' | sed "s/^/$name|/" >>"$work/results"
    stop
  done
done
echo "| test | colossal | redis-server | ratio |"
echo "|---|---:|---:|---:|"
awk -F'|' '{ k = $2; v[$1 SUBSEP k] = v[$1 SUBSEP k] " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
  function median(s,   a, m, i, j, t) { m = split(s, a, " "); for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
    if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((m + 1) / 2)] }
  END { for (i = 1; i <= n; i++) { k = order[i]; o = median(v["colossal" SUBSEP k]); t = median(v["redis-server" SUBSEP k]);
    printf "| %s | %.0f | %.0f | %.2fx |\n", k, o, t, (t > 0 ? o / t : 0) } }' "$work/results"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
