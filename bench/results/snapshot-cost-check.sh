#!/bin/bash
# snapshot-cost-check.sh A.rdb B.rdb ...: starts redis-server 7.0 on each file (port 7520 on) and prints DBSIZE,
# DEBUG DIGEST (Redis's own digest of every key and value, and of which keys have a TTL) and a few keys of each type.
port=7520
for f in "$@"; do
  d=$(mktemp -d); cp "$f" "$d/dump.rdb"
  redis-server --port $port --bind 127.0.0.1 --dir "$d" --dbfilename dump.rdb --save "" --appendonly no \
    --enable-debug-command local >"$d/log" 2>&1 & p=$!
  for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.2; done
  echo "$f dbsize=$(redis-cli -p $port dbsize) digest=$(redis-cli -p $port debug digest) get=$(redis-cli -p $port get user:0000010)" \
    "hlen=$(redis-cli -p $port hlen h:10) llen=$(redis-cli -p $port llen l:7) zcard=$(redis-cli -p $port zcard z:4)" \
    "xlen=$(redis-cli -p $port xlen x:3) scard=$(redis-cli -p $port scard s:2)"
  kill $p; wait $p 2>/dev/null; rm -rf "$d"; port=$((port + 1))
done
