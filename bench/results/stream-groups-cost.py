"""Drives one consumer-group run for stream-groups-cost.sh: reads a stream through a group, COUNT
entries a call, and acknowledges what each call read, calls pipelined DEPTH deep, until CALLS reads
are done (the group moves back to 0 with XGROUP SETID when the stream runs out, the pending list
being empty then). Prints the server's CPU per read+ack pair, in microseconds, summed over the
server's threads from /proc/PID/task/*/schedstat (nanoseconds, unlike /proc/PID/stat's 10 ms ticks).
    python3 stream-groups-cost.py PORT PID CALLS [DEPTH] [COUNT]
"""
import os
import sys

import redis


def cpu_ns(pid):
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def main():
    port, pid, calls = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    r = redis.Redis(port=port)
    done = 0
    c0 = cpu_ns(pid)
    while done < calls:
        p = r.pipeline(transaction=False)
        for _ in range(depth):
            p.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", count, "STREAMS", "s", ">")
        replies = p.execute()
        p = r.pipeline(transaction=False)
        acks = 0
        for rep in replies:
            if not rep:
                continue
            ids = [e[0] for e in rep[0][1]]
            p.execute_command("XACK", "s", "g", *ids)
            acks += 1
        if acks:
            p.execute()
        if acks < depth:
            r.execute_command("XGROUP", "SETID", "s", "g", "0")
        done += depth
    c1 = cpu_ns(pid)
    print("%.3f" % ((c1 - c0) / 1e3 / done))


main()
