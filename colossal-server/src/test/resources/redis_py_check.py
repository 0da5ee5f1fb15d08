"""Drives a Colossal server with redis-py, the Python Redis client. Usage: redis_py_check.py PORT.

Exits 0 after printing one 'ok ...' line per check; any mismatch raises and exits non-zero.
"""
import sys
import time

import redis

port = int(sys.argv[1])
major = int(redis.__version__.split(".")[0])


def check(r, label):
    assert r.ping() is True
    assert r.set("py:k", "v") is True
    assert r.get("py:k") == b"v"
    binary = b"\x00\r\n\xff bytes"
    assert r.set(binary, binary) is True
    assert r.get(binary) == binary
    assert r.set("py:ttl", "x", ex=100) is True
    assert 90 < r.ttl("py:ttl") <= 100
    assert r.incrby("py:n", 5) == 5
    assert r.incrbyfloat("py:n", 0.5) == 5.5
    assert r.mget(["py:k", "py:missing"]) == [b"v", None]
    assert r.exists("py:k", "py:missing") == 1
    assert r.set("py:k", "w", nx=True) is None
    assert r.getdel("py:k") == b"v"
    pipe = r.pipeline(transaction=False)
    for i in range(1000):
        pipe.set("py:p%d" % i, i)
    for i in range(1000):
        pipe.get("py:p%d" % i)
    replies = pipe.execute()
    assert replies[:1000] == [True] * 1000
    assert replies[1000:] == [str(i).encode() for i in range(1000)]
    assert sorted(r.scan_iter(match="py:p99*", count=100)) == sorted(
        [b"py:p99"] + [b"py:p99%d" % i for i in range(10)])
    # the default pipeline is a transaction (MULTI ... EXEC), and r.transaction retries under WATCH
    tx = r.pipeline()
    tx.set("py:t", 1).incr("py:t").get("py:t")
    assert tx.execute() == [True, 2, b"2"]

    def bump(p):
        v = int(p.get("py:t"))
        p.multi()
        p.set("py:t", v + 10)
    r.transaction(bump, "py:t")
    assert r.get("py:t") == b"12"
    r.delete("py:t")
    assert r.delete(*["py:p%d" % i for i in range(1000)]) == 1000
    assert r.flushdb() is True
    assert r.dbsize() == 0
    try:
        r.execute_command("NOSUCH", "x")
        raise AssertionError("an unknown command must fail")
    except redis.ResponseError as e:
        assert str(e).startswith("unknown command 'NOSUCH'"), str(e)
    print("ok %s: set/get/binary/ttl/counters/mget/pipeline(2000)/transactions/scan/errors" % label)


def eventually(condition, what):
    deadline = time.time() + 10
    while not condition():
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.01)


