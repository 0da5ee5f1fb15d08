#!/usr/bin/env python3
"""Which methods a *-cost.sh run spent its instructions in.

    KEEP=/tmp/cost OP=get colossal-bench/src/main/sh/map-cost.sh
    colossal-bench/src/main/sh/callgrind-methods.py /tmp/cost [CALLS] [TOP]
    colossal-bench/src/main/sh/callgrind-methods.py /tmp/cost/cg.PID.1-NN [CALLS] [TOP]   (one thread)

Reads the calling thread's callgrind file (the one with the most instructions, dumped per
instruction) and the JIT's symbol map (perf-PID.map, written at exit), and prints the self
instructions per call of every compiled method and stub, most first. JIT code has no symbols of
its own in callgrind; the map names the address ranges of the code alive at exit (what ran hot).
"""
import bisect
import glob
import os
import re
import sys


def totals(path):
    with open(path) as f:
        for line in f:
            if line.startswith('totals:'):
                return int(line.split()[1])
    return 0


def self_costs(path):
    """Self Ir per instruction address, from a callgrind file written with --dump-instr=yes."""
    costs = {}
    addr = 0
    skip_next = False
    position = re.compile(r'^(0x[0-9a-fA-F]+|[+-]\d+|\*)\s')
    with open(path) as f:
        for line in f:
            if line.startswith('calls='):
                skip_next = True  # the next cost line is the call's inclusive cost
                continue
            m = position.match(line)
            if not m:
                continue
            tok = m.group(1)
            if tok.startswith('0x'):
                addr = int(tok, 16)
            elif tok != '*':
                addr += int(tok)
            if skip_next:
                skip_next = False
                continue
            parts = line.split()
            if len(parts) >= 3:
                costs[addr] = costs.get(addr, 0) + int(parts[2])
    return costs


def main():
    keep = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    if os.path.isfile(keep):  # one thread's file (codec-parts.sh keeps one per case)
        thread, keep = keep, os.path.dirname(keep)
    else:
        thread = max(glob.glob(os.path.join(keep, 'cg.*')), key=totals)
    ranges = []
    for mp in glob.glob(os.path.join(keep, 'perf-*.map')):
        with open(mp) as f:
            for line in f:
                start, size, name = line.rstrip('\n').split(' ', 2)
                ranges.append((int(start, 16), int(size, 16), name))
    ranges.sort()
    starts = [r[0] for r in ranges]
    by_name = {}
    for addr, ir in self_costs(thread).items():
        i = bisect.bisect_right(starts, addr) - 1
        name = ranges[i][2] if i >= 0 and addr < ranges[i][0] + ranges[i][1] else '(not JIT code: VM, libc, kernel entry)'
        by_name[name] = by_name.get(name, 0) + ir
    total = sum(by_name.values())
    print(f'{total / calls:10.1f}  instructions per call in {os.path.basename(thread)}')
    for name, ir in sorted(by_name.items(), key=lambda kv: -kv[1])[:top]:
        print(f'{ir / calls:10.1f}  {name[:150]}')


if __name__ == '__main__':
    main()
