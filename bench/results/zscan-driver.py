#!/usr/bin/env python3
"""A bare RESP client for zscan-cost.sh (no redis-py on the bench machine).

  zscan-driver.py fill PORT KEY N          ZADD KEY i member:i for i < N, 1000 a command, pipelined
  zscan-driver.py zscan PORT KEY COUNT [MAX]  ZSCAN KEY from 0 until the cursor is 0 (or MAX calls);
                                           prints calls, members, seconds
  zscan-driver.py zscanw PORT KEY COUNT [MAX] the same with a ZADD of a new member before each
                                           call after the first (the set written between steps)
"""
import socket
import sys
import time


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb", buffering=1 << 16)

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))

    def reply(self):
        line = self.f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind in (b"+", b":"):
            return rest
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError("unexpected reply " + repr(line))


def fill(port, key, n):
    c = Conn(port)
    sent = 0
    batches = 0
    for start in range(0, n, 1000):
        args = ["ZADD", key]
        for i in range(start, min(n, start + 1000)):
            args += [i, "member:%d" % i]
        c.send(*args)
        batches += 1
        if batches % 16 == 0:
            for _ in range(16):
                c.reply()
            batches = 0
        sent += 1
    for _ in range(batches):
        c.reply()


def zscan(port, key, count, most, writes=False):
    c = Conn(port)
    cursor = b"0"
    calls = members = 0
    t0 = time.monotonic()
    while True:
        if writes and calls > 0:
            c.send("ZADD", key, calls, "written:%d" % calls)
            c.reply()
        c.send("ZSCAN", key, cursor, "COUNT", count)
        cursor, found = c.reply()
        calls += 1
        members += len(found) // 2
        if cursor == b"0" or (most and calls >= most):
            break
    print(calls, members, "%.3f" % (time.monotonic() - t0))


if __name__ == "__main__":
    cmd, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if cmd == "fill":
        fill(port, key, int(sys.argv[4]))
    else:
        zscan(port, key, int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 0, cmd == "zscanw")