def pubsub_check(r, label):
    """pubsub(): get_message, patterns, PING while subscribed, listen, run_in_thread, and cleanup on close."""
    p = r.pubsub()
    p.subscribe("py:news")
    p.psubscribe("py:n*")
    got = [p.get_message(timeout=5) for _ in range(2)]
    assert [(m["type"], m["channel"], m["data"]) for m in got] == [
        ("subscribe", b"py:news", 1), ("psubscribe", b"py:n*", 2)], got
    assert r.publish("py:news", "hello") == 2  # by the channel and by the pattern
    m = p.get_message(timeout=5)
    assert (m["type"], m["channel"], m["data"]) == ("message", b"py:news", b"hello"), m
    m = p.get_message(timeout=5)
    assert (m["type"], m["pattern"], m["channel"], m["data"]) == ("pmessage", b"py:n*", b"py:news", b"hello"), m
    assert r.pubsub_numsub("py:news", "py:none") == [(b"py:news", 1), (b"py:none", 0)]
    assert r.pubsub_numpat() == 1
    assert r.pubsub_channels("py:*") == [b"py:news"]
    if label == "RESP2":
        p.ping()  # what health_check_interval sends: a subscriber's PING is answered with a "pong" message
        m = p.get_message(timeout=5)
        assert m["type"] == "pong", m
    p.unsubscribe("py:news")
    p.punsubscribe()
    got = [p.get_message(timeout=5) for _ in range(2)]
    assert [(m["type"], m["data"]) for m in got] == [("unsubscribe", 1), ("punsubscribe", 0)], got
    p.close()

    listener = r.pubsub(ignore_subscribe_messages=True)
    listener.subscribe("py:listen")
    eventually(lambda: r.pubsub_numsub("py:listen")[0][1] == 1, "the listener's subscription")
    for i in range(200):
        r.publish("py:listen", str(i))
    received = []
    for m in listener.listen():
        if m["type"] == "message":
            received.append(m["data"])
            if len(received) == 200:
                break
    assert received == [str(i).encode() for i in range(200)], received[:5]
    listener.close()

    handled = []
    worker = r.pubsub(ignore_subscribe_messages=True)
    worker.subscribe(**{"py:thread": lambda m: handled.append(m["data"])})
    thread = worker.run_in_thread(sleep_time=0.01, daemon=True)
    eventually(lambda: r.pubsub_numsub("py:thread")[0][1] == 1, "the thread's subscription")
    for i in range(100):
        r.publish("py:thread", str(i))
    eventually(lambda: len(handled) == 100, "100 messages in run_in_thread")
    assert handled == [str(i).encode() for i in range(100)], handled[:5]
    thread.stop()
    thread.join(5)
    worker.close()
    eventually(lambda: r.pubsub_numsub("py:thread", "py:listen") == [(b"py:thread", 0), (b"py:listen", 0)],
               "closed subscribers to leave their channels")
    print("ok %s pubsub: subscribe/psubscribe/get_message/ping/listen(200)/run_in_thread(100)/cleanup" % label)


def check_lock(r, label):
    """redis-py's Lock: SET NX PX to acquire, Lua scripts (EVALSHA) to extend, reacquire and release."""
    lock = r.lock("py:lock", timeout=10)
    assert lock.acquire(blocking=False) is True
    assert r.lock("py:lock", timeout=10).acquire(blocking=False) is False
    assert lock.extend(5) is True
    assert 10000 < r.pttl("py:lock") <= 15000, r.pttl("py:lock")
    assert lock.reacquire() is True
    assert 9000 < r.pttl("py:lock") <= 10000, r.pttl("py:lock")
    assert lock.owned() is True
    r.set("py:lock", "someone else's token")
    try:
        lock.release()
        raise AssertionError("releasing a lock another client holds must fail")
    except redis.exceptions.LockNotOwnedError:
        pass
    assert r.get("py:lock") == b"someone else's token"
    r.delete("py:lock")
    with r.lock("py:lock", timeout=5, blocking_timeout=1):
        assert r.exists("py:lock") == 1
    assert r.exists("py:lock") == 0
    # after SCRIPT FLUSH, EVALSHA answers NOSCRIPT and redis-py loads the script again
    assert r.script_flush() is True
    again = r.lock("py:lock", timeout=5)
    assert again.acquire(blocking=False) is True
    again.release()
    assert r.exists("py:lock") == 0
    print("ok %s: Lock acquire/extend/reacquire/release (EVALSHA, NOSCRIPT then reload)" % label)


def hash_check(r, label):
    assert r.hset("py:h", mapping={"name": "ann", "age": 42}) == 2
    assert r.hset("py:h", "age", 43) == 0
    assert r.hget("py:h", "name") == b"ann"
    assert r.hgetall("py:h") == {b"name": b"ann", b"age": b"43"}
    assert r.hkeys("py:h") == [b"name", b"age"]
    assert r.hmget("py:h", ["name", "nosuch"]) == [b"ann", None]
    assert r.hincrby("py:h", "age", 2) == 45
    assert r.hincrbyfloat("py:h", "score", 1.5) == 1.5
    assert r.hexists("py:h", "score") and r.hlen("py:h") == 3 and r.hstrlen("py:h", "name") == 3
    assert r.hsetnx("py:h", "name", "bob") == 0
    assert r.hdel("py:h", "score", "nosuch") == 1
    assert r.hrandfield("py:h") in (b"name", b"age")
    assert len(r.hrandfield("py:h", -5)) == 5 and len(r.hrandfield("py:h", 5)) == 2
    assert dict(r.hscan_iter("py:h")) == {b"name": b"ann", b"age": b"45"}
    big = {"f%d" % i: i for i in range(1000)}
    r.hset("py:big", mapping=big)
    assert len(dict(r.hscan_iter("py:big", count=100))) == 1000
    assert r.type("py:h") == b"hash" and r.object("encoding", "py:h") == b"listpack"
    try:
        r.get("py:h")
        raise AssertionError("GET of a hash must fail")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), str(e)
    assert r.delete("py:h", "py:big") == 2
    print("ok %s hashes: hset/hget/hgetall/hmget/hincrby(float)/hrandfield/hscan_iter/WRONGTYPE" % label)


