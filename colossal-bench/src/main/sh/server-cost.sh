#!/usr/bin/env bash
# Server CPU per request, user and system apart, of `colossal serve` and redis-server under the same
# redis-benchmark runs: the figure a loaded machine moves least (throughput moves a lot; its median
# is printed too, so one cell of `./colossal bench server` can be rerun alone).
#   colossal-bench/src/main/sh/server-cost.sh [CELL...]     CELL = test:size:pipeline:requests
#   (default: get/set x 16 B/1 KiB x -P 16 and -P 1)
#   Three list tests beside redis-benchmark's: brpop (BRPOP from 50 clients on a list filled first, so
#   that none waits) and queue (LPUSH q job; RPOP q in turn on one pipelined connection, redis-cli
#   --pipe: a queue empty between jobs, as a kept-up worker's is, beside a 300,000-element list; each
#   round counts the second after it too, for the background work it set off). Their pipeline is
#   ignored by queue, their requests count both commands. lrange10: LRANGE small 0 -1 of a list of
#   10 elements of the cell's size (a small list, as recent-items lists are). backlog: queue's
#   requests on a queue that keeps 3 jobs waiting (a packed list of 3 or 4 elements, never emptied).
# ROUNDS (3) rounds per cell, the servers' order rotating; the median of each column is printed last.
# PORTS_FROM=n gives the servers ports n, n+1, n+2 instead of free ones.
# BASE=/other/checkout adds that checkout's built server as a third column (before/after a change).
# OURS_FLAGS / BASE_FLAGS are extra `serve` flags for each (e.g. BASE=. BASE_FLAGS='--busy-poll 0').
# Needs redis-server, redis-benchmark and a built colossal-server (./colossal build).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
ROUNDS=${ROUNDS:-3}
CELLS=("$@")
[ ${#CELLS[@]} -gt 0 ] || CELLS=(set:16:16:2000000 get:16:16:2000000 set:1024:16:800000 get:1024:16:800000
                                 set:16:1:200000 get:16:1:200000 set:1024:1:200000 get:1024:1:200000)
for tool in redis-server redis-benchmark redis-cli; do
  command -v $tool >/dev/null || { echo "server-cost: needs $tool (apt-get install redis-server redis-tools)" >&2; exit 1; }
done
work=$(mktemp -d)
PIDS=(); PORTS=(); NAMES=()
trap 'kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
next_port=${PORTS_FROM:-}
free_port() { # sets port: PORTS_FROM=n gives n, n+1, n+2 (a machine shared by agreed port ranges), else any free one
  if [ -n "$next_port" ]; then port=$next_port; next_port=$((next_port + 1)); return; fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'); }
serve() { # name root flags
  local port jar="$2/colossal-server/target/colossal-server.jar"
  [ -f "$jar" ] || { echo "server-cost: $jar missing; run ./colossal build there" >&2; exit 1; }
  free_port; mkdir -p "$work/$1"
  "$JAVA" -cp "$jar:$2/colossal-server/target/lib/*" dev.colossal.cli.Main serve --port "$port" --http-port -1 \
    --data "$work/$1" $3 >"$work/$1.log" 2>&1 &
  PIDS+=($!); PORTS+=("$port"); NAMES+=("$1")
}
serve colossal "$ROOT" "${OURS_FLAGS:-}"
[ -n "${BASE:-}" ] && serve base "$BASE" "${BASE_FLAGS:-}"
free_port
redis-server --port "$port" --save "" --appendonly no --bind 127.0.0.1 >/dev/null 2>&1 &
PIDS+=($!); PORTS+=("$port"); NAMES+=(redis-server)
n=${#PIDS[@]}
for p in "${PORTS[@]}"; do
  for i in $(seq 150); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.2; done
done
# JIT warm-up for the JVMs (redis-server needs none): both sizes, pipelined and not.
for ((k = 0; k < n - 1; k++)); do
  for d in 16 1024; do
    redis-benchmark -p "${PORTS[$k]}" -t set,get -n 300000 -c 50 -P 16 -d $d -q >/dev/null 2>&1
    redis-benchmark -p "${PORTS[$k]}" -t set,get -n 50000 -c 50 -d $d -q >/dev/null 2>&1
  done
done
ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12], f[13] }' /proc/$1/stat; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); us per request = user+sys CPU of the server process / requests"
for cell in "${CELLS[@]}"; do
  IFS=: read -r t s p reqs <<<"$cell"
  # redis-benchmark uses one key without -r: GET reads what a SET of this size wrote.
  for q in "${PORTS[@]}"; do redis-benchmark -p "$q" -t set -n 1000 -c 10 -d "$s" -q >/dev/null 2>&1; done
  if [ "$t" = queue ] || [ "$t" = backlog ]; then
    python3 - "$work/queue" "$((reqs / 2))" "$s" <<'PY'
import sys
job = b'j' * int(sys.argv[3])
with open(sys.argv[1], 'wb') as f:
    for i in range(int(sys.argv[2])):
        f.write(b'*3\r\n$5\r\nLPUSH\r\n$1\r\nq\r\n$%d\r\n%s\r\n*2\r\n$4\r\nRPOP\r\n$1\r\nq\r\n' % (len(job), job))
PY
    for q in "${PORTS[@]}"; do redis-benchmark -p "$q" -n 300000 -c 50 -P 16 -q lpush big xxxxxxxxxxxxxxxx >/dev/null 2>&1; done
  fi
  if [ "$t" = lrange10 ]; then
    for q in "${PORTS[@]}"; do
      redis-cli -p "$q" del small >/dev/null
      for e in $(seq 10); do redis-cli -p "$q" rpush small "$(head -c "$s" /dev/zero | tr '\0' e)" >/dev/null; done
    done
  fi
  : >"$work/cell"
  for r in $(seq "$ROUNDS"); do
    line="$t ${s}B -P $p round $r:"
    for ((k = 0; k < n; k++)); do
      i=$(( (k + r) % n ))
      if [ "$t" = brpop ]; then
        redis-benchmark -p "${PORTS[$i]}" -t lpush -n $((reqs + 5000)) -c 50 -P 16 -d "$s" -q >/dev/null 2>&1
      fi
      read -r u0 s0 < <(ticks "${PIDS[$i]}")
      if [ "$t" = backlog ]; then
        redis-cli -p "${PORTS[$i]}" del q >/dev/null
        redis-cli -p "${PORTS[$i]}" rpush q "$(head -c "$s" /dev/zero | tr '\0' j)" "$(head -c "$s" /dev/zero | tr '\0' j)" \
          "$(head -c "$s" /dev/zero | tr '\0' j)" >/dev/null
        read -r u0 s0 < <(ticks "${PIDS[$i]}")
      fi
      if [ "$t" = queue ] || [ "$t" = backlog ]; then
        redis-cli -p "${PORTS[$i]}" --pipe <"$work/queue" >/dev/null 2>&1
        sleep 1
        rps=0
      else
        what=(-t "$t"); [ "$t" = brpop ] && what=(brpop mylist 0); [ "$t" = lrange10 ] && what=(lrange small 0 -1)
        rps=$(redis-benchmark -h 127.0.0.1 -p "${PORTS[$i]}" -n "$reqs" -c 50 -P "$p" -d "$s" -q --csv "${what[@]}" 2>/dev/null \
          | tail -1 | cut -d, -f2 | tr -d '"')
      fi
      read -r u1 s1 < <(ticks "${PIDS[$i]}")
      [ "$t" = brpop ] && redis-cli -p "${PORTS[$i]}" del mylist >/dev/null
      # /proc counts in USER_HZ (100) ticks: 1 tick = 10,000 us
      awk -v i="$i" -v u=$((u1 - u0)) -v y=$((s1 - s0)) -v n="$reqs" -v rps="${rps:-0}" \
        'BEGIN { printf "%d %.3f %.3f %.0f\n", i, u * 1e4 / n, y * 1e4 / n, rps }' >>"$work/cell"
    done
  done
  printf '%-18s' "$t ${s}B -P $p"
  for ((i = 0; i < n; i++)); do
    u=$(awk -v i="$i" '$1 == i { print $2 }' "$work/cell" | median)
    y=$(awk -v i="$i" '$1 == i { print $3 }' "$work/cell" | median)
    tot=$(awk -v i="$i" '$1 == i { print $2 + $3 }' "$work/cell" | median)
    rps=$(awk -v i="$i" '$1 == i { print $4 }' "$work/cell" | median)
    printf ' | %s %.3f us (user %.3f, sys %.3f) %.0fk/s' "${NAMES[$i]}" "$tot" "$u" "$y" "$(awk -v r="$rps" 'BEGIN { print r / 1000 }')"
  done
  echo
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
