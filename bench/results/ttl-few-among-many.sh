#!/usr/bin/env bash
# Keys with a TTL among many without one: how soon the expiry sweep removes them, and whether the
# volatile-lru policy finds them to evict. Against `colossal serve` of a built checkout (ROOT), or
# redis-server (ROOT=redis).
#   bench/results/ttl-few-among-many.sh ROOT [PLAIN] [TTL_KEYS]     (defaults: 3000000 plain keys, 1000)
# Prints the seconds from the TTL keys' SET to each count of expired_keys, then, on a second server
# bounded by --maxmemory 12mb under volatile-lru, how many of 3,000 keys with a TTL among 400,000
# writes without one are left when writes are refused (OOM). Needs redis-benchmark and redis-cli.
set -u
root=$1; plain=${2:-3000000}; few=${3:-1000}
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
work=$(mktemp -d); pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # port data-dir extra-flags...
  local p=$1 d=$2; shift 2
  if [ "$root" = redis ]; then
    redis-server --port "$p" --save '' --appendonly no --bind 127.0.0.1 "$@" >/dev/null 2>&1 &
  else
    "$JAVA" -cp "$root/colossal-server/target/colossal-server.jar:$root/colossal-server/target/lib/*" dev.colossal.cli.Main \
      serve --port "$p" --http-port -1 --data "$d" "$@" >"$d.log" 2>&1 &
  fi
  pids+=($!)
  for _ in $(seq 150); do redis-cli -p "$p" ping >/dev/null 2>&1 && return; sleep 0.2; done
  echo "server on $p did not start" >&2; exit 1
}
stat() { redis-cli -p "$1" info stats | tr -d '\r' | sed -n "s/^$2://p"; }

p=$(port); start "$p" "$work/a"
redis-benchmark -p "$p" -q -n "$plain" -r 1000000000 -P 32 -d 50 set key:__rand_int__ __data__ >/dev/null
sleep 3   # the sweep at start
redis-benchmark -p "$p" -q -n "$few" -r 1000000000 set ttl:__rand_int__ v ex 1 >/dev/null
t0=$(date +%s.%N); echo "$(redis-cli -p "$p" dbsize) keys, $few of them with a 1 s TTL"
while :; do
  n=$(stat "$p" expired_keys); t=$(echo "$(date +%s.%N) - $t0" | bc)
  echo "  ${t:0:5} s: expired_keys $n"
  [ "$n" -ge "$few" ] || [ "$(echo "$t > 30" | bc)" = 1 ] && break
  sleep 0.5
done

p=$(port); start "$p" "$work/b" --maxmemory 12mb --maxmemory-policy volatile-lru
redis-benchmark -p "$p" -q -n 3000 -r 1000000000 -P 16 set ttl:__rand_int__ __data__ ex 10000 >/dev/null 2>&1
redis-benchmark -p "$p" -q -n 400000 -r 1000000000 -P 16 -d 100 set plain:__rand_int__ __data__ >/dev/null 2>&1
refused=$(redis-cli -p "$p" set extra "$(head -c 2000 /dev/zero | tr '\0' x)")
echo "volatile-lru, 12mb: $(redis-cli -p "$p" --scan --pattern 'ttl:*' | wc -l) of ~3000 keys with a TTL left, evicted_keys $(stat "$p" evicted_keys); a 2 KB SET: $refused"