def list_check(r, label):
    assert r.rpush("py:q", "a", "b", "c") == 3 and r.lpush("py:q", "z") == 4
    assert r.lrange("py:q", 0, -1) == [b"z", b"a", b"b", b"c"]
    assert r.lpop("py:q") == b"z" and r.rpop("py:q", 2) == [b"c", b"b"] and r.llen("py:q") == 1
    assert r.lpop("py:none") is None and r.lpop("py:none", 2) is None
    assert r.linsert("py:q", "BEFORE", "a", "x") == 2 and r.lindex("py:q", 0) == b"x"
    assert r.lset("py:q", 1, "y") is True and r.lrem("py:q", 0, "x") == 1 and r.lpos("py:q", "y") == 0
    assert r.rpush("py:q", *range(10)) == 11 and r.ltrim("py:q", 1, 5) is True and r.llen("py:q") == 5
    assert r.type("py:q") == b"list" and r.object("encoding", "py:q") == b"quicklist"
    assert r.lmpop(2, "py:none", "py:q", direction="RIGHT", count=2) == [b"py:q", [b"4", b"3"]]
    # RQ's and Celery's queue moves: a worker's BRPOP, BLMOVE to a processing list, LREM when done
    r.delete("py:queue", "py:processing")
    assert r.brpop(["py:queue"], timeout=0.05) is None
    r.lpush("py:queue", "job-1", "job-2")
    assert tuple(r.brpop(["py:none", "py:queue"], timeout=1)) == (b"py:queue", b"job-1")  # a list in RESP3
    assert r.blmove("py:queue", "py:processing", 1, "RIGHT", "LEFT") == b"job-2"
    assert r.lmove("py:processing", "py:processing", "LEFT", "RIGHT") == b"job-2"
    assert r.lrem("py:processing", 1, "job-2") == 1 and r.exists("py:queue", "py:processing") == 0
    assert r.blpop(["py:queue"], timeout=0.05) is None
    try:
        r.get("py:q")
        raise AssertionError("GET of a list must fail")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), str(e)
    assert r.delete("py:q") == 1
    print("ok %s lists: push/pop/lrange/linsert/lset/lrem/lpos/ltrim/lmpop, BRPOP/BLMOVE/LMOVE/LREM queue moves" % label)


def stream_check(r, label):
    r.delete("py:s", "py:results")
    # RQ 3's job results: XADD with MAXLEN ~ to a per-job stream, XREVRANGE COUNT 1 to read the latest
    first = r.xadd("py:results", {"type": "1", "return_value": "42"}, maxlen=10, approximate=True)
    assert r.xadd("py:results", {"type": "2", "exc_string": "boom"}, maxlen=10, approximate=True) > first
    latest = r.xrevrange("py:results", "+", "-", count=1)
    assert latest[0][1] == {b"type": b"2", b"exc_string": b"boom"}, latest
    assert r.xlen("py:results") == 2 and r.type("py:results") == b"stream"
    assert r.xadd("py:s", {"f": "v"}, id="1-1") == b"1-1" and r.xadd("py:s", {"g": "w"}, id="2-*") == b"2-0"
    assert [e[0] for e in r.xrange("py:s", min="(1-1")] == [b"2-0"]
    read = r.xread({"py:s": "0", "py:none": "$"}, count=1)
    entries = read[b"py:s"][0] if isinstance(read, dict) else read[0][1]  # a map in RESP3
    assert entries == [(b"1-1", {b"f": b"v"})], read
    assert r.xread({"py:s": "$"}, block=50) in (None, [], {})
    assert r.xtrim("py:s", maxlen=1, approximate=False) == 1 and r.xdel("py:s", "2-0") == 1 and r.xlen("py:s") == 0
    info = r.xinfo_stream("py:s")
    assert info["length"] == 0 and info["last-generated-id"] == b"2-0" and info["max-deleted-entry-id"] == b"2-0", info
    try:
        r.xadd("py:s", {"f": "v"}, id="1-0")
        raise AssertionError("an ID below the top must be refused")
    except redis.ResponseError as e:
        assert "equal or smaller than the target stream top item" in str(e), str(e)
    assert r.delete("py:s", "py:results") == 2
    print("ok %s streams: RQ-style XADD MAXLEN ~ and XREVRANGE, XRANGE, XREAD, XTRIM, XDEL, XINFO" % label)


