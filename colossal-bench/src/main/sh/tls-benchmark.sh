#!/usr/bin/env bash
# redis-benchmark --tls against `colossal serve --tls-port` and redis-server 7.0 with the same
# certificates (made here by openssl; client certificates required, Redis's default): SET and GET,
# -c 50, unpipelined and -P 16, the two servers taking turns, ROUNDS times (default 3). Prints
# requests/s and the server's CPU per request, then each server's CPU per TLS handshake (-k 0: a
# new connection per PING). On a shared machine compare CPU per request, and medians.
#   [ROUNDS=3] colossal-bench/src/main/sh/tls-benchmark.sh [REQUESTS]   (default 100000)
# Needs openssl, redis-server, redis-benchmark, redis-cli and a built colossal-server (./colossal build).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
N=${1:-100000}
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=bench CA" 2>/dev/null
for who in server client; do
  openssl req -newkey rsa:2048 -nodes -keyout $who.key -out $who.csr -subj "/CN=localhost" 2>/dev/null
  openssl x509 -req -in $who.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $who.crt -days 2 2>/dev/null
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
TLS=(--tls-cert-file server.crt --tls-key-file server.key --tls-ca-cert-file ca.crt)
CLIENT=(--tls --cacert ca.crt --cert client.crt --key client.key)
ours=$(free_port)
"$JAVA" -cp "$ROOT/colossal-server/target/colossal-server.jar:$ROOT/colossal-server/target/lib/*" dev.colossal.cli.Main \
  serve --port 0 --http-port -1 --data "$work/data" --tls-port "$ours" "${TLS[@]}" >"$work/colossal.log" 2>&1 &
PIDS+=($!)
redis=$(free_port)
redis-server --port 0 --tls-port "$redis" "${TLS[@]}" --save "" --appendonly no --bind 127.0.0.1 >/dev/null 2>&1 &
PIDS+=($!)
for p in $ours $redis; do
  for i in $(seq 150); do redis-cli "${CLIENT[@]}" -p $p ping >/dev/null 2>&1 && break; sleep 0.2; done
done
# JIT warm-up for the JVM (redis-server needs none)
redis-benchmark "${CLIENT[@]}" -p $ours -t set,get -n 200000 -c 50 -P 16 -q >/dev/null 2>&1
redis-benchmark "${CLIENT[@]}" -p $ours -t set,get -n 100000 -c 50 -q >/dev/null 2>&1
redis-benchmark "${CLIENT[@]}" -p $ours -t ping_mbulk -n 300 -c 10 -k 0 -q >/dev/null 2>&1
ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/$1/stat; }
hz=$(getconf CLK_TCK)
echo "date: $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg); $N requests, -c 50, client certificates"
echo "suite: $(openssl s_client -connect 127.0.0.1:$ours -CAfile ca.crt -cert client.crt -key client.key </dev/null 2>/dev/null \
  | sed -n 's/.*Cipher is //p' | head -n 1)"
for r in $(seq "$ROUNDS"); do
  for P in 1 16; do
    for t in set get; do
      for k in 0 1; do
        port=$([ $k = 0 ] && echo $ours || echo $redis); name=$([ $k = 0 ] && echo colossal || echo redis-server)
        before=$(ticks ${PIDS[$k]})
        rps=$(redis-benchmark "${CLIENT[@]}" -p $port -t $t -n $N -c 50 -P $P -q 2>/dev/null | tr '\r' '\n' \
              | awk '/requests per second/ {v=$2} END {print v}')
        after=$(ticks ${PIDS[$k]})
        printf '%-12s %-3s -P %-2s %10s rps  %6.2f us CPU/request  load %s\n' $name $t $P "$rps" \
          "$(echo "($after - $before) * 1000000 / $hz / $N" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
      done
    done
  done
done
H=500
for k in 0 1; do
  port=$([ $k = 0 ] && echo $ours || echo $redis); name=$([ $k = 0 ] && echo colossal || echo redis-server)
  before=$(ticks ${PIDS[$k]})
  redis-benchmark "${CLIENT[@]}" -p $port -t ping_mbulk -n $H -c 10 -k 0 -q >/dev/null 2>&1
  after=$(ticks ${PIDS[$k]})
  printf '%-12s handshake and PING: %7.0f us CPU/connection\n' $name "$(echo "($after - $before) * 1000000 / $hz / $H" | bc -l)"
done
