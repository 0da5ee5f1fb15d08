# Writes RESP commands for the snapshot-cost dataset to stdout (deterministic: seed 32). `strings`: 300k small strings only.
# Used by snapshot-cost.sh: python3 snapshot-cost-data.py [strings] | redis-cli -p PORT --pipe
import random, sys
r = random.Random(32)
out = sys.stdout.buffer
def cmd(*a):
    b = [b"*%d\r\n" % len(a)]
    for x in a:
        x = x if isinstance(x, bytes) else str(x).encode()
        b.append(b"$%d\r\n%s\r\n" % (len(x), x))
    out.write(b"".join(b))
STRINGS_ONLY = len(sys.argv) > 1 and sys.argv[1] == 'strings'   # 300k small strings and nothing else
for i in range(300000 if STRINGS_ONLY else 280000):            # small strings: 10-60 bytes, 1 in 10 a number, 1 in 8 with a TTL
    k = "user:%07d" % i
    v = str(r.randrange(1 << 31)) if i % 10 == 0 else "v" * r.randrange(10, 60)
    if i % 8 == 0:
        cmd("SET", k, v, "EX", 86400 + i)
    else:
        cmd("SET", k, v)
if STRINGS_ONLY:
    sys.exit(0)
for i in range(10000):             # hashes: 9 in 10 of 5 fields (listpack), 1 in 10 of 300 (hashtable)
    n = 300 if i % 10 == 0 else 5
    a = ["HSET", "h:%d" % i]
    for f in range(n):
        a += ["f%d" % f, "val%d" % r.randrange(100000)]
    cmd(*a)
for i in range(5000):              # lists of 3..600 elements
    n = r.choice([3, 10, 50, 600])
    cmd("RPUSH", "l:%d" % i, *["e%d" % r.randrange(1000000) for _ in range(n)])
for i in range(3000):              # sets: intsets of 20, strings of 20, strings of 500
    kind = i % 3
    n = 500 if kind == 2 else 20
    m = [str(r.randrange(10**6)) for _ in range(n)] if kind == 0 else ["m%d" % r.randrange(10**6) for _ in range(n)]
    cmd("SADD", "s:%d" % i, *m)
for i in range(2000):              # sorted sets: 10 members (listpack) or 300 (skiplist)
    n = 300 if i % 4 == 0 else 10
    a = ["ZADD", "z:%d" % i]
    for _ in range(n):
        a += [str(r.randrange(100000) / 7), "zm%d" % r.randrange(10**6)]
    cmd(*a)
for i in range(200):               # streams of 10..200 entries
    for j in range(r.choice([10, 50, 200])):
        cmd("XADD", "x:%d" % i, "%d-1" % (j + 1), "a", str(j), "b", "payload%d" % j)