def set_check(r, label):
    assert r.sadd("py:s", "a", "b", "c") == 3
    assert r.sadd("py:s", "a", "d") == 1
    assert r.smembers("py:s") == {b"a", b"b", b"c", b"d"}
    assert r.sismember("py:s", "a") and not r.sismember("py:s", "z")
    assert r.smismember("py:s", ["a", "z"]) in ([1, 0], [True, False])
    assert r.scard("py:s") == 4
    assert r.srem("py:s", "d", "z") == 1
    assert r.srandmember("py:s") in (b"a", b"b", b"c")
    assert len(r.srandmember("py:s", -5)) == 5 and set(r.srandmember("py:s", 5)) == {b"a", b"b", b"c"}
    assert r.sadd("py:t", "b", "c", "e") == 3
    assert r.sinter("py:s", "py:t") == {b"b", b"c"}
    assert r.sunion("py:s", "py:t") == {b"a", b"b", b"c", b"e"}
    assert r.sdiff("py:s", "py:t") == {b"a"}
    assert r.sintercard(2, ["py:s", "py:t"], limit=1) == 1
    assert r.sinterstore("py:u", "py:s", "py:t") == 2 and r.smembers("py:u") == {b"b", b"c"}
    assert r.smove("py:t", "py:s", "e") is True and r.sismember("py:s", "e")
    assert set(r.sscan_iter("py:s")) == {b"a", b"b", b"c", b"e"}
    r.sadd("py:big", *range(1000))
    assert len(set(r.sscan_iter("py:big", count=100))) == 1000
    assert r.object("encoding", "py:big") == b"hashtable"
    popped = r.spop("py:big", 10)
    assert len(set(popped)) == 10 and r.scard("py:big") == 990
    assert r.type("py:s") == b"set" and r.object("encoding", "py:u") == b"hashtable"
    r.sadd("py:i", 3, 1, 2)
    assert r.object("encoding", "py:i") == b"intset"
    try:
        r.get("py:s")
        raise AssertionError("GET of a set must fail")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), str(e)
    assert r.delete("py:s", "py:t", "py:u", "py:big", "py:i") == 5
    print("ok %s sets: sadd/srem/smembers/smismember/srandmember/sinter(card,store)/sunion/sdiff/smove/spop/sscan_iter/WRONGTYPE" % label)


