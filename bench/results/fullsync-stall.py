#!/usr/bin/env python3
"""Writes during a full sync: one client SETs as fast as it can against the master on PORT while a
redis-server replica (started here on PORT+1, fresh) syncs in full; prints the longest SET, the
SETs done while the replica waited for its snapshot, and how long the sync took.

usage: fullsync-stall.py PORT KEYS   (the master must be running, empty; it is filled with KEYS keys)"""
import subprocess, sys, tempfile, threading, time
import redis

port, keys = int(sys.argv[1]), int(sys.argv[2])
m = redis.Redis(port=port)
m.flushall()
pipe = m.pipeline(transaction=False)
for i in range(keys):
    pipe.set(f"key:{i}", "v" * 20)
    if i % 10000 == 9999:
        pipe.execute()
pipe.execute()
for i in range(200):  # some bigger values too
    m.hset(f"hash:{i}", mapping={f"f{j}": j for j in range(50)})
    m.rpush(f"list:{i}", *range(50))

stop = threading.Event()
lat = []
def writer():
    w = redis.Redis(port=port)
    i = 0
    while not stop.is_set():
        t = time.perf_counter()
        w.set(f"key:{i % keys}", "w" * 20)
        lat.append((t, time.perf_counter() - t))
        i += 7919
threading.Thread(target=writer, daemon=True).start()
time.sleep(1.0)
d = tempfile.mkdtemp()
start = time.perf_counter()
rep = subprocess.Popen(["redis-server", "--port", str(port + 1), "--save", "", "--dir", d,
                        "--replicaof", "127.0.0.1", str(port)], stdout=subprocess.DEVNULL)
try:
    r = redis.Redis(port=port + 1)
    while True:
        try:
            if r.info("replication").get("master_link_status") == "up":
                break
        except redis.ConnectionError:
            pass
        time.sleep(0.005)
    synced = time.perf_counter() - start
    time.sleep(0.5)
    stop.set()
    time.sleep(0.1)
    during = [l for t, l in lat if start <= t <= start + synced]
    worst = max(((l, t - start) for t, l in lat if start <= t <= start + synced), default=(0, 0))
    before = [l for t, l in lat if t < start]
    print(f"keys={keys} sync_s={synced:.2f} sets_during_sync={len(during)} "
          f"max_set_ms_during={1000 * max(during or [0]):.1f} max_set_ms_before={1000 * max(before or [0]):.1f} "
          f"worst_at_s={worst[1]:.2f} replica_dbsize={r.dbsize()} master_dbsize={m.dbsize()}")
finally:
    rep.terminate()
    rep.wait()
