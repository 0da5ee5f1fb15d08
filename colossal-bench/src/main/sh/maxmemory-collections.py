"""Fills a server bounded by --maxmemory far past its bound with collections, then reads back every key left.

Usage: python3 maxmemory-collections.py PORT list|hash|zset [KEYS]
  list: KEYS lists of 100 x 1000-byte elements; hash: KEYS hashes of 600 x 200-byte fields;
  zset: KEYS sorted sets of 1000 x 60-byte members. Prints the time taken, used_memory against
  maxmemory, the keys left, how many of them read whole, and evicted_keys (cumulative).
Run it against redis-server and colossal serve started with the same --maxmemory (see
bench/results/maxmemory-collections.md). Needs redis-py. It FLUSHALLs the server first.
"""
import redis, sys, time
port = int(sys.argv[1]); kind = sys.argv[2]
r = redis.Redis(port=port)
r.flushall()
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
el = lambda k, i: (f"{k}#{i}:" + "x" * 1000)[:1000]
t0 = time.time()
for k in range(n):
    key = f"{kind}:{k}"
    p = r.pipeline(transaction=False)
    if kind == "list":
        for i in range(100): p.rpush(key, el(key, i))
    elif kind == "hash":
        p.hset(key, mapping={f"f{i}": el(key, i)[:200] for i in range(600)})
    elif kind == "zset":
        p.zadd(key, {el(key, i)[:60]: i for i in range(1000)})
    p.execute()
dt = time.time() - t0
mem = r.info("memory"); st = r.info("stats")
left = r.dbsize()
whole = 0
for k in range(n):
    key = f"{kind}:{k}"
    if kind == "list":
        v = r.lrange(key, 0, -1)
        if v and len(v) == 100 and all(v[i].decode() == el(key, i) for i in range(100)): whole += 1
    elif kind == "hash":
        if r.hlen(key) == 600 and r.hget(key, "f599").decode() == el(key, 599)[:200]: whole += 1
    elif kind == "zset":
        if r.zcard(key) == 1000: whole += 1
print(f"{kind}: {n} keys written in {dt:.1f} s; used_memory {mem['used_memory']/1048576:.1f} MiB of maxmemory {mem['maxmemory']/1048576:.0f}; keys left {left}, whole {whole}, evicted_keys {st['evicted_keys']}")
