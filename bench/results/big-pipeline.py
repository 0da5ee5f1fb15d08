# One redis-py pipeline of N GETs of a 1,000-byte value, sent whole and then read (as redis-py does).
# usage: python3 bench/results/big-pipeline.py PORT N
import redis, sys, time
r = redis.Redis(port=int(sys.argv[1]), socket_timeout=60)
r.set("v", "x" * 1000)
p = r.pipeline(transaction=False)
n = int(sys.argv[2])
for i in range(n):
    p.get("v")
t = time.time()
try:
    out = p.execute()
    print(sys.argv[1], "replies", len(out), "ok" if all(len(x) == 1000 for x in out) else "BAD", "%.2fs" % (time.time() - t))
except Exception as e:
    print(sys.argv[1], "failed after %.1fs:" % (time.time() - t), type(e).__name__, e)