def zset_check(r, label):
    def pairs(v):  # RESP3 gives each (member, score) as a list
        return [tuple(x) for x in v]
    assert r.zadd("py:z", {"ann": 10, "bob": 20.5, "cy": -3}) == 3
    assert r.zadd("py:z", {"ann": 11}, gt=True, ch=True) == 1
    assert r.zscore("py:z", "ann") == 11.0 and r.zscore("py:z", "nosuch") is None
    assert r.zrange("py:z", 0, -1) == [b"cy", b"ann", b"bob"]
    assert pairs(r.zrange("py:z", 0, -1, withscores=True)) == [(b"cy", -3.0), (b"ann", 11.0), (b"bob", 20.5)]
    assert pairs(r.zrevrange("py:z", 0, 0, withscores=True)) == [(b"bob", 20.5)]
    assert r.zrangebyscore("py:z", "(0", "+inf", start=0, num=1) == [b"ann"]
    assert r.zrange("py:z", "+inf", "-inf", byscore=True, desc=True, offset=0, num=2) == [b"bob", b"ann"]
    assert r.zincrby("py:z", 0.5, "ann") == 11.5
    assert r.zrank("py:z", "ann") == 1 and r.zrevrank("py:z", "ann") == 1 and r.zcard("py:z") == 3
    assert r.zcount("py:z", 0, 100) == 2 and r.zmscore("py:z", ["ann", "nosuch"]) == [11.5, None]
    assert r.zunionstore("py:z2", ["py:z", "py:z"], aggregate="MAX") == 3
    assert pairs(r.zinter(["py:z", "py:z2"], withscores=True))[0] == (b"cy", -6.0)
    assert pairs(r.zpopmax("py:z2", 1)) == [(b"bob", 20.5)]
    assert dict(r.zscan_iter("py:z")) == {b"cy": -3.0, b"ann": 11.5, b"bob": 20.5}
    assert r.zrandmember("py:z") in (b"cy", b"ann", b"bob") and len(r.zrandmember("py:z", -5)) == 5
    r.zadd("py:lex", {"a": 0, "b": 0, "c": 0})
    assert r.zrangebylex("py:lex", "[b", "+") == [b"b", b"c"] and r.zlexcount("py:lex", "-", "(c") == 2
    assert r.zrem("py:z", "cy", "nosuch") == 1 and r.zremrangebyscore("py:z", "-inf", 12) == 1
    assert r.type("py:z") == b"zset" and r.object("encoding", "py:z") == b"listpack"
    # a script sees scores as strings, as in Redis
    assert r.eval("return redis.call('zscore', KEYS[1], 'bob')", 1, "py:z") == b"20.5"
    try:
        r.get("py:z")
        raise AssertionError("GET of a sorted set must fail")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), str(e)
    assert r.delete("py:z", "py:z2", "py:lex") == 3
    print("ok %s sorted sets: zadd/zscore/zrange(withscores, byscore)/zincrby/zunionstore/zinter/zpop/zscan_iter/"
          "zrandmember/bylex/WRONGTYPE" % label)


r2 = redis.Redis(host="127.0.0.1", port=port)
check(r2, "RESP2")
hash_check(r2, "RESP2")
list_check(r2, "RESP2")
stream_check(r2, "RESP2")
set_check(r2, "RESP2")
zset_check(r2, "RESP2")
pubsub_check(r2, "RESP2")
check_lock(r2, "RESP2")
if major >= 5:
    r3 = redis.Redis(host="127.0.0.1", port=port, protocol=3)
    check(r3, "RESP3")
    hash_check(r3, "RESP3")
    list_check(r3, "RESP3")
    stream_check(r3, "RESP3")
    set_check(r3, "RESP3")
    zset_check(r3, "RESP3")
    pubsub_check(r3, "RESP3")
    check_lock(r3, "RESP3")
    hello = r3.execute_command("HELLO", "3")
    assert hello[b"proto"] == 3 and hello[b"server"] == b"redis", hello
    assert r3.ttl("nothing") == -2
else:
    print("skip RESP3: redis-py %s has no protocol=3 (needs 5.0+)" % redis.__version__)
# a database named in the URL, as Django's cache (db 1), Celery or Sidekiq (redis://host/2) give it:
# every connection of the pool SELECTs it
one = redis.Redis.from_url("redis://127.0.0.1:%d/1" % port)
zero = redis.Redis.from_url("redis://127.0.0.1:%d/0" % port)
assert one.set("py:db", "one") is True
assert zero.set("py:db", "zero") is True
assert one.get("py:db") == b"one" and zero.get("py:db") == b"zero"
pipe = one.pipeline()
pipe.incr("py:n").incr("py:n")
assert pipe.execute() == [1, 2]
assert one.dbsize() == 2 and zero.dbsize() == 1
assert one.flushdb() is True and zero.get("py:db") == b"zero"
try:
    redis.Redis.from_url("redis://127.0.0.1:%d/16" % port).ping()
    raise AssertionError("database 16 must be refused")
except redis.ResponseError as e:
    assert str(e) == "DB index is out of range", str(e)
zero.flushall()
print("ok redis://host:port/N: the URL's database, isolated from database 0")
print("redis-py", redis.__version__, "passed")
