#!/usr/bin/env python3
"""The first write to a big value during a snapshot: against the server on PORT (empty, debug
commands on), a list of ELEMENTS elements and KEYS small keys; a `redis-cli --rdb` slowed by
rdb-key-save-delay so that the builder is still far from the list; then LPUSHes to the list one at a
time. Prints the first LPUSH (which keeps the list's value for the snapshot first) and the median of
the next ones, and the same for a small key's first SET.

usage: snapshot-first-write.py PORT [ELEMENTS] [KEYS]"""
import statistics, subprocess, sys, tempfile, time
import redis

port = int(sys.argv[1])
elements = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
keys = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
r = redis.Redis(port=port)
r.flushall()
pipe = r.pipeline(transaction=False)
for i in range(0, elements, 1000):
    pipe.rpush("biglist", *range(i, min(i + 1000, elements)))
    if i % 100_000 == 0:
        pipe.execute()
pipe.execute()
r.execute_command("DEBUG", "POPULATE", keys)
r.config_set("rdb-key-save-delay", "100")  # 0.1 ms a key: the builder takes tens of seconds
out = tempfile.mktemp(suffix=".rdb")
cli = subprocess.Popen(["redis-cli", "-p", str(port), "--rdb", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    while r.info("persistence").get("rdb_bgsave_in_progress") != 1:
        time.sleep(0.01)
    time.sleep(0.2)
    def timed(f):
        t = time.perf_counter()
        f()
        return 1000 * (time.perf_counter() - t)
    first = timed(lambda: r.lpush("biglist", "x"))
    rest = [timed(lambda: r.lpush("biglist", "x")) for _ in range(20)]
    set_first = timed(lambda: r.set("key:12345", "y"))
    set_rest = [timed(lambda: r.set(f"key:{12345 + 7 * i}", "y")) for i in range(1, 21)]
    print(f"elements={elements} first_lpush_ms={first:.1f} next_lpush_median_ms={statistics.median(rest):.2f} "
          f"first_set_ms={set_first:.2f} next_set_median_ms={statistics.median(set_rest):.2f} "
          f"building={r.info('persistence').get('rdb_bgsave_in_progress')}")
finally:
    cli.kill()
    cli.wait()
    r.config_set("rdb-key-save-delay", "0")
